// Variants: react's fusion modes on each emitter (compiled once, bound per matrix), and the
// library pipelines; each refused with a reason where it would not fit this machine.
#include "bench/bench.hpp"

#include <omp.h>

#include <atomic>
#include <cctype>
#include <thread>
#include <cstdio>
#include <sstream>

namespace react::bench {

const std::vector<std::string>& variantNames() {
  static const std::vector<std::string> names{"none-openmp",    "maximal-openmp", "react-openmp",
                                              "none-kokkos",    "maximal-kokkos", "react-kokkos",
                                              "library-eigen",  "library-kokkoskernels",
                                              "taco-default",   "taco-best",
                                              "auto-openmp",    "auto-kokkos",    "none-openmp-right", "maximal-openmp-right",
                                              "react-openmp-right", "react-kokkos-right"};
  return names;
}

std::vector<VariantSpec> parseVariants(const std::string& list) {
  std::vector<std::string> names;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    if (item != "all") names.push_back(item);
    else
      for (const std::string& name : variantNames())
        if (tacoAvailable() || name.rfind("taco-", 0) != 0) names.push_back(name);
  }
  std::vector<VariantSpec> specs;
  for (const std::string& name : variantNames()) {
    if (std::find(names.begin(), names.end(), name) == names.end()) continue;
    VariantSpec v;
    v.name = name;
    auto dash = name.find('-');
    std::string first = name.substr(0, dash), second = name.substr(dash + 1);
    if (second.size() > 6 && second.compare(second.size() - 6, 6, "-right") == 0) {
      v.rightAssociated = true;
      second.resize(second.size() - 6);
    }
    v.library = first == "library";
    v.taco = first == "taco";
    if (v.library) v.lib = second == "eigen" ? Library::Eigen : Library::KokkosKernels;
    else if (v.taco) v.tacoSchedule = second == "best" ? TacoSchedule::Best : TacoSchedule::Default;
    else {
      v.fusion = parseFusionMode(first);
      v.target = parseTarget(second);
    }
    specs.push_back(v);
  }
  for (const std::string& name : names)
    if (std::find(variantNames().begin(), variantNames().end(), name) == variantNames().end()) {
      std::string known = "all";
      for (const std::string& n : variantNames()) known += ", " + n;
      throw UserError("unknown variant '" + name + "' (expected a comma list of: " + known + ")");
    }
  if (specs.empty()) throw UserError("no variant given");
  return specs;
}

const Kernel& ReactKernels::get(const BenchKernel& k, const VariantSpec& v, const TensorData& s, std::string* choice) {
  VariantProgram vp = variantProgram(k, v, s, jit_);
  if (choice) *choice = vp.choice;
  // Auto's kernel is per decision: matrices with the same choice share it.
  std::unique_ptr<Kernel>& slot = kernels_[k.label() + "/" + k.storage() + "/" + v.name + "/" + vp.choice];
  if (!slot) {
    CompileOptions options;
    options.target = v.target;
    options.jit = jit_;
    auto start = std::chrono::steady_clock::now();
    slot = std::make_unique<Kernel>(Kernel::compile(vp.tree, options));
    compileSeconds_ += secondsSince(start);
  }
  return *slot;
}

void ReactKernels::precompile(const std::vector<BenchKernel>& kernels, const std::vector<VariantSpec>& variants, int jobs) {
  // The sources as get() will emit them (sparse extents are run-time arguments, so any matrix).
  std::vector<std::pair<std::string, Target>> sources;
  CsrMatrix anyMatrix;
  anyMatrix.rows = anyMatrix.cols = 1;
  anyMatrix.rowptr = {0, 0};
  const TensorData anyMatrixData = anyMatrix;
  CooTensor noEntries;
  noEntries.shape = {1, 1, 1};
  noEntries.crd.resize(3);
  const TensorData anyTensor = cooToSparse(noEntries, Format::csf(3));
  for (const BenchKernel& k : kernels)
    for (const VariantSpec& v : variants) {
      const TensorData any = storedAs(k, k.tensor() ? anyTensor : anyMatrixData);
      // Auto decides per matrix (get() compiles its choice); "-right" needs a product chain; the
      // front end refuses some kernels in some storages (prepareVariant says why).
      if (v.library || v.taco || v.fusion == FusionMode::Auto || !programRefusal(k, any).empty()) continue;
      if (v.rightAssociated && productChains(kernelProgram(k, any)).empty()) continue;
      std::pair<std::string, Target> source{emitSource(lowerToLoops(variantProgram(k, v, any, jit_).tree), v.target), v.target};
      // Variants may emit the same source (react and none where react fuses nothing): compiling
      // it twice at once would race for the same cache entry.
      if (std::find(sources.begin(), sources.end(), source) == sources.end()) sources.push_back(std::move(source));
    }
  auto start = std::chrono::steady_clock::now();
  std::atomic<size_t> next{0};
  std::vector<std::string> errors(sources.size());
  std::vector<std::thread> workers;
  for (int w = 0; w < std::max(1, jobs); ++w)
    workers.emplace_back([&] {
      for (size_t n; (n = next++) < sources.size();) try {
          jitCompile(sources[n].first, sources[n].second, jit_);
        } catch (const UserError& e) {
          errors[n] = e.what();
        }
    });
  for (std::thread& t : workers) t.join();
  for (const std::string& e : errors)
    if (!e.empty()) throw UserError(e);
  compileSeconds_ += secondsSince(start);
}

namespace {

class ReactInstance : public Instance {
 public:
  ReactInstance(const Kernel& k, const TensorValues& inputs) : bound_(k.bind(inputs)), kernel_(k) {}
  void run() override { bound_.run(); }
  TensorData result() const override {
    return bound_.results().at("A");
  }
  // The Kokkos emitter runs on Kokkos' default execution space (Serial in Debian's Kokkos).
  int threads() const override {
    return kernel_.target() == Target::OpenMP ? omp_get_max_threads() : kernel_.library().runtime.concurrency();
  }
  bool followsOpenMPThreads() const override { return kernel_.target() == Target::OpenMP; }
  const BoundKernel& bound() const { return bound_; }
  std::string space() const override {
    return kernel_.target() == Target::OpenMP ? "host" : kernel_.library().runtime.describe();
  }

 private:
  mutable BoundKernel bound_;  // result() copies device outputs back into it
  const Kernel& kernel_;
};

std::string gigabytes(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GB", bytes / 1e9);
  return buf;
}

std::string flopCount(double flops) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g", flops);
  return buf;
}

// Why a variant with this cost cannot run here, or "".
std::string refusal(double flops, double temporaryBytes, const std::string& temporary, const Limits& limits) {
  if (temporaryBytes > limits.maxTemporaryBytes)
    return "cannot run: needs " + gigabytes(temporaryBytes) + " for " + temporary + " (limit " +
           gigabytes(limits.maxTemporaryBytes) + ")";
  if (flops > limits.maxFlops)
    return "cannot run: performs " + flopCount(flops) + " flops per run (limit " + flopCount(limits.maxFlops) + ")";
  return "";
}

// Why a library or TACO variant cannot take k's storage (their pipelines read S as csr, or csf,
// and compute in double), or "".
std::string storageRefusal(const VariantSpec& v, const BenchKernel& k) {
  if (!v.library && !v.taco) return "";
  const Format own = k.tensor() ? Format::csf(3) : Format::csr();
  if (k.format != own) return "cannot run: " + v.name + " reads S in " + own.str() + " only (not " + k.format.str() + ")";
  if (k.valueType != ValueType::Float64) return "cannot run: " + v.name + " computes in float64 only";
  return "";
}

}  // namespace

Prepared prepareVariant(const VariantSpec& v, const BenchKernel& k, const TensorValues& inputs, ReactKernels& kernels,
                        const Limits& limits) {
  const TensorData& s = inputs.at("S");
  Prepared p;
  // The tensor kernels' output: ttm's a row per (i,j) fibre in react, NI x NJ x R in TACO (docs/benchmarks-tensors.md).
  if (double bytes = outputBytes(k, s, v.taco); bytes > limits.maxTemporaryBytes) {
    p.cannotRun = refusal(0, bytes, v.taco ? "the dense output A" : "the output A", limits);
    return p;
  }
  if (std::string why = storageRefusal(v, k); !why.empty()) {
    p.cannotRun = why;
    return p;
  }
  if (v.library) {
    if (k.tensor()) {
      p.cannotRun = std::string("cannot run: ") + (v.lib == Library::Eigen ? "Eigen" : "Kokkos Kernels") +
                    " has no sparse 3-tensor kernels";
      return p;
    }
    const CsrMatrix& m = std::get<CsrMatrix>(s);
    LibraryCost cost = libraryCost(k, m);
    p.performedFlops = cost.flops;
    p.cannotRun = refusal(cost.flops, cost.temporaryBytes, cost.temporary, limits);
    if (!p.cannotRun.empty()) return p;
    if (v.lib == Library::Eigen) {
      p.instance = makeEigenInstance(k, inputs);
    } else {
      std::string why;
      p.instance = makeKokkosKernelsInstance(k, inputs, why);
      if (!p.instance) p.cannotRun = "cannot run: " + why;
    }
    return p;
  }
  if (v.taco) {
    p.performedFlops = tacoFlops(k, s, v.tacoSchedule);
    p.cannotRun = refusal(p.performedFlops, 0, "", limits);
    if (!p.cannotRun.empty()) return p;
    std::string why;
    p.instance = makeTacoInstance(k, inputs, v.tacoSchedule, p.note, why);
    if (!p.instance) p.cannotRun = "cannot run: " + why;
    return p;
  }
  if (std::string why = programRefusal(k, s); !why.empty()) {
    p.cannotRun = "cannot run: " + why;
    return p;
  }
  if (v.rightAssociated && productChains(kernelProgram(k, s)).empty()) {
    p.cannotRun = "cannot run: no product chain to associate otherwise";
    return p;
  }
  const Kernel& kernel = kernels.get(k, v, s, &p.note);
  std::string library = kernel.library().libraryPath;
  p.note += (p.note.empty() ? "" : "; ") + std::string("kernel ") + library.substr(library.find_last_of('/') + 1);
  IndexTree tree = kernel.tree();
  tree.indexSizes = kernel.sizesFor(inputs);
  std::map<std::string, double> symbols = costSymbols(tree, {{"S", static_cast<int64_t>(valuesOf(s).size())}});
  symbols.merge(levelSymbols(s));
  CostReport cost = analyzeCost(tree);
  p.performedFlops = cost.flops.evaluate(symbols);
  p.cannotRun = refusal(p.performedFlops, 8 * cost.temporarySize.evaluate(symbols),
                        "temporaries of " + cost.temporarySize.str() + " doubles", limits);
  if (!p.cannotRun.empty()) return p;
  const auto start = std::chrono::steady_clock::now();
  auto instance = std::make_unique<ReactInstance>(kernel, inputs);
  // As taco-best's column-major C: a layout made once for every run, reported beside the timings.
  for (const auto& [copy, input] : kernel.loops().transposedInputs)
    p.note += "; " + input + " transposed when bound, in " + formatMilliseconds(secondsSince(start)) + " (not timed)";
  const BoundKernel& bound = instance->bound();
  for (const auto& [walk, input] : kernel.loops().columnWalks)
    if (bound.prepared && bound.prepared->count(walk)) p.note += "; " + input + " walked by its columns (copied when bound, not timed)";
  p.instance = std::move(instance);
  if (v.target == Target::Kokkos && !kernel.library().runtime.hostAccessible()) p.device = &kernel.library().runtime;
  return p;
}

}  // namespace react::bench
