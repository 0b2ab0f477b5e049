// Dense tensors, CSR invariants and the conversions COO <-> CSR <-> dense <-> Eigen.
#include "formats/formats.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

using react::CooMatrix;
using react::CsrMatrix;
using react::CsrMatrix64;
using react::DenseTensor;

namespace {

// [ 1  .  2  . ]
// [ .  .  .  . ]
// [ 3  0  .  4 ]   (the 0 is an explicit zero)
CsrMatrix sample() {
  CsrMatrix m;
  m.rows = 3;
  m.cols = 4;
  m.rowptr = {0, 2, 2, 5};
  m.col = {0, 2, 0, 1, 3};
  m.val = {1, 2, 3, 0, 4};
  return m;
}

}  // namespace

TEST_CASE("dense tensors: shape, row-major layout, checked access") {
  DenseTensor t({2, 3, 4}, 1.5);
  CHECK(t.rank() == 3);
  CHECK(t.size() == 24);
  t.at({1, 2, 3}) = 7.0;
  CHECK(t.data[1 * 12 + 2 * 4 + 3] == 7.0);
  CHECK(std::as_const(t).at({0, 0, 0}) == 1.5);
  CHECK_THROWS_WITH_AS(t.at({2, 0, 0}), doctest::Contains("index 2 of dimension 0"), react::UserError);
  CHECK_THROWS_WITH_AS(t.at({0, 0}), doctest::Contains("2 indices for a rank-3 tensor"), react::UserError);
  CHECK_THROWS_AS(DenseTensor({2, -1}), react::UserError);
  DenseTensor scalar;
  CHECK(scalar.rank() == 0);
  CHECK(scalar.size() == 1);
  CHECK(scalar.at({}) == 0.0);
  CHECK(DenseTensor({0, 5}).size() == 0);
}

TEST_CASE("CsrMatrix::validate accepts a good matrix and names each broken invariant") {
  CHECK_NOTHROW(sample().validate());
  CHECK_NOTHROW(CsrMatrix{}.validate());
  CsrMatrix m = sample();
  m.col = {2, 0, 0, 1, 3};
  CHECK_THROWS_WITH_AS(m.validate(), doctest::Contains("unsorted column 0 in row 0"), react::UserError);
  m = sample();
  m.col = {0, 2, 1, 1, 3};
  CHECK_THROWS_WITH_AS(m.validate(), doctest::Contains("duplicate column 1 in row 2"), react::UserError);
  m = sample();
  m.col[4] = 4;
  CHECK_THROWS_WITH_AS(m.validate(), doctest::Contains("column 4 in row 2 is outside 0..3"), react::UserError);
  m = sample();
  m.rowptr = {0, 2, 5};
  CHECK_THROWS_WITH_AS(m.validate(), doctest::Contains("rowptr has 3 entries, expected rows+1 = 4"), react::UserError);
  m = sample();
  m.rowptr = {0, 3, 2, 5};
  CHECK_THROWS_WITH_AS(m.validate(), doctest::Contains("rowptr decreases at row 1"), react::UserError);
  m = sample();
  m.rowptr = {0, 2, 2, 4};
  CHECK_THROWS_WITH_AS(m.validate(), doctest::Contains("rowptr[rows] is 4, expected nnz = 5"), react::UserError);
  m = sample();
  m.rowptr = {1, 2, 2, 5};
  CHECK_THROWS_WITH_AS(m.validate(), doctest::Contains("rowptr[0] is 1"), react::UserError);
  m = sample();
  m.val.pop_back();
  CHECK_THROWS_WITH_AS(m.validate(), doctest::Contains("val has 4 entries"), react::UserError);
  CsrMatrix64 w = react::toCsr64(sample());
  w.col = {0, 2, 0, 3, 1};
  CHECK_THROWS_WITH_AS(w.validate(), doctest::Contains("unsorted"), react::UserError);
}

namespace {

// What validateCsrArrays must accept, entry by entry.
bool validEntryByEntry(const CsrMatrix& m) {
  if (m.rowptr[0] != 0 || m.rowptr[m.rows] != m.nnz()) return false;
  for (int64_t r = 0; r < m.rows; ++r) {
    if (m.rowptr[r + 1] < m.rowptr[r]) return false;
  }
  for (int64_t r = 0; r < m.rows; ++r)
    for (int64_t k = m.rowptr[r]; k < m.rowptr[r + 1]; ++k)
      if (m.col[k] < 0 || m.col[k] >= m.cols || (k > m.rowptr[r] && m.col[k] <= m.col[k - 1])) return false;
  return true;
}

struct Lcg {
  uint64_t state = 12345;
  int64_t operator()(int64_t n) {  // 0..n-1
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int64_t>((state >> 33) % static_cast<uint64_t>(n));
  }
};

// A random pattern of about rows * cols / 3 entries (empty rows included), then broken at random
// or not: a column moved, a row's position moved, the stored count changed, two columns swapped.
CsrMatrix randomlyBroken(Lcg& next, int64_t rows, int64_t cols) {
  CsrMatrix m;
  m.rows = rows;
  m.cols = cols;
  m.rowptr = {0};
  for (int64_t r = 0; r < m.rows; ++r) {
    for (int64_t c = 0; c < m.cols; ++c)
      if (next(3) == 0) m.col.push_back(static_cast<int32_t>(c));
    m.rowptr.push_back(static_cast<int64_t>(m.col.size()));
  }
  m.val.assign(m.col.size(), 1.0);
  switch (next(4)) {
    case 0: break;
    case 1:
      if (m.nnz()) m.col[static_cast<size_t>(next(m.nnz()))] = static_cast<int32_t>(next(m.cols + 2) - 1);
      break;
    case 2: m.rowptr[static_cast<size_t>(next(m.rows + 1))] += next(3) - 1; break;
    case 3:
      if (m.nnz() > 1) std::swap(m.col[static_cast<size_t>(next(m.nnz()))], m.col[static_cast<size_t>(next(m.nnz()))]);
      break;
  }
  return m;
}

void validate(const CsrMatrix& m) { react::validateCsrArrays(m.rows, m.cols, m.rowptr.data(), m.col.data(), m.nnz()); }

bool accepted(const CsrMatrix& m) {
  try {
    validate(m);
    return true;
  } catch (const react::UserError&) {
    return false;
  }
}

}  // namespace

TEST_CASE("validateCsrArrays: its vectorized check accepts exactly what an entry-by-entry one does") {
  // Small patterns, broken at random. validateCsrArrays answers in one fast pass and searches for
  // the message only when that pass refuses.
  Lcg next;
  int refused = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const CsrMatrix m = randomlyBroken(next, 1 + next(5), 1 + next(5));
    INFO("trial " << trial);
    CHECK(accepted(m) == validEntryByEntry(m));
    refused += !accepted(m);
  }
  CHECK(refused > 500);
}

TEST_CASE("validateCsrArrays: threads that share a large check accept exactly what one would") {
  // From 2^20 rows and entries on, the check is shared by OpenMP's threads, each over a part of
  // the rows and of the columns: a broken invariant in any part, or between two, is found.
  Lcg next;
  int refused = 0;
  for (int trial = 0; trial < 16; ++trial) {
    const CsrMatrix m = randomlyBroken(next, 100000, 30);
    REQUIRE(m.rows + m.nnz() >= (1 << 20));
    INFO("trial " << trial);
    CHECK(accepted(m) == validEntryByEntry(m));
    refused += !accepted(m);
  }
  CHECK(refused > 4);
  // Each invariant broken alone, in each eighth of the rows: a column past the last one or below
  // 0 where the row stays sorted, a duplicate column.
  CsrMatrix valid = randomlyBroken(next, 100000, 30);
  while (!validEntryByEntry(valid)) valid = randomlyBroken(next, 100000, 30);
  REQUIRE(accepted(valid));
  for (int64_t eighth = 0; eighth < 8; ++eighth) {
    int64_t r = valid.rows * eighth / 8 + 3;
    while (valid.rowptr[r + 1] - valid.rowptr[r] < 2) ++r;
    const int64_t first = valid.rowptr[r], last = valid.rowptr[r + 1] - 1;
    INFO("row " << r);
    CsrMatrix m = valid;
    m.col[last] = static_cast<int32_t>(m.cols);
    const std::string outside = "column 30 in row " + std::to_string(r) + " is outside";
    CHECK_THROWS_WITH_AS(validate(m), doctest::Contains(outside.c_str()), react::UserError);
    m = valid;
    m.col[first] = -1;
    const std::string negative = "column -1 in row " + std::to_string(r) + " is outside";
    CHECK_THROWS_WITH_AS(validate(m), doctest::Contains(negative.c_str()), react::UserError);
    m = valid;
    m.col[last] = m.col[last - 1];
    CHECK_THROWS_WITH_AS(validate(m), doctest::Contains("duplicate column"), react::UserError);
  }
  // Positions that rise past nnz over most rows and fall back at the end: a part whose own
  // positions never decrease must not read columns at them (the sanitizers' build sees a read).
  CsrMatrix m = valid;
  for (int64_t r = 0; r < m.rows; ++r) m.rowptr[r] = r < m.rows / 8 ? 0 : m.nnz() + r - m.rows / 8;
  CHECK_THROWS_WITH_AS(validate(m), doctest::Contains("rowptr decreases at row 99999"), react::UserError);
}

TEST_CASE("COO -> CSR sorts, sums duplicates and keeps explicit zeros, CSR -> COO -> CSR is exact") {
  CooMatrix coo;
  coo.rows = 3;
  coo.cols = 4;
  coo.row = {2, 0, 2, 0, 2, 2};
  coo.col = {3, 2, 0, 0, 1, 3};
  coo.val = {1, 2, 3, 1, 0, 3};
  CHECK(react::cooToCsr(coo) == sample());
  const CooMatrix back = react::csrToCoo(sample());
  CHECK(back.entries() == 5);
  CHECK(back.row == std::vector<int64_t>{0, 0, 2, 2, 2});
  CHECK(react::cooToCsr(back) == sample());
  coo.col[1] = 4;
  CHECK_THROWS_WITH_AS(react::cooToCsr(coo), doctest::Contains("entry 1 at (0, 4) is outside the 3x4 matrix"),
                       react::UserError);
  coo.col[1] = 2;
  coo.val.pop_back();
  CHECK_THROWS_AS(react::cooToCsr(coo), react::UserError);
}

TEST_CASE("CSR <-> dense") {
  const DenseTensor d = react::csrToDense(sample());
  CHECK(d.shape == std::vector<int64_t>{3, 4});
  CHECK(d.data == std::vector<double>{1, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0, 4});
  CsrMatrix noZeros = sample();  // dense storage cannot remember the explicit zero
  noZeros.rowptr = {0, 2, 2, 4};
  noZeros.col = {0, 2, 0, 3};
  noZeros.val = {1, 2, 3, 4};
  CHECK(react::denseToCsr(d) == noZeros);
  CHECK(react::csrToDense(react::denseToCsr(d)).data == d.data);
  CHECK_THROWS_WITH_AS(react::denseToCsr(DenseTensor({2, 2, 2})), doctest::Contains("rank 3"), react::UserError);
}

TEST_CASE("CSR <-> Eigen keeps explicit zeros, fromEigen sorts and sums whatever Eigen holds") {
  const react::EigenCsr e = react::toEigen(sample());
  CHECK(e.rows() == 3);
  CHECK(e.cols() == 4);
  CHECK(e.nonZeros() == 5);
  CHECK(e.coeff(2, 3) == 4.0);
  CHECK(react::fromEigen(e) == sample());

  react::EigenCsr u(3, 4);  // built by insertion, left uncompressed
  u.insert(2, 3) = 4;
  u.insert(0, 2) = 2;
  u.insert(2, 0) = 3;
  u.insert(0, 0) = 1;
  u.insert(2, 1) = 0;
  CHECK(react::fromEigen(u) == sample());
  CHECK(react::fromEigen(react::EigenCsr(0, 0)) == CsrMatrix{});
}

TEST_CASE("toCsr64 / toCsr32 round trip, toCsr32 refuses coordinates beyond 32 bits") {
  const CsrMatrix64 w = react::toCsr64(sample());
  CHECK(w.col == std::vector<int64_t>{0, 2, 0, 1, 3});
  CHECK(react::toCsr32(w) == sample());

  CsrMatrix64 big;
  big.rows = 1;
  big.cols = 3000000000LL;
  big.rowptr = {0, 1};
  big.col = {2500000000LL};
  big.val = {1.0};
  CHECK_NOTHROW(big.validate());
  CHECK_THROWS_WITH_AS(react::toCsr32(big), doctest::Contains("3000000000 columns do not fit 32-bit"), react::UserError);
  big.cols = int64_t{std::numeric_limits<int32_t>::max()} + 1;
  big.col = {int64_t{std::numeric_limits<int32_t>::max()}};
  CHECK(react::toCsr32(big).col[0] == std::numeric_limits<int32_t>::max());
  big.col = {-1};
  CHECK_THROWS_WITH_AS(react::toCsr32(big), doctest::Contains("column coordinate -1"), react::UserError);
}
