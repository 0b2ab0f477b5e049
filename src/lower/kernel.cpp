// The C++ API: compile a program into a callable kernel and run it on react tensors.
#include "lower/lower.hpp"

#include <algorithm>
#include <cstdlib>

namespace react {

FloatOrder parseFloatOrder(const std::string& s) {
  if (s == "reassociate") return FloatOrder::Reassociate;
  if (s == "written") return FloatOrder::Written;
  throw UserError("unknown floating-point order '" + s + "' (expected reassociate or written)");
}

namespace {
// The written order also rounds every operation as written: no multiply and add contracted into
// one fused operation, which the compilers do by default (nvcc for device code as well).
JitOptions jitOptionsFor(const CompileOptions& options) {
  JitOptions jit = options.jit;
  if (options.emit.floatOrder == FloatOrder::Written)
    jit.extraFlags += compilerCommand(options.target).find("nvcc") != std::string::npos ? " --fmad=false -Xcompiler -ffp-contract=off"
                                                                                          : " -ffp-contract=off";
  return jit;
}
}  // namespace

Kernel Kernel::compile(const Program& p, const CompileOptions& options) { return compile(fusedTree(p, options), options); }

Kernel Kernel::compile(const IndexTree& tree, const CompileOptions& options) {
  Kernel k;
  k.tree_ = tree;
  k.loops_ = scheduleLoops(lowerToLoops(k.tree_), options.target, options.emit);
  k.source_ = printSource(k.loops_, options.target, options.emit);
  k.lib_ = jitCompile(k.source_, options.target, jitOptionsFor(options), options.emit.functionName);
  k.target_ = options.target;
  if (options.target == Target::Kokkos) k.lib_.runtime.initialize();
  return k;
}

std::vector<Kernel> Kernel::compileBatch(const std::vector<Program>& programs, const CompileOptions& options) {
  std::vector<IndexTree> trees;
  for (const Program& p : programs) trees.push_back(fusedTree(p, options));
  return compileTrees(trees, options);
}

std::vector<Kernel> Kernel::compileTrees(const std::vector<IndexTree>& trees, const CompileOptions& options) {
  std::vector<Kernel> kernels(trees.size());
  std::string source;
  for (size_t n = 0; n < trees.size(); ++n) {
    Kernel& k = kernels[n];
    EmitOptions emit = options.emit;
    emit.functionName = options.emit.functionName + "_" + std::to_string(n);
    k.tree_ = trees[n];
    k.loops_ = scheduleLoops(lowerToLoops(k.tree_), options.target, emit);
    k.source_ = printSource(k.loops_, options.target, emit);
    source += k.source_;
  }
  if (trees.empty()) return kernels;
  CompiledLibrary lib = jitCompile(source, options.target, jitOptionsFor(options), options.emit.functionName + "_0");
  for (size_t n = 0; n < trees.size(); ++n) {
    kernels[n].target_ = options.target;
    kernels[n].lib_ = lib;
    kernels[n].lib_.function = lookupKernel(lib, options.emit.functionName + "_" + std::to_string(n));
  }
  if (options.target == Target::Kokkos) lib.runtime.initialize();
  return kernels;
}

namespace {
// The shape of every input the kernel reads, as `shapeOf(name, declaration, given value)` checks
// and returns it; a missing input is an error.
template <typename Value, typename ShapeOf>
std::map<std::string, std::vector<int64_t>> inputShapes(const LoopProgram& loops, const std::map<std::string, Value>& inputs,
                                                        ShapeOf&& shapeOf) {
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const std::string& name : loops.args) {
    const TensorDecl& d = loops.tensors.at(name).decl;
    if (d.role != TensorRole::Input) continue;
    auto it = inputs.find(name);
    if (it == inputs.end()) throw UserError("kernel: no value given for input '" + name + "'");
    shapes[name] = shapeOf(name, d, it->second);
  }
  return shapes;
}
}  // namespace

std::map<std::string, int64_t> Kernel::sizesFor(const TensorValues& inputs) const {
  return sizesForShapes(inputShapes(loops_, inputs, [](const std::string& name, const TensorDecl& d, const TensorData& v) {
    if (auto why = inputFormMismatch(v, d)) throw UserError("kernel: input '" + name + "' " + *why);
    return shapeOf(v);
  }));
}

std::map<std::string, int64_t> Kernel::sizesFor(const TensorViews& inputs) const {
  return sizesForShapes(inputShapes(loops_, inputs, [](const std::string& name, const TensorDecl& d, const TensorView& v) {
    if (d.format.hasSparseLevel() && d.format != Format::csr())
      throw UserError("kernel: input '" + name + "' is " + d.format.str() + "; views are csr or dense");
    if (v.csr && !d.format.hasSparseLevel()) throw UserError("kernel: input '" + name + "' is declared dense but given csr");
    if (!v.csr && d.format.hasSparseLevel()) throw UserError("kernel: input '" + name + "' is declared csr but given dense");
    return v.shape;
  }));
}

std::map<std::string, int64_t> Kernel::sizesForShapes(const std::map<std::string, std::vector<int64_t>>& inputs) const {
  std::map<std::string, int64_t> sizes = tree_.indexSizes;
  std::set<std::string> fromInputs;
  auto runtime = [&](const std::string& index) {
    return std::find(loops_.runtimeSizes.begin(), loops_.runtimeSizes.end(), index) != loops_.runtimeSizes.end();
  };
  for (const auto& [name, shape] : inputs) {
    auto dims = loops_.dimIndices.find(name);
    if (dims == loops_.dimIndices.end()) continue;  // declared but never read
    if (shape.size() != dims->second.size())
      throw UserError("kernel: input '" + name + "' has rank " + std::to_string(shape.size()) + ", expected " +
                  std::to_string(dims->second.size()));
    for (size_t k = 0; k < shape.size(); ++k) {
      const std::string& index = dims->second[k];
      bool first = runtime(index) && fromInputs.insert(index).second;
      if (first) sizes[index] = shape[k];
      else if (sizes[index] != shape[k])
        throw UserError("kernel: input '" + name + "' dimension " + std::to_string(k) + " is " + std::to_string(shape[k]) +
                    " but index '" + index + "' has size " + std::to_string(sizes[index]));
    }
  }
  return sizes;
}

std::vector<ResultLayout> Kernel::resultsFor(const std::map<std::string, int64_t>& sizes) const {
  std::vector<ResultLayout> results;
  for (const std::string& name : loops_.args) {
    const TensorDecl& d = loops_.tensors.at(name).decl;
    if (d.role != TensorRole::Output) continue;
    ResultLayout r{name, {}, d.format.hasSparseLevel(), d.pattern, d.valueType, d.format};
    for (const std::string& index : loops_.dimIndices.at(name)) r.shape.push_back(sizes.at(index));
    results.push_back(std::move(r));
  }
  return results;
}

std::mutex& kokkosCallMutex() {
  static std::mutex m;
  return m;
}

MemorySpace Kernel::memory() const {
  return target_ == Target::Kokkos && !lib_.runtime.hostAccessible() ? MemorySpace::Device : MemorySpace::Host;
}

// Device copies of a bound kernel's arguments; freed with the last BoundKernel that shares them.
struct DeviceCopies {
  KokkosRuntime runtime;
  std::vector<void*> buffers;
  std::map<std::string, void*> outputValues;  // output name -> its device values
  ~DeviceCopies() {
    for (void* p : buffers) runtime.release(p);
  }
  void* upload(const void* host, size_t bytes) {
    void* d = runtime.allocate(bytes);
    if (!d) throw UserError("kernel: cannot allocate " + std::to_string(bytes) + " bytes of device memory");
    buffers.push_back(d);
    if (bytes) runtime.copy(d, host, bytes, static_cast<int>(CopyKind::HostToDevice));
    return d;
  }
};

// The float arrays of a bound kernel's float32 tensors, by tensor name (map nodes stay put, so
// the kernel's arguments may point into them); freed with the last BoundKernel that shares them.
struct FloatCopies {
  std::map<std::string, std::vector<float>> arrays;
};

namespace {
// The float array of a float32 tensor: its values rounded to float32 (exact when they already are).
std::vector<float>& floatArray(FloatCopies& floats, const std::string& name, const std::vector<double>& values) {
  const std::string what = "tensor '" + name + "' as float32 (" + extentsText({static_cast<int64_t>(values.size())}, "floats") + ")";
  std::vector<float>& array = floats.arrays[name];
  allocateOrThrow(what, static_cast<int64_t>(values.size() * sizeof(float)), [&] { array.resize(values.size()); });
  for (size_t k = 0; k < values.size(); ++k) array[k] = static_cast<float>(roundTo(ValueType::Float32, values[k]));
  return array;
}

const char* elementsText(ValueType t) { return t == ValueType::Float32 ? "floats" : "doubles"; }

// One array of a sparse tensor's storage levels, as the ABI passes it: pos[level] or crd[level].
struct LevelArray {
  int level;
  bool positions;  // pos, else crd
  const void* data;
  size_t bytes;
};

// The arrays of `v`'s storage levels (none for a dense tensor): csr's rowptr and col are level 1's.
std::vector<LevelArray> levelArrays(const TensorData& v) {
  std::vector<LevelArray> out;
  if (const CsrMatrix* m = std::get_if<CsrMatrix>(&v)) {
    out.push_back({1, true, m->rowptr.data(), sizeof(int64_t) * m->rowptr.size()});
    out.push_back({1, false, m->col.data(), sizeof(int32_t) * m->col.size()});
  } else if (const SparseTensor* t = std::get_if<SparseTensor>(&v)) {
    for (int l = 0; l < t->rank(); ++l) {
      const LevelArrays& a = t->levels[static_cast<size_t>(l)];
      if (t->format.level(l).storesPositions()) out.push_back({l, true, a.pos.data(), sizeof(int64_t) * a.pos.size()});
      if (t->format.level(l).storesCoordinates()) out.push_back({l, false, a.crd.data(), sizeof(int32_t) * a.crd.size()});
    }
  }
  return out;
}

// input(b, a) for input(a, b), in blocks of columns read row by row (operand_layout.cpp's order).
DenseTensor transposed(const DenseTensor& input, const std::string& name) {
  const int64_t rows = input.shape.at(0), columns = input.shape.at(1), block = 64;
  DenseTensor t({columns, rows}, 0.0, name);
  t.valueType = input.valueType;
  for (int64_t first = 0; first < columns; first += block)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = first; c < std::min(columns, first + block); ++c) t.data[c * rows + r] = input.data[r * columns + c];
  return t;
}
}  // namespace

// The kernel allocates its temporaries itself, at every run: their sizes are checked here, and a
// run that cannot allocate them names them. Prepared arguments are among them where the kernel
// makes them (`withPrepared`: bound to views).
Kernel::TemporaryStorage Kernel::temporaryStorage(const std::map<std::string, int64_t>& sizes,
                                                  const std::function<int64_t(const std::string&)>& patternNnz,
                                                  bool withPrepared) const {
  TemporaryStorage t;
  std::string list;
  for (const auto& [name, s] : loops_.tensors) {
    if (s.decl.role != TensorRole::Temporary) continue;
    if ((!withPrepared && loops_.transposedInputs.count(name)) || loops_.columnWalks.count(name)) continue;
    std::vector<int64_t> extents;
    if (s.decl.format.hasSparseLevel()) {
      extents = {s.shrunk() ? 1 : patternNnz(s.decl.pattern)};
    } else {
      const std::vector<std::string>& dims = loops_.dimIndices.at(name);
      for (size_t k = 0; k < dims.size(); ++k)
        if (s.kept[k]) extents.push_back(sizes.at(dims[k]));
    }
    const std::string what = extentsText(extents, elementsText(s.decl.valueType));
    const int64_t valueSize = valueBytes(s.decl.valueType);
    const int64_t bytes = checkedElementCount(extents, valueSize, "temporary '" + name + "' (" + what + ")") * valueSize;
    if (__builtin_add_overflow(t.bytes, bytes, &t.bytes)) throw UserError("kernel: the temporaries need more than 2^63 bytes");
    list += (list.empty() ? "" : ", ") + name + ": " + what;
  }
  t.what = list.empty() ? "kernel: a run" : "kernel: temporary storage (" + list + ")";
  return t;
}

BoundKernel Kernel::bind(const TensorValues& given) const {
  BoundKernel b;
  b.kernel_ = this;
  std::map<std::string, int64_t> sizes = sizesFor(given);
  for (const std::string& index : loops_.runtimeSizes) b.sizes.push_back(sizes.at(index));
  // The kernel reads a SparseTensor's arrays unchecked. Data in the format an input was declared
  // in where kernels iterate another (coo) is converted once here.
  TensorValues inputs;  // the converted ones; the others are read where they were given
  for (const std::string& name : loops_.args) {
    const TensorDecl& d = loops_.tensors.at(name).decl;
    const SparseTensor* t = d.role == TensorRole::Input ? std::get_if<SparseTensor>(&given.at(name)) : nullptr;
    if (!t) continue;
    try {
      t->validate();
    } catch (const UserError& e) {
      throw UserError("kernel: input '" + name + "': " + e.what());
    }
    std::optional<TensorData> converted;
    iteratedInput(d, given.at(name), converted);
    if (converted) inputs.emplace(name, std::move(*converted));
  }
  if (!inputs.empty()) b.converted = std::make_shared<TensorValues>(std::move(inputs));
  auto inputData = [&](const std::string& name) -> const TensorData& {
    return b.converted && b.converted->count(name) ? b.converted->at(name) : given.at(name);
  };
  TensorValues& outputs = b.outputs_;
  for (const ResultLayout& r : resultsFor(sizes)) {
    if (r.sparse && loops_.assembledPatterns.count(r.pattern)) {
      // Assembled here, once for every run; the kernel's merge loops fill its values.
      const CoIteration& merged = loops_.assembledPatterns.at(r.pattern);
      TensorData m = mergedPattern(inputData(merged.operands.at(0)), inputData(merged.operands.at(1)), merged.unite);
      setValueType(m, r.valueType);
      outputs[r.name] = std::move(m);
    } else if (r.sparse) {
      // The pattern's structure (csr's arrays, another format's levels, as the kernel iterates the
      // pattern: a coo input's converted form), its values zero.
      const TensorData& pattern = inputData(r.pattern);
      const bool prefix = r.format.storesPatternPrefix();
      const int64_t values = prefix ? patternPrefixValues(pattern, r.format, r.shape) : static_cast<int64_t>(valuesOf(pattern).size());
      int64_t bytes = static_cast<int64_t>(sizeof(double)) * values;
      for (const LevelArray& a : levelArrays(pattern)) bytes += static_cast<int64_t>(a.bytes);
      TensorData m = allocateOrThrow("tensor '" + r.name + "' (" + r.format.str() + ", " + std::to_string(values) + " values)",
                                     bytes, [&] { return prefix ? TensorData(patternPrefix(pattern, r.format, r.shape)) : pattern; });
      std::fill(valuesOf(m).begin(), valuesOf(m).end(), 0.0);
      setValueType(m, r.valueType);
      outputs[r.name] = std::move(m);
    } else {
      DenseTensor t(r.shape, 0.0, r.name);
      t.valueType = r.valueType;
      outputs[r.name] = std::move(t);
    }
  }
  TemporaryStorage temporaries = temporaryStorage(
      sizes, [&](const std::string& pattern) { return static_cast<int64_t>(valuesOf(inputData(pattern)).size()); }, false);
  if (!loops_.transposedInputs.empty()) b.prepared = std::make_shared<TensorValues>();
  for (const auto& [name, input] : loops_.transposedInputs) {
    const TensorData& t = b.prepared->emplace(name, transposed(std::get<DenseTensor>(inputData(input)), name)).first->second;
    b.preparedBytes += static_cast<int64_t>(sizeof(double)) * std::get<DenseTensor>(t).size();
  }
  for (const auto& [name, input] : loops_.columnWalks) {
    const CsrMatrix& csr = std::get<CsrMatrix>(inputData(input));  // csr data is a CsrMatrix (inputFormMismatch)
    try {  // the walk is built on the host from the matrix's arrays: they must be valid
      csr.validate();
    } catch (const UserError& e) {
      throw UserError("kernel: input '" + input + "': " + e.what());
    }
    if (!walksByColumns(csr)) continue;
    ColumnOrder walk = csrByColumns(csr);
    b.preparedBytes += walk.byColumns.nnz() * static_cast<int64_t>(sizeof(double) + sizeof(int32_t) + sizeof(int64_t));
    if (!b.prepared) b.prepared = std::make_shared<TensorValues>();
    if (!b.sources) b.sources = std::make_shared<std::map<std::string, std::vector<int64_t>>>();
    b.prepared->emplace(name, std::move(walk.byColumns));
    b.sources->emplace(name, std::move(walk.source));
  }
  b.temporaries = temporaries.what;
  b.temporaryBytes = temporaries.bytes;
  if (memory() == MemorySpace::Device) {
    b.device = std::make_shared<DeviceCopies>();
    b.device->runtime = lib_.runtime;
  }
  for (const std::string& name : loops_.args) {
    const TensorDecl& d = loops_.tensors.at(name).decl;
    const bool isOutput = d.role == TensorRole::Output, walk = loops_.columnWalks.count(name) > 0;
    if (walk && !(b.prepared && b.prepared->count(name))) {  // not made: the kernel walks the rows
      b.args.push_back(ReactTensor{});
      continue;
    }
    const TensorData& v =
        loops_.transposedInputs.count(name) || walk ? b.prepared->at(name) : isOutput ? outputs.at(name) : inputData(name);
    const std::vector<double>& values = valuesOf(v);
    ReactTensor t{const_cast<double*>(values.data()), static_cast<int64_t>(values.size()), {}, {}, nullptr};
    for (const LevelArray& a : levelArrays(v)) {
      const void* data = b.device ? b.device->upload(a.data, a.bytes) : a.data;
      if (a.positions) t.pos[a.level] = static_cast<const int64_t*>(data);
      else t.crd[a.level] = static_cast<const int32_t*>(data);
    }
    if (walk) {
      const std::vector<int64_t>& source = b.sources->at(name);
      const size_t bytes = sizeof(int64_t) * source.size();
      t.source = static_cast<const int64_t*>(b.device ? b.device->upload(source.data(), bytes) : source.data());
    }
    if (d.valueType == ValueType::Float32) {
      if (!b.floats) b.floats = std::make_shared<FloatCopies>();
      t.vals = floatArray(*b.floats, name, values).data();
      b.float32Bytes += static_cast<int64_t>(sizeof(float) * values.size());
    }
    if (DeviceCopies* dev = b.device.get()) {
      t.vals = dev->upload(t.vals, static_cast<size_t>(valueBytes(d.valueType)) * static_cast<size_t>(t.nnz));
      if (isOutput) dev->outputValues[name] = t.vals;
    }
    b.args.push_back(t);
  }
  return b;
}

void BoundKernel::run() {
  allocateOrThrow(temporaries, temporaryBytes, [&] { kernel_->runRaw(args.data(), sizes.data()); });
  // Host float64 outputs are the kernel's own arrays; device and float32 ones are copies.
  if (hostCopy_ != HostCopy::InViews) hostCopy_ = device || floats ? HostCopy::Stale : HostCopy::Current;
}

const TensorValues& BoundKernel::results() {
  if (hostCopy_ == HostCopy::NoRun) throw UserError("kernel: results asked for before the kernel has run");
  if (hostCopy_ == HostCopy::InViews) throw UserError("kernel: a kernel bound to views writes its results into their arrays");
  if (hostCopy_ == HostCopy::Current) return outputs_;
  for (auto& [name, value] : outputs_) {
    std::vector<double>& host = valuesOf(value);
    std::vector<float>* narrow = floats && floats->arrays.count(name) ? &floats->arrays.at(name) : nullptr;
    if (device && !host.empty()) {
      void* to = narrow ? static_cast<void*>(narrow->data()) : static_cast<void*>(host.data());
      device->runtime.copy(to, device->outputValues.at(name), static_cast<size_t>(valueBytes(valueTypeOf(value))) * host.size(),
                           static_cast<int>(CopyKind::DeviceToHost));
    }
    if (narrow) std::copy(narrow->begin(), narrow->end(), host.begin());
  }
  hostCopy_ = HostCopy::Current;
  return outputs_;
}

TensorValues Kernel::run(const TensorValues& inputs) const {
  BoundKernel b = bind(inputs);
  b.run();
  b.results();
  return std::move(b.outputs_);  // b and the kernel arguments into these arrays end here
}

}  // namespace react
