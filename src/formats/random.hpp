// react/formats: a small seeded random number generator that gives the same numbers on every
// platform (xoshiro256** seeded through splitmix64; no std distributions, whose output differs
// between standard libraries).
#pragma once

#include "formats/formats.hpp"

#include <cstdint>

namespace react {

inline uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// xoshiro256** (Blackman and Vigna). `stream` selects an independent sequence for the same seed,
// so that e.g. every matrix row can draw its own numbers and parallel generation stays deterministic.
class Rng {
 public:
  explicit Rng(uint64_t seed, uint64_t stream = 0) {
    uint64_t a = seed, b = stream ^ 0x632be59bd9b4e019ULL;
    uint64_t sm = splitmix64(a) ^ (splitmix64(b) * 0xd1b54a32d192ed03ULL);
    for (uint64_t& w : s_) w = splitmix64(sm);
  }
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  // [0, 1) in the type's precision: float32 takes the same draw truncated to 24 bits, so that a
  // float32 value is never rounded up to 1.
  double uniform(ValueType t) {
    return t == ValueType::Float32 ? static_cast<double>(next() >> 40) * 0x1.0p-24 : uniform();
  }
  uint64_t below(uint64_t n) {  // [0, n), multiply-shift (Lemire), n > 0
    return static_cast<uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace react
