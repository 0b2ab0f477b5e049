// The least time one core needs to read what SDDMM `A(i,j) = S(i,j) * sum_k B(i,k) * C(k,j)` must
// gather on a given matrix: for every stored entry, a dense row of K doubles at one of its
// coordinates. Walking S by rows (react's loop, and TACO's), B's row stays in registers and C's
// row at column j is gathered (C stored NJ x K, as react binds it); walking by columns, C's row
// stays and B's row at row i is gathered. Any kernel in either order reads at least these rows
// in this order, so the probe's time bounds how fast any such kernel can be on this machine, and
// a baseline's time over it bounds the speedup any such kernel can have over that baseline.
//
// The probe only reads: each gathered row is added into eight vector accumulators (a load and an
// add per vector, half the loads of a dot product), nothing is stored.
//
//   c++ -O3 -march=native -mprefer-vector-width=512 -fopenmp scripts/sddmm_floor_probe.cpp -o sddmm_floor_probe
//   OMP_NUM_THREADS=1 taskset -c 8 ./sddmm_floor_probe MATRIX.mtx... > floor.csv
//   OMP_NUM_THREADS=16 OMP_PROC_BIND=spread OMP_PLACES=cores ./sddmm_floor_probe MATRIX.mtx...
//
// Prints CSV: matrix, nnz, K, order (rows or columns), threads, the median of 15 runs in seconds,
// and the gathered bytes per second. Threads take rows in chunks of 256 as they finish. Matrix
// Market coordinate files (real, integer or pattern; general, symmetric or skew-symmetric),
// duplicates counted once. Nothing of react is used.
#include <omp.h>

#include "probe_pattern.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr int kRuns = 15;

using Pattern = ProbePattern;

// Eight doubles, one 64-byte vector; loaded unaligned, as react's dense rows are not aligned.
typedef double Vector __attribute__((vector_size(64), aligned(8)));

// Adds the dense row at every stored entry's coordinate into eight vector accumulators. Written
// with vectors, not a loop for the compiler to vectorise: GCC vectorises such a loop across the
// entries, with gather instructions, which is not the rows' read a kernel does.
template <int K>
double gatherRows(const Pattern& s, const double* dense) {
  static_assert(K % 64 == 0, "eight vectors of 8 doubles a step");
  double total = 0;
  // Rows in chunks handed out as threads finish: a power-law matrix's rows differ by 10^5 in length.
#pragma omp parallel reduction(+ : total)
  {
    Vector acc[8] = {};
#pragma omp for schedule(dynamic, 256) nowait
    for (int64_t i = 0; i < s.rows; ++i) {
      for (int64_t p = s.pos[i]; p < s.pos[i + 1]; ++p) {
        const Vector* row = reinterpret_cast<const Vector*>(dense + static_cast<int64_t>(s.crd[p]) * K);
#pragma GCC unroll 32
        for (int base = 0; base < K / 8; base += 8)
#pragma GCC unroll 8
          for (int u = 0; u < 8; ++u) acc[u] += row[base + u];
      }
    }
    for (const Vector& a : acc)
      for (int j = 0; j < 8; ++j) total += a[j];
  }
  return total;
}

template <int K>
double medianSeconds(const Pattern& s, double& sink) {
  std::vector<double> dense(static_cast<size_t>(s.cols) * K);
#pragma omp parallel for schedule(static)
  for (size_t e = 0; e < dense.size(); ++e) dense[e] = double(e % 7);
  sink += gatherRows<K>(s, dense.data());  // warm-up: the rows in the caches they fit
  std::vector<double> times;
  for (int r = 0; r < kRuns; ++r) {
    const auto start = std::chrono::steady_clock::now();
    sink += gatherRows<K>(s, dense.data());
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

template <int K>
void report(const std::string& name, const Pattern& s, const char* order, double& sink) {
  const double seconds = medianSeconds<K>(s, sink);
  const double bytes = double(s.crd.size()) * K * sizeof(double);
  std::printf("%s,%zu,%d,%s,%d,%.6g,%.4g\n", name.c_str(), s.crd.size(), K, order, omp_get_max_threads(), seconds,
              bytes / seconds / 1e9);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: sddmm_floor_probe MATRIX.mtx...\n");
    return 1;
  }
  std::printf("matrix,nnz,K,order,threads,median_s,gathered_gbs\n");
  double sink = 0;
  for (int a = 1; a < argc; ++a) {
    const std::string name = probeMatrixName(argv[a]);
    try {
      const auto [byRows, byColumns] = probeReadMatrixMarket(argv[a]);
      report<64>(name, byRows, "rows", sink);
      report<64>(name, byColumns, "columns", sink);
      report<256>(name, byRows, "rows", sink);
      report<256>(name, byColumns, "columns", sink);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "sddmm_floor_probe: %s\n", e.what());
      return 1;
    }
  }
  return sink == 42.0;  // keeps every sum observable
}
