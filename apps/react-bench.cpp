// react-bench: runs the benchmark kernels (docs/benchmarks.md, "Work model") on Matrix Market files and synthetic
// matrices for every variant (react's fusion modes on both emitters, the unfused library
// pipelines), checks that all variants agree, and reports the median of repeated runs after a
// warm-up: a table, a CSV and a plot of the speedups over the library pipeline.
#include "bench/bench.hpp"
#include "internal_error_report.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

using namespace react;
using namespace react::bench;

namespace {

const char* kUsage = R"(usage: react-bench --kernel NAME|all --matrix FILE_OR_DIR... [options]

Runs each kernel on each matrix (the tensor kernels: on each 3-tensor) with each variant: a warm-up run (three more where it
took under an eighth of --budget: a CUDA kernel replays its launches as a graph from its fourth or fifth call), then --reps
timed runs, the last one's result checked against the first variant, react-openmp when selected, on S in csr (csf) and
float64; all must agree to --tolerance, float32 ones to their bound;
reports median/min/max seconds, GFLOP/s, GB/s and the fraction of the copy bandwidth measured here.

  --kernel LIST          sddmm, spmm_mm, norm_row, softmax (on matrices), mttkrp, ttm (on
                         3-tensors) or all (comma list; default all: each input's kernels)
  --matrix PATH...       Matrix Market files, FROSTT .tns files (3-tensors, read into csf), or
                         folders of them
  --synthetic KIND:N:AVG a generated N x N matrix with AVG stored entries per row on average;
                         KIND: uniform | powerlaw | banded (repeatable)
  --tensor powerlaw:IxJxK:NNZ[:EXPONENT]
                         a generated I x J x K power-law 3-tensor (powerLawTensor) with about NNZ
                         stored entries, in csf; EXPONENT of the Pareto weights (default 2)
  --variants LIST        comma list of none-openmp, maximal-openmp, react-openmp, none-kokkos,
                         maximal-kokkos, react-kokkos, library-eigen, library-kokkoskernels,
                         taco-default, taco-best (TACO's default schedule and the best one
                         written by hand; only in a build configured with -DREACT_TACO_DIR),
                         auto-openmp, auto-kokkos (auto decides per matrix), none-openmp-right,
                         maximal-openmp-right, react-openmp-right, react-kokkos-right (product
                         chains associated right to left: spmm_mm as S @ (C @ D)), or all
                         (default; the taco variants where react-bench was built with TACO)
  --threads LIST         OpenMP thread counts, e.g. 1,2 (default: all cores); Kokkos variants run
                         on Kokkos' default execution space (Serial in Debian's Kokkos: 1 thread;
                         a GPU in a CUDA build, with inputs copied there once, outside the timings);
                         taco variants run their parallel loops on the OpenMP threads, and a
                         schedule TACO cannot parallelize on 1 thread
  --format LIST          the matrix kernels' S stored in each of csr, csc, dcsr (comma list;
                         default csr): the same values in each; a row of another format shows
                         its median over csr's ("x csr"), the summary their geometric mean;
                         library and taco variants read csr only; a result at S's pattern is
                         stored in S's format, and checked in csr's order. The tensor kernels
                         read csf
  --value-type LIST      every tensor (inputs, temporaries, result) of float64 or float32 (comma
                         list; default float64); float32 results are checked against the float64
                         reference within a bound from float32's rounding and the kernel's longest
                         reduction (docs/benchmarks.md); library and taco variants are float64 only
  --reps N               timed runs after the warm-up (default 10)
  --budget SECONDS       fewer runs (at least 1) where N runs would take longer (default 2)
  --sddmm-k LIST         sddmm dense sizes K (default 64,256)
  --nh N, --nj N         spmm_mm dense sizes (default 256, 16)
  --rank LIST            mttkrp and ttm: the dense factors' width R (default 16,32,64)
  --tolerance X          largest relative error allowed against the first variant (default 1e-9)
                         for float64 results; each row's error is in the CSV (rel_error)
  --jobs N               JIT compilations run at once before the runs (default 4)
  --max-flops X          refuse variants performing more flops per run (default 6e10)
  --max-temp-gb X        refuse variants whose temporaries (or tensor kernels' output) need more
                         memory (default 4)
  --csv FILE             one row per (matrix, kernel, variant, threads)
  --plot FILE            speedup over library per matrix, PNG or SVG (scripts/plot_bench.py)
  --cache-dir DIR        JIT cache (default $REACT_CACHE_DIR or ~/.cache/react)
  --write-synthetic DIR  also write each synthetic matrix as DIR/NAME.mtx (for scripts/scipy_bench.py)
  --help                 this text
testing:
  --testing-perturb VARIANT  perturb that variant's checked result (the run must fail)
Exit status: 0, 1 for bad arguments or files, 2 for an unexpected failure, 3 when variants
disagree, 70 for an internal compiler error (a bug in react: report it with the command line).
On a machine shared with other work, OMP_WAIT_POLICY=passive keeps a descheduled OpenMP thread
from stalling every barrier for a time slice (scripts/bench.sh sets it).
)";

struct Options {
  std::vector<std::string> kernels{"all"}, matrices, synthetic, tensors;
  std::string variants = "all", csv, plot, cacheDir, perturb, writeSynthetic;
  std::vector<int> threads;
  std::vector<Format> formats{Format::csr()};
  std::vector<ValueType> valueTypes{ValueType::Float64};
  int reps = 10, jobs = 4;
  double budget = 2, tolerance = 1e-9;
  DenseSizes sizes;
  Limits limits;
};

[[noreturn]] void argError(const std::string& arg, const std::string& what) { throw UserError("argument '" + arg + "': " + what); }

std::vector<std::string> splitList(const std::string& s) {
  std::vector<std::string> items;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) items.push_back(item);
  return items;
}

double number(const std::string& arg, const std::string& text, bool integer) {
  try {
    size_t used = 0;
    double v = std::stod(text, &used);
    if (used == text.size() && v > 0 && (!integer || v == static_cast<double>(static_cast<int64_t>(v)))) return v;
  } catch (const std::exception&) {
  }
  argError(arg, "'" + text + "' is not a positive " + (integer ? "integer" : "number"));
}

template <typename T>
std::vector<T> integers(const std::string& arg, const std::string& text) {
  std::vector<T> out;
  for (const std::string& item : splitList(text)) out.push_back(static_cast<T>(number(arg, item, true)));
  if (out.empty()) argError(arg, "expected a comma list of positive integers");
  return out;
}

Options parseArgs(int argc, char** argv) {
  Options o;
  for (int a = 1; a < argc; ++a) {
    std::string arg = argv[a], key = arg, value;
    bool inlineValue = false;
    if (auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      key = arg.substr(0, eq), value = arg.substr(eq + 1), inlineValue = true;
    }
    auto next = [&]() -> std::string {
      if (inlineValue) return value;
      if (a + 1 >= argc) argError(arg, "expected a value");
      return argv[++a];
    };
    if (key == "--help" || key == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else if (key == "--kernel") {
      o.kernels = splitList(next());
    } else if (key == "--matrix") {
      if (inlineValue) o.matrices.push_back(value);
      while (a + 1 < argc && std::string(argv[a + 1]).rfind("--", 0) != 0) o.matrices.push_back(argv[++a]);
      if (o.matrices.empty()) argError(arg, "expected files or folders");
    } else if (key == "--synthetic") {
      o.synthetic.push_back(next());
    } else if (key == "--tensor") {
      o.tensors.push_back(next());
    } else if (key == "--variants") {
      o.variants = next();
    } else if (key == "--format") {
      std::string list = next();
      o.formats = parseMatrixFormats(list, "argument '--format " + list + "'");
    } else if (key == "--value-type") {
      std::string list = next();
      o.valueTypes = parseValueTypes(list, "argument '--value-type " + list + "'");
    } else if (key == "--threads") {
      o.threads = integers<int>(arg, next());
    } else if (key == "--reps") {
      o.reps = static_cast<int>(number(arg, next(), true));
    } else if (key == "--budget") {
      o.budget = number(arg, next(), false);
    } else if (key == "--sddmm-k") {
      o.sizes.sddmmK = integers<int64_t>(arg, next());
    } else if (key == "--nh") {
      o.sizes.nh = static_cast<int64_t>(number(arg, next(), true));
    } else if (key == "--nj") {
      o.sizes.nj = static_cast<int64_t>(number(arg, next(), true));
    } else if (key == "--rank") {
      o.sizes.ranks = integers<int64_t>(arg, next());
    } else if (key == "--tolerance") {
      o.tolerance = number(arg, next(), false);
    } else if (key == "--jobs") {
      o.jobs = static_cast<int>(number(arg, next(), true));
    } else if (key == "--max-flops") {
      o.limits.maxFlops = number(arg, next(), false);
    } else if (key == "--max-temp-gb") {
      o.limits.maxTemporaryBytes = 1e9 * number(arg, next(), false);
    } else if (key == "--csv") {
      o.csv = next();
    } else if (key == "--plot") {
      o.plot = next();
    } else if (key == "--cache-dir") {
      o.cacheDir = next();
    } else if (key == "--write-synthetic") {
      o.writeSynthetic = next();
    } else if (key == "--testing-perturb") {
      o.perturb = next();
    } else {
      argError(arg, "unknown option (see --help)");
    }
  }
  if (o.matrices.empty() && o.synthetic.empty() && o.tensors.empty())
    throw UserError("no matrix given: use --matrix FILE_OR_DIR, --synthetic KIND:N:AVG or --tensor powerlaw:IxJxK:NNZ");
  if (o.threads.empty()) o.threads = {omp_get_max_threads()};
  return o;
}

// A matrix or 3-tensor to benchmark: a file, or a generator spec (synthetic: a matrix; tensor: a
// 3-tensor, the spec's dimensions, entries and exponent).
struct MatrixSource {
  std::string name, path, synthetic;
  std::vector<int64_t> tensorShape;
  int64_t tensorEntries = 0;
  double exponent = 2;
};

bool isFrostt(const std::string& path) { return std::filesystem::path(path).extension() == ".tns"; }
bool isTensor(const MatrixSource& m) { return !m.tensorShape.empty() || isFrostt(m.path); }

// The kernels that run on `m`: the matrix kernels on a matrix, the tensor kernels on a 3-tensor.
std::vector<BenchKernel> kernelsFor(const std::vector<BenchKernel>& kernels, const MatrixSource& m) {
  std::vector<BenchKernel> out;
  std::copy_if(kernels.begin(), kernels.end(), std::back_inserter(out), [&](const BenchKernel& k) { return k.tensor() == isTensor(m); });
  return out;
}

// Every input has a kernel, and every kernel named in --kernel an input (with "all", only the former).
void checkPairs(const Options& o, const std::vector<BenchKernel>& kernels, const std::vector<MatrixSource>& inputs) {
  for (const MatrixSource& m : inputs)
    if (kernelsFor(kernels, m).empty())
      throw UserError("input '" + m.name + "' is a " + (isTensor(m) ? "3-tensor" : "matrix") + ": none of the kernels given (--kernel) takes one");
  if (std::find(o.kernels.begin(), o.kernels.end(), "all") != o.kernels.end()) return;
  for (const BenchKernel& k : kernels)
    if (std::none_of(inputs.begin(), inputs.end(), [&](const MatrixSource& m) { return k.tensor() == isTensor(m); }))
      throw UserError("kernel '" + k.name + "' takes a " +
                      (k.tensor() ? std::string("csf 3-tensor: give one with --tensor or --matrix FILE.tns")
                                  : std::string("csr matrix: give one with --matrix FILE.mtx or --synthetic")));
}

std::vector<MatrixSource> matrixSources(const Options& o) {
  std::vector<MatrixSource> out;
  namespace fs = std::filesystem;
  for (const std::string& p : o.matrices) {
    if (!fs::is_directory(p)) {
      if (!fs::exists(p)) throw UserError(p + ": no such file or folder");
      out.push_back({fs::path(p).stem().string(), p, "", {}});
      continue;
    }
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(p))
      if (e.is_regular_file() && (e.path().extension() == ".mtx" || isFrostt(e.path()))) files.push_back(e.path());
    if (files.empty()) throw UserError(p + ": no .mtx or .tns files in this folder");
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) out.push_back({f.stem().string(), f.string(), "", {}});
  }
  for (const std::string& s : o.synthetic) {
    std::vector<std::string> parts;
    std::stringstream in(s);
    for (std::string part; std::getline(in, part, ':');) parts.push_back(part);
    const std::string arg = "--synthetic " + s;
    if (parts.size() != 3 || (parts[0] != "uniform" && parts[0] != "powerlaw" && parts[0] != "banded"))
      argError(arg, "expected uniform|powerlaw|banded:N:AVG_NNZ_PER_ROW");
    number(arg, parts[1], true);
    number(arg, parts[2], false);
    out.push_back({parts[0] + "-" + parts[1] + "-" + parts[2], "", s, {}});
  }
  for (const std::string& t : o.tensors) {
    std::vector<std::string> parts;
    std::stringstream in(t);
    for (std::string part; std::getline(in, part, ':');) parts.push_back(part);
    const std::string arg = "--tensor " + t;
    if ((parts.size() != 3 && parts.size() != 4) || parts[0] != "powerlaw")
      argError(arg, "expected powerlaw:IxJxK:NNZ[:EXPONENT]");
    MatrixSource m{"powerlaw-" + parts[1] + "-" + parts[2], "", "", {}};
    std::stringstream dims(parts[1]);
    for (std::string d; std::getline(dims, d, 'x');) m.tensorShape.push_back(static_cast<int64_t>(number(arg, d, true)));
    if (m.tensorShape.size() != 3) argError(arg, "expected three dimensions IxJxK, got '" + parts[1] + "'");
    m.tensorEntries = static_cast<int64_t>(number(arg, parts[2], true));
    if (parts.size() == 4) {
      m.exponent = number(arg, parts[3], false);
      if (m.exponent <= 1) argError(arg, "the exponent must be > 1");
      m.name += "-" + parts[3];
    }
    out.push_back(m);
  }
  return out;
}

TensorData loadInput(const MatrixSource& m) {
  if (!m.tensorShape.empty()) return convertFormat(powerLawTensor(m.tensorShape, m.tensorEntries, 1, m.exponent), Format::csf(3));
  if (m.synthetic.empty()) return isFrostt(m.path) ? TensorData(readFrostt(m.path, Format::csf(3))) : readMatrixMarketCsr(m.path);
  auto first = m.synthetic.find(':'), second = m.synthetic.rfind(':');
  std::string kind = m.synthetic.substr(0, first);
  int64_t n = std::stoll(m.synthetic.substr(first + 1, second - first - 1));
  double avg = std::stod(m.synthetic.substr(second + 1));
  if (kind == "uniform") return uniformRandom(n, n, avg, 1);
  if (kind == "powerlaw") return powerLaw(n, avg, 1);
  return banded(n, std::max<int64_t>(0, std::llround((avg - 1) / 2)), 1);
}

// A progress bar on a terminal, one line per finished item otherwise (both on stderr).
class Progress {
 public:
  explicit Progress(int total) : total_(total), tty_(isatty(STDERR_FILENO)) {}
  void show(const std::string& item) {
    if (!tty_) return;
    const int width = 30, filled = total_ ? width * done_ / total_ : width;
    std::fprintf(stderr, "\r\033[K[%s%s] %d/%d %s", std::string(filled, '#').c_str(), std::string(width - filled, '.').c_str(),
                 done_, total_, item.c_str());
    std::fflush(stderr);
  }
  void finish(const std::string& item, const std::string& outcome) {
    ++done_;
    if (tty_) show(item);
    else std::fprintf(stderr, "[%d/%d] %s: %s\n", done_, total_, item.c_str(), outcome.c_str());
  }
  void clear() {
    if (tty_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  int total_, done_ = 0;
  bool tty_;
};

struct Disagreement : UserError {
  using UserError::UserError;
};

std::string describe(const Row& r) {
  if (!r.ok()) return r.status;
  char buf[96];
  std::snprintf(buf, sizeof buf, "median %.4g s (%d runs)", r.timing.median, r.timing.runs);
  return buf;
}

std::string shortNumber(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g", x);
  return buf;
}

// Moves one value by twice the tolerance it is checked to (of the largest), so that the check fails.
void perturb(TensorData& m, double tolerance) {
  std::vector<double>& v = valuesOf(m);
  double largest = 0;
  for (double x : v) largest = std::max(largest, std::abs(x));
  if (!v.empty()) v[v.size() / 2] += (1e-6 + 2 * tolerance) * std::max(largest, 1.0);
}

// S as loaded (csr, csf) in float64: the storage every run is checked in.
BenchKernel referenceStorage(BenchKernel k) {
  k.format = k.tensor() ? Format::csf(3) : Format::csr();
  k.valueType = ValueType::Float64;
  return k;
}

// What every run of one kernel is checked against: the first variant's result on the reference
// storage, and for float32 runs the same variant's result on |S| (float32Tolerance's magnitude).
class Reference {
 public:
  // keepInputs: float32 runs will be checked (the magnitude reruns the reference on |S|).
  Reference(const BenchKernel& k, const TensorData& loaded, bool keepInputs)
      : kernel_(referenceStorage(k)), loaded_(loaded), keepInputs_(keepInputs) {}
  const BenchKernel& kernel() const { return kernel_; }
  bool empty() const { return name_.empty(); }
  void set(const VariantSpec& v, const TensorValues& inputs, TensorData result) {
    variant_ = v;
    name_ = v.name + " on " + kernel_.storage();
    if (keepInputs_) inputs_ = inputs;
    result_ = std::move(result);
  }
  // The agreement of `got` (variant `variant`, kernel k), or Disagreement; `tolerance`: what it
  // was checked to.
  Agreement check(const Options& o, const MatrixSource& m, const BenchKernel& k, const std::string& variant, TensorData got,
                  ReactKernels& kernels, double& tolerance) {
    tolerance =
        k.valueType == ValueType::Float64 ? o.tolerance : float32Tolerance(k, loaded_, result_, magnitude(o, kernels));
    if (variant == o.perturb) perturb(got, tolerance);
    // A result at a csc or dcsr S's pattern is in S's format: compared in the reference's csr order.
    if (const SparseTensor* t = std::get_if<SparseTensor>(&got); t && std::holds_alternative<CsrMatrix>(result_))
      got = sparseToCsr(*t);
    // TACO's ttm writes A dense, react's at S's (i,j) fibres (ssd): compared as dense.
    const TensorData* want = &result_;
    std::optional<TensorData> dense;
    if (const SparseTensor* t = std::get_if<SparseTensor>(&result_); t && std::holds_alternative<DenseTensor>(got))
      want = &*(dense = sparseToDense(*t));
    Agreement a = compareResults(got, *want, tolerance);
    if (!a.ok)
      throw Disagreement(m.name + ", " + k.label() + ", S " + k.storage() + ": variant " + variant + " disagrees with " + name_ +
                         ": " + a.detail);
    return a;
  }

 private:
  const TensorData& magnitude(const Options& o, ReactKernels& kernels) {
    if (magnitude_) return *magnitude_;
    TensorValues absolute = inputs_;
    for (double& v : valuesOf(absolute.at("S"))) v = std::abs(v);
    if (valuesOf(absolute.at("S")) == valuesOf(inputs_.at("S"))) return *(magnitude_ = result_);  // S >= 0
    Prepared p = prepareVariant(variant_, kernel_, absolute, kernels, o.limits);
    REACT_ASSERT(p.instance, "the reference variant " + variant_.name + " cannot run on |S|: " + p.cannotRun);
    p.instance->run();
    return *(magnitude_ = p.instance->result());
  }

  BenchKernel kernel_;
  const TensorData& loaded_;
  bool keepInputs_;
  VariantSpec variant_;
  std::string name_;
  TensorValues inputs_;
  TensorData result_;
  std::optional<TensorData> magnitude_;
};

// Runs every variant of one (matrix, kernel) in each of its storages (`storages`: one kernel's,
// inStorages) at every thread count, each checked against the Reference. The reference storage
// runs first; where it is not among `storages`, only to get the reference (no rows, untimed).
std::vector<Row> benchmarkItem(const Options& o, const std::vector<VariantSpec>& variants, std::vector<BenchKernel> storages,
                               const MatrixSource& m, const TensorData& s, ReactKernels& kernels,
                               const std::map<int, double>& bandwidth, Progress& progress) {
  Reference reference(storages.front(), s, std::any_of(storages.begin(), storages.end(), [](const BenchKernel& k) {
                        return k.valueType == ValueType::Float32;
                      }));
  auto isReference = [&](const BenchKernel& k) { return k.storage() == reference.kernel().storage(); };
  const bool referenceReported = std::any_of(storages.begin(), storages.end(), isReference);
  if (!referenceReported) storages.insert(storages.begin(), reference.kernel());
  std::stable_partition(storages.begin(), storages.end(), isReference);
  const std::vector<int64_t> shape = shapeOf(s);
  std::vector<Row> rows;
  for (const BenchKernel& k : storages) {
    TensorValues inputs = kernelInputs(k, s);
    const bool reported = referenceReported || !isReference(k);
    WorkModel work = usefulWork(k, inputs.at("S"));
    for (const VariantSpec& v : variants) {
      Prepared p = prepareVariant(v, k, inputs, kernels, o.limits);
      if (!reported) {  // the reference alone
        if (p.instance && reference.empty()) {
          p.instance->run();
          reference.set(v, inputs, p.instance->result());
        }
        continue;
      }
      if (p.instance && !isReference(k) && reference.empty()) {
        p.instance.reset();
        p.cannotRun = "cannot run: no variant ran on S in " + reference.kernel().storage() + " to check it against";
      }
      std::optional<Row> measured;  // this variant's first row: serves all where its threads ignore --threads
      for (int threads : o.threads) {
        omp_set_num_threads(threads);
        Row r{m.name, shape[0], shape[1], static_cast<int64_t>(valuesOf(s).size()), k.name, k.dims, v.name, threads, 1, "host",
              p.cannotRun.empty() ? "ok" : p.cannotRun, "", {}, 0, work, p.performedFlops,
              p.device ? kernels.deviceBandwidth(*p.device) : bandwidth.at(threads), k.format.str(), toString(k.valueType)};
        if (p.instance) r.space = p.instance->space();
        r.note = p.note;
        std::string item = m.name + " " + k.label() + " " + k.storage() + " " + v.name + " t=" + std::to_string(threads);
        progress.show(item);
        if (p.instance && measured && !p.instance->followsOpenMPThreads()) {
          r.variantThreads = measured->variantThreads;
          r.timing = measured->timing;
          r.note = "measured once, at --threads " + std::to_string(measured->threads) + " (its thread count does not follow --threads)";
        } else if (p.instance) {
          r.variantThreads = p.instance->threads();
          auto start = std::chrono::steady_clock::now();
          p.instance->run();  // warm-up
          double steady = secondsSince(start);
          // Three more untimed calls where they are cheap: a kernel on a CUDA GPU captures its
          // launches as a graph at the call after one that allocated nothing (the third, where
          // the first allocated its workspaces), and again at the next where alternating arrays
          // take turns, and replays them from then on. The budget follows the last warm-up call.
          for (int settle = 0; settle < 3 && steady < o.budget / 8; ++settle) {
            start = std::chrono::steady_clock::now();
            p.instance->run();
            steady = secondsSince(start);
          }
          Instance* instance = p.instance.get();
          r.timing = timeRuns([instance] { instance->run(); }, o.reps, o.budget, steady);
          // The last timed call's result is the one checked: what a kernel keeps between calls
          // (workspaces, its launches replayed as a CUDA graph) must leave later results right.
          if (reference.empty()) {
            TensorData got = p.instance->result();
            if (v.name == o.perturb) perturb(got, o.tolerance);
            reference.set(v, inputs, std::move(got));
          } else if (threads == o.threads.front()) {
            double tolerance = 0;
            r.relativeError = reference.check(o, m, k, v.name, p.instance->result(), kernels, tolerance).relativeError;
            if (k.valueType == ValueType::Float32) r.note += "; float32 result within " + shortNumber(tolerance) + " of the float64 reference";
          }
        }
        progress.finish(item, describe(r));
        rows.push_back(r);
        if (!measured) measured = r;
      }
    }
  }
  return rows;
}

void runPlot(const std::string& csv, const std::string& plot) {
  // The script lies at REACT_BENCH_SCRIPTS from this executable's folder, in the build tree as in
  // an installed one (apps/CMakeLists.txt): an installed react-bench needs no source tree.
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  std::string script = (exe.parent_path() / REACT_BENCH_SCRIPTS / "plot_bench.py").lexically_normal().string();
  const char* python = std::getenv("REACT_PYTHON");
  std::vector<std::string> argv{python && *python ? python : "/usr/bin/python3", script, csv, "--out", plot};
  if (int rc = runProcess(argv); rc != 0)
    throw UserError("plot: " + argv[0] + " " + script + " exited with status " + std::to_string(rc) + " (--plot " + plot + ")");
  std::printf("plot: %s\n", plot.c_str());
}

int run(int argc, char** argv) {
  auto start = std::chrono::steady_clock::now();
  Options o = parseArgs(argc, argv);
  std::vector<BenchKernel> kernelList = inStorages(benchmarkKernels(o.kernels, o.sizes), o.formats, o.valueTypes);
  std::vector<VariantSpec> variants = parseVariants(o.variants);
  if (!o.perturb.empty() && std::none_of(variants.begin(), variants.end(), [&](const VariantSpec& v) { return v.name == o.perturb; }))
    argError("--testing-perturb " + o.perturb, "not one of the variants run");
  // The reference variant goes first: react-openmp when selected.
  std::stable_partition(variants.begin(), variants.end(), [](const VariantSpec& v) { return v.name == "react-openmp"; });
  std::vector<MatrixSource> matrices = matrixSources(o);
  checkPairs(o, kernelList, matrices);
  // Kernels without an input ("all" on matrices only: the tensor kernels) are neither compiled nor run.
  kernelList.erase(std::remove_if(kernelList.begin(), kernelList.end(),
                                  [&](const BenchKernel& k) {
                                    return std::none_of(matrices.begin(), matrices.end(),
                                                        [&](const MatrixSource& m) { return k.tensor() == isTensor(m); });
                                  }),
                   kernelList.end());

  std::printf("react-bench: %zu matrices, %zu kernels, %zu variants, reps %d (budget %.3g s per item), threads", matrices.size(),
              kernelList.size(), variants.size(), o.reps, o.budget);
  for (int t : o.threads) std::printf(" %d", t);
  std::printf(" (OpenMP variants and Eigen; Kokkos variants run on Kokkos' default execution space, in the CSV's column space)\n");
  const char* waitPolicy = std::getenv("OMP_WAIT_POLICY");
  std::printf("OMP_WAIT_POLICY=%s\n", waitPolicy ? waitPolicy : "(unset: libgomp spins at barriers, then sleeps)");
  std::map<int, double> bandwidth;
  for (int t : o.threads) {
    bandwidth[t] = measureCopyBandwidth(t);
    std::printf("copy bandwidth at %d thread%s: %.2f GB/s (best of 5 copies of 512 MiB)\n", t, t == 1 ? "" : "s", bandwidth[t] / 1e9);
  }
  std::fflush(stdout);

  JitOptions jit;
  jit.cacheDir = o.cacheDir;
  ReactKernels kernels(jit);
  kernels.precompile(kernelList, variants, o.jobs);
  size_t items = 0;
  for (const MatrixSource& m : matrices) items += kernelsFor(kernelList, m).size();
  Progress progress(static_cast<int>(items * variants.size() * o.threads.size()));
  std::vector<Row> rows;
  for (const MatrixSource& m : matrices) {
    progress.show("loading " + m.name);
    auto loadStart = std::chrono::steady_clock::now();
    TensorData s = loadInput(m);
    if (!m.synthetic.empty() && !o.writeSynthetic.empty()) {
      std::filesystem::create_directories(o.writeSynthetic);
      writeMatrixMarket(o.writeSynthetic + "/" + m.name + ".mtx", std::get<CsrMatrix>(s));
    }
    double loadSeconds = secondsSince(loadStart);
    std::string described;
    for (int64_t d : shapeOf(s)) described += (described.empty() ? "" : " x ") + std::to_string(d);
    described += ", " + std::to_string(valuesOf(s).size()) + " stored entries";
    if (const SparseTensor* t = std::get_if<SparseTensor>(&s)) described += ", " + fibreStats(*t).str();
    std::vector<Row> matrixRows;
    const std::vector<BenchKernel> inputKernels = kernelsFor(kernelList, m);
    for (auto k = inputKernels.begin(); k != inputKernels.end();) {  // one kernel's storages together
      auto end = std::find_if(k, inputKernels.end(), [&](const BenchKernel& x) { return x.label() != k->label(); });
      std::vector<Row> r = benchmarkItem(o, variants, {k, end}, m, s, kernels, bandwidth, progress);
      matrixRows.insert(matrixRows.end(), r.begin(), r.end());
      k = end;
    }
    progress.clear();
    for (int t : o.threads) {
      std::printf("\n%s: %s (loaded in %.2f s); %d thread%s\n", m.name.c_str(), described.c_str(), loadSeconds, t,
                  t == 1 ? "" : "s");
      std::vector<Row> atT;
      std::copy_if(matrixRows.begin(), matrixRows.end(), std::back_inserter(atT), [t](const Row& r) { return r.threads == t; });
      std::fputs(formatTable(atT).c_str(), stdout);
    }
    std::fflush(stdout);
    rows.insert(rows.end(), matrixRows.begin(), matrixRows.end());
  }
  std::printf("\n%s", formatSummary(summarizeSpeedups(rows)).c_str());
  if (std::string formats = formatCostSummary(rows); !formats.empty()) std::printf("\n%s", formats.c_str());
  std::printf("compile: %.2f s (JIT, outside the timings)\n", kernels.compileSeconds());

  std::string csv = o.csv;
  if (csv.empty() && !o.plot.empty()) csv = (std::filesystem::temp_directory_path() / "react-bench.csv").string();
  if (!csv.empty()) {
    std::ofstream out(csv);
    writeCsv(out, rows);
    if (!out) throw UserError(csv + ": cannot write the file");
    if (!o.csv.empty()) std::printf("csv: %s\n", csv.c_str());
  }
  if (!o.plot.empty()) runPlot(csv, o.plot);
  std::printf("total: %.1f s\n", secondsSince(start));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const Disagreement& e) {
    std::fprintf(stderr, "\nreact-bench: %s\n", e.what());
    return 3;
  } catch (const UserError& e) {
    std::fprintf(stderr, "\nreact-bench: %s\n", e.what());
    return apps::kExitUserError;
  } catch (const InternalError& e) {
    std::fprintf(stderr, "\n");
    return apps::reportInternalError("react-bench", e, argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "\nreact-bench: internal error: %s\n", e.what());
    return 2;
  }
}
