// Machine rates for fusion mode auto (docs/auto.md): copy bandwidth, and the flop rates of the
// two loop shapes generated kernels have (an in-cache axpy and an in-cache dot product), measured
// once with kernels built by the JIT (same compiler and flags as generated code) and stored in
// the JIT cache directory as machine-<threads>t.txt.
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
#include <optional>
#include <sstream>

namespace react {
namespace {

const char* kCalibrationSource = R"(#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>
#include <omp.h>
using std::exp;
struct ReactTensor { void* vals; const int64_t* pos; const int32_t* crd; int64_t nnz; };
// Generated kernels have dense extents as constants, read loop-invariant values into constants
// before an innermost loop and mark one of independent iterations `omp simd`: so do these loops.
template <int N> static void axpy(double* a, const double* b, int64_t reps) {
  for (int64_t r = 0; r < reps; ++r) {
    const double f = b[r % N];
#pragma omp simd
    for (int64_t i = 0; i < N; ++i) a[i] += f * b[i];
  }
}
template <int N> static void dot(double* a, double* b, int64_t reps) {
  double acc = 0;
  for (int64_t r = 0; r < reps; ++r) {
    for (int64_t i = 0; i < N; ++i) acc += a[i] * b[i];
    a[r % N] += 1e-300;
  }
  b[0] += acc * 1e-300;
}
template <int N> static void loops(int64_t test, double* a, double* b, int64_t reps) {
  if (test == 1) axpy<N>(a, b, reps);
  else dot<N>(a, b, reps);
}
// A sparse product's row loop as generated kernels have it (t[0] csr, t[1] dense rows of N,
// t[2] the result): fused, the rows of t[1] gathered by each stored entry accumulate into
// per-thread scratch that the consumer reads and the reset clears after each row; unfused,
// they accumulate into row i of a full temporary.
template <int N> static void sparseRows(const ReactTensor* t, int64_t rows, bool scratch) {
  const int64_t* const pos = t[0].pos;
  const int32_t* const crd = t[0].crd;
  double* const vals = static_cast<double*>(t[0].vals);
  double* const C = static_cast<double*>(t[1].vals);
  double* const out = static_cast<double*>(t[2].vals);
  if (!scratch) {
#pragma omp parallel num_threads(1)
    {
#pragma omp for schedule(dynamic, 16)
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t p = pos[i]; p < pos[i + 1]; ++p) {
          const int64_t k = crd[p];
          const double v = vals[p];
#pragma omp simd
          for (int64_t h = 0; h < N; ++h) out[(i) * N + h] += (v * C[(k) * N + h]);
        }
    }
    return;
  }
#pragma omp parallel num_threads(1)
  {
    std::vector<double> T_buffer(static_cast<size_t>(N), 0.0);
    double* const T = T_buffer.data();
#pragma omp for schedule(dynamic, 16)
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t p = pos[i]; p < pos[i + 1]; ++p) {
        const int64_t k = crd[p];
        const double v = vals[p];
#pragma omp simd
        for (int64_t h = 0; h < N; ++h) T[h] += (v * C[(k) * N + h]);
      }
#pragma omp simd
      for (int64_t h = 0; h < N; ++h) out[(i) * N + h] += T[h];
#pragma omp simd
      for (int64_t h = 0; h < N; ++h) T[h] = 0.0;
    }
  }
}
template <int N> static void sparse(const ReactTensor* t, int64_t test, int64_t rows) { sparseRows<N>(t, rows, test == 5); }
// A top-level loop nest as generated kernels open it: one parallel region, a dynamic loop.
static void regions(double* a, int64_t n, int64_t reps, int threads) {
  for (int64_t r = 0; r < reps; ++r) {
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(dynamic, 16)
      for (int64_t i = 0; i < n; ++i) a[i] += 1.0;
    }
  }
}
// exp over an in-L1 array, as generated kernels call it (std::exp, one value at a time).
static void exps(double* a, const double* b, int64_t n, int64_t reps) {
  for (int64_t r = 0; r < reps; ++r)
    for (int64_t i = 0; i < n; ++i) a[i] += exp(b[i] + 1e-3 * (double)r);
}
// sizes: test (0 copy, 1 axpy, 2 dot, 3 parallel regions, 4 exp, 5 sparse rows into scratch,
// 6 into rows), length (4, 16, 32, 64 or 256 for 1, 2, 5, 6; iterations for 3; doubles for 4),
// repetitions (rows for 5 and 6), threads
extern "C" void react_calibrate(const ReactTensor* t, const int64_t* s) {
  const int64_t test = s[0], n = s[1], reps = s[2];
  double* a = static_cast<double*>(t[0].vals);
  double* b = static_cast<double*>(t[1].vals);
  if (test == 0) {
#pragma omp parallel for schedule(static) num_threads((int)s[3])
    for (int64_t i = 0; i < n; ++i) a[i] = b[i];
  } else if (test == 3) regions(a, n, reps, (int)s[3]);
  else if (test == 4) exps(a, b, n, reps);
  else if (test >= 5) {
    if (n == 4) sparse<4>(t, test, reps);
    else if (n == 16) sparse<16>(t, test, reps);
    else if (n == 32) sparse<32>(t, test, reps);
    else if (n == 64) sparse<64>(t, test, reps);
    else sparse<256>(t, test, reps);
  } else if (n == 4) loops<4>(test, a, b, reps);
  else if (n == 16) loops<16>(test, a, b, reps);
  else if (n == 32) loops<32>(test, a, b, reps);
  else if (n == 64) loops<64>(test, a, b, reps);
  else loops<256>(test, a, b, reps);
}
)";

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
  throw Error("auto: the size of the last-level cache is unknown (no sysfs cache entries, no sysconf value)");
}

// Best of `trials` runs of one test, in seconds.
double bestSeconds(KernelFunction f, std::vector<double>& a, std::vector<double>& b, int64_t test, int64_t n,
                   int64_t reps, int threads, int trials) {
  ReactTensor t[2] = {{a.data(), nullptr, nullptr, static_cast<int64_t>(a.size())},
                      {b.data(), nullptr, nullptr, static_cast<int64_t>(b.size())}};
  int64_t sizes[4] = {test, n, reps, threads};
  double best = 1e30;
  for (int r = 0; r < trials; ++r) {
    auto start = std::chrono::steady_clock::now();
    f(t, sizes);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

// flop/s of the sparse row loop (test 5: into scratch, 6: into rows) at length n, one thread,
// best of 5: rows of 8 stored entries at random columns of a 64-row dense operand (in cache,
// so that the loop's own rate is measured, not memory), about 1e7 flops per trial.
double sparseRowFlops(KernelFunction f, int64_t n, bool scratch) {
  const int64_t perRow = 8, columns = 64, rows = 5000000 / (perRow * n) + 1;
  std::vector<int64_t> pos(static_cast<size_t>(rows + 1));
  std::vector<int32_t> crd(static_cast<size_t>(rows * perRow));
  for (int64_t i = 0; i <= rows; ++i) pos[static_cast<size_t>(i)] = i * perRow;
  uint32_t state = 12345;  // a fixed linear congruential sequence: the same columns every time
  for (int32_t& c : crd) c = static_cast<int32_t>((state = state * 1664525u + 1013904223u) >> 8) % columns;
  std::vector<double> vals(crd.size(), 0.5), dense(static_cast<size_t>(columns * n), 0.25),
      out(static_cast<size_t>(rows * n), 0.0);
  ReactTensor t[3] = {{vals.data(), pos.data(), crd.data(), static_cast<int64_t>(vals.size())},
                      {dense.data(), nullptr, nullptr, static_cast<int64_t>(dense.size())},
                      {out.data(), nullptr, nullptr, static_cast<int64_t>(out.size())}};
  int64_t sizes[4] = {scratch ? 5 : 6, n, rows, 1};
  double best = 1e30;
  for (int r = 0; r < 5; ++r) {
    auto start = std::chrono::steady_clock::now();
    f(t, sizes);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return 2.0 * static_cast<double>(rows * perRow * n) / best;
}

// Which calibration kernels measured a stored file: a file from other kernels is measured again.
std::string calibrationId() { return contentHash(kCalibrationSource); }

std::string modelPath(const JitOptions& jit, int threads) {
  return jitCacheDirectory(jit) + "/machine-" + std::to_string(threads) + "t.txt";
}

}  // namespace

MachineModel calibrateMachine(const JitOptions& jit, int threads, std::ostream* progress) {
  if (threads <= 0) threads = omp_get_max_threads();
  auto step = [&](const char* what) {
    if (progress) *progress << what << std::flush;
  };
  auto started = std::chrono::steady_clock::now();
  CompiledLibrary lib = jitCompile(kCalibrationSource, Target::OpenMP, jit, "react_calibrate");
  step("react: measuring this machine for fusion mode auto (once per thread count):");
  MachineModel m;
  m.threads = threads;
  // Copy: two arrays of 32 Mi doubles (256 MiB together), well beyond any cache.
  step(" bandwidth");
  const int64_t big = int64_t{1} << 25;
  std::vector<double> a(static_cast<size_t>(big), 1.0), b(static_cast<size_t>(big), 2.0);
  auto copyBandwidth = [&](int t) { return 16.0 * static_cast<double>(big) / bestSeconds(lib.function, a, b, 0, big, 1, t, 3); };
  m.bandwidth1 = copyBandwidth(1);
  m.bandwidth = threads == 1 ? m.bandwidth1 : copyBandwidth(threads);
  // Flops: loops of 4 to 256 doubles (in L1), repeated to about 1e7 flops per trial.
  step(", loop rates");
  for (size_t l = 0; l < m.vectorFlops.size(); ++l) {
    const int64_t n = MachineModel::kRateLengths[l], reps = 5000000 / n;
    std::vector<double> x(static_cast<size_t>(n), 0.5), y(static_cast<size_t>(n), 0.25);
    m.vectorFlops[l] = 2.0 * n * reps / bestSeconds(lib.function, x, y, 1, n, reps, 1, 5);
    m.reductionFlops[l] = 2.0 * n * reps / bestSeconds(lib.function, x, y, 2, n, reps, 1, 5);
    m.scratchRowFlops[l] = sparseRowFlops(lib.function, n, true);
    m.rowFlops[l] = sparseRowFlops(lib.function, n, false);
    step(" .");
  }
  // Parallel regions: 2000 of them, each a dynamic loop of 64 trivial iterations on all threads
  // (the time is the region's start, scheduling and join); per region, best of 5.
  step(", parallel regions");
  {
    const int64_t regions = 2000;
    std::vector<double> x(64, 0.0), y(64, 0.0);
    m.regionSeconds = bestSeconds(lib.function, x, y, 3, 64, regions, threads, 5) / regions;
  }
  // exp: 256 values in L1, 4000 times (about 1e6 calls), one thread, best of 5.
  step(", exp");
  {
    std::vector<double> x(256, 0.0), y(256, 0.5);
    m.expRate = 256.0 * 4000 / bestSeconds(lib.function, x, y, 4, 256, 4000, 1, 5);
  }
  m.cacheBytes = lastLevelCacheBytes();
  // On a quiet machine the best of three copies is the same at the end as at the start; other
  // work taking cores or memory bandwidth in between shows as a difference.
  double again = copyBandwidth(1), change = std::abs(again - m.bandwidth1) / std::max(again, m.bandwidth1);
  if (change > 0.2) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "measured under load: the copy bandwidth of one thread was %.1f GB/s at the start and %.1f GB/s at "
                  "the end; measure again on a quiet machine (react-gen -calibrate)",
                  m.bandwidth1 / 1e9, again / 1e9);
    m.loadWarning = buf;
  }
  m.source = "calibrated now";
  char done[64];
  std::snprintf(done, sizeof done, ": done in %.1f s\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  step(done);
  if (progress && !m.loadWarning.empty()) *progress << "react: warning: " << m.loadWarning << "\n";
  return m;
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
  m.loadWarning = fields["load_warning"];
  m.source = path;
  return m;
}

}  // namespace

MachineModel readMachineModel(const std::string& path) {
  if (!std::filesystem::exists(path)) throw Error("machine model '" + path + "': no such file");
  std::optional<MachineModel> m = modelOf(readFields(path), path);
  if (!m) throw Error("machine model '" + path + "': a field is missing or not positive (see docs/auto.md for the fields)");
  return *m;
}

std::string storeMachineModel(const MachineModel& m, const JitOptions& jit) {
  std::string path = modelPath(jit, m.threads);
  std::ostringstream out;
  out << "# react machine model for fusion mode auto (docs/auto.md); delete to measure again\n"
      << "compiler=" << compilerCommand(Target::OpenMP) << "\ncalibration=" << calibrationId() << "\nthreads=" << m.threads
      << "\nbandwidth1=" << m.bandwidth1 << "\nbandwidth=" << m.bandwidth << "\ncache_bytes=" << m.cacheBytes
      << "\nregion_seconds=" << m.regionSeconds << "\nexp_rate=" << m.expRate << "\n";
  for (size_t l = 0; l < m.vectorFlops.size(); ++l)
    out << "vector_flops_" << MachineModel::kRateLengths[l] << "=" << m.vectorFlops[l] << "\nreduction_flops_"
        << MachineModel::kRateLengths[l] << "=" << m.reductionFlops[l] << "\nsparse_scratch_flops_"
        << MachineModel::kRateLengths[l] << "=" << m.scratchRowFlops[l] << "\nsparse_row_flops_"
        << MachineModel::kRateLengths[l] << "=" << m.rowFlops[l] << "\n";
  if (!m.loadWarning.empty()) out << "load_warning=" << m.loadWarning << "\n";
  writeFileAtomically(path, out.str());
  return path;
}

MachineModel machineModel(const JitOptions& jit, int threads) {
  if (threads <= 0) threads = omp_get_max_threads();
  std::string path = modelPath(jit, threads);
  std::map<std::string, std::string> fields = readFields(path);
  if (fields["compiler"] == compilerCommand(Target::OpenMP) && fields["calibration"] == calibrationId() &&
      std::atoi(fields["threads"].c_str()) == threads)
    if (std::optional<MachineModel> m = modelOf(fields, path)) return *m;
  MachineModel m = calibrateMachine(jit, threads, &std::cerr);
  try {
    m.source = "calibrated now, stored in " + storeMachineModel(m, jit);
  } catch (const Error& e) {
    // A read-only cache: the model serves this run and is measured again by the next one.
    std::cerr << "react: " << e.what() << " (measured again next time)\n";
  }
  return m;
}

}  // namespace react
