// Seeded synthetic matrices: deterministic, valid, the requested size and density, the intended shape.
#include "formats/formats.hpp"
#include "formats/random.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>

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
