// The arguments of one call of a kernel from Python: views of its inputs (NumPy arrays, SciPy csr
// matrices, DLPack capsules) and of the result arrays allocated for the call, with the Python
// objects that own their memory. Arrays whose layout the kernel takes are passed by pointer;
// others are converted once, and the bytes those copies hold are counted (docs/python.md,
// "Copies").
#pragma once

#include "lower/lower.hpp"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <map>
#include <string>
#include <vector>

namespace react::python {

namespace py = pybind11;

class CallArguments {
 public:
  explicit CallArguments(const Kernel& kernel) : kernel_(kernel) {}
  // `value`: a DLPack capsule (dense), a DLPackCsr (dlpack.hpp), an object with SciPy's csr
  // attributes (shape, indptr, indices, data), or anything NumPy reads as an array (dense).
  void addInput(const std::string& name, py::handle value);
  // Allocates every result the inputs call for, in Kernel::resultsFor's order: NumPy arrays on
  // the host (a csr result's values only), DLPack capsules of device memory on a device. With
  // `copyPatterns`, a csr result whose pattern is an input with SciPy's attributes comes as
  // (values, indices, indptr), the latter copies of that input's arrays of their own types (the
  // result's pattern), made where the check has just read them: on cora's 10556 entries about 2
  // us, against 3 us for NumPy's copies after the kernel has filled the caches, and the Python
  // calls around those.
  py::list allocateResults(bool copyPatterns);

  // Copies of the inputs as react's tensors (a csr view's arrays, a dense view's values), for a
  // kernel that assembles a result's pattern from its operands (co-iteration: Kernel::bind
  // assembles it); their bytes are counted in copiedBytes. react::UserError for an input in device
  // memory, which the host cannot read.
  TensorValues inputCopies();

  const TensorViews& views() const { return views_; }
  int64_t copiedBytes() const { return copiedBytes_; }

 private:
  TensorView denseView(const std::string& name, py::handle value, ValueType type);
  TensorView csrView(const std::string& name, py::handle matrix, ValueType type);
  // A csr input's positions as int64 (an int64 vector in place, other integers widened: counted),
  // kept alive for the call.
  const int64_t* positions(const std::string& name, const py::array& indptr);
  // The array NumPy makes of `value` with element type T, C-contiguous: `value` itself where it
  // already is one, else a copy (counted); kept alive for the call. react::UserError naming the
  // input (and `part` of it: " (its indices)") when NumPy cannot read it so.
  template <typename T>
  py::array_t<T> hostArray(const std::string& name, const char* part, py::handle value);
  // The values of an input, of `type` (hostArray), at least `minimumSize` of them in a vector
  // unless it is negative; their array in *array.
  void* hostValues(const std::string& name, const char* part, py::handle value, ValueType type, int64_t minimumSize,
                   py::array* array);
  void keep(py::object owner) { owners_.push_back(std::move(owner)); }
  // (values, copies of the indices and indptr of `result`'s pattern input); react::UserError when
  // that input was no SciPy csr matrix.
  py::tuple withPatternCopies(const ResultLayout& result, const py::array& values) const;

  // The indptr and indices a csr input was given with, by name (inputs with SciPy's attributes).
  struct GivenPattern {
    py::array indptr, indices;
  };

  const Kernel& kernel_;
  TensorViews views_;
  std::vector<py::object> owners_;
  std::map<std::string, GivenPattern> givenPatterns_;
  int64_t copiedBytes_ = 0;
  int deviceId_ = 0;  // of the device views, where results are allocated
};

}  // namespace react::python
