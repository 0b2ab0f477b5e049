// The GPU's counterpart of sddmm_floor_probe.cpp: the least time a CUDA device needs to read what
// SDDMM `A(i,j) = S(i,j) * sum_k B(i,k) * C(k,j)` must gather on a given matrix, a dense row of K
// values at one coordinate of every stored entry. Walking S by rows (react's loop) C's row at
// column j is gathered (C stored NJ x K, as react binds it); walking by columns B's row at row i.
// Any kernel in either order reads at least these rows, so the probe's time bounds how fast any
// such kernel can be on this device.
//
// A warp takes 8 consecutive stored entries, loads their coordinates at once and reads each
// entry's row with its 32 lanes along k (each load instruction a contiguous 128 or 256 bytes),
// adding the values into one register a lane; each warp stores one sum, so the kernel writes
// 1/8 of a value per stored entry and reads nothing else but the coordinates.
//
//   nvcc -O3 -arch=sm_90 -std=c++17 scripts/sddmm_floor_probe.cu -o sddmm_floor_probe
//   ./sddmm_floor_probe MATRIX.mtx... > floor.csv
//
// Prints CSV: matrix, nnz, K, order (rows or columns), value_type, the median of 21 runs in
// seconds (CUDA events around the one kernel) and the gathered bytes per second. Matrix Market
// coordinate files (real, integer or pattern; general, symmetric or skew-symmetric), duplicates
// counted once. Nothing of react is used.
#include <cuda_runtime.h>

#include "probe_pattern.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr int kRuns = 21;
constexpr int kEntriesPerWarp = 8;
constexpr int kWarpsPerBlock = 8;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

using Pattern = ProbePattern;

template <class T, int K>
__global__ void gatherRows(const int32_t* crd, int64_t nnz, const T* dense, T* sums) {
  static_assert(K % 32 == 0, "the lanes along k");
  const int lane = threadIdx.x % 32;
  const int64_t warp = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int64_t first = warp * kEntriesPerWarp;
  if (first >= nnz) return;
  const int entries = nnz - first < kEntriesPerWarp ? int(nnz - first) : kEntriesPerWarp;
  const int32_t mine = lane < entries ? crd[first + lane] : 0;
  T acc = 0;
#pragma unroll
  for (int q = 0; q < kEntriesPerWarp; ++q) {
    const int64_t at = int64_t(__shfl_sync(0xffffffffu, mine, q)) * K;
    if (q < entries)
#pragma unroll
      for (int t = 0; t < K / 32; ++t) acc += dense[at + t * 32 + lane];
  }
  for (int d = 16; d > 0; d >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, d);
  if (lane == 0) sums[warp] = acc;
}

template <class T>
__global__ void fill(T* v, int64_t n) {
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += int64_t(gridDim.x) * blockDim.x)
    v[e] = T(e % 7);
}

template <class T, int K>
void report(const std::string& name, const Pattern& s, const char* order, const char* type) {
  const int64_t nnz = static_cast<int64_t>(s.crd.size());
  if (nnz == 0) return;
  int32_t* crd = nullptr;
  T *dense = nullptr, *sums = nullptr;
  const int64_t warps = (nnz + kEntriesPerWarp - 1) / kEntriesPerWarp;
  check(cudaMalloc(&crd, nnz * sizeof(int32_t)), "cudaMalloc");
  check(cudaMalloc(&dense, s.cols * K * sizeof(T)), "cudaMalloc");
  check(cudaMalloc(&sums, warps * sizeof(T)), "cudaMalloc");
  check(cudaMemcpy(crd, s.crd.data(), nnz * sizeof(int32_t), cudaMemcpyHostToDevice), "cudaMemcpy");
  fill<T><<<1024, 256>>>(dense, s.cols * K);
  const unsigned blocks = static_cast<unsigned>((warps + kWarpsPerBlock - 1) / kWarpsPerBlock);
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<float> ms;
  for (int r = -2; r < kRuns; ++r) {  // two warm-up runs
    check(cudaEventRecord(start), "cudaEventRecord");
    gatherRows<T, K><<<blocks, 32 * kWarpsPerBlock>>>(crd, nnz, dense, sums);
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "the kernel");
    float t = 0;
    check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
    if (r >= 0) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  const double seconds = ms[ms.size() / 2] / 1e3;
  const double bytes = double(nnz) * K * sizeof(T);
  std::printf("%s,%lld,%d,%s,%s,%.6g,%.5g\n", name.c_str(), static_cast<long long>(nnz), K, order, type, seconds, bytes / seconds / 1e9);
  std::fflush(stdout);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(crd);
  cudaFree(dense);
  cudaFree(sums);
}

template <class T>
void reportOrders(const std::string& name, const Pattern& rows, const Pattern& cols, const char* type) {
  report<T, 64>(name, rows, "rows", type);
  report<T, 64>(name, cols, "columns", type);
  report<T, 256>(name, rows, "rows", type);
  report<T, 256>(name, cols, "columns", type);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: sddmm_floor_probe MATRIX.mtx...\n");
    return 1;
  }
  std::printf("matrix,nnz,K,order,value_type,median_s,gathered_gbs\n");
  try {
    for (int a = 1; a < argc; ++a) {
      const std::string name = probeMatrixName(argv[a]);
      const auto [rows, cols] = probeReadMatrixMarket(argv[a]);
      reportOrders<double>(name, rows, cols, "float64");
      reportOrders<float>(name, rows, cols, "float32");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sddmm_floor_probe: %s\n", e.what());
    return 1;
  }
  return 0;
}
