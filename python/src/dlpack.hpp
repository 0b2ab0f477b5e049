// DLPack (Debian's dlpack.h, v0.6): tensors of other libraries (PyTorch) read in place, in host
// or CUDA memory, and results in device memory handed to them as capsules (docs/python.md,
// "PyTorch and DLPack").
#pragma once

#include "lower/lower.hpp"

#include <dlpack/dlpack.h>
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

namespace react::python {

namespace py = pybind11;

// The tensor of an unused DLPack capsule ("dltensor"), borrowed: the capsule owns it.
struct DLPackArray {
  void* data = nullptr;  // byte_offset applied
  std::vector<int64_t> shape;
  DLDataType dtype{};
  MemorySpace memory = MemorySpace::Host;
  int deviceId = 0;
  int64_t size() const;  // elements
};
bool isDLPackCapsule(py::handle value);
// Refuses (react::UserError naming `what`) a used capsule, strides that are not row-major and
// compact, and memory other than the host's or a CUDA device's.
DLPackArray readDLPack(const std::string& what, py::handle capsule);
// Its element type is a value type's (float32 or float64) or an integer of `bits` bits.
bool holdsValues(const DLPackArray& a, ValueType type);
bool holdsIntegers(const DLPackArray& a, int bits);
std::string dtypeText(DLDataType t);  // "float32", "int64", ...

// A csr matrix as three DLPack capsules, built by the Python side from a torch sparse CSR tensor:
// rows+1 int64 positions, int32 coordinates, values.
struct DLPackCsr {
  int64_t rows = 0, cols = 0;
  py::object positions, coordinates, values;
};

// Device memory from the kernel library's runtime for a tensor of `shape` and `type` on CUDA
// device `deviceId`, as a DLPack capsule: released with the capsule, or by its consumer.
struct DeviceArray {
  py::capsule capsule;
  void* data = nullptr;
  int64_t elements = 0;
};
DeviceArray deviceArray(const KokkosRuntime& runtime, const std::vector<int64_t>& shape, ValueType type, int deviceId,
                        const std::string& what);

}  // namespace react::python
