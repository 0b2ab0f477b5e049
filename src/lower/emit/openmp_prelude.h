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

// Masked vector blocks (src/lower/passes/masked_blocks.cpp): a row's stored entries in blocks of
// one vector's lanes, the lanes past the row's end masked off: loaded as 0, never stored, added
// to no sum. Defined where the compiler targets AVX-512, whose masked loads and stores cost what
// plain ones do; exp and log are libmvec's AVX-512 variants, the functions `omp simd` loops call.
// Elsewhere, or given -DREACT_NO_MASKED_BLOCKS (REACT_JIT_OPENMP_FLAGS: what the form gains is
// measured so), a kernel runs its loops as they were, unless REACT_EMULATE_MASKED_BLOCKS asks for
// the same blocks in plain C++, lane by lane, so that machines without AVX-512 test the kernels'
// masked form (test/test_masked_blocks.cpp, test/test_fuzz.cpp).
#if defined(__AVX512F__) && defined(__GLIBC__) && defined(__x86_64__) && !defined(REACT_NO_MASKED_BLOCKS)
#include <immintrin.h>
#define REACT_MASKED_BLOCKS 1
extern "C" __m512d _ZGVeN8v_exp(__m512d) noexcept;
extern "C" __m512d _ZGVeN8v_log(__m512d) noexcept;
extern "C" __m512 _ZGVeN16v_expf(__m512) noexcept;
extern "C" __m512 _ZGVeN16v_logf(__m512) noexcept;
template <class T>
struct ReactLanes;
template <>
struct ReactLanes<double> {
  using Vector = __m512d;
  using Mask = __mmask8;
  static constexpr int64_t width = 8;
  static Mask mask(int64_t left) { return left >= width ? Mask(0xFF) : Mask((1u << left) - 1); }
  static Vector zero() { return _mm512_setzero_pd(); }
  static Vector splat(double x) { return _mm512_set1_pd(x); }
  static Vector load(Mask m, const double* p) { return _mm512_maskz_loadu_pd(m, p); }
  static void store(Mask m, double* p, Vector v) { _mm512_mask_storeu_pd(p, m, v); }
  static Vector add(Vector sum, Mask m, Vector v) { return _mm512_mask_add_pd(sum, m, sum, v); }
  static double sum(Vector v) { return _mm512_reduce_add_pd(v); }
  static Vector exp(Vector v) { return _ZGVeN8v_exp(v); }
  static Vector log(Vector v) { return _ZGVeN8v_log(v); }
  static Vector sqrt(Vector v) { return _mm512_sqrt_pd(v); }
  // a > b ? a : b per lane, as react_max (b where either is NaN)
  static Vector max(Vector a, Vector b) { return _mm512_max_pd(a, b); }
  static Vector min(Vector a, Vector b) { return _mm512_min_pd(a, b); }
};
template <>
struct ReactLanes<float> {
  using Vector = __m512;
  using Mask = __mmask16;
  static constexpr int64_t width = 16;
  static Mask mask(int64_t left) { return left >= width ? Mask(0xFFFF) : Mask((1u << left) - 1); }
  static Vector zero() { return _mm512_setzero_ps(); }
  static Vector splat(float x) { return _mm512_set1_ps(x); }
  static Vector load(Mask m, const float* p) { return _mm512_maskz_loadu_ps(m, p); }
  static void store(Mask m, float* p, Vector v) { _mm512_mask_storeu_ps(p, m, v); }
  static Vector add(Vector sum, Mask m, Vector v) { return _mm512_mask_add_ps(sum, m, sum, v); }
  static float sum(Vector v) { return _mm512_reduce_add_ps(v); }
  static Vector exp(Vector v) { return _ZGVeN16v_expf(v); }
  static Vector log(Vector v) { return _ZGVeN16v_logf(v); }
  static Vector sqrt(Vector v) { return _mm512_sqrt_ps(v); }
  static Vector max(Vector a, Vector b) { return _mm512_max_ps(a, b); }
  static Vector min(Vector a, Vector b) { return _mm512_min_ps(a, b); }
};
#elif defined(REACT_EMULATE_MASKED_BLOCKS)
#define REACT_MASKED_BLOCKS 1
template <class T>
struct ReactLanes {
  static constexpr int64_t width = 64 / sizeof(T);
  typedef T Vector __attribute__((vector_size(64)));
  using Mask = uint32_t;
  static bool on(Mask m, int64_t l) { return (m >> l) & 1u; }
  static Mask mask(int64_t left) { return Mask((1ull << (left >= width ? width : left)) - 1); }
  static Vector zero() { return Vector{}; }
  static Vector splat(T x) { return zero() + x; }
  static Vector load(Mask m, const T* p) {
    Vector v{};
    for (int64_t l = 0; l < width; ++l)
      if (on(m, l)) v[l] = p[l];
    return v;
  }
  static void store(Mask m, T* p, Vector v) {
    for (int64_t l = 0; l < width; ++l)
      if (on(m, l)) p[l] = v[l];
  }
  static Vector add(Vector sum, Mask m, Vector v) {
    for (int64_t l = 0; l < width; ++l)
      if (on(m, l)) sum[l] += v[l];
    return sum;
  }
  static T sum(Vector v) {
    T s = 0;
    for (int64_t l = 0; l < width; ++l) s += v[l];
    return s;
  }
  template <class F>
  static Vector each(Vector v, F f) {
    for (int64_t l = 0; l < width; ++l) v[l] = f(v[l]);
    return v;
  }
  static Vector exp(Vector v) { return each(v, [](T x) { return std::exp(x); }); }
  static Vector log(Vector v) { return each(v, [](T x) { return std::log(x); }); }
  static Vector sqrt(Vector v) { return each(v, [](T x) { return std::sqrt(x); }); }
  static Vector max(Vector a, Vector b) {
    for (int64_t l = 0; l < width; ++l) a[l] = a[l] > b[l] ? a[l] : b[l];
    return a;
  }
  static Vector min(Vector a, Vector b) {
    for (int64_t l = 0; l < width; ++l) a[l] = a[l] < b[l] ? a[l] : b[l];
    return a;
  }
};
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
