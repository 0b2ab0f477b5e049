// Seeded synthetic sparse tensors (formats.hpp, powerLawTensor). Every index of every mode and
// every slice draws from its own Rng stream, so the result depends only on the arguments and the
// seed, never on the thread count or the platform.
#include "formats/formats.hpp"
#include "formats/generate.hpp"
#include "formats/parallel.hpp"
#include "formats/random.hpp"
#include "formats/sparse_build.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace react {

namespace {

enum Phase : uint64_t { kWeight = 0, kLength = 1, kFill = 2 };
// The stream of index i of mode d in a phase.
uint64_t stream(int d, int64_t i, Phase p) {
  return (static_cast<uint64_t>(d) << 40) | (static_cast<uint64_t>(i) << 2) | p;
}

constexpr int kWeightedRounds = 16;

// The tuples of the modes after the first, as mixed-radix keys (the last mode varies fastest, so
// that sorted keys are sorted tuples), and how to draw them.
struct Tuples {
  std::vector<int64_t> dims;               // the modes after the first
  std::vector<std::vector<double>> cumul;  // running sums of each mode's weights
  uint64_t count = 1;                      // all tuples: the product of dims
};

uint64_t drawWeighted(const Tuples& t, Rng& rng) {
  uint64_t key = 0;
  for (size_t d = 0; d < t.dims.size(); ++d) {
    const std::vector<double>& c = t.cumul[d];
    const double u = rng.uniform() * c.back();
    const int64_t i = std::min<int64_t>(std::upper_bound(c.begin(), c.end(), u) - c.begin(), t.dims[d] - 1);
    key = key * static_cast<uint64_t>(t.dims[d]) + static_cast<uint64_t>(i);
  }
  return key;
}

// k distinct keys, sorted (formats.hpp describes how they are drawn).
void pickTuples(const Tuples& t, Rng& rng, int64_t k, std::vector<uint64_t>& out) {
  out.clear();
  const uint64_t uk = static_cast<uint64_t>(k);
  if (uk > t.count / 3) {  // selection sampling (Knuth's algorithm S): one pass, already sorted
    uint64_t need = uk;
    for (uint64_t key = 0; key < t.count && need > 0; ++key)
      if (rng.below(t.count - key) < need) {
        out.push_back(key);
        --need;
      }
    return;
  }
  for (int round = 0; out.size() < uk; ++round) {  // draw what is missing, drop repeats
    for (uint64_t i = out.size(); i < uk; ++i)
      out.push_back(round < kWeightedRounds ? drawWeighted(t, rng) : rng.below(t.count));
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
}

}  // namespace

SparseTensor powerLawTensor(const std::vector<int64_t>& shape, int64_t entries, uint64_t seed, double exponent,
                            ValueType type) {
  const std::string gen = "powerLawTensor";
  const int R = static_cast<int>(shape.size());
  if (R < 2) throw UserError(gen + ": expected a shape of rank 2 or more, got rank " + std::to_string(R));
  for (int d = 0; d < R; ++d)
    if (shape[d] < 0 || shape[d] > int64_t{1} << 31)
      throw UserError(gen + ": dimension " + std::to_string(d) + " has size " + std::to_string(shape[d]) +
                      ", expected 0..2147483648");
  if (entries < 0) throw UserError(gen + ": expected entries >= 0, got " + std::to_string(entries));
  if (!(exponent > 1.0) || !std::isfinite(exponent))
    throw UserError(gen + ": exponent must be finite and > 1, got " + std::to_string(exponent));
  Tuples tuples;
  tuples.dims.assign(shape.begin() + 1, shape.end());
  tuples.count = static_cast<uint64_t>(
      checkedElementCount(tuples.dims, 1, gen + ": the " + extentsText(tuples.dims, "tuples") + " of a slice"));
  const int64_t slices = shape[0];

  // Weights of every mode; the running sums of those after the first.
  auto weights = [&](int d) {
    const std::string what = gen + ": the weights of mode " + std::to_string(d);
    std::vector<double> w = detail::allocateArray<double>(shape[d], what);
    for (int64_t i = 0; i < shape[d]; ++i) {
      Rng rng(seed, stream(d, i, kWeight));
      w[i] = detail::paretoWeight(rng, exponent);
    }
    return w;
  };
  for (int d = 1; d < R; ++d) {
    std::vector<double> w = weights(d);
    for (size_t i = 1; i < w.size(); ++i) w[i] += w[i - 1];
    tuples.cumul.push_back(std::move(w));
  }
  // Slice lengths: mode 0's weights scaled so that the expected total is `entries`.
  std::vector<int64_t> offset = detail::allocateArray<int64_t>(slices + 1, gen + ": the slice positions");
  {
    const std::vector<double> w = weights(0);
    const double cap = static_cast<double>(tuples.count);
    const double s = detail::scaleToTotal(w, cap, std::min(static_cast<double>(entries), cap * slices));
    for (int64_t i = 0; i < slices; ++i) {
      Rng rng(seed, stream(0, i, kLength));
      const int64_t len = std::min<int64_t>(static_cast<int64_t>(tuples.count),
                                            detail::roundRandomly(std::min(s * w[i], cap), rng));
      offset[i + 1] = offset[i] + len;
    }
  }
  const int64_t n = offset[slices];

  SparseTensor t;
  t.format = Format::coo(R);
  t.shape = shape;
  t.valueType = type;
  t.levels.resize(static_cast<size_t>(R));
  t.levels[0].pos = {0, n};
  const std::string what = gen + ": " + std::to_string(n) + " entries";
  for (int d = 0; d < R; ++d) t.levels[d].crd = detail::allocateArray<int32_t>(n, what);
  t.val = detail::allocateArray<double>(n, what);
  detail::RegionExceptions exceptions;
#pragma omp parallel if (n > 100000)
  {
    std::vector<uint64_t> keys;
#pragma omp for schedule(dynamic, 64)
    for (int64_t i = 0; i < slices; ++i)
      exceptions.run([&] {
        Rng rng(seed, stream(0, i, kFill));
        pickTuples(tuples, rng, offset[i + 1] - offset[i], keys);
        for (size_t k = 0; k < keys.size(); ++k) {
          const int64_t q = offset[i] + static_cast<int64_t>(k);
          t.levels[0].crd[q] = static_cast<int32_t>(i);
          uint64_t key = keys[k];
          for (int d = R - 1; d >= 1; --d) {
            const uint64_t size = static_cast<uint64_t>(shape[d]);
            t.levels[d].crd[q] = static_cast<int32_t>(key % size);
            key /= size;
          }
          t.val[q] = rng.uniform(type);
        }
      });
  }
  exceptions.rethrow();
  return t;
}

}  // namespace react
