// Kernels run in place on tensors the caller holds (TensorView): the Python module's path, which
// passes NumPy, SciPy and DLPack buffers to a kernel without copying them (docs/python.md).
#include "lower/lower.hpp"

#include <algorithm>

namespace react {

std::string toString(MemorySpace m) { return m == MemorySpace::Device ? "device" : "host"; }

void checkCsrView(const std::string& name, const TensorView& v) {
  if (!v.csr || v.memory != MemorySpace::Host) return;
  if (v.shape.size() != 2) throw UserError("tensor '" + name + "': a csr matrix has rank 2, not " + std::to_string(v.shape.size()));
  try {
    validateCsrArrays(v.shape[0], v.shape[1], v.data.pos[1], v.data.crd[1], v.data.nnz);
  } catch (const UserError& e) {
    throw UserError("tensor '" + name + "': " + e.what());
  }
}

namespace {

// The elements of a shape; -1 for a negative extent or a count beyond int64_t.
int64_t elementCount(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t e : shape)
    if (e < 0 || __builtin_mul_overflow(n, e, &n)) return -1;
  return n;
}

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string text;
  for (int64_t e : shape) text += (text.empty() ? "" : "x") + std::to_string(e);
  return shape.empty() ? "scalar" : text;
}

}  // namespace

BoundKernel Kernel::bindViews(const TensorViews& arguments) const {
  const std::map<std::string, int64_t> sizes = sizesFor(arguments);
  const std::vector<ResultLayout> results = resultsFor(sizes);
  for (const ResultLayout& r : results)
    if (loops_.assembledPatterns.count(r.pattern))
      throw UserError("kernel: result '" + r.name + "' is stored at a pattern the kernel assembles from two patterns "
                      "(co-iteration); views of it are not supported yet (run the kernel on react tensors)");
  auto view = [&](const std::string& name) -> const TensorView& {
    auto it = arguments.find(name);
    if (it == arguments.end()) throw UserError("kernel: no array given for result '" + name + "'");
    return it->second;
  };
  BoundKernel b;
  b.kernel_ = this;
  b.hostCopy_ = BoundKernel::HostCopy::InViews;
  for (const std::string& name : loops_.args) {
    // A transposed copy is made by the kernel at every run, from the view it copies; with no
    // column walk the kernel walks the rows.
    if (loops_.transposedInputs.count(name) || loops_.columnWalks.count(name)) {
      b.args.push_back(ReactTensor{});
      continue;
    }
    const TensorDecl& d = loops_.tensors.at(name).decl;
    const TensorView& v = view(name);
    // Built only for an error: a call from Python binds at every run.
    auto what = [&] { return "kernel: " + std::string(d.role == TensorRole::Input ? "input" : "result") + " '" + name + "'"; };
    if (v.valueType != d.valueType)
      throw UserError(what() + " is " + toString(v.valueType) + ", the kernel takes " + toString(d.valueType));
    if (v.memory != memory())
      throw UserError(what() + " is in " + toString(v.memory) + " memory, the kernel runs in " + toString(memory()) + " memory");
    ReactTensor t = v.data;
    if (d.role == TensorRole::Output) {
      auto r = std::find_if(results.begin(), results.end(), [&](const ResultLayout& l) { return l.name == name; });
      if (v.csr != r->sparse || v.shape != r->shape)
        throw UserError(what() + " is given as " + (v.csr ? "csr " : "dense ") + shapeText(v.shape) + ", the kernel writes " +
                        (r->sparse ? "csr " : "dense ") + shapeText(r->shape));
      if (r->sparse) {  // the kernel writes values at its pattern's stored entries
        const ReactTensor& pattern = view(r->pattern).data;
        std::copy(std::begin(pattern.pos), std::end(pattern.pos), std::begin(t.pos));
        std::copy(std::begin(pattern.crd), std::end(pattern.crd), std::begin(t.crd));
        if (t.nnz != pattern.nnz)
          throw UserError(what() + " has " + std::to_string(t.nnz) + " values, its pattern '" + r->pattern + "' " +
                          std::to_string(pattern.nnz) + " stored entries");
      }
    }
    if (v.csr && (!t.pos[1] || (t.nnz > 0 && !t.crd[1]))) throw UserError(what() + " is csr without positions or coordinates");
    if (!v.csr && t.nnz != elementCount(v.shape))
      throw UserError(what() + " has " + std::to_string(t.nnz) + " values for shape " + shapeText(v.shape));
    if (t.nnz > 0 && !t.vals) throw UserError(what() + " has no values array");
    b.args.push_back(t);
  }
  for (const std::string& index : loops_.runtimeSizes) b.sizes.push_back(sizes.at(index));
  const TemporaryStorage temporaries =
      temporaryStorage(sizes, [&](const std::string& pattern) { return view(pattern).data.nnz; }, true);
  b.temporaries = temporaries.what;
  b.temporaryBytes = temporaries.bytes;
  return b;
}

}  // namespace react
