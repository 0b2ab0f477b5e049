// Python objects as kernel arguments: in place where their layout is the kernel's, else one
// counted conversion (docs/python.md, "Copies").
#include "arguments.hpp"

#include "dlpack.hpp"

#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>
#include <limits>

namespace react::python {

namespace {

constexpr int64_t kMaxCoordinate = std::numeric_limits<int32_t>::max();

std::string dtypeOf(const py::array& a) { return py::str(a.dtype()).cast<std::string>(); }

bool integers(const py::array& a) { return a.dtype().kind() == 'i' || a.dtype().kind() == 'u'; }

std::string inputText(const std::string& name, const char* part) { return "input '" + name + "'" + part; }

// A new C-contiguous array of the first n elements of the vector `a`, of a's type.
py::array copyOfFirst(const py::array& a, py::ssize_t n) {
  if (!(a.flags() & py::array::c_style)) return a[py::slice(0, n, 1)].attr("copy")();
  py::array copy(a.dtype(), std::vector<py::ssize_t>{n});
  std::memcpy(copy.mutable_data(), a.data(), static_cast<size_t>(n) * a.itemsize());
  return copy;
}

}  // namespace

template <typename T>
py::array_t<T> CallArguments::hostArray(const std::string& name, const char* part, py::handle value) {
  auto converted = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(value);
  if (!converted) {
    PyErr_Clear();
    const std::string given = py::isinstance<py::array>(value)
                                  ? "an array of " + dtypeOf(py::reinterpret_borrow<py::array>(value))
                                  : "a " + py::str(py::type::of(value).attr("__qualname__")).cast<std::string>();
    throw UserError(inputText(name, part) + ": NumPy cannot read " + given + " as " +
                    py::str(py::dtype::of<T>()).cast<std::string>() + " values");
  }
  // An ndarray of the right type and layout comes back as itself, or as a view of its data (an
  // ndarray subclass such as np.matrix); anything else is a new array.
  bool sameData = py::isinstance<py::array>(value) && py::reinterpret_borrow<py::array>(value).data() == converted.data();
  if (!sameData) copiedBytes_ += converted.nbytes();
  keep(converted);
  return converted;
}

void* CallArguments::hostValues(const std::string& name, const char* part, py::handle value, ValueType type,
                                int64_t minimumSize, py::array* array) {
  // NumPy would drop the imaginary parts.
  if (py::isinstance<py::array>(value) && py::reinterpret_borrow<py::array>(value).dtype().kind() == 'c')
    throw UserError(inputText(name, part) + ": complex values (react computes on float32 and float64 values)");
  if (type == ValueType::Float32) *array = hostArray<float>(name, part, value);
  else *array = hostArray<double>(name, part, value);
  if (minimumSize >= 0 && (array->ndim() != 1 || array->shape(0) < minimumSize))
    throw UserError(inputText(name, part) + ": expected a vector of at least " + std::to_string(minimumSize) + " values");
  return const_cast<void*>(array->data());  // inputs are read only: read-only arrays are fine
}

TensorView CallArguments::denseView(const std::string& name, py::handle value, ValueType type) {
  TensorView v;
  v.valueType = type;
  py::array array;
  v.data.vals = hostValues(name, "", value, type, -1, &array);
  v.shape.assign(array.shape(), array.shape() + array.ndim());
  v.data.nnz = array.size();
  return v;
}

const int64_t* CallArguments::positions(const std::string& name, const py::array& indptr) {
  // SciPy's int32 positions (its matrices' usual type) widen here in one pass: NumPy's conversion
  // took 2 us for cora's 2709.
  if (py::isinstance<py::array_t<int32_t, py::array::c_style>>(indptr)) {
    const auto* from = static_cast<const int32_t*>(indptr.data());
    const py::ssize_t n = indptr.shape(0);
    py::array_t<int64_t> wide(n);
    std::copy(from, from + n, wide.mutable_data());
    copiedBytes_ += wide.nbytes();
    keep(wide);
    return wide.data();
  }
  return hostArray<int64_t>(name, " (its indptr)", indptr).data();  // kept by hostArray
}

TensorView CallArguments::csrView(const std::string& name, py::handle matrix, ValueType type) {
  auto what = [&] { return inputText(name, ""); };  // built only for an error: this runs at every call
  TensorView v;
  v.csr = true;
  v.valueType = type;
  auto shape = matrix.attr("shape").cast<std::vector<int64_t>>();
  if (shape.size() != 2) throw UserError(what() + ": a csr matrix of rank " + std::to_string(shape.size()));
  const int64_t rows = shape[0], cols = shape[1];
  if (cols > kMaxCoordinate + 1)
    throw UserError(what() + ": " + std::to_string(cols) + " columns do not fit react's 32-bit column coordinates");
  v.shape = {rows, cols};

  py::array indptr = py::array::ensure(matrix.attr("indptr"));
  if (!indptr || !integers(indptr) || indptr.ndim() != 1 || indptr.shape(0) != rows + 1)
    throw UserError(what() + ": indptr must be rows+1 = " + std::to_string(rows + 1) + " integers");
  v.data.pos[1] = positions(name, indptr);  // csr's column level
  const int64_t nnz = v.data.pos[1][rows];

  py::array indices = py::array::ensure(matrix.attr("indices"));
  if (!indices || !integers(indices) || indices.ndim() != 1)
    throw UserError(what() + ": indices must be a vector of integers, not " + (indices ? dtypeOf(indices) : "that"));
  if (nnz < 0 || indices.shape(0) < nnz)
    throw UserError(what() + ": indptr[-1] is " + std::to_string(nnz) + " but indices has " + std::to_string(indices.shape(0)) +
                    " entries");
  if (py::isinstance<py::array_t<int32_t, py::array::c_style>>(indices)) {
    v.data.crd[1] = static_cast<const int32_t*>(indices.data());
    keep(indices);
  } else {  // other integers narrow to int32, each checked: one that does not fit is no column
    py::array_t<int64_t> wide = hostArray<int64_t>(name, " (its indices)", indices);
    py::array_t<int32_t> narrow(nnz);
    const int64_t* from = wide.data();
    int32_t* to = narrow.mutable_data();
    for (int64_t k = 0; k < nnz; ++k) {
      if (from[k] < 0 || from[k] > kMaxCoordinate)
        throw UserError(what() + ": column index " + std::to_string(from[k]) + " (entry " + std::to_string(k) +
                        ") is outside 0.." + std::to_string(cols - 1));
      to[k] = static_cast<int32_t>(from[k]);
    }
    copiedBytes_ += narrow.nbytes();
    keep(narrow);
    v.data.crd[1] = narrow.data();
  }
  py::array values;
  v.data.vals = hostValues(name, " (its data)", matrix.attr("data"), type, nnz, &values);
  v.data.nnz = nnz;
  try {
    checkCsrView(name, v);
  } catch (const UserError& e) {
    const std::string message = e.what();
    if (message.find("unsorted") == std::string::npos && message.find("duplicate") == std::string::npos) throw;
    throw UserError(message + " (SciPy: sum_duplicates() sorts a matrix's columns and merges duplicates)");
  }
  givenPatterns_[name] = {indptr, indices};
  return v;
}

void CallArguments::addInput(const std::string& name, py::handle value) {
  const TensorDecl& decl = kernel_.tree().tensor(name).decl;
  auto what = [&] { return inputText(name, ""); };
  TensorView v;
  if (isDLPackCapsule(value)) {
    DLPackArray a = readDLPack(what(), value);
    if (!holdsValues(a, decl.valueType))
      throw UserError(what() + ": DLPack " + dtypeText(a.dtype) + " values, the kernel takes " + toString(decl.valueType));
    v.shape = a.shape;
    v.valueType = decl.valueType;
    v.memory = a.memory;
    v.data = ReactTensor{a.data, a.size(), {}, {}, nullptr};
    deviceId_ = a.deviceId;
  } else if (py::isinstance<DLPackCsr>(value)) {
    const DLPackCsr& m = value.cast<const DLPackCsr&>();
    DLPackArray pos = readDLPack(what() + " positions", m.positions), crd = readDLPack(what() + " coordinates", m.coordinates),
                vals = readDLPack(what() + " values", m.values);
    if (!holdsIntegers(pos, 64) || !holdsIntegers(crd, 32) || !holdsValues(vals, decl.valueType))
      throw UserError(what() + ": DLPack csr of " + dtypeText(pos.dtype) + " positions, " + dtypeText(crd.dtype) +
                      " coordinates and " + dtypeText(vals.dtype) + " values; the kernel takes int64, int32 and " +
                      toString(decl.valueType));
    if (pos.size() != m.rows + 1 || crd.size() != vals.size() || pos.memory != vals.memory || crd.memory != vals.memory)
      throw UserError(what() + ": DLPack csr arrays of inconsistent sizes or memory");
    v.csr = true;
    v.shape = {m.rows, m.cols};
    v.valueType = decl.valueType;
    v.memory = vals.memory;
    v.data = ReactTensor{vals.data, vals.size(), {}, {}, nullptr};
    v.data.pos[1] = static_cast<const int64_t*>(pos.data);  // csr's column level
    v.data.crd[1] = static_cast<const int32_t*>(crd.data);
    deviceId_ = vals.deviceId;
    checkCsrView(name, v);
  } else if (!py::isinstance<py::array>(value) && py::hasattr(value, "indptr")) {  // no AttributeError for arrays
    v = csrView(name, value, decl.valueType);
  } else {
    v = denseView(name, value, decl.valueType);
  }
  // A kernel that assembles a result's pattern runs on host copies of its inputs, which
  // Kernel::bind takes to the kernel's memory (inputCopies).
  if (v.memory != kernel_.memory() && kernel_.loops().assembledPatterns.empty()) {
    if (v.memory == MemorySpace::Device)
      throw UserError(what() + " is in CUDA device memory, but this kernel runs on the host: CUDA tensors need "
                      "target='kokkos' with react built against a CUDA Kokkos (docs/python.md)");
    throw UserError(what() + " is in host memory, but this kernel runs on a device: pass tensors on the device "
                    "(torch.cuda)");
  }
  views_[name] = std::move(v);
}

TensorValues CallArguments::inputCopies() {
  TensorValues copies;
  for (const auto& [name, v] : views_) {
    if (v.memory != MemorySpace::Host)
      throw UserError(inputText(name, "") + " is in device memory: from Python, a kernel that assembles its result's "
                      "pattern from two operands (co-iteration) runs on host inputs");
    const int64_t n = v.data.nnz;
    std::vector<double> values(static_cast<size_t>(n));
    if (v.valueType == ValueType::Float32) std::copy_n(static_cast<const float*>(v.data.vals), n, values.begin());
    else std::copy_n(static_cast<const double*>(v.data.vals), n, values.begin());
    copiedBytes_ += n * static_cast<int64_t>(sizeof(double));
    if (v.csr) {  // checked when its view was made (checkCsrView)
      CsrMatrix m;
      m.rows = v.shape.at(0);
      m.cols = v.shape.at(1);
      m.rowptr.assign(v.data.pos[1], v.data.pos[1] + m.rows + 1);
      m.col.assign(v.data.crd[1], v.data.crd[1] + n);
      m.val = std::move(values);
      m.valueType = v.valueType;
      copiedBytes_ += (m.rows + 1) * static_cast<int64_t>(sizeof(int64_t)) + n * static_cast<int64_t>(sizeof(int32_t));
      copies[name] = std::move(m);
    } else {
      DenseTensor t;
      t.shape = v.shape;
      t.data = std::move(values);
      t.valueType = v.valueType;
      copies[name] = std::move(t);
    }
  }
  return copies;
}

py::tuple CallArguments::withPatternCopies(const ResultLayout& result, const py::array& values) const {
  auto given = givenPatterns_.find(result.pattern);
  if (given == givenPatterns_.end())
    throw UserError("result '" + result.name + "': its pattern, input '" + result.pattern +
                    "', is no SciPy csr matrix, whose indptr and indices the result would copy (DLPackCsr inputs "
                    "come with torch tensors, whose results torch assembles)");
  const GivenPattern& p = given->second;
  return py::make_tuple(values, copyOfFirst(p.indices, values.shape(0)), copyOfFirst(p.indptr, p.indptr.shape(0)));
}

py::list CallArguments::allocateResults(bool copyPatterns) {
  py::list results;
  for (const ResultLayout& r : kernel_.resultsFor(kernel_.sizesFor(views_))) {
    // A csr result's values sit at its pattern's stored entries.
    std::vector<int64_t> shape = r.sparse ? std::vector<int64_t>{views_.at(r.pattern).data.nnz} : r.shape;
    TensorView v;
    v.shape = r.shape;
    v.csr = r.sparse;
    v.valueType = r.valueType;
    v.memory = kernel_.memory();
    // Kernels write every element of their results (lowering fills those it writes only in part),
    // so results are not initialised.
    py::object array;
    if (v.memory == MemorySpace::Device) {
      DeviceArray device = deviceArray(kernel_.library().runtime, shape, r.valueType, deviceId_, "result '" + r.name + "'");
      v.data = ReactTensor{device.data, device.elements, {}, {}, nullptr};
      array = device.capsule;
    } else {
      py::array host = r.valueType == ValueType::Float32 ? py::array(py::array_t<float>(shape))
                                                         : py::array(py::array_t<double>(shape));
      v.data = ReactTensor{host.mutable_data(), host.size(), {}, {}, nullptr};
      array = r.sparse && copyPatterns ? py::object(withPatternCopies(r, host)) : py::object(host);
    }
    views_[r.name] = std::move(v);
    results.append(array);
  }
  return results;
}

}  // namespace react::python
