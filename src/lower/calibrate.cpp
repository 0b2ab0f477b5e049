// Machine rates for fusion mode auto (docs/auto.md): copy bandwidth, the flop rates of the loop
// shapes generated kernels have, the cost of a parallel region (on a device: of a launch and the
// wait for it) and of exp, measured once per thread count (OpenMP) or per device (Kokkos) and
// stored in the JIT cache directory as machine-<threads>t.txt or machine-kokkos-<hash>.txt. Every
// measurement runs a kernel that react generates from a small react program (parsed, fused and
// lowered like any other, all compiled into one library) for the target it models, so the rates
// are those of the loops the emitter writes, and an emitter change that alters them changes
// calibrationId(), which makes stored models stale.
#include "formats/random.hpp"
#include "lower/lower.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

namespace react {
namespace {

// --- the calibration kernels ------------------------------------------------------------------
// Rows of the sparse row kernels' pattern: 8 stored entries each, among 64 columns.
constexpr int64_t kEntriesPerRow = 8, kPatternColumns = 64;
struct Declaration {
  std::string name;
  std::vector<int64_t> shape;
  Format format;
};
struct CalibrationProgram {
  std::string statement;  // index notation
  std::vector<Declaration> inputs;
  FusionMode mode;
  int64_t entriesPerRow = kEntriesPerRow;  // of a csr input's rows
};

constexpr size_t kLengths = std::size(MachineModel::kRateLengths);
// Copy: rows of 4096 doubles (32 KiB), so that the dynamically scheduled outer loop costs
// nothing beside the copy; 32 Mi doubles (256 MiB) per array, well beyond any cache.
constexpr int64_t kCopyRows = 8192, kCopyColumns = 4096;
// Parallel regions: a dynamic loop of 64 trivial iterations.
constexpr int64_t kRegionIterations = 64;
// exp over 16 x 256 values (64 KiB with the result: in L2), about 17 us of calls per run; in
// short rows, the same number of calls as sums of rows of MachineModel::kShortExpRow entries.
constexpr int64_t kExpRows = 16, kExpColumns = 256;
constexpr int64_t kShortExpRows = kExpRows * kExpColumns / MachineModel::kShortExpRow;
// Kokkos: the rate kernels' outer extents times this. A GPU runs the host's sizes in less time
// than a launch takes; 256 times them is 67 Mflop per run of a rate kernel (tens of us on an H100)
// and operands of at most 64 MiB. exp's, 16 times more: 16.8 M calls, 30-40 us on an H100 (at 256
// times, 1 M calls took less than a tenth of the launch that is taken off each run).
constexpr int64_t kKokkosScale = 256, kKokkosExpScale = 16 * kKokkosScale;
int64_t scaleOf(Target target) { return target == Target::Kokkos ? kKokkosScale : 1; }
int64_t expScaleOf(Target target) { return target == Target::Kokkos ? kKokkosExpScale : 1; }

// The kernels of one rate length, in this order after the fixed ones.
enum Shape : size_t { kVector, kReduction, kScratchRows, kRows, kShapes };
enum Fixed : size_t { kCopy, kRegion, kExp, kShortRowExp, kFixed };
size_t kernelIndex(size_t length, Shape shape) { return kFixed + length * kShapes + shape; }

// Rows of the sparse row kernels at length L: their output (rows x L doubles, 128 KiB) stays in
// L2; the 64-row operand they gather from is 64 x L doubles (2 KiB to 128 KiB).
int64_t sparseRows(int64_t length) { return 16384 / length; }

std::vector<CalibrationProgram> calibrationPrograms(Target target) {
  const int64_t scale = scaleOf(target);
  const Format csr = Format::csr(), dense1 = Format::dense(1), dense2 = Format::dense(2), dense3 = Format::dense(3);
  std::vector<CalibrationProgram> programs(kFixed + kLengths * kShapes);
  programs[kCopy] = {"A(i,j) = B(i,j)", {{"B", {kCopyRows, kCopyColumns}, dense2}}, FusionMode::None};
  // One top-level loop nest is one parallel region with a dynamically scheduled loop; the time of
  // 64 copies is nothing beside the region's start and join.
  programs[kRegion] = {"A(i) = B(i)", {{"B", {kRegionIterations}, dense1}}, FusionMode::None};
  programs[kExp] = {"A(r,i) = exp(B(r,i))", {{"B", {kExpRows * expScaleOf(target), kExpColumns}, dense2}}, FusionMode::None};
  programs[kShortRowExp] = {"A(i) = exp(S(i,k))",
                            {{"S", {kShortExpRows * expScaleOf(target), kPatternColumns}, csr}},
                            FusionMode::None,
                            MachineModel::kShortExpRow};
  for (size_t l = 0; l < kLengths; ++l) {
    const int64_t n = MachineModel::kRateLengths[l];
    // Vector: the dense product's innermost loop, `A[k,j] += C[k,h] * D[h,j]` over j with C[k,h]
    // read into a constant before it (an axpy of length n), D in L1 (16 KiB), C (2 KiB to
    // 256 KiB) read once per axpy.
    programs[kernelIndex(l, kVector)] = {
        "A(k,j) = C(k,h) * D(h,j)", {{"C", {64 * scale, 2048 / n}, dense2}, {"D", {2048 / n, n}, dense2}}, FusionMode::None};
    // Reduction: `A[p,q] += B[p,q,i] * C[i]` over i (a dot product of length n); B is 256 KiB,
    // and 16 rows p make one chunk of the dynamic outer loop.
    programs[kernelIndex(l, kReduction)] = {
        "A(p,q) = B(p,q,i) * C(i)", {{"B", {16 * scale, 2048 / n, n}, dense3}, {"C", {n}, dense1}}, FusionMode::None};
    // Sparse rows into scratch: react fuses the product with its consumer, so the gathered rows
    // accumulate into a per-thread row that the consumer reads and a reset clears after each row.
    programs[kernelIndex(l, kScratchRows)] = {
        "A(i,h) = S(i,k) * C(k,h) * D(h)",
        {{"S", {sparseRows(n) * scale, kPatternColumns}, csr}, {"C", {kPatternColumns, n}, dense2}, {"D", {n}, dense1}},
        FusionMode::React};
    // Sparse rows into rows: the unfused product accumulates into row i of its result.
    programs[kernelIndex(l, kRows)] = {"A(i,h) = S(i,k) * C(k,h)",
                                      {{"S", {sparseRows(n) * scale, kPatternColumns}, csr}, {"C", {kPatternColumns, n}, dense2}},
                                      FusionMode::None};
  }
  return programs;
}

// The kernel library's dense product (Eigen's GEMM on the OpenMP target, cuBLAS on a CUDA Kokkos):
// C @ D of SpMM-MM's right association, a tall C (8 MiB; on Kokkos 128 MiB) by a 256 x 16 D, about
// 34 Mflop (on Kokkos 540) per run. Compiled with the library's product on, unlike the others.
constexpr int64_t kProductRows = 4096, kKokkosProductScale = 16;
CalibrationProgram productProgram(Target target) {
  const int64_t rows = kProductRows * (target == Target::Kokkos ? kKokkosProductScale : 1);
  return {"A(i,j) = C(i,k) * D(k,j)", {{"C", {rows, 256}, Format::dense(2)}, {"D", {256, 16}, Format::dense(2)}}, FusionMode::None};
}

IndexTree calibrationTree(const CalibrationProgram& c) {
  Environment env;
  for (const Declaration& d : c.inputs) env.declare(d.name, d.shape, d.format);
  return fuse(parseIndexNotation(c.statement, env), c.mode);
}

std::vector<IndexTree> calibrationTrees(Target target) {
  std::vector<IndexTree> trees;
  for (const CalibrationProgram& c : calibrationPrograms(target)) trees.push_back(calibrationTree(c));
  return trees;
}

// The emitted sources of every calibration kernel for a target (with the default kernel name;
// compileTrees numbers the names), in order. They depend only on this build of react.
// The calibration measures react's own loops: a dense product runs as the emitter writes it, not as
// the kernel library's call (the vector rate would be cuBLAS's on a CUDA build, Eigen's GEMM on
// the OpenMP target).
EmitOptions calibrationEmitOptions() {
  EmitOptions emit;
  emit.libraryProducts = false;
  return emit;
}

std::string calibrationSources(Target target) {
  std::string text;
  for (const IndexTree& tree : calibrationTrees(target)) text += emitSource(lowerToLoops(tree), target, calibrationEmitOptions());
  return text + emitSource(lowerToLoops(calibrationTree(productProgram(target))), target, EmitOptions{});
}

// Which kernels and compiler measured a stored model: a model from other ones is measured again.
std::string calibrationId(Target target) {
  if (target == Target::Kokkos) {
    static const std::string kokkos = contentHash(compilerCommand(Target::Kokkos) + "\n" + calibrationSources(Target::Kokkos));
    return kokkos;
  }
  static const std::string openmp = contentHash(compilerCommand(Target::OpenMP) + "\n" + calibrationSources(Target::OpenMP));
  return openmp;
}

Target targetOf(const MachineModel& m) { return m.device.empty() ? Target::OpenMP : Target::Kokkos; }

// OpenMP: per thread count; Kokkos: per device, by a hash of its description.
std::string modelPath(const JitOptions& jit, const MachineModel& m) {
  return jitCacheDirectory(jit) + (m.device.empty() ? "/machine-" + std::to_string(m.threads) + "t.txt"
                                                    : "/machine-kokkos-" + contentHash(m.device) + ".txt");
}

// --- measuring ----------------------------------------------------------------------------------
// The largest cache the OS reports for CPU 0 (sysfs), else sysconf's L3 or L2.
double lastLevelCacheBytes() {
  double best = 0;
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/sys/devices/system/cpu/cpu0/cache", ec)) {
    std::ifstream in(entry.path() / "size");
    std::string text;
    if (!(in >> text) || text.empty()) continue;
    double v = std::atof(text.c_str());
    char unit = text.back();
    if (unit == 'K') v *= 1024;
    if (unit == 'M') v *= 1048576;
    best = std::max(best, v);
  }
  if (best > 0) return best;
  for (int name : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE})
    if (long v = sysconf(name); v > 0) return static_cast<double>(v);
  throw UserError("auto: the size of the last-level cache is unknown (no sysfs cache entries, no sysconf value)");
}

// Generated kernels run on omp_get_max_threads() threads, which no react program states: each
// measurement sets the count for the calling thread and restores the caller's afterwards.
class ThreadCount {
 public:
  explicit ThreadCount(int threads) : saved_(omp_get_max_threads()) { omp_set_num_threads(threads); }
  ~ThreadCount() { omp_set_num_threads(saved_); }
  ThreadCount(const ThreadCount&) = delete;
  ThreadCount& operator=(const ThreadCount&) = delete;

 private:
  int saved_;
};

// Best of `trials` timings of `calls` back-to-back runs on `threads` threads, in seconds.
double bestSeconds(BoundKernel&& kernel, int threads, int64_t calls, int trials) {
  ThreadCount use(threads);
  double best = 1e30;
  for (int r = 0; r < trials; ++r) {
    auto start = std::chrono::steady_clock::now();
    for (int64_t c = 0; c < calls; ++c) kernel.run();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

// A pattern of `rows` rows with `entriesPerRow` distinct columns each among kPatternColumns,
// drawn from a fixed seed: the same pattern every time.
CsrMatrix sparsePattern(int64_t rows, int64_t entriesPerRow) {
  CsrMatrix m;
  m.rows = rows;
  m.cols = kPatternColumns;
  Rng rng(12345);
  for (int64_t r = 0; r < rows; ++r) {
    uint64_t columns = 0;
    while (__builtin_popcountll(columns) < entriesPerRow) columns |= uint64_t{1} << rng.below(kPatternColumns);
    for (int32_t c = 0; c < kPatternColumns; ++c)
      if (columns >> c & 1) m.col.push_back(c);
    m.rowptr.push_back(static_cast<int64_t>(m.col.size()));
  }
  m.val.assign(m.col.size(), 0.5);
  return m;
}

// A calibration kernel's inputs: dense ones filled with 0.5 (sums of products of these stay far
// from overflow and subnormals), a csr one with sparsePattern.
TensorValues inputsOf(const CalibrationProgram& program) {
  TensorValues inputs;
  for (const Declaration& d : program.inputs)
    inputs[d.name] = d.format.hasSparseLevel() ? TensorData(sparsePattern(d.shape[0], program.entriesPerRow)) : TensorData(DenseTensor(d.shape, 0.5));
  return inputs;
}

// Units of work per second of `kernel` (flops, exp calls) on one thread, or on a Kokkos device
// as a whole: runs of `perRun`, about `perTiming` per timing, best of 5. A device's launch and
// wait (`launchSeconds`), which the model adds per nest, is taken off each run, so that the rate
// is the loop's own; what is left is at least a tenth of the run.
double workRate(const Kernel& kernel, const CalibrationProgram& program, double perRun, double perTiming,
                double launchSeconds) {
  const TensorValues inputs = inputsOf(program);
  const int64_t runs = std::max<int64_t>(1, std::llround(perTiming / perRun));
  double seconds = bestSeconds(kernel.bind(inputs), 1, runs, 5);
  seconds -= std::min(static_cast<double>(runs) * launchSeconds, 0.9 * seconds);
  return perRun * static_cast<double>(runs) / seconds;
}

// Iterations of a dense kernel's loops: the product of its extents.
double trips(const Kernel& kernel) {
  double product = 1;
  for (const auto& [index, extent] : kernel.tree().indexSizes) product *= static_cast<double>(extent);
  return product;
}

// flop/s of one thread (a device: of all of it) in the kernels of rate length number l. Each
// innermost iteration is one multiply and one add; of the sparse kernels, only the accumulation of
// gathered rows counts (the scratch kernel's consumer and reset are part of its time, as in the
// loop the model prices).
void measureLoopRates(const std::vector<Kernel>& kernels, const std::vector<CalibrationProgram>& programs, size_t l,
                      int64_t scale, double launchSeconds, MachineModel& m) {
  auto rate = [&](Shape shape, double flopsPerRun) {
    return workRate(kernels[kernelIndex(l, shape)], programs[kernelIndex(l, shape)], flopsPerRun, 1e7, launchSeconds);
  };
  m.vectorFlops[l] = rate(kVector, 2 * trips(kernels[kernelIndex(l, kVector)]));
  m.reductionFlops[l] = rate(kReduction, 2 * trips(kernels[kernelIndex(l, kReduction)]));
  const int64_t n = MachineModel::kRateLengths[l];
  const double gathered = 2.0 * static_cast<double>(sparseRows(n) * scale * kEntriesPerRow * n);
  m.scratchRowFlops[l] = rate(kScratchRows, gathered);
  m.rowFlops[l] = rate(kRows, gathered);
}

// The calibration programs' kernels in their order, then the library product's.
std::vector<Kernel> calibrationKernels(const JitOptions& jit, Target target) {
  CompileOptions options;
  options.jit = jit;
  options.target = target;
  options.emit = calibrationEmitOptions();
  std::vector<Kernel> kernels = Kernel::compileTrees(calibrationTrees(target), options);
  options.emit = EmitOptions{};
  kernels.push_back(Kernel::compileTrees({calibrationTree(productProgram(target))}, options).front());
  return kernels;
}

// The Kokkos execution space the kernels run on, as a model names it: one line of the model's file
// (a control character in the driver's name would end it).
std::string deviceOf(const Kernel& kernel) {
  std::string name = std::string("Kokkos ") + kernel.library().runtime.describe();
  for (char& c : name)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return name;
}

MachineModel measure(const std::vector<Kernel>& kernels, Target target, int threads, std::ostream* progress) {
  auto step = [&](const std::string& what) {
    if (progress) *progress << what << std::flush;
  };
  auto started = std::chrono::steady_clock::now();
  const std::vector<CalibrationProgram> programs = calibrationPrograms(target);
  MachineModel m;
  if (target == Target::Kokkos) {
    m.device = deviceOf(kernels.front());
    threads = 1;  // measured as a whole, shared among its rows at the end
    step("react: measuring " + m.device + " for fusion mode auto on the Kokkos target (once per device):");
  } else {
    step("react: measuring this machine for fusion mode auto (once per thread count):");
  }
  m.threads = threads;
  // Parallel regions (a device: launches and waits): 2000 runs on all threads, per region, best of
  // 5. First: on a device every other measurement has it taken off.
  step(" parallel regions");
  {
    const int64_t regions = 2000;
    const TensorValues input = inputsOf(programs[kRegion]);
    m.regionSeconds = bestSeconds(kernels[kRegion].bind(input), threads, regions, 5) / regions;
  }
  const double launchSeconds = target == Target::Kokkos ? m.regionSeconds : 0;
  // Copy: two arrays of 256 MiB, 1 and all threads, best of 3.
  step(", bandwidth");
  const TensorValues copyInput = inputsOf(programs[kCopy]);
  auto copyBandwidth = [&](int t) {
    const double seconds = bestSeconds(kernels[kCopy].bind(copyInput), t, 1, 3);
    return 16.0 * kCopyRows * kCopyColumns / (seconds - std::min(launchSeconds, 0.9 * seconds));
  };
  m.bandwidth1 = copyBandwidth(1);
  m.bandwidth = threads == 1 ? m.bandwidth1 : copyBandwidth(threads);
  step(", loop rates");
  for (size_t l = 0; l < kLengths; ++l) {
    measureLoopRates(kernels, programs, l, scaleOf(target), launchSeconds, m);
    step(" .");
  }
  // exp: about 1e6 calls per timing, one thread, best of 5.
  step(", exp");
  const double expCalls = static_cast<double>(kExpRows * expScaleOf(target) * kExpColumns);
  m.expRate = workRate(kernels[kExp], programs[kExp], expCalls, 1e6, launchSeconds);
  m.shortRowExpRate = workRate(kernels[kShortRowExp], programs[kShortRowExp], expCalls, 1e6, launchSeconds);
  // The library's product: one thread (Eigen runs on omp_get_max_threads()), best of 5.
  step(", library product");
  {
    const CalibrationProgram product = productProgram(target);
    m.productFlops = workRate(kernels.back(), product, 2 * trips(kernels.back()), 1e8, launchSeconds);
  }
  const long deviceCache = target == Target::Kokkos ? kernels.front().library().runtime.cacheBytes() : 0;
  m.cacheBytes = deviceCache > 0 ? static_cast<double>(deviceCache) : lastLevelCacheBytes();
  // On a quiet machine the best of three copies is the same at the end as at the start; other
  // work taking cores or memory bandwidth in between shows as a difference.
  double again = copyBandwidth(1), change = std::abs(again - m.bandwidth1) / std::max(again, m.bandwidth1);
  if (change > 0.2) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "measured under load: the copy bandwidth of %s was %.1f GB/s at the start and %.1f GB/s at the end; "
                  "measure again on a quiet machine (react-gen -calibrate%s)",
                  target == Target::Kokkos ? "the device" : "one thread", m.bandwidth1 / 1e9, again / 1e9,
                  target == Target::Kokkos ? " -target=kokkos" : "");
    m.loadWarning = buf;
  }
  if (target == Target::Kokkos) {
    const KokkosRuntime& runtime = kernels.front().library().runtime;
    m = sharedAmongRows(m, runtime.concurrency(), runtime.hostAccessible());
  }
  m.source = "calibrated now";
  char done[64];
  std::snprintf(done, sizeof done, ": done in %.1f s\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  step(done);
  if (progress && !m.loadWarning.empty()) *progress << "react: warning: " << m.loadWarning << "\n";
  return m;
}

}  // namespace

// A row is a host thread's, or a warp's on a device (up to 32 lanes each): an H100 (270,336
// threads) runs 8,448 at once.
MachineModel sharedAmongRows(MachineModel whole, int concurrency, bool onHost) {
  MachineModel m = std::move(whole);
  m.threads = std::max(1, onHost ? concurrency : concurrency / 32);
  const double share = 1.0 / m.threads;
  m.bandwidth1 = m.bandwidth * share;
  for (MachineModel::Rates* rates : {&m.vectorFlops, &m.reductionFlops, &m.scratchRowFlops, &m.rowFlops})
    for (double& r : *rates) r *= share;
  m.expRate *= share;
  m.shortRowExpRate *= share;
  m.productFlops *= share;
  return m;
}

MachineModel calibrateMachine(const JitOptions& jit, int threads, std::ostream* progress, Target target) {
  if (threads <= 0) threads = omp_get_max_threads();
  return measure(calibrationKernels(jit, target), target, threads, progress);
}

namespace {

std::map<std::string, std::string> readFields(const std::string& path) {
  std::ifstream in(path);
  std::map<std::string, std::string> fields;
  for (std::string line; std::getline(in, line);)
    if (auto eq = line.find('='); eq != std::string::npos) fields[line.substr(0, eq)] = line.substr(eq + 1);
  return fields;
}

std::optional<MachineModel> modelOf(std::map<std::string, std::string> fields, const std::string& path) {
  std::vector<std::string> keys{"threads", "bandwidth1", "bandwidth", "cache_bytes", "region_seconds", "exp_rate"};
  for (int length : MachineModel::kRateLengths)
    for (const char* rate : {"vector_flops_", "reduction_flops_", "sparse_scratch_flops_", "sparse_row_flops_"})
      keys.push_back(rate + std::to_string(length));
  for (const std::string& k : keys)
    if (!(std::atof(fields[k].c_str()) > 0)) return std::nullopt;
  MachineModel m;
  m.device = fields["device"];
  m.threads = std::atoi(fields["threads"].c_str());
  m.bandwidth1 = std::atof(fields["bandwidth1"].c_str());
  m.bandwidth = std::atof(fields["bandwidth"].c_str());
  for (size_t l = 0; l < m.vectorFlops.size(); ++l) {
    std::string length = std::to_string(MachineModel::kRateLengths[l]);
    m.vectorFlops[l] = std::atof(fields["vector_flops_" + length].c_str());
    m.reductionFlops[l] = std::atof(fields["reduction_flops_" + length].c_str());
    m.scratchRowFlops[l] = std::atof(fields["sparse_scratch_flops_" + length].c_str());
    m.rowFlops[l] = std::atof(fields["sparse_row_flops_" + length].c_str());
  }
  m.cacheBytes = std::atof(fields["cache_bytes"].c_str());
  m.regionSeconds = std::atof(fields["region_seconds"].c_str());
  m.expRate = std::atof(fields["exp_rate"].c_str());
  m.productFlops = std::max(0.0, std::atof(fields["product_flops"].c_str()));  // optional: 0 prices products as loops
  m.shortRowExpRate = std::max(0.0, std::atof(fields["short_row_exp_rate"].c_str()));  // optional: 0 is exp_rate everywhere
  m.loadWarning = fields["load_warning"];
  m.source = path;
  return m;
}

}  // namespace

MachineModel readMachineModel(const std::string& path) {
  if (!std::filesystem::exists(path)) throw UserError("machine model '" + path + "': no such file");
  std::optional<MachineModel> m = modelOf(readFields(path), path);
  if (!m) throw UserError("machine model '" + path + "': a field is missing or not positive (see docs/auto.md for the fields)");
  return *m;
}

std::string storeMachineModel(const MachineModel& m, const JitOptions& jit) {
  std::string path = modelPath(jit, m);
  std::ostringstream out;
  out << "# react machine model for fusion mode auto (docs/auto.md); delete to measure again\n"
      << "compiler=" << compilerCommand(targetOf(m)) << "\ncalibration=" << calibrationId(targetOf(m)) << "\n";
  if (!m.device.empty()) out << "device=" << m.device << "\n";
  out << "threads=" << m.threads
      << "\nbandwidth1=" << m.bandwidth1 << "\nbandwidth=" << m.bandwidth << "\ncache_bytes=" << m.cacheBytes
      << "\nregion_seconds=" << m.regionSeconds << "\nexp_rate=" << m.expRate << "\nshort_row_exp_rate=" << m.shortRowExpRate
      << "\nproduct_flops=" << m.productFlops << "\n";
  for (size_t l = 0; l < m.vectorFlops.size(); ++l)
    out << "vector_flops_" << MachineModel::kRateLengths[l] << "=" << m.vectorFlops[l] << "\nreduction_flops_"
        << MachineModel::kRateLengths[l] << "=" << m.reductionFlops[l] << "\nsparse_scratch_flops_"
        << MachineModel::kRateLengths[l] << "=" << m.scratchRowFlops[l] << "\nsparse_row_flops_"
        << MachineModel::kRateLengths[l] << "=" << m.rowFlops[l] << "\n";
  if (!m.loadWarning.empty()) out << "load_warning=" << m.loadWarning << "\n";
  writeFileAtomically(path, out.str());
  return path;
}

MachineModel machineModel(const JitOptions& jit, int threads, Target target) {
  if (threads <= 0) threads = omp_get_max_threads();
  // A Kokkos model belongs to the device the calibration kernels run on: they are compiled (or
  // found in the JIT cache) to ask it once per process, and measure it when no model is stored.
  std::vector<Kernel> kernels;
  MachineModel wanted;
  wanted.threads = threads;
  if (target == Target::Kokkos) {
    static std::mutex asked;
    static std::optional<std::string> device;
    std::lock_guard<std::mutex> lock(asked);
    if (!device) {
      kernels = calibrationKernels(jit, target);
      device = deviceOf(kernels.front());
    }
    wanted.device = *device;
  }
  std::string path = modelPath(jit, wanted);
  std::map<std::string, std::string> fields = readFields(path);
  if (fields["compiler"] == compilerCommand(target) && fields["calibration"] == calibrationId(target) &&
      fields["device"] == wanted.device && (target == Target::Kokkos || std::atoi(fields["threads"].c_str()) == threads))
    if (std::optional<MachineModel> m = modelOf(fields, path)) return *m;
  if (kernels.empty()) kernels = calibrationKernels(jit, target);
  MachineModel m = measure(kernels, target, threads, &std::cerr);
  try {
    m.source = "calibrated now, stored in " + storeMachineModel(m, jit);
  } catch (const UserError& e) {
    // A read-only cache: the model serves this run and is measured again by the next one.
    std::cerr << "react: " << e.what() << " (measured again next time)\n";
  }
  return m;
}

}  // namespace react
