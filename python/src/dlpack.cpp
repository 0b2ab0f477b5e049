// DLPack capsules in (PyTorch tensors read in place) and out (device results).
#include "dlpack.hpp"

#include <memory>

namespace react::python {

namespace {

// An unused capsule's name; a consumer renames the capsule it takes over (the DLPack protocol).
const char* const kCapsuleName = "dltensor";

}  // namespace

std::string dtypeText(DLDataType t) {
  std::string text = t.code == kDLFloat ? "float" : t.code == kDLInt ? "int" : t.code == kDLUInt ? "uint" : "";
  text = text.empty() ? "DLPack type code " + std::to_string(t.code) : text + std::to_string(t.bits);
  return t.lanes == 1 ? text : text + "x" + std::to_string(t.lanes);
}

int64_t DLPackArray::size() const {
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  return n;
}

bool isDLPackCapsule(py::handle value) { return PyCapsule_CheckExact(value.ptr()); }

DLPackArray readDLPack(const std::string& what, py::handle capsule) {
  if (!PyCapsule_IsValid(capsule.ptr(), kCapsuleName))
    throw UserError(what + ": a DLPack capsule that was used already (each to_dlpack() capsule is read once)");
  const DLTensor& t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), kCapsuleName))->dl_tensor;
  DLPackArray a;
  a.data = static_cast<char*>(t.data) + t.byte_offset;
  a.shape.assign(t.shape, t.shape + t.ndim);
  a.dtype = t.dtype;
  a.deviceId = t.device.device_id;
  switch (t.device.device_type) {
    case kDLCPU:
    case kDLCUDAHost: a.memory = MemorySpace::Host; break;
    case kDLCUDA:
    case kDLCUDAManaged: a.memory = MemorySpace::Device; break;
    default:
      throw UserError(what + ": DLPack device type " + std::to_string(t.device.device_type) +
                      " (react reads host memory, and CUDA memory with a CUDA build of Kokkos)");
  }
  if (t.strides) {  // null means compact row-major; a size-1 dimension's stride does not matter
    int64_t expected = 1;
    for (int d = t.ndim - 1; d >= 0; --d) {
      if (t.shape[d] != 1 && t.strides[d] != expected)
        throw UserError(what + ": a strided DLPack tensor (react reads compact row-major ones: call .contiguous())");
      expected *= t.shape[d];
    }
  }
  return a;
}

bool holdsValues(const DLPackArray& a, ValueType type) {
  return a.dtype.code == kDLFloat && a.dtype.lanes == 1 && a.dtype.bits == 8 * valueBytes(type);
}

bool holdsIntegers(const DLPackArray& a, int bits) {
  return a.dtype.code == kDLInt && a.dtype.lanes == 1 && a.dtype.bits == bits;
}

namespace {

// Device memory and its DLPack description; deleted by the DLPack deleter.
struct ManagedDeviceMemory {
  KokkosRuntime runtime;
  std::vector<int64_t> shape;
  DLManagedTensor managed{};
};

void deleteManagedDeviceMemory(DLManagedTensor* managed) {
  auto* array = static_cast<ManagedDeviceMemory*>(managed->manager_ctx);
  array->runtime.release(managed->dl_tensor.data);
  delete array;
}

// A capsule nobody consumed frees its tensor itself (the DLPack protocol).
void releaseUnusedCapsule(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, kCapsuleName)) return;  // consumed: its consumer calls the deleter
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kCapsuleName));
  managed->deleter(managed);
}

}  // namespace

DeviceArray deviceArray(const KokkosRuntime& runtime, const std::vector<int64_t>& shape, ValueType type, int deviceId,
                        const std::string& what) {
  const int64_t elements = checkedElementCount(shape, valueBytes(type), what), bytes = elements * valueBytes(type);
  auto array = std::make_unique<ManagedDeviceMemory>();
  array->runtime = runtime;
  array->shape = shape;
  void* data = runtime.allocate(static_cast<size_t>(bytes));
  if (!data && bytes > 0) throw UserError(what + " needs " + bytesText(bytes) + " of device memory: cannot allocate");
  DLTensor& t = array->managed.dl_tensor;
  t.data = data;
  t.device = {kDLCUDA, deviceId};
  t.ndim = static_cast<int>(shape.size());
  t.dtype = {kDLFloat, static_cast<uint8_t>(8 * valueBytes(type)), 1};
  t.shape = array->shape.data();
  t.strides = nullptr;
  t.byte_offset = 0;
  array->managed.manager_ctx = array.get();
  array->managed.deleter = deleteManagedDeviceMemory;
  PyObject* capsule = PyCapsule_New(&array->managed, kCapsuleName, releaseUnusedCapsule);
  if (!capsule) {
    runtime.release(data);
    throw py::error_already_set();
  }
  array.release();  // the capsule owns it now
  return {py::reinterpret_steal<py::capsule>(capsule), data, elements};
}

}  // namespace react::python
