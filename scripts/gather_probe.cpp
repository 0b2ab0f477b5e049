// How fast one core reads rows of a dense matrix at random coordinates: the bound on kernels that
// read a dense row per stored entry (SDDMM's row of C at column j, MTTKRP's row of D at l, SpMM's
// row of C @ D at k), which the copy bandwidth does not give where the rows stay in the caches.
//
//   c++ -O3 -march=native -mprefer-vector-width=512 -fopenmp scripts/gather_probe.cpp -o gather_probe
//   OMP_PROC_BIND=close OMP_PLACES=cores ./gather_probe [THREADS]
//
// For each matrix size (the rows held in L2, L3 or memory) and row length (128, 256, 512 bytes of
// doubles), a loop over 2^24 coordinates drawn uniformly, each adding x * row into a row of
// registers, as an SpMM or MTTKRP entry does; the coordinates are read from an array, as a
// sparse level's are. Prints the gathered bytes per second (the median of 5 runs; the coordinates
// and values not counted) and, for the same matrix, a sequential read's. The matrix is a
// std::vector, not aligned to a cache line, as react's dense tensors are not: a row of 128 bytes
// may span three lines. Nothing of react is used.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

constexpr int64_t kGathers = int64_t(1) << 24;
constexpr int kRuns = 5;

double seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// acc += x[p] * rows[coordinate[p]] for every p: R doubles per row, a compile-time length so that
// the row stays in registers, as in the generated kernels.
template <int R>
double gather(const double* rows, const int32_t* coordinates, const double* x, int64_t n) {
  double total = 0;
#pragma omp parallel reduction(+ : total)
  {
    alignas(64) double acc[R] = {};
#pragma omp for schedule(static)
    for (int64_t p = 0; p < n; ++p) {
      const double* row = rows + static_cast<int64_t>(coordinates[p]) * R;
      const double v = x[p];
#pragma omp simd
      for (int j = 0; j < R; ++j) acc[j] += v * row[j];
    }
    for (int j = 0; j < R; ++j) total += acc[j];
  }
  return total;
}

// A sum of the matrix in eight independent chains of vector adds: one chain would measure the
// add's latency, not the cache, where the matrix fits in L2.
double sequentialRead(const double* a, int64_t n) {
  double total = 0;
#pragma omp parallel reduction(+ : total)
  {
    alignas(64) double acc[64] = {};
#pragma omp for schedule(static)
    for (int64_t block = 0; block < n / 64; ++block) {
#pragma omp simd
      for (int j = 0; j < 64; ++j) acc[j] += a[block * 64 + j];
    }
    for (int j = 0; j < 64; ++j) total += acc[j];
  }
  for (int64_t i = n / 64 * 64; i < n; ++i) total += a[i];
  return total;
}

template <int R>
double gatherBandwidth(const std::vector<double>& rows, const std::vector<int32_t>& coordinates, const std::vector<double>& x,
                       double& sink) {
  std::vector<double> times;
  sink += gather<R>(rows.data(), coordinates.data(), x.data(), kGathers);  // warm-up
  for (int r = 0; r < kRuns; ++r) {
    auto start = std::chrono::steady_clock::now();
    sink += gather<R>(rows.data(), coordinates.data(), x.data(), kGathers);
    times.push_back(seconds(start));
  }
  return double(kGathers) * R * sizeof(double) / median(times) / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 || (argc == 2 && std::atoi(argv[1]) < 1)) {
    std::fprintf(stderr, "usage: gather_probe [THREADS]\n");
    return 1;
  }
  omp_set_num_threads(argc == 2 ? std::atoi(argv[1]) : 1);
  std::printf("threads %d; gathered rows: GB/s of row bytes (median of %d runs of %lld rows)\n", omp_get_max_threads(), kRuns,
              static_cast<long long>(kGathers));
  std::printf("%12s %14s %14s %14s %14s\n", "matrix MiB", "128 B rows", "256 B rows", "512 B rows", "sequential");
  std::mt19937_64 random(1);
  std::vector<double> x(kGathers);
  for (double& v : x) v = std::uniform_real_distribution<double>(0.5, 1.5)(random);
  double sink = 0;
  for (int64_t mib : {1, 4, 16, 64, 256, 1024}) {
    const int64_t elements = mib * (int64_t(1) << 20) / int64_t(sizeof(double));
    std::vector<double> rows(elements);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < elements; ++i) rows[i] = double(i % 7);
    std::vector<double> bandwidth;
    for (int rowBytes : {128, 256, 512}) {
      const int64_t count = elements * int64_t(sizeof(double)) / rowBytes;
      std::vector<int32_t> coordinates(kGathers);
      std::uniform_int_distribution<int64_t> pick(0, count - 1);
      for (int32_t& c : coordinates) c = static_cast<int32_t>(pick(random));
      bandwidth.push_back(rowBytes == 128   ? gatherBandwidth<16>(rows, coordinates, x, sink)
                          : rowBytes == 256 ? gatherBandwidth<32>(rows, coordinates, x, sink)
                                            : gatherBandwidth<64>(rows, coordinates, x, sink));
    }
    std::vector<double> times;
    sink += sequentialRead(rows.data(), elements);
    const int repeat = static_cast<int>(std::max<int64_t>(1, 4096 / mib));  // about 4 GiB read per run
    for (int r = 0; r < kRuns; ++r) {
      auto start = std::chrono::steady_clock::now();
      for (int k = 0; k < repeat; ++k) sink += sequentialRead(rows.data(), elements);
      times.push_back(seconds(start));
    }
    const double sequential = double(repeat) * elements * sizeof(double) / median(times) / 1e9;
    std::printf("%12lld %14.1f %14.1f %14.1f %14.1f\n", static_cast<long long>(mib), bandwidth[0], bandwidth[1], bandwidth[2], sequential);
    std::fflush(stdout);
  }
  return sink == 42.0;  // keeps every sum observable
}
