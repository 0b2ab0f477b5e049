// The OpenMP kernels' dense product: put verbatim after the prelude of an OpenMP source that has
// a nest marked as a plain dense product (passes/dense_product.cpp), and only there, since Eigen's
// product costs seconds of compile time (embedded at build time, src/lower/embed_text.cmake).
//
// out += a b (out = a b where not `accumulate`) for row-major a (m x k) and b (k x n), by Eigen's
// GEMM: it packs panels of a and b for the caches and keeps a block of out in registers, where
// react's nest loads and stores its row of out at every k. Called between parallel regions,
// Eigen runs it on OpenMP's threads itself (it parallelises a product when compiled with
// -fopenmp, on omp_get_max_threads()). Where the compiler does not find Eigen
// (REACT_JIT_OPENMP_FLAGS set without its folder), the kernel keeps the nest.
#ifndef REACT_OPENMP_DENSE_PRODUCT
#define REACT_OPENMP_DENSE_PRODUCT
#if __has_include(<Eigen/Core>)
#include <Eigen/Core>
#define REACT_DENSE_PRODUCT 1
template <class T>
static void react_dense_product(const T* a, const T* b, T* out, int64_t m, int64_t n, int64_t k, bool accumulate) {
  if (m <= 0 || n <= 0) return;
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
