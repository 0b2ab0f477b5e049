// How many floating-point operations one core completes a second: the ceiling that a dense product
// such as SpMM-MM's C @ D stays under (at one thread it is bound by how fast the core reads C well
// before it, docs/benchmarks.md).
//
//   c++ -O3 -march=native -mprefer-vector-width=512 scripts/fma_probe.cpp -o fma_probe
//   taskset -c 8 ./fma_probe
//
// For float64 and float32 and for vectors of 64 bytes (where the compiler targets AVX-512) and 32
// bytes, 24 independent chains of fused multiply-adds on registers (enough to cover the latency of
// two FMA units), nothing loaded or stored; prints GFLOP/s (an FMA counts 2), the best of 5 runs.
// Nothing of react is used.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>

namespace {

constexpr int kChains = 24;
constexpr int64_t kSteps = int64_t(1) << 24;
constexpr int kRuns = 5;

template <class Vector>
__attribute__((noinline)) Vector chains(Vector scale, Vector shift) {
  Vector acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = shift * static_cast<decltype(shift[0] + 0)>(c + 1);
  for (int64_t s = 0; s < kSteps; ++s) {
#pragma GCC unroll 24
    for (int c = 0; c < kChains; ++c) acc[c] = acc[c] * scale + shift;
  }
  Vector sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum += acc[c];
  return sum;
}

template <class T, int Bytes>
void measure(const char* type) {
  typedef T Vector __attribute__((vector_size(Bytes)));
  constexpr int lanes = Bytes / sizeof(T);
  // scale < 1 and shift small keep every chain finite (it converges to shift / (1 - scale)).
  Vector scale, shift;
  for (int l = 0; l < lanes; ++l) scale[l] = T(0.999), shift[l] = T(1e-3);
  double best = 0, sink = 0;
  for (int r = 0; r < kRuns; ++r) {
    // The empty asm statements make the arguments unknown and the result used at each run: the
    // call has no side effects, and a compiler may otherwise move it out of the timed region
    // (clang does).
    asm volatile("" : "+m"(scale), "+m"(shift));
    auto start = std::chrono::steady_clock::now();
    Vector v = chains(scale, shift);
    asm volatile("" : : "m"(v));
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    sink += double(v[0]);
    best = std::max(best, 2.0 * lanes * kChains * double(kSteps) / s / 1e9);
  }
  std::printf("%-8s %2d-byte vectors: %6.1f GFLOP/s%s\n", type, Bytes, best, sink == 0 ? " " : "");
}

}  // namespace

int main() {
#if defined(__AVX512F__)  // elsewhere 24 chains of 64 bytes would not fit the registers
  measure<double, 64>("float64");
#endif
  measure<double, 32>("float64");
#if defined(__AVX512F__)
  measure<float, 64>("float32");
#endif
  measure<float, 32>("float32");
}
