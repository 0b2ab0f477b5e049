// Seeded synthetic matrices. Every row draws from its own Rng stream, so the result depends only
// on the arguments and the seed, never on the thread count or the platform.
#include "formats/csr_build.hpp"
#include "formats/formats.hpp"
#include "formats/generate.hpp"
#include "formats/parallel.hpp"
#include "formats/random.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace react {

namespace {

// Independent streams for the phases of a generator (row lengths, rounding, contents).
enum Phase : uint64_t { kWeight = 0, kLength = 1, kFill = 2 };
uint64_t stream(int64_t row, Phase p) { return static_cast<uint64_t>(row) * 4 + p; }

void checkSize(const char* gen, int64_t rows, int64_t cols) {
  if (rows < 0 || cols < 0)
    throw UserError(std::string(gen) + ": negative size " + std::to_string(rows) + "x" + std::to_string(cols));
  if (cols > int64_t{std::numeric_limits<int32_t>::max()} + 1)
    throw UserError(std::string(gen) + ": " + std::to_string(cols) + " columns do not fit 32-bit coordinates");
}

void checkAverage(const char* gen, double avg) {
  if (!(avg >= 0.0) || !std::isfinite(avg))
    throw UserError(std::string(gen) + ": average nonzeros per row must be finite and >= 0, got " + std::to_string(avg));
}

// A Poisson(lambda) draw: inversion for small lambda, a rounded normal approximation above 30.
int64_t poisson(Rng& rng, double lambda) {
  if (lambda <= 0.0) return 0;
  if (lambda < 30.0) {
    const double u = rng.uniform();
    double p = std::exp(-lambda), cdf = p;
    int64_t k = 0;
    while (u >= cdf && k < 1000) {
      ++k;
      p *= lambda / static_cast<double>(k);
      cdf += p;
    }
    return k;
  }
  const double u1 = rng.uniform(), u2 = rng.uniform();
  const double z = std::sqrt(-2.0 * std::log(1.0 - u1)) * std::cos(6.283185307179586 * u2);
  return std::max<int64_t>(0, std::llround(lambda + std::sqrt(lambda) * z));
}

// k distinct columns of 0..cols-1, uniformly at random, sorted.
void sampleColumns(Rng& rng, int64_t k, int64_t cols, std::vector<int32_t>& out) {
  out.clear();
  if (k >= cols) {
    for (int64_t c = 0; c < cols; ++c) out.push_back(static_cast<int32_t>(c));
    return;
  }
  if (k * 3 > cols) {  // selection sampling (Knuth's algorithm S): one pass, already sorted
    int64_t need = k;
    for (int64_t c = 0; c < cols && need > 0; ++c)
      if (static_cast<int64_t>(rng.below(static_cast<uint64_t>(cols - c))) < need) {
        out.push_back(static_cast<int32_t>(c));
        --need;
      }
    return;
  }
  while (static_cast<int64_t>(out.size()) < k) {  // draw what is missing, drop repeats
    for (int64_t i = static_cast<int64_t>(out.size()); i < k; ++i)
      out.push_back(static_cast<int32_t>(rng.below(static_cast<uint64_t>(cols))));
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
}

// Builds the matrix from the row lengths: row r gets len[r] distinct columns from
// pick(rng, r, len, out) and values uniform in [0, 1) of `type`.
// One value per row (row lengths, weights), for `rows` rows of generator `gen`.
template <typename T>
std::vector<T> perRow(const char* gen, const char* what, int64_t rows) {
  const std::string text = std::string(gen) + ": the " + what + " of " + std::to_string(rows) + " rows";
  const int64_t n = checkedElementCount({rows}, sizeof(T), text);
  return allocateOrThrow(text, n * static_cast<int64_t>(sizeof(T)), [&] { return std::vector<T>(n); });
}

template <typename Pick>
CsrMatrix assemble(const char* gen, int64_t rows, int64_t cols, const std::vector<int64_t>& len, uint64_t seed,
                   ValueType type, Pick pick) {
  CsrMatrix m;
  m.rows = rows;
  m.cols = cols;
  m.valueType = type;
  detail::allocateRowPositions(m, rows, gen);
  for (int64_t r = 0; r < rows; ++r) m.rowptr[r + 1] = m.rowptr[r] + len[r];
  detail::allocateEntries(m, m.rowptr[rows], gen);
  detail::RegionExceptions exceptions;
#pragma omp parallel if (m.rowptr[rows] > 100000)
  {
    std::vector<int32_t> buf;
#pragma omp for schedule(dynamic, 256)
    for (int64_t r = 0; r < rows; ++r)
      exceptions.run([&] {
        Rng rng(seed, stream(r, kFill));
        pick(rng, r, len[r], buf);
        const int64_t b = m.rowptr[r];
        std::copy(buf.begin(), buf.end(), m.col.begin() + b);
        for (int64_t k = 0; k < len[r]; ++k) m.val[b + k] = rng.uniform(type);
      });
  }
  exceptions.rethrow();
  return m;
}

void pickUniform(int64_t cols, Rng& rng, int64_t k, std::vector<int32_t>& out) { sampleColumns(rng, k, cols, out); }

}  // namespace

namespace detail {

double paretoWeight(Rng& rng, double exponent) { return std::pow(1.0 - rng.uniform(), -1.0 / (exponent - 1.0)); }

double scaleToTotal(const std::vector<double>& w, double cap, double target) {
  double sum = 0.0;
  for (double x : w) sum += x;
  auto total = [&](double s) {
    double t = 0.0;
    for (double x : w) t += std::min(s * x, cap);
    return t;
  };
  double lo = 0.0, hi = sum > 0.0 ? target / sum : 0.0;
  while (!w.empty() && total(hi) < target * (1 - 1e-12)) hi *= 2;
  for (int it = 0; it < 64 && hi > lo; ++it) {
    const double mid = 0.5 * (lo + hi);
    (total(mid) < target ? lo : hi) = mid;
  }
  return hi;
}

int64_t roundRandomly(double x, Rng& rng) {
  const double f = std::floor(x);
  return static_cast<int64_t>(f) + (rng.uniform() < x - f ? 1 : 0);
}

}  // namespace detail

CsrMatrix uniformRandom(int64_t rows, int64_t cols, double avgNnzPerRow, uint64_t seed, ValueType type) {
  checkSize("uniformRandom", rows, cols);
  checkAverage("uniformRandom", avgNnzPerRow);
  std::vector<int64_t> len = perRow<int64_t>("uniformRandom", "row lengths", rows);
  for (int64_t r = 0; r < rows; ++r) {
    Rng rng(seed, stream(r, kLength));
    len[r] = std::min<int64_t>(cols, poisson(rng, avgNnzPerRow));  // Erdos-Renyi-like row lengths
  }
  return assemble("uniformRandom", rows, cols, len, seed, type,
                  [cols](Rng& rng, int64_t, int64_t k, std::vector<int32_t>& out) { pickUniform(cols, rng, k, out); });
}

CsrMatrix powerLaw(int64_t n, double avgNnzPerRow, uint64_t seed, double exponent, ValueType type) {
  checkSize("powerLaw", n, n);
  checkAverage("powerLaw", avgNnzPerRow);
  if (!(exponent > 1.0) || !std::isfinite(exponent))
    throw UserError("powerLaw: exponent must be finite and > 1, got " + std::to_string(exponent));
  // Row weights from a Pareto law with P(w) ~ w^-exponent (w >= 1) ...
  std::vector<double> w = perRow<double>("powerLaw", "row weights", n);
  for (int64_t r = 0; r < n; ++r) {
    Rng rng(seed, stream(r, kWeight));
    w[r] = detail::paretoWeight(rng, exponent);
  }
  // ... scaled by s so that the expected total, with rows capped at n entries, is n * avg.
  const double cap = static_cast<double>(n);
  const double s = detail::scaleToTotal(w, cap, std::min(cap, avgNnzPerRow) * cap);
  std::vector<int64_t> len = perRow<int64_t>("powerLaw", "row lengths", n);
  for (int64_t r = 0; r < n; ++r) {
    Rng rng(seed, stream(r, kLength));
    len[r] = std::min<int64_t>(n, detail::roundRandomly(std::min(s * w[r], cap), rng));
  }
  return assemble("powerLaw", n, n, len, seed, type,
                  [n](Rng& rng, int64_t, int64_t k, std::vector<int32_t>& out) { pickUniform(n, rng, k, out); });
}

CsrMatrix banded(int64_t n, int64_t halfBandwidth, uint64_t seed, ValueType type) {
  checkSize("banded", n, n);
  if (halfBandwidth < 0) throw UserError("banded: half bandwidth must be >= 0, got " + std::to_string(halfBandwidth));
  std::vector<int64_t> len = perRow<int64_t>("banded", "row lengths", n);
  auto first = [=](int64_t r) { return std::max<int64_t>(0, r - halfBandwidth); };
  auto last = [=](int64_t r) { return std::min<int64_t>(n - 1, r + halfBandwidth); };
  for (int64_t r = 0; r < n; ++r) len[r] = last(r) - first(r) + 1;
  return assemble("banded", n, n, len, seed, type, [&](Rng&, int64_t r, int64_t, std::vector<int32_t>& out) {
    out.clear();
    for (int64_t c = first(r); c <= last(r); ++c) out.push_back(static_cast<int32_t>(c));
  });
}

DenseTensor randomDense(std::vector<int64_t> shape, uint64_t seed, const std::string& name, ValueType type) {
  DenseTensor t(std::move(shape), 0.0, name);
  t.valueType = type;
  constexpr int64_t kBlock = 1 << 16;  // one Rng stream per block of values
  const int64_t blocks = (t.size() + kBlock - 1) / kBlock;
#pragma omp parallel for schedule(static) if (blocks > 4)
  for (int64_t b = 0; b < blocks; ++b) {
    Rng rng(seed, static_cast<uint64_t>(b));
    const int64_t end = std::min(t.size(), (b + 1) * kBlock);
    for (int64_t i = b * kBlock; i < end; ++i) t.data[i] = rng.uniform(type);
  }
  return t;
}

}  // namespace react
