// The OpenMP kernels' prelude: put verbatim into every OpenMP source after the ABI (embedded at
// build time, src/lower/embed_text.cmake). C++ only kernels compile; react itself never includes it.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
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
// One specialisation per value type: T's vector and mask types, its lanes, and the suffix of its
// intrinsics (pd, ps). max and min are a > b ? a : b per lane, as react_max (b where either is NaN).
#define REACT_LANES_AVX512(T, V, M, W, S, EXP, LOG)                                                \
  template <>                                                                                      \
  struct ReactLanes<T> {                                                                           \
    using Vector = V;                                                                              \
    using Mask = M;                                                                                \
    static constexpr int64_t width = W;                                                            \
    static Mask mask(int64_t left) { return left >= width ? Mask(~Mask(0)) : Mask((1u << left) - 1); } \
    static Vector zero() { return _mm512_setzero_##S(); }                                          \
    static Vector splat(T x) { return _mm512_set1_##S(x); }                                        \
    static Vector load(Mask m, const T* p) { return _mm512_maskz_loadu_##S(m, p); }                \
    static void store(Mask m, T* p, Vector v) { _mm512_mask_storeu_##S(p, m, v); }                 \
    static Vector lowest() { return _mm512_set1_##S(-std::numeric_limits<T>::infinity()); }         \
    static Vector add(Vector sum, Mask m, Vector v) { return _mm512_mask_add_##S(sum, m, sum, v); } \
    static Vector max(Vector top, Mask m, Vector v) { return _mm512_mask_max_##S(top, m, top, v); } \
    static T sum(Vector v) { return _mm512_reduce_add_##S(v); }                                    \
    static T maximum(Vector v) { return _mm512_reduce_max_##S(v); }                                \
    static Vector exp(Vector v) { return EXP(v); }                                                 \
    static Vector log(Vector v) { return LOG(v); }                                                 \
    static Vector sqrt(Vector v) { return _mm512_sqrt_##S(v); }                                    \
    static Vector max(Vector a, Vector b) { return _mm512_max_##S(a, b); }                         \
    static Vector min(Vector a, Vector b) { return _mm512_min_##S(a, b); }                         \
  };
REACT_LANES_AVX512(double, __m512d, __mmask8, 8, pd, _ZGVeN8v_exp, _ZGVeN8v_log)
REACT_LANES_AVX512(float, __m512, __mmask16, 16, ps, _ZGVeN16v_expf, _ZGVeN16v_logf)
#undef REACT_LANES_AVX512
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
  static Vector lowest() { return splat(-std::numeric_limits<T>::infinity()); }
  static Vector max(Vector top, Mask m, Vector v) {
    for (int64_t l = 0; l < width; ++l)
      if (on(m, l)) top[l] = top[l] > v[l] ? top[l] : v[l];
    return top;
  }
  static T sum(Vector v) {
    T s = 0;
    for (int64_t l = 0; l < width; ++l) s += v[l];
    return s;
  }
  static T maximum(Vector v) {
    T top = v[0];
    for (int64_t l = 1; l < width; ++l) top = top > v[l] ? top : v[l];
    return top;
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

// How many rows a thread takes at a time from a loop of `rows` handed out dynamically in chunks
// (src/lower/passes/balance_rows.cpp): 256, or fewer where that would leave a thread fewer than 16
// chunks, so that a small matrix's rows still reach every thread.
static inline int react_row_chunk(int64_t rows) {
  const int64_t chunk = rows / (16 * int64_t(omp_get_num_threads()));
  return chunk < 1 ? 1 : chunk > 256 ? 256 : int(chunk);
}

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
