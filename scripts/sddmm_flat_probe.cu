// Whole SDDMM kernels on the GPU, written by hand, A(p) = S(p) * dot(B(i,:), Ct(j,:)) for each stored
// entry p = (i, j) (C stored NJ x K, as react binds it): what a kernel of the shape below reaches, beside
// react's own (react-bench) and the gather floor of sddmm_floor_probe.cu. Nothing of react is used.
//   flat-t: a warp per 32 consecutive stored entries, one entry per lane (its coordinate, value and row,
//           the row found by a gallop from the chunk's first row), the entries' dot products on the 32
//           lanes along k, G entries at a time with their rows of Ct loaded together (G x K/32 loads a
//           lane in flight, at most 64 words of registers), their partial sums combined by halving
//           steps (G - 1 shuffles for G entries, then the lanes 32 / G apart), one coalesced store of
//           32 results.
//   flat-b: the same, each entry's sum by its own butterfly (5 shuffles an entry).
//   -columns: the same kernels walking S by columns: S's csc pattern, its values in that order and each
//           entry's csr position are made before timing (as react makes C's transposed copy when bound);
//           C's row is the walk's row and B's row is gathered; each result is stored at its csr position.
// Every result is checked against a host product in double (max_rel_err).
//
//   nvcc -O3 -arch=sm_90 -std=c++17 -Xcompiler -fopenmp scripts/sddmm_flat_probe.cu -o sddmm_flat_probe
//   OMP_NUM_THREADS=16 ./sddmm_flat_probe MATRIX.mtx... > flat.csv
//
// Prints CSV: matrix, nnz, K, value_type, form, the median of 21 runs in seconds (CUDA events around
// the one kernel), max_rel_err.
#include <cuda_runtime.h>

#include "probe_pattern.h"
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr unsigned kFull = 0xffffffffu;
constexpr int kRuns = 21;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

using Csr = ProbePattern;

__device__ int64_t rowOf(const int64_t* pos, int64_t rows, int64_t p) {
  int64_t lo = 0, hi = rows;
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (pos[mid] <= p) lo = mid; else hi = mid;
  }
  return lo;
}
__device__ int64_t rowFrom(const int64_t* pos, int64_t rows, int64_t from, int64_t p) {
  int64_t lo = from, hi = from + 1, step = 1;
  while (hi < rows && pos[hi] <= p) { lo = hi; step *= 2; hi = lo + step; }
  if (hi > rows) hi = rows;
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (pos[mid] <= p) lo = mid; else hi = mid;
  }
  return lo;
}

template <class T, int K, bool Transposed>
__global__ void __launch_bounds__(256) sddmmFlat(const int64_t* pos, int64_t rows, const int32_t* crd, const T* sv, int64_t nnz,
                                                 const T* __restrict__ B, const T* __restrict__ Ct, T* __restrict__ A,
                                                 const int64_t* __restrict__ perm) {
  const int lane = threadIdx.x & 31;
  const int64_t first = ((int64_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5) * 32;
  if (first >= nnz) return;
  const int64_t p = first + lane;
  const bool valid = p < nnz;
  int64_t r0 = lane == 0 ? rowOf(pos, rows, first) : 0;
  r0 = __shfl_sync(kFull, r0, 0);
  const int64_t i = valid ? rowFrom(pos, rows, r0, p) : r0;
  const int32_t j = valid ? crd[p] : 0;
  const T s = valid ? sv[p] : T(0);
  // Entries in flight together: their rows of C held in registers, at most 64 words a lane.
  constexpr int Words = K / 32 * int(sizeof(T)) / 4;
  constexpr int G = 64 / Words >= 8 ? 8 : 64 / Words;
  constexpr int Bits = G == 8 ? 3 : G == 4 ? 2 : G == 2 ? 1 : 0;
  T mine = 0;
  for (int g = 0; g < 32 / G; ++g) {
    T cv[G][K / 32];
    int64_t rowsB[G];
#pragma unroll
    for (int u = 0; u < G; ++u) {
      rowsB[u] = __shfl_sync(kFull, i, g * G + u);
      const int64_t jq = __shfl_sync(kFull, j, g * G + u);
#pragma unroll
      for (int t = 0; t < K / 32; ++t) cv[u][t] = __ldg(Ct + jq * K + t * 32 + lane);
    }
    T acc[G];
#pragma unroll
    for (int u = 0; u < G; ++u) {
      acc[u] = 0;
#pragma unroll
      for (int t = 0; t < K / 32; ++t) acc[u] += __ldg(B + rowsB[u] * K + t * 32 + lane) * cv[u][t];
    }
    if (Transposed) {
      // Halving steps: a lane keeps the half of its sums its bit w selects and adds its partner's
      // copy; then the lanes 32 / G apart hold parts of one entry's sum (entry lane >> (5 - Bits)).
#pragma unroll
      for (int step = 0; step < Bits; ++step) {
        const int w = 16 >> step, half = (G / 2) >> step;
        const bool upper = lane & w;
#pragma unroll
        for (int q = 0; q < half; ++q) {
          const T send = upper ? acc[q] : acc[q + half];
          const T keep = upper ? acc[q + half] : acc[q];
          acc[q] = keep + __shfl_xor_sync(kFull, send, w);
        }
      }
      T total = acc[0];
#pragma unroll
      for (int d = (16 >> Bits); d > 0; d >>= 1) total += __shfl_xor_sync(kFull, total, d);
      const T entry = __shfl_sync(kFull, total, (lane % G) << (5 - Bits));  // entry g * G + lane % G
      if (lane / G == g) mine = entry;
    } else {
#pragma unroll
      for (int u = 0; u < G; ++u) {
        T sum = acc[u];
#pragma unroll
        for (int d = 16; d > 0; d >>= 1) sum += __shfl_xor_sync(kFull, sum, d);
        if (lane == g * G + u) mine = sum;
      }
    }
  }
  if (valid) A[perm ? perm[p] : p] = s * mine;  // by columns: A's csr position of the csc entry
}

template <class T>
__global__ void fill(T* v, int64_t n, uint64_t seed) {
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += int64_t(gridDim.x) * blockDim.x) {
    uint64_t x = (uint64_t(e) + seed) * 0x9E3779B97F4A7C15ull;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    v[e] = T(double(x >> 11) * (1.0 / 9007199254740992.0));
  }
}

// S by columns: its csc pattern, and each csc entry's csr position.
struct Csc {
  Csr pattern;  // rows = S's columns, crd = S's rows
  std::vector<int64_t> perm;
};
Csc transposed(const Csr& m) {
  Csc t{{m.cols, m.rows, std::vector<int64_t>(m.cols + 1, 0), std::vector<int32_t>(m.crd.size())}, std::vector<int64_t>(m.crd.size())};
  for (int32_t c : m.crd) ++t.pattern.pos[c + 1];
  for (int64_t c = 0; c < m.cols; ++c) t.pattern.pos[c + 1] += t.pattern.pos[c];
  std::vector<int64_t> next(t.pattern.pos.begin(), t.pattern.pos.end() - 1);
  for (int64_t r = 0; r < m.rows; ++r)
    for (int64_t p = m.pos[r]; p < m.pos[r + 1]; ++p) {
      const int64_t q = next[m.crd[p]]++;
      t.pattern.crd[q] = int32_t(r);
      t.perm[q] = p;
    }
  return t;
}

template <class T, int K, bool Transposed>
void run(const std::string& name, const Csr& m, const Csc* byColumns, const char* type) {
  const int64_t nnz = int64_t(m.crd.size());
  int64_t* pos;
  int32_t* crd;
  T *sv, *B, *Ct, *A;
  check(cudaMalloc(&pos, (m.rows + 1) * sizeof(int64_t)), "malloc");
  check(cudaMalloc(&crd, nnz * sizeof(int32_t)), "malloc");
  check(cudaMalloc(&sv, nnz * sizeof(T)), "malloc");
  check(cudaMalloc(&B, m.rows * K * sizeof(T)), "malloc");
  check(cudaMalloc(&Ct, m.cols * K * sizeof(T)), "malloc");
  check(cudaMalloc(&A, nnz * sizeof(T)), "malloc");
  check(cudaMemcpy(pos, m.pos.data(), (m.rows + 1) * sizeof(int64_t), cudaMemcpyHostToDevice), "copy");
  check(cudaMemcpy(crd, m.crd.data(), nnz * sizeof(int32_t), cudaMemcpyHostToDevice), "copy");
  fill<T><<<1024, 256>>>(sv, nnz, 1);
  fill<T><<<1024, 256>>>(B, m.rows * K, 2);
  fill<T><<<1024, 256>>>(Ct, m.cols * K, 3);
  // By columns: the walk's positions, coordinates, S's values in csc order (made when bound, not timed) and
  // the csr position of each; C's row is the walk's row and B's the gathered one.
  int64_t *wpos = pos, *perm = nullptr;
  int32_t* wcrd = crd;
  T* wsv = sv;
  int64_t wrows = m.rows;
  if (byColumns) {
    wrows = m.cols;
    check(cudaMalloc(&wpos, (m.cols + 1) * sizeof(int64_t)), "malloc");
    check(cudaMalloc(&wcrd, nnz * sizeof(int32_t)), "malloc");
    check(cudaMalloc(&perm, nnz * sizeof(int64_t)), "malloc");
    check(cudaMalloc(&wsv, nnz * sizeof(T)), "malloc");
    cudaMemcpy(wpos, byColumns->pattern.pos.data(), (m.cols + 1) * sizeof(int64_t), cudaMemcpyHostToDevice);
    cudaMemcpy(wcrd, byColumns->pattern.crd.data(), nnz * sizeof(int32_t), cudaMemcpyHostToDevice);
    cudaMemcpy(perm, byColumns->perm.data(), nnz * sizeof(int64_t), cudaMemcpyHostToDevice);
    std::vector<T> h(nnz), g(nnz);
    cudaMemcpy(h.data(), sv, nnz * sizeof(T), cudaMemcpyDeviceToHost);
    for (int64_t q = 0; q < nnz; ++q) g[q] = h[byColumns->perm[q]];
    cudaMemcpy(wsv, g.data(), nnz * sizeof(T), cudaMemcpyHostToDevice);
  }
  const int64_t warps = (nnz + 31) / 32;
  const unsigned blocks = unsigned((warps + 7) / 8);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> ms;
  for (int r = -2; r < kRuns; ++r) {
    cudaEventRecord(start);
    if (byColumns) sddmmFlat<T, K, Transposed><<<blocks, 256>>>(wpos, wrows, wcrd, wsv, nnz, Ct, B, A, perm);
    else sddmmFlat<T, K, Transposed><<<blocks, 256>>>(pos, m.rows, crd, sv, nnz, B, Ct, A, nullptr);
    cudaEventRecord(stop);
    check(cudaEventSynchronize(stop), "kernel");
    float t = 0;
    cudaEventElapsedTime(&t, start, stop);
    if (r >= 0) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  // The host's reference in double, from the device's inputs.
  std::vector<T> hs(nnz), hb(m.rows * K), hc(m.cols * K), ha(nnz);
  cudaMemcpy(hs.data(), sv, nnz * sizeof(T), cudaMemcpyDeviceToHost);
  cudaMemcpy(hb.data(), B, hb.size() * sizeof(T), cudaMemcpyDeviceToHost);
  cudaMemcpy(hc.data(), Ct, hc.size() * sizeof(T), cudaMemcpyDeviceToHost);
  cudaMemcpy(ha.data(), A, nnz * sizeof(T), cudaMemcpyDeviceToHost);
  double worst = 0;
#pragma omp parallel for schedule(dynamic, 1024) reduction(max : worst)
  for (int64_t r = 0; r < m.rows; ++r)
    for (int64_t p = m.pos[r]; p < m.pos[r + 1]; ++p) {
      double dot = 0;
      for (int k = 0; k < K; ++k) dot += double(hb[r * K + k]) * double(hc[int64_t(m.crd[p]) * K + k]);
      const double want = double(hs[p]) * dot;
      worst = std::max(worst, std::abs(double(ha[p]) - want) / std::max(std::abs(want), 1e-30));
    }
  std::printf("%s,%lld,%d,%s,%s%s,%.6g,%.3g\n", name.c_str(), (long long)nnz, K, type, Transposed ? "flat-t" : "flat-b",
              byColumns ? "-columns" : "",
              ms[ms.size() / 2] / 1e3, worst);
  std::fflush(stdout);
  if (byColumns) { cudaFree(wpos); cudaFree(wcrd); cudaFree(perm); cudaFree(wsv); }
  cudaFree(pos); cudaFree(crd); cudaFree(sv); cudaFree(B); cudaFree(Ct); cudaFree(A);
  cudaEventDestroy(start); cudaEventDestroy(stop);
}

template <class T>
void runAll(const std::string& name, const Csr& m, const Csc& c, const char* type) {
  for (const Csc* walk : {static_cast<const Csc*>(nullptr), &c}) {
    run<T, 64, true>(name, m, walk, type);
    run<T, 64, false>(name, m, walk, type);
    run<T, 256, true>(name, m, walk, type);
    run<T, 256, false>(name, m, walk, type);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: sddmm_flat_probe MATRIX.mtx...\n");
    return 1;
  }
  std::printf("matrix,nnz,K,value_type,form,median_s,max_rel_err\n");
  try {
    for (int a = 1; a < argc; ++a) {
      const std::string name = probeMatrixName(argv[a]);
      const Csr m = probeReadMatrixMarket(argv[a]).first;
      const Csc c = transposed(m);
      runAll<double>(name, m, c, "float64");
      runAll<float>(name, m, c, "float32");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sddmm_flat_probe: %s\n", e.what());
    return 1;
  }
  return 0;
}
