// Dense tensors, CSR invariants and the conversions COO <-> CSR <-> dense <-> Eigen.
#include "formats/formats.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
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
