// react-bench's harness: the benchmark kernels (docs/benchmarks.md, "Work model") with their work model, the variants
// (react's fusion modes on both emitters, and the unfused library pipelines a user writes today),
// the agreement check, timing and the machine's copy bandwidth. Compiled into react-bench and the
// tests (test/test_bench.cpp).
#pragma once

#include "lower/lower.hpp"

#include <chrono>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace react::bench {

// --- kernels ----------------------------------------------------------------------------------
struct DenseSizes {
  std::vector<int64_t> sddmmK{64, 256};  // one sddmm kernel per K
  int64_t nh = 256, nj = 16;             // spmm_mm: C is cols x NH, D is NH x NJ
  std::vector<int64_t> ranks{16, 32, 64};  // one mttkrp and one ttm kernel per rank R
};

// The matrix kernels run on a matrix S loaded as csr and stored in `format` (csr, csc or dcsr:
// --format); the tensor kernels (mttkrp, ttm) on a csf 3-tensor S. Every tensor of the kernel
// (inputs, temporaries, result) is of `valueType` (--value-type).
struct BenchKernel {
  std::string name;  // "sddmm", "spmm_mm", "norm_row", "softmax", "mttkrp", "ttm"
  std::string dims;  // "K=64", "NH=256 NJ=16", "R=16", "" (norm_row, softmax)
  std::string text;  // operator form or index notation, output A, sparse input S
  int64_t k = 0, nh = 0, nj = 0;
  int64_t rank = 0;  // mttkrp, ttm: the dense factors' width R
  Format format = Format::csr();              // S as the kernel reads it (tensor kernels: csf)
  ValueType valueType = ValueType::Float64;  // of every tensor
  bool tensor() const { return rank > 0; }
  std::string label() const;  // "sddmm K=64"
  // S's format and the value type, "csc float32": kernels of one label in different storages
  // compute the same values.
  std::string storage() const;
};

const std::vector<std::string>& kernelNames();
// names: kernel names or "all"; throws react::UserError on an unknown name.
std::vector<BenchKernel> benchmarkKernels(const std::vector<std::string>& names, const DenseSizes& sizes);
// --format's and --value-type's comma lists: each a react::UserError naming `argument` and what
// was expected where an item is not csr, csc, dcsr (float32, float64); in the order given.
std::vector<Format> parseMatrixFormats(const std::string& list, const std::string& argument);
std::vector<ValueType> parseValueTypes(const std::string& list, const std::string& argument);
// `kernels` once per storage: a matrix kernel in each of `formats`, a tensor kernel in csf, each
// in every one of `types`; each kernel's storages together, in the order given.
std::vector<BenchKernel> inStorages(const std::vector<BenchKernel>& kernels, const std::vector<Format>& formats,
                                    const std::vector<ValueType>& types);

// Why `s` cannot be the kernel's S as loaded (a matrix kernel takes a csr matrix, a tensor kernel
// a csf 3-tensor), or "".
std::string inputMismatch(const BenchKernel& k, const TensorData& s);
// The loaded S (csr, or csf) stored as the kernel reads it: in k.format, of k.valueType.
TensorData storedAs(const BenchKernel& k, const TensorData& loaded);
// S and the dense inputs (randomDense with fixed seeds, so every variant sees the same data),
// in k's storage: the same values in every format, rounded to k.valueType; norm_row and softmax
// read S's pattern with positive values (kernels.cpp says why). `s` is S as loaded; throws
// react::UserError where it does not fit the kernel (inputMismatch).
TensorValues kernelInputs(const BenchKernel& k, const TensorData& s);
// The program; `s` gives S's shape, as loaded or in k's storage (else react::UserError).
Program kernelProgram(const BenchKernel& k, const TensorData& s);
// Why react's front end refuses the kernel in k's storage (a result at the pattern of a csc or
// dcsr S: docs/formats.md), or "".
std::string programRefusal(const BenchKernel& k, const TensorData& s);

// Useful work of the kernel, the same for every variant (docs/benchmarks.md states the model):
// flops a non-redundant evaluation performs, bytes it must move at least (inputs read once,
// output written once; S's levels as 8-byte positions and 4-byte coordinates, values of
// k.valueType's size). `s` is S in k's storage (or as loaded, for csr float64).
struct WorkModel {
  double flops = 0, bytes = 0;
};
WorkModel usefulWork(const BenchKernel& k, const TensorData& s);
// Bytes of a tensor kernel's output (0 for the matrix kernels), checked against the temporaries'
// limit: mttkrp's dense NI x R; ttm's A stored at S's (i,j) fibres, a row of R each (ssd), or, for
// TACO (`dense`), NI x NJ x R.
double outputBytes(const BenchKernel& k, const TensorData& s, bool dense = false);
// ttm's result format: S's first two levels (csf's), then a dense level of R.
Format ttmResultFormat();

// How a csf 3-tensor's entries group: slices (level 0), (i,k) fibres (level 1), entries; the
// mean fibre length nnz / fibres decides how much react's fused MTTKRP saves (docs/benchmarks.md).
struct FibreStats {
  int64_t slices = 0, fibres = 0, entries = 0, longestFibre = 0;
  double meanFibre() const { return fibres ? static_cast<double>(entries) / static_cast<double>(fibres) : 0; }
  std::string str() const;  // "10000 slices, 215839 fibres (mean length 4.63, longest 9999)"
};
FibreStats fibreStats(const SparseTensor& csf);
// The cost model's symbols for the levels of a sparse tensor S above its last (costSymbols gives
// nnz(S)): nnz0(S), nnz1(S), ..., each compressed level's stored coordinates; none for csr and csc.
std::map<std::string, double> levelSymbols(const TensorData& s);

// --- variants ---------------------------------------------------------------------------------
enum class Library { Eigen, KokkosKernels };
enum class TacoSchedule { Default, Best };  // library_taco.cpp says what each is
struct VariantSpec {
  std::string name;  // "react-openmp", "library-eigen", "taco-best", ...
  bool library = false;
  bool taco = false;  // taco-default, taco-best
  FusionMode fusion = FusionMode::React;  // react variants (Auto: decided per matrix)
  Target target = Target::OpenMP;         // react variants
  bool rightAssociated = false;           // "-right": product chains associated right to left
  Library lib = Library::Eigen;           // library variants
  TacoSchedule tacoSchedule = TacoSchedule::Default;  // taco variants
};
// Every variant, in report order; "all" leaves out the taco ones where react-bench was built
// without TACO (naming them gives rows that say so).
const std::vector<std::string>& variantNames();
// The program a react variant compiles for `s` and the mode it compiles it in: the kernel's own
// program, its right-associated form ("-right"), or auto's choice for s's statistics. Throws
// react::UserError for "-right" on a kernel without a product chain.
struct VariantProgram {
  Program program;        // as the variant writes it (re-associated for "-right")
  IndexTree tree;         // what is compiled: the mode's fusion of it, or auto's chosen tree
  std::string choice;     // auto: "auto chose react re-associated; S(i,k) * (C(k,h) * D(h,j))"
};
VariantProgram variantProgram(const BenchKernel& k, const VariantSpec& v, const TensorData& s, const JitOptions& jit);
// A comma list of variant names, or "all"; throws react::UserError naming an unknown variant.
std::vector<VariantSpec> parseVariants(const std::string& list);

// One variant bound to one (kernel, matrix): inputs borrowed, outputs and temporaries allocated
// once, so run() measures the computation alone.
class Instance {
 public:
  virtual ~Instance() = default;
  virtual void run() = 0;
  virtual TensorData result() const = 0;  // A after run(): csr with S's pattern, or dense
  virtual int threads() const = 0;        // threads the computation actually uses
  // False where the thread count is fixed by something else than omp_set_num_threads (Kokkos'
  // execution space): one measurement then serves every --threads value.
  virtual bool followsOpenMPThreads() const = 0;
  // Where it runs: "host", or the Kokkos execution space of a Kokkos kernel ("Cuda (...)").
  virtual std::string space() const { return "host"; }
};

// What a variant would cost on a matrix, to refuse the ones that cannot run here.
struct Limits {
  double maxTemporaryBytes = 4e9;  // dense temporaries (the NI x NJ product of unfused sddmm)
  double maxFlops = 6e10;          // work the variant performs per run, redundant work included
};

// Either an instance or the reason it cannot run ("cannot run: ...").
struct Prepared {
  std::unique_ptr<Instance> instance;
  std::string cannotRun;
  double performedFlops = 0;  // what this variant computes (its redundancy included)
  // react variants: the kernel's library file (variants with the same file run the same code)
  // and, for auto, what it chose; the row's note
  std::string note;
  const KokkosRuntime* device = nullptr;  // the Kokkos runtime of a kernel that runs on a device
};

// react's kernels, compiled once per (kernel, variant) on first use (the JIT caches on disk);
// sparse extents are runtime arguments, so one kernel serves every matrix.
class ReactKernels {
 public:
  explicit ReactKernels(JitOptions jit) : jit_(std::move(jit)) {}
  const Kernel& get(const BenchKernel& k, const VariantSpec& v, const TensorData& s, std::string* choice = nullptr);
  // Fills the JIT cache for every react variant of these kernels, `jobs` compilers at once, so
  // that get() finds them there (a CUDA kernel takes nvcc tens of seconds).
  void precompile(const std::vector<BenchKernel>& kernels, const std::vector<VariantSpec>& variants, int jobs);
  double compileSeconds() const { return compileSeconds_; }
  // Copy bandwidth of the device a kernel runs on, measured on first use.
  double deviceBandwidth(const KokkosRuntime& device);

 private:
  JitOptions jit_;
  std::map<std::string, std::unique_ptr<Kernel>> kernels_;
  double compileSeconds_ = 0;
  double deviceBandwidth_ = 0;
};

Prepared prepareVariant(const VariantSpec& v, const BenchKernel& k, const TensorValues& inputs, ReactKernels& kernels,
                        const Limits& limits);

// Library pipelines (library_eigen.cpp, library_kokkoskernels.cpp). `inputs` must outlive the
// instance. The kokkoskernels one returns null with `why` set where it has no pipeline.
std::unique_ptr<Instance> makeEigenInstance(const BenchKernel& k, const TensorValues& inputs);
std::unique_ptr<Instance> makeKokkosKernelsInstance(const BenchKernel& k, const TensorValues& inputs, std::string& why);
struct LibraryCost {
  double flops = 0, temporaryBytes = 0;
  std::string temporary;  // what the temporary is, for the report
};
LibraryCost libraryCost(const BenchKernel& k, const CsrMatrix& s);

// The TACO baselines (library_taco.cpp), compiled when prepared: null with `why` set where TACO
// cannot run the kernel (or react-bench was built without TACO); `note` names TACO's commit and
// the schedule. tacoFlops: the flops of the loops that schedule runs, redundant ones included.
bool tacoAvailable();
std::unique_ptr<Instance> makeTacoInstance(const BenchKernel& k, const TensorValues& inputs, TacoSchedule schedule,
                                           std::string& note, std::string& why);
double tacoFlops(const BenchKernel& k, const TensorData& s, TacoSchedule schedule);

// --- agreement ----------------------------------------------------------------------------------
struct Agreement {
  bool ok = true;
  double relativeError = 0;  // max |got - want| over max |want|
  std::string detail;        // where they differ most, or how the structures differ
};
// got and want agree when they have the same structure (shape, or csr pattern), NaN and infinities
// at the same places, and max|got-want| <= tolerance * max|want|.
Agreement compareResults(const TensorData& got, const TensorData& want, double tolerance = 1e-9);
// The tolerance of a float32 result of k against its float64 reference `want` (S as loaded: `s`),
// from float32's unit roundoff and the longest chain of roundings one result entry passes
// through (check.cpp derives it). `magnitude`: the float64 result on |S| (the dense inputs are
// nonnegative), which bounds the sum of |terms| of every entry; `want` itself where S >= 0.
double float32Tolerance(const BenchKernel& k, const TensorData& s, const TensorData& want, const TensorData& magnitude);
// The rounding steps float32Tolerance counts for k on s (its comment says how).
int64_t float32Roundings(const BenchKernel& k, const TensorData& s);

// --- timing -------------------------------------------------------------------------------------
struct Timing {
  int runs = 0;
  double median = 0, min = 0, max = 0;  // seconds
};
// `reps` timed runs of `run` (steady_clock), fewer when they would exceed `budgetSeconds`
// (estimated from `firstRunSeconds`, the warm-up), at least one.
template <typename Run>
Timing timeRuns(Run&& run, int reps, double budgetSeconds, double firstRunSeconds);
Timing summarize(std::vector<double> seconds);
int plannedRuns(int reps, double budgetSeconds, double firstRunSeconds);
double secondsSince(std::chrono::steady_clock::time_point start);
std::string formatMilliseconds(double seconds);  // "12.3 ms"

// STREAM-like copy of two `bytesPerArray` arrays with `threads` OpenMP threads, best of `trials`;
// returns bytes moved (read + written) per second.
double measureCopyBandwidth(int threads, size_t bytesPerArray = size_t{512} << 20, int trials = 5);
// The same on a Kokkos device (device-to-device copies; each copy fences).
double measureDeviceCopyBandwidth(const KokkosRuntime& device, size_t bytesPerArray = size_t{1} << 30, int trials = 10);

// --- reports (report.cpp) ------------------------------------------------------------------------
// One (matrix, kernel, variant, threads) measurement (a tensor S: rows and cols are its first two
// dimensions).
struct Row {
  std::string matrix;
  int64_t rows = 0, cols = 0, nnz = 0;
  std::string kernel, dims, variant;
  int threads = 0;         // requested (--threads)
  int variantThreads = 0;  // what the variant used (Kokkos Serial: 1)
  std::string space = "host";  // Instance::space()
  std::string status;      // "ok", or "cannot run: ..."
  std::string note;        // e.g. that the timing was measured at another thread count
  Timing timing;
  double relativeError = 0;  // against the reference variant (the first one run)
  WorkModel work;
  double performedFlops = 0;
  double machineBandwidth = 0;  // copy bandwidth (bytes/s) measured at `threads`
  std::string format = "csr", valueType = "float64";  // S's format, every tensor's value type
  std::string storage() const { return format + " " + valueType; }
  bool ok() const { return status == "ok"; }
  std::string label() const { return dims.empty() ? kernel : kernel + " " + dims; }
  double gflops() const { return ok() ? work.flops / timing.median / 1e9 : 0; }
  double gbs() const { return ok() ? work.bytes / timing.median / 1e9 : 0; }
  double bandwidthFraction() const { return ok() ? work.bytes / timing.median / machineBandwidth : 0; }
};

void writeCsv(std::ostream& out, const std::vector<Row>& rows);
// The terminal table of some rows (one matrix): times, rates and speedup over `library`.
std::string formatTable(const std::vector<Row>& rows);

// `library` = the faster library variant of the same (matrix, kernel, threads); for mttkrp and
// ttm, taco-default (no library pipeline takes a sparse 3-tensor).
const Row* libraryRow(const std::vector<Row>& rows, const Row& r);
// Geometric-mean speedups of react-<emitter> over maximal-<emitter>, none-<emitter> and library,
// per kernel and thread count, over the matrices where both ran; and react-<emitter>'s fraction
// of the copy bandwidth (geometric mean and largest).
struct Summary {
  std::string kernel, storage, emitter;  // storage: "csr float64" (Row's format and value type)
  int threads = 0;
  double overMaximal = 0, overNone = 0, overLibrary = 0;  // 0 = no pair
  int nMaximal = 0, nNone = 0, nLibrary = 0;
  double bandwidthGeomean = 0, bandwidthMax = 0;
};
std::vector<Summary> summarizeSpeedups(const std::vector<Row>& rows);
std::string formatSummary(const std::vector<Summary>& s);
// The same (matrix, kernel, variant, threads, value type) on csr that ran, for a row of another
// format; null when there is none.
const Row* csrRow(const std::vector<Row>& rows, const Row& r);
// For each format other than csr, its median over csr's ("x csr"), per (kernel, variant, format,
// value type, threads): geometric mean and largest over the matrices where both ran; "" when no
// row is of another format.
std::string formatCostSummary(const std::vector<Row>& rows);

template <typename Run>
Timing timeRuns(Run&& run, int reps, double budgetSeconds, double firstRunSeconds) {
  std::vector<double> seconds;
  for (int r = 0, n = plannedRuns(reps, budgetSeconds, firstRunSeconds); r < n; ++r) {
    auto start = std::chrono::steady_clock::now();
    run();
    seconds.push_back(secondsSince(start));
  }
  return summarize(std::move(seconds));
}

}  // namespace react::bench
