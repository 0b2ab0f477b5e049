// Seeded synthetic matrices: deterministic, valid, the requested size and density, the intended shape.
#include "formats/formats.hpp"
#include "formats/random.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <vector>

using react::CsrMatrix;

namespace {

int64_t maxRowLength(const CsrMatrix& m) {
  int64_t best = 0;
  for (int64_t r = 0; r < m.rows; ++r) best = std::max(best, m.rowptr[r + 1] - m.rowptr[r]);
  return best;
}

double averageRowLength(const CsrMatrix& m) { return static_cast<double>(m.nnz()) / static_cast<double>(m.rows); }

bool valuesInUnitInterval(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return x >= 0.0 && x < 1.0; });
}

// A fingerprint of a matrix, to pin the generators' output across platforms and releases.
uint64_t fingerprint(const CsrMatrix& m) {
  uint64_t h = 1469598103934665603ULL;
  auto mix = [&h](uint64_t x) { h = (h ^ x) * 1099511628211ULL; };
  for (int64_t p : m.rowptr) mix(static_cast<uint64_t>(p));
  for (int32_t c : m.col) mix(static_cast<uint64_t>(c));
  for (double v : m.val) mix(static_cast<uint64_t>(v * 9007199254740992.0));
  return h;
}

}  // namespace

TEST_CASE("Rng: xoshiro256** seeded by splitmix64, identical everywhere") {
  react::Rng a(42), b(42), c(43), s(42, 1);
  const uint64_t first = a.next();
  CHECK(first == b.next());
  CHECK(first != c.next());
  CHECK(first != s.next());
  uint64_t state = 0;
  CHECK(react::splitmix64(state) == 0xe220a8397b1dcdafULL);  // reference value of splitmix64(0)
  for (int i = 0; i < 1000; ++i) {
    const double u = a.uniform();
    CHECK((u >= 0.0 && u < 1.0));
    CHECK(a.below(7) < 7);
  }
}

TEST_CASE("generators give pinned output: the same matrices on every platform and thread count") {
  react::Rng r(42);
  CHECK(r.next() == 0x81abef1fc7ab1402ULL);
  CHECK(fingerprint(react::uniformRandom(50, 40, 3.0, 1)) == 0x89e6f287100f91e1ULL);
  CHECK(fingerprint(react::powerLaw(500, 6.0, 1)) == 0x0b60c8d8b01e7590ULL);
  CHECK(fingerprint(react::banded(60, 2, 1)) == 0xf177a6650787a0baULL);
  CHECK(react::randomDense({3}, 1).data[2] == 0.3784841815371488);
}

TEST_CASE("uniformRandom: deterministic, requested size and density, valid") {
  const CsrMatrix a = react::uniformRandom(2000, 3000, 12.5, 7);
  CHECK(a == react::uniformRandom(2000, 3000, 12.5, 7));
  CHECK_FALSE(a == react::uniformRandom(2000, 3000, 12.5, 8));
  CHECK(a.rows == 2000);
  CHECK(a.cols == 3000);
  CHECK(averageRowLength(a) == doctest::Approx(12.5).epsilon(0.03));
  CHECK_NOTHROW(a.validate());
  CHECK(valuesInUnitInterval(a.val));
  CHECK(maxRowLength(react::uniformRandom(2000, 3000, 12.0, 7)) > 16);  // row lengths vary (Poisson)
  CHECK(averageRowLength(react::uniformRandom(1000, 100000, 200.0, 2)) == doctest::Approx(200.0).epsilon(0.01));

  const CsrMatrix dense = react::uniformRandom(30, 20, 15.0, 3);  // k*3 > cols: selection sampling
  CHECK(averageRowLength(dense) == doctest::Approx(15.0).epsilon(0.15));
  CHECK(maxRowLength(dense) <= 20);
  CHECK_NOTHROW(dense.validate());
  CHECK(react::uniformRandom(5, 4, 100.0, 3).nnz() == 20);  // capped at full rows
  CHECK(react::uniformRandom(0, 0, 3.0, 1).nnz() == 0);
  CHECK_THROWS_AS(react::uniformRandom(-1, 5, 1.0, 1), react::UserError);
  CHECK_THROWS_AS(react::uniformRandom(5, 5, -1.0, 1), react::UserError);
}

TEST_CASE("powerLaw: skewed row lengths around the requested average") {
  const CsrMatrix a = react::powerLaw(20000, 8.0, 11);
  CHECK(a == react::powerLaw(20000, 8.0, 11));
  CHECK_FALSE(a == react::powerLaw(20000, 8.0, 12));
  CHECK(a.rows == 20000);
  CHECK(a.cols == 20000);
  CHECK(averageRowLength(a) == doctest::Approx(8.0).epsilon(0.05));
  CHECK(maxRowLength(a) > 50 * 8);  // graph-like: a few rows are hubs
  CHECK_NOTHROW(a.validate());
  CHECK(valuesInUnitInterval(a.val));

  const CsrMatrix milder = react::powerLaw(20000, 8.0, 11, 3.0);  // a steeper law is less skewed
  CHECK(averageRowLength(milder) == doctest::Approx(8.0).epsilon(0.05));
  CHECK(maxRowLength(milder) < maxRowLength(a));
  CHECK(maxRowLength(milder) > 4 * 8);
  CHECK_THROWS_AS(react::powerLaw(100, 4.0, 1, 1.0), react::UserError);
}

TEST_CASE("banded: every entry within the band, the band full, deterministic values") {
  const int64_t n = 1000, hb = 3;
  const CsrMatrix a = react::banded(n, hb, 5);
  CHECK(a == react::banded(n, hb, 5));
  CHECK_FALSE(a.val == react::banded(n, hb, 6).val);
  CHECK_NOTHROW(a.validate());
  CHECK(a.nnz() == n * (2 * hb + 1) - hb * (hb + 1));
  for (int64_t r = 0; r < n; ++r)
    for (int64_t k = a.rowptr[r]; k < a.rowptr[r + 1]; ++k) CHECK(std::abs(a.col[k] - r) <= hb);
  CHECK(averageRowLength(a) == doctest::Approx(2 * hb + 1).epsilon(0.01));
  CHECK(valuesInUnitInterval(a.val));
  CHECK(react::banded(1, 5, 1).nnz() == 1);
  CHECK_THROWS_AS(react::banded(10, -1, 1), react::UserError);
}

TEST_CASE("randomDense: deterministic, uniform in 0..1, any rank") {
  const react::DenseTensor t = react::randomDense({300, 500}, 9);  // several Rng blocks
  CHECK(t.shape == std::vector<int64_t>{300, 500});
  CHECK(t.data == react::randomDense({300, 500}, 9).data);
  CHECK_FALSE(t.data == react::randomDense({300, 500}, 10).data);
  CHECK(valuesInUnitInterval(t.data));
  const double mean = std::accumulate(t.data.begin(), t.data.end(), 0.0) / static_cast<double>(t.size());
  CHECK(mean == doctest::Approx(0.5).epsilon(0.01));
  CHECK(react::randomDense({}, 1).size() == 1);
  CHECK(react::randomDense({2, 3, 4}, 1).size() == 24);
}

namespace {

uint64_t fingerprint(const react::SparseTensor& t) {
  uint64_t h = 1469598103934665603ULL;
  auto mix = [&h](uint64_t x) { h = (h ^ x) * 1099511628211ULL; };
  for (const react::LevelArrays& a : t.levels) {
    for (int64_t p : a.pos) mix(static_cast<uint64_t>(p));
    for (int32_t c : a.crd) mix(static_cast<uint64_t>(c));
  }
  for (double v : t.val) mix(static_cast<uint64_t>(v * 9007199254740992.0));
  return h;
}

// How many entries each index of mode d has.
std::vector<int64_t> perIndex(const react::SparseTensor& t, int d) {
  std::vector<int64_t> n(static_cast<size_t>(t.shape[d]), 0);
  for (int32_t c : t.levels[d].crd) ++n[c];
  return n;
}

double meanOf(const std::vector<int64_t>& v) {
  return static_cast<double>(std::accumulate(v.begin(), v.end(), int64_t{0})) / static_cast<double>(v.size());
}

}  // namespace

TEST_CASE("powerLawTensor: deterministic coo, sorted and unique, skewed in every mode around the requested entries") {
  using react::Format;
  const react::SparseTensor a = react::powerLawTensor({2000, 1500, 1000}, 200000, 5);
  CHECK(a == react::powerLawTensor({2000, 1500, 1000}, 200000, 5));
  CHECK_FALSE(a == react::powerLawTensor({2000, 1500, 1000}, 200000, 6));
  CHECK(fingerprint(react::powerLawTensor({40, 30, 20}, 500, 1)) == 0xafdb8908a30ea494ULL);
  CHECK(fingerprint(a) == 0x84ed1eba09c8cdc0ULL);  // generated in parallel
  CHECK(a.format == Format::coo(3));
  CHECK(a.shape == std::vector<int64_t>{2000, 1500, 1000});
  CHECK_NOTHROW(a.validate());  // coo: coordinates sorted, no tuple twice
  CHECK(static_cast<double>(a.nnz()) == doctest::Approx(200000).epsilon(0.03));
  CHECK(valuesInUnitInterval(a.val));
  for (int d = 0; d < 3; ++d) {  // a few hub slices in every mode
    const std::vector<int64_t> n = perIndex(a, d);
    CHECK(static_cast<double>(*std::max_element(n.begin(), n.end())) > 20 * meanOf(n));
  }
  // A steeper law is less skewed.
  const react::SparseTensor milder = react::powerLawTensor({2000, 1500, 1000}, 200000, 5, 3.0);
  const std::vector<int64_t> skewed = perIndex(a, 0), mild = perIndex(milder, 0);
  CHECK(*std::max_element(mild.begin(), mild.end()) < *std::max_element(skewed.begin(), skewed.end()));
  CHECK(static_cast<double>(milder.nnz()) == doctest::Approx(200000).epsilon(0.03));
  // float32: the same draws in float32's precision.
  const react::SparseTensor f32 = react::powerLawTensor({200, 100, 50}, 5000, 5, 2.0, react::ValueType::Float32);
  CHECK_NOTHROW(f32.validate());
  CHECK((f32.valueType == react::ValueType::Float32));
}

TEST_CASE("powerLawTensor: any rank, dense slices, millions of entries, bad arguments") {
  using react::Format;
  CHECK_NOTHROW(react::powerLawTensor({300, 200}, 3000, 1).validate());
  CHECK(react::powerLawTensor({300, 200}, 3000, 1).format == Format::coo(2));
  CHECK_NOTHROW(react::powerLawTensor({20, 10, 8, 6}, 2000, 1).validate());
  // Slices that want more than a third of their tuples take them uniformly; at most all of them.
  const react::SparseTensor full = react::powerLawTensor({5, 4, 3}, 1000, 2);
  CHECK(full.nnz() == 60);
  CHECK_NOTHROW(full.validate());
  CHECK_NOTHROW(react::powerLawTensor({30, 6, 5}, 500, 2).validate());
  CHECK(react::powerLawTensor({0, 4, 3}, 10, 1).nnz() == 0);
  CHECK(react::powerLawTensor({4, 0, 3}, 10, 1).nnz() == 0);
  const react::SparseTensor big = react::powerLawTensor({100000, 50000, 20000}, 2000000, 3);
  CHECK(static_cast<double>(big.nnz()) == doctest::Approx(2000000).epsilon(0.02));
  CHECK_NOTHROW(big.validate());
  CHECK_THROWS_WITH_AS(react::powerLawTensor({10}, 5, 1), "powerLawTensor: expected a shape of rank 2 or more, got rank 1",
                       react::UserError);
  CHECK_THROWS_WITH_AS(react::powerLawTensor({10, 10}, -1, 1), "powerLawTensor: expected entries >= 0, got -1",
                       react::UserError);
  CHECK_THROWS_WITH_AS(react::powerLawTensor({10, 10}, 5, 1, 1.0),
                       "powerLawTensor: exponent must be finite and > 1, got 1.000000", react::UserError);
  CHECK_THROWS_WITH_AS(react::powerLawTensor({10, int64_t{1} << 32}, 5, 1),
                       "powerLawTensor: dimension 1 has size 4294967296, expected 0..2147483648", react::UserError);
  CHECK_THROWS_WITH_AS(react::powerLawTensor({2, 1 << 30, 1 << 30, 1 << 30}, 5, 1),
                       "powerLawTensor: the 1073741824 x 1073741824 x 1073741824 tuples of a slice needs more than 2^63 "
                       "bytes",
                       react::UserError);
}
