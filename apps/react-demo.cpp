// react-demo: the formats stage end to end.
//
//   react-demo [--repeat N] [FILE.mtx | FOLDER ...]
//
// Generates a power-law and a banded matrix, writes them as Matrix Market into a temporary folder,
// reads them back (checking that the round trip is exact), and prints rows, cols, nnz, load time
// and read speed. Then does the same for every .mtx file given (a folder means every *.mtx in it).
// --repeat N loads each file N times and reports the fastest load. A file that cannot be read is
// reported and makes the exit status non-zero; the other files are still loaded.
#include "formats/formats.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include <omp.h>

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
    } catch (const std::exception& e) {
      report(e.what());
      ++failures;
    }
  }
  fs::remove_all(dir);
  return failures;
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 1;
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--repeat" && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (a == "-h" || a == "--help") {
      std::printf("usage: react-demo [--repeat N] [FILE.mtx | FOLDER ...]\n");
      return 0;
    } else {
      args.push_back(a);
    }
  }
  std::printf("react-demo: Matrix Market round trips (%d OpenMP threads, best of %d loads)\n",
              omp_get_max_threads(), repeat);
  printHeader();
  int failures = roundTripGenerated(repeat);
  for (const std::string& path : expand(args, failures)) {
    try {
      const Loaded l = loadBest(path, repeat);
      printRow(fs::path(path).filename().string(), l, fs::file_size(path));
    } catch (const std::exception& e) {
      report(e.what());
      ++failures;
    }
  }
  if (failures) report(std::to_string(failures) + " failure(s)");
  return failures ? 1 : 0;
}
