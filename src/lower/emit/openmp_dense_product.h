// The OpenMP kernels' dense product: put verbatim after the prelude of an OpenMP source that has
// a nest marked as a plain dense product (passes/dense_product.cpp), and only there, since Eigen's
// product costs seconds of compile time (embedded at build time, src/lower/embed_text.cmake).
//
// out += a b (out = a b where not `accumulate`) for row-major a (m x k) and b (k x n). A narrow b
// (more than one vector's columns and at most kReactNarrowColumns, as SpMM-MM's D: 256 x 16) goes
// through react_narrow_product below; any other through Eigen's GEMM: it packs panels of a and b
// for the caches and keeps a block of out in registers, where react's nest loads and stores its
// row of out at every k. Called between parallel regions, Eigen runs it on OpenMP's threads itself
// (it parallelises a product when compiled with -fopenmp, on omp_get_max_threads()). Where the
// compiler does not find Eigen (REACT_JIT_OPENMP_FLAGS set without its folder), the kernel keeps
// the nest.
#ifndef REACT_OPENMP_DENSE_PRODUCT
#define REACT_OPENMP_DENSE_PRODUCT
#if __has_include(<Eigen/Core>)
#include <Eigen/Core>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>
#define REACT_DENSE_PRODUCT 1

// The narrow product: R rows of a against W of b's columns at a time, the R x W sums in
// registers (two vectors a row: 8 x 16 doubles in 16 of AVX-512's 32 registers, 4 x 8 in 8 of
// AVX2's 16), b's columns copied into blocks of W (zeros past n) so that every block is whole
// vectors. Eigen packs the tall a instead, and on 500000 x 256 @ 256 x 16 in float64 reached 24
// of a Xeon core's 88 GFLOP/s where this loop reaches 40: what bounds it there is reading a, so
// each row block touches the next one's rows ahead (docs/benchmarks.md, "The narrow dense
// product"). Measured with AVX-512 and AVX2; elsewhere (kReactNarrowMeasured false) Eigen runs
// every product.
#if defined(__AVX512F__)
constexpr int kReactVectorBytes = 64, kReactNarrowRows = 8;
constexpr bool kReactNarrowMeasured = true;
#else
constexpr int kReactVectorBytes = 32, kReactNarrowRows = 4;
#if defined(__AVX2__) && defined(__FMA__)
constexpr bool kReactNarrowMeasured = true;
#else
constexpr bool kReactNarrowMeasured = false;
#endif
#endif
constexpr int64_t kReactNarrowColumns = 64;

// Rows [row, row + R) of out, columns [c0, c0 + w), from `block` (b's columns c0.. as k x W).
template <class T, int R, int W>
static void react_narrow_rows(const T* __restrict a, const T* __restrict block, T* __restrict out, int64_t row, int64_t n,
                              int64_t k, int64_t c0, int64_t w, bool accumulate, bool touch_next) {
  constexpr int64_t line = 64 / sizeof(T);
  T sums[R][W] = {};
  for (int64_t p = 0; p < k; ++p) {
    if (touch_next && p % line == 0)
      for (int r = 0; r < R; ++r) __builtin_prefetch(a + (row + R + r) * k + p);
    const T* bp = block + p * W;
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const T x = a[(row + r) * k + p];
#pragma omp simd
      for (int c = 0; c < W; ++c) sums[r][c] += x * bp[c];
    }
  }
  for (int r = 0; r < R; ++r) {
    T* o = out + (row + r) * n + c0;
    for (int64_t c = 0; c < w; ++c) o[c] = accumulate ? o[c] + sums[r][c] : sums[r][c];
  }
}

// The threads take chunks of consecutive blocks of R rows as they finish (they write their rows of
// out first: no zeroing): up to 256 rows a chunk, fewer where a thread would get fewer than 16
// chunks. Every block costs the same reads, yet one contiguous share per thread left the team
// waiting for its slowest core at 16 threads on the Xeon (SpMM-MM in alternating processes:
// docs/benchmarks.md, "The narrow product in chunks"), as balance-rows' chunks found for SDDMM.
template <class T>
static void react_narrow_product(const T* a, const T* b, T* out, int64_t m, int64_t n, int64_t k, bool accumulate) {
  constexpr int W = 2 * kReactVectorBytes / static_cast<int>(sizeof(T)), R = kReactNarrowRows;
  const int64_t column_blocks = (n + W - 1) / W;
  // Aligned to the vector (Eigen's allocator): a block's row of W is then whole cache lines.
  std::vector<T, Eigen::aligned_allocator<T>> blocks(static_cast<size_t>(column_blocks * k * W), T(0));
  for (int64_t j = 0; j < column_blocks; ++j)
    for (int64_t p = 0; p < k; ++p)
      for (int64_t c = j * W; c < std::min<int64_t>(n, (j + 1) * W); ++c) blocks[(j * k + p) * W + c - j * W] = b[p * n + c];
  const int64_t row_blocks = (m + R - 1) / R;
  const int64_t chunk = std::max<int64_t>(1, std::min<int64_t>(256 / R, row_blocks / (16 * int64_t(omp_get_max_threads()))));
#pragma omp parallel for schedule(monotonic: dynamic, chunk)
  for (int64_t q = 0; q < row_blocks; ++q) {
    const int64_t row = q * R;
    for (int64_t j = 0; j < column_blocks; ++j) {
      const int64_t c0 = j * W, w = std::min<int64_t>(W, n - c0);
      const T* block = blocks.data() + j * k * W;
      // Touch the next block's rows only where they are a's (a prefetch does not fault, but
      // forming a pointer past a's end is undefined); the last whole block goes without.
      if (row + R <= m)
        react_narrow_rows<T, R, W>(a, block, out, row, n, k, c0, w, accumulate, j == 0 && row + 2 * R <= m);
      else
        for (int64_t r = row; r < m; ++r) react_narrow_rows<T, 1, W>(a, block, out, r, n, k, c0, w, accumulate, false);
    }
  }
}

// Where the narrow loop was measured faster than Eigen: b of more than one vector's columns and
// at most kReactNarrowColumns (float32 with 16 columns, one AVX-512 vector, was no faster).
template <class T>
static bool react_product_is_narrow(int64_t n) {
  return kReactNarrowMeasured && n * static_cast<int64_t>(sizeof(T)) > kReactVectorBytes && n <= kReactNarrowColumns;
}

template <class T>
static void react_dense_product(const T* a, const T* b, T* out, int64_t m, int64_t n, int64_t k, bool accumulate) {
  if (m <= 0 || n <= 0) return;
  if (k > 0 && react_product_is_narrow<T>(n)) return react_narrow_product(a, b, out, m, n, k, accumulate);
  // Writing out: the threads zero it (first touch, as react's fills), then Eigen adds. Eigen's
  // own `=` zeroes it with setZero on the calling thread before it adds: SpMM-MM took up to 1.37x
  // longer so on the Xeon (docs/benchmarks.md, "Dense products that write their result").
  if (!accumulate) {
#pragma omp parallel for schedule(static)
    for (int64_t q = 0; q < m * n; ++q) out[q] = T(0);
  }
  if (k <= 0) return;
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<Matrix>(out, m, n).noalias() += Eigen::Map<const Matrix>(a, m, k) * Eigen::Map<const Matrix>(b, k, n);
}
#endif
#endif
