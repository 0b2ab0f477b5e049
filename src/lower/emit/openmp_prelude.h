// The OpenMP kernels' prelude: put verbatim into every OpenMP source after the ABI (embedded at
// build time, src/lower/embed_text.cmake). C++ only kernels compile; react itself never includes it.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>
#include <omp.h>

// exp and log over `omp simd` loops call glibc's vector math library (libmvec, within 4 ulp),
// which <cmath> declares only under -ffast-math; its other assumptions (no infinities: a max
// reduction starts at -inf) are not ours.
#if defined(__GLIBC__) && defined(__x86_64__)
#pragma omp declare simd notinbranch
extern "C" double exp(double) noexcept;
#pragma omp declare simd notinbranch
extern "C" float expf(float) noexcept;
#pragma omp declare simd notinbranch
extern "C" double log(double) noexcept;
#pragma omp declare simd notinbranch
extern "C" float logf(float) noexcept;
#endif

// To stderr, flushed: stdout may be a pipe, whose buffer abort() throws away.
#define REACT_REPORT(...) (fprintf(stderr, __VA_ARGS__), fflush(stderr))
#define REACT_ABORT() abort()

// GCC's unroll-and-jam off for one kernel (src/lower/emit/openmp.cpp says which); other compilers
// do not jam at -O3.
#if defined(__GNUC__) && !defined(__clang__)
#define REACT_NO_UNROLL_AND_JAM __attribute__((optimize("no-loop-unroll-and-jam")))
#else
#define REACT_NO_UNROLL_AND_JAM
#endif

// This thread's rows [lo, hi) of [first, last): its share of equal work when a row weighs
// entryWork per stored entry and rowWork (src/lower/passes/balance_rows.cpp).
struct ReactRows {
  int64_t lo, hi;
};
static inline int64_t react_rows_start(const int64_t* pos, int64_t first, int64_t last, double share, int64_t entryWork,
                                       int64_t rowWork) {
  while (first < last) {
    const int64_t mid = first + (last - first) / 2;
    if (double(pos[mid] - pos[0]) * entryWork + double(mid) * rowWork < share) first = mid + 1;
    else last = mid;
  }
  return first;
}
static inline ReactRows react_balanced_rows(const int64_t* pos, int64_t first, int64_t last, int64_t entryWork,
                                            int64_t rowWork) {
  const int t = omp_get_thread_num(), n = omp_get_num_threads();
  const double from = double(pos[first] - pos[0]) * entryWork + double(first) * rowWork;
  const double total = double(pos[last] - pos[first]) * entryWork + double(last - first) * rowWork;
  ReactRows r{first, last};
  if (t > 0) r.lo = react_rows_start(pos, first, last, from + total * t / n, entryWork, rowWork);
  if (t + 1 < n) r.hi = react_rows_start(pos, first, last, from + total * (t + 1) / n, entryWork, rowWork);
  return r;
}

// A shared temporary's storage in host memory, for a ReactWorkspace (workspace.h): allocated anew,
// tens of megabytes come from a fresh mapping whose first touch faults on every page (as long as a
// transposed copy itself, measured).
template <class T>
struct ReactHostArray {
  std::unique_ptr<T[]> data;
  size_t size = 0;
  T* reserve(size_t n) {
    if (n > size) {
      data.reset();
      data.reset(new T[n]);
      size = n;
    }
    return data.get();
  }
};
