// react-demo: react end to end, the README's main job.
//
//   react-demo [--repeat N] [--reps N] [FILE.mtx | FOLDER ...]
//
// 1. Matrix Market: generates a power-law and a banded matrix, writes them into a temporary folder,
//    reads them back (checking the round trip is exact) and prints rows, cols, nnz, load time and
//    read speed; then loads every .mtx file given (a folder means every *.mtx in it). --repeat N
//    reports the fastest of N loads.
// 2. Kernels: SDDMM (K=64) and SpMM-MM (NH=256, NJ=16) on generated matrices and on the files
//    given, compiled in each fusion mode (OpenMP emitter), timed (median of --reps runs), and
//    checked against an independent Eigen computation; the trees before and after fusion are
//    printed once. A mode whose temporaries would not fit in memory says so instead of running.
// Any failure (unreadable file, wrong result) is reported and makes the exit status 1; an internal
// compiler error (a bug in react) stops the demo with exit status 70.
#include "internal_error_report.hpp"
#include "lower/lower.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include <omp.h>

#include <cerrno>

namespace fs = std::filesystem;
using react::CsrMatrix;

namespace {

struct Loaded {
  react::MarketData data;
  double seconds = 0.0;
};

Loaded loadBest(const std::string& path, int repeat) {
  Loaded best;
  for (int i = 0; i < repeat; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    react::MarketData d = react::readMatrixMarket(path);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (i == 0 || s < best.seconds) best.seconds = s;
    best.data = std::move(d);
  }
  return best;
}

// Errors go to stderr, after whatever the table has printed so far.
void report(const std::string& what) {
  std::fflush(stdout);
  std::fprintf(stderr, "react-demo: %s\n", what.c_str());
}

void printHeader() {
  std::printf("%-36s %10s %10s %11s %8s %10s %9s\n", "matrix", "rows", "cols", "nnz", "max/row", "load ms",
              "MB/s");
}

void printRow(const std::string& name, const Loaded& l, uintmax_t bytes) {
  const double mbs = static_cast<double>(bytes) / 1e6 / l.seconds;
  if (const auto* m = std::get_if<CsrMatrix>(&l.data)) {
    int64_t maxRow = 0;
    for (int64_t r = 0; r < m->rows; ++r) maxRow = std::max(maxRow, m->rowptr[r + 1] - m->rowptr[r]);
    std::printf("%-36s %10lld %10lld %11lld %8lld %10.2f %9.1f\n", name.c_str(), static_cast<long long>(m->rows),
                static_cast<long long>(m->cols), static_cast<long long>(m->nnz()), static_cast<long long>(maxRow),
                l.seconds * 1e3, mbs);
  } else {
    const auto& t = std::get<react::DenseTensor>(l.data);
    std::printf("%-36s %10lld %10lld %11lld %8s %10.2f %9.1f  (dense array)\n", name.c_str(),
                static_cast<long long>(t.shape[0]), static_cast<long long>(t.shape[1]),
                static_cast<long long>(t.size()), "-", l.seconds * 1e3, mbs);
  }
}

// Every .mtx file named on the command line, folders expanded (sorted by name).
std::vector<std::string> expand(const std::vector<std::string>& args, int& failures) {
  std::vector<std::string> files;
  for (const std::string& a : args) {
    std::error_code ec;
    if (fs::is_directory(a, ec)) {
      std::vector<std::string> inDir;
      for (const auto& entry : fs::directory_iterator(a, ec))
        if (entry.path().extension() == ".mtx") inDir.push_back(entry.path().string());
      if (ec) {
        report(a + ": cannot list folder: " + ec.message());
        ++failures;
      } else if (inDir.empty()) {
        report(a + ": no .mtx files in this folder");
        ++failures;
      }
      std::sort(inDir.begin(), inDir.end());
      files.insert(files.end(), inDir.begin(), inDir.end());
    } else {
      files.push_back(a);
    }
  }
  return files;
}

int roundTripGenerated(int repeat) {
  std::string tmpl = (fs::temp_directory_path() / "react-demo-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) {
    std::perror("react-demo: cannot create a temporary folder");
    return 1;
  }
  const fs::path dir(tmpl);
  struct Gen {
    const char* name;
    CsrMatrix m;
  };
  Gen gens[] = {{"powerlaw-100k-avg16.mtx", react::powerLaw(100000, 16.0, 42)},
                {"banded-100k-hb8.mtx", react::banded(100000, 8, 7)}};
  int failures = 0;
  for (const Gen& g : gens) {
    const std::string path = (dir / g.name).string();
    try {
      react::writeMatrixMarket(path, g.m);
      const Loaded l = loadBest(path, repeat);
      printRow(std::string("(generated) ") + g.name, l, fs::file_size(path));
      if (!(std::get<CsrMatrix>(l.data) == g.m)) {
        report(path + ": the matrix read back differs from the one written");
        ++failures;
      }
    } catch (const react::InternalError&) {
      throw;  // a bug in react ends the demo (main reports it), it is not one more failure
    } catch (const std::exception& e) {
      report(e.what());
      ++failures;
    }
  }
  fs::remove_all(dir);
  return failures;
}

// ---------------------------------------------------------------------------------------------
// Part 2: the kernels

using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

Eigen::Map<const RowMajor> view(const react::DenseTensor& t) { return {t.data.data(), t.shape[0], t.shape[1]}; }

struct KernelSpec {
  const char* name;
  const char* text;
  int64_t k, nh, nj;
};
const KernelSpec kKernels[] = {{"sddmm", "A = S * (B @ C)", 64, 0, 0}, {"spmm_mm", "A = S @ C @ D", 0, 256, 16}};

// Dense inputs and the program for one kernel on one matrix.
struct Instance {
  react::Program program;
  react::TensorValues inputs;
};

Instance instance(const KernelSpec& k, const CsrMatrix& s) {
  react::Environment env;
  Instance in;
  env.declare("S", {s.rows, s.cols}, react::Format::csr());
  in.inputs["S"] = s;
  auto dense = [&](const char* name, std::vector<int64_t> shape, uint64_t seed) {
    env.declare(name, shape, react::Format::dense(2));
    in.inputs[name] = react::randomDense(shape, seed);
  };
  if (std::string(k.name) == "sddmm") {
    dense("B", {s.rows, k.k}, 1);
    dense("C", {k.k, s.cols}, 2);
  } else {
    dense("C", {s.cols, k.nh}, 3);
    dense("D", {k.nh, k.nj}, 4);
  }
  in.program = react::parseProgram(k.text, env);
  return in;
}

// The same result computed with Eigen, as a library user would.
std::vector<double> eigenResult(const KernelSpec& k, const react::TensorValues& in) {
  const CsrMatrix& s = std::get<CsrMatrix>(in.at("S"));
  if (std::string(k.name) == "sddmm") {
    auto b = view(std::get<react::DenseTensor>(in.at("B")));
    auto c = view(std::get<react::DenseTensor>(in.at("C")));
    std::vector<double> out(s.val.size());
    for (int64_t r = 0; r < s.rows; ++r)
      for (int64_t p = s.rowptr[r]; p < s.rowptr[r + 1]; ++p) out[p] = s.val[p] * b.row(r).dot(c.col(s.col[p]));
    return out;
  }
  RowMajor a = (react::toEigen(s) * view(std::get<react::DenseTensor>(in.at("C")))) *
               view(std::get<react::DenseTensor>(in.at("D")));
  return {a.data(), a.data() + a.size()};
}

double relativeError(const std::vector<double>& got, const std::vector<double>& want) {
  double diff = 0, scale = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    diff = std::max(diff, std::abs(got[i] - want[i]));
    scale = std::max(scale, std::abs(want[i]));
  }
  return scale > 0 ? diff / scale : diff;
}

// Bytes the temporaries of a fused tree need for this input (the symbolic cost, evaluated).
double temporaryBytes(const react::IndexTree& t, const CsrMatrix& s) {
  return 8 * react::analyzeCost(t).temporarySize.evaluate(react::costSymbols(t, {{"S", s.nnz()}}));
}

int runKernels(const std::string& label, const CsrMatrix& s, int reps, bool printTrees) {
  int failures = 0;
  for (const KernelSpec& k : kKernels) {
    Instance in = instance(k, s);
    std::vector<double> want = eigenResult(k, in.inputs);
    double noneSeconds = 0;
    for (react::FusionMode mode : {react::FusionMode::None, react::FusionMode::Maximal, react::FusionMode::React}) {
      react::IndexTree tree = react::fuse(in.program, mode);
      if (printTrees && mode != react::FusionMode::Maximal)
        std::printf("\n%s, %s, index tree %s fusion:\n%s", k.name, k.text,
                    mode == react::FusionMode::None ? "before" : "after react", react::printTree(tree).c_str());
      std::printf("%-28s %-8s %-8s ", label.c_str(), k.name, react::toString(mode).c_str());
      double bytes = temporaryBytes(tree, s);
      if (bytes > 2e9) {
        std::printf("skipped: its temporaries need %.1f GB\n", bytes / 1e9);
        continue;
      }
      react::CompileOptions options;
      options.fusion = mode;
      react::Kernel kernel = react::Kernel::compile(in.program, options);
      react::BoundKernel bound = kernel.bind(in.inputs);
      std::vector<double> times;
      for (int r = 0; r <= reps; ++r) {  // the first run is a warm-up
        auto t0 = std::chrono::steady_clock::now();
        bound.run();
        if (r) times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
      std::sort(times.begin(), times.end());
      double median = times[times.size() / 2];
      if (mode == react::FusionMode::None) noneSeconds = median;
      double err = relativeError(react::valuesOf(bound.results().at("A")), want);
      bool ok = err < 1e-12;
      std::printf("%10.3f ms %8s  error vs Eigen %.1e %s\n", median * 1e3,
                  noneSeconds > 0 ? (std::to_string(noneSeconds / median).substr(0, 5) + "x").c_str() : "-", err,
                  ok ? "ok" : "WRONG");
      failures += ok ? 0 : 1;
    }
  }
  return failures;
}

}  // namespace

// A count after --repeat/--reps: a whole positive number, else the usage error.
bool parseCount(const char* text, int& value) {
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(text, &end, 10);
  if (errno || end == text || *end || v < 1 || v > 1000000) return false;
  value = static_cast<int>(v);
  return true;
}

int run(int argc, char** argv) {
  const char* usage =
      "usage: react-demo [--repeat N] [--reps N] [FILE.mtx | FOLDER ...]\n"
      "exit status: 0 every check passed; 1 a failure (bad argument, unreadable file, wrong result);\n"
      "70 an internal compiler error (a bug in react: report it with the command line)\n";
  int repeat = 1, reps = 5;
  std::vector<std::string> args;
  // Every argument is checked before any work starts.
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--repeat" || a == "--reps") {
      if (i + 1 == argc || !parseCount(argv[i + 1], a == "--repeat" ? repeat : reps)) {
        std::fprintf(stderr, "react-demo: argument '%s' needs a count from 1 to 1000000 after it\n%s", a.c_str(), usage);
        return 1;
      }
      ++i;
    } else if (a == "-h" || a == "--help") {
      std::printf("%s", usage);
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "react-demo: argument '%s': unknown option\n%s", a.c_str(), usage);
      return 1;
    } else {
      args.push_back(a);
    }
  }
  std::printf("react-demo: Matrix Market round trips (%d OpenMP threads, best of %d loads)\n",
              omp_get_max_threads(), repeat);
  printHeader();
  int failures = roundTripGenerated(repeat);
  std::vector<std::pair<std::string, CsrMatrix>> matrices = {
      {"(generated) powerlaw-20k", react::powerLaw(20000, 8.0, 42)}, {"(generated) banded-20k", react::banded(20000, 4, 7)}};
  for (const std::string& path : expand(args, failures)) {
    try {
      Loaded l = loadBest(path, repeat);
      printRow(fs::path(path).filename().string(), l, fs::file_size(path));
      if (auto* m = std::get_if<CsrMatrix>(&l.data)) matrices.emplace_back(fs::path(path).stem().string(), std::move(*m));
    } catch (const react::InternalError&) {
      throw;  // a bug in react ends the demo (main reports it), it is not one more failure
    } catch (const std::exception& e) {
      report(e.what());
      ++failures;
    }
  }
  std::printf("\nreact-demo: kernels compiled in each fusion mode (OpenMP emitter, %d threads, median of %d runs)\n",
              omp_get_max_threads(), reps);
  for (size_t m = 0; m < matrices.size(); ++m) {
    try {
      failures += runKernels(matrices[m].first, matrices[m].second, reps, m == 0);
    } catch (const react::InternalError&) {
      throw;  // a bug in react ends the demo (main reports it), it is not one more failure
    } catch (const std::exception& e) {
      report(matrices[m].first + ": " + e.what());
      ++failures;
    }
  }
  if (failures) report(std::to_string(failures) + " failure(s)");
  return failures ? 1 : 0;
}

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const react::InternalError& e) {
    return react::apps::reportInternalError("react-demo", e, argc, argv);
  }
}
