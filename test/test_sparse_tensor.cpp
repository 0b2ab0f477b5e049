// Sparse tensors of any rank in any level format: the arrays of the named formats, round trips
// through every format and ordering against a dense reference, coordinates in (unsorted,
// duplicates, explicit zeros), entries a format cannot store, and validate naming each invariant.
#include "formats/formats.hpp"
#include "formats/random.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

using react::CooTensor;
using react::CsrMatrix;
using react::DenseTensor;
using react::Format;
using react::SparseTensor;

namespace {

// A random dense tensor with about `density` of its values nonzero (integers 1..9, some negative).
DenseTensor sparseDense(std::vector<int64_t> shape, double density, uint64_t seed) {
  DenseTensor d(std::move(shape));
  react::Rng rng(seed);
  for (double& v : d.data)
    if (rng.uniform() < density) v = static_cast<double>(1 + rng.below(9)) * (rng.below(4) == 0 ? -1 : 1);
  return d;
}

bool hasDenseLevel(const Format& f) {
  return std::any_of(f.levels().begin(), f.levels().end(), [](const react::Level& l) { return l.full(); });
}

bool sameValues(const DenseTensor& a, const DenseTensor& b) {
  return a.shape == b.shape && a.data == b.data && a.valueType == b.valueType;
}

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const react::UserError& e) {
    return e.what();
  }
  return "(no error)";
}

// The named formats and some others of rank 2 and 3, every ordering included.
std::vector<Format> formatsOfRank(int rank, uint64_t seed) {
  std::vector<Format> out{Format::dense(rank), Format::coo(rank), Format::csf(rank)};
  if (rank == 2) {
    for (const char* f : {"csr", "csc", "dcsr", "sd", "sd:1,0", "dd:1,0", "ss:1,0", "uq:1,0", "us"})
      out.push_back(react::parseFormat(f, 2));
    return out;
  }
  std::vector<int> ordering(static_cast<size_t>(rank));
  std::iota(ordering.begin(), ordering.end(), 0);
  react::Rng rng(seed);
  do {  // every ordering with levels drawn from d and s, and coo in that ordering
    std::vector<react::Level> levels;
    for (int l = 0; l < rank; ++l) levels.push_back(rng.below(2) ? react::Level::dense() : react::Level::compressed());
    out.emplace_back(levels, ordering);
    out.emplace_back(Format::coo(rank).levels(), ordering);
    out.emplace_back(Format::csf(rank).levels(), ordering);
  } while (std::next_permutation(ordering.begin(), ordering.end()));
  return out;
}

SparseTensor make(const Format& f, std::vector<int64_t> shape, std::vector<react::LevelArrays> levels,
                  std::vector<double> val) {
  SparseTensor t;
  t.format = f;
  t.shape = std::move(shape);
  t.levels = std::move(levels);
  t.val = std::move(val);
  return t;
}

// The 3 x 4 matrix [0 1 0 2; 0 0 0 0; 3 0 0 4].
DenseTensor example() {
  DenseTensor d({3, 4});
  d.at({0, 1}) = 1;
  d.at({0, 3}) = 2;
  d.at({2, 0}) = 3;
  d.at({2, 3}) = 4;
  return d;
}

}  // namespace

TEST_CASE("sparse tensors: the arrays of csr, csc, dcsr, coo, dense and sd for one matrix") {
  const DenseTensor d = example();
  auto in = [&](const char* f) { return react::denseToSparse(d, react::parseFormat(f, 2)); };
  CHECK(in("csr") == make(Format::csr(), {3, 4}, {{}, {{0, 2, 2, 4}, {1, 3, 0, 3}}}, {1, 2, 3, 4}));
  CHECK(in("csc") == make(Format::csc(), {3, 4}, {{}, {{0, 1, 2, 2, 4}, {2, 0, 0, 2}}}, {3, 1, 2, 4}));
  CHECK(in("dcsr") == make(Format::dcsr(), {3, 4}, {{{0, 2}, {0, 2}}, {{0, 2, 4}, {1, 3, 0, 3}}}, {1, 2, 3, 4}));
  CHECK(in("coo") == make(Format::coo(2), {3, 4}, {{{0, 4}, {0, 0, 2, 2}}, {{}, {1, 3, 0, 3}}}, {1, 2, 3, 4}));
  CHECK(in("sd") == make(react::parseFormat("sd", 2), {3, 4}, {{{0, 2}, {0, 2}}, {}}, {0, 1, 0, 2, 3, 0, 0, 4}));
  CHECK(in("dense") == make(Format::dense(2), {3, 4}, {{}, {}}, d.data));
  // coo of rank 3: a compressed non-unique level, a singleton non-unique one, a singleton.
  CooTensor coo{{2, 3, 4}, {{1, 0, 1}, {2, 2, 2}, {3, 1, 0}}, {5, 6, 7}};
  CHECK(react::cooToSparse(coo, Format::coo(3)) ==
        make(Format::coo(3), {2, 3, 4}, {{{0, 3}, {0, 1, 1}}, {{}, {2, 2, 2}}, {{}, {1, 0, 3}}}, {6, 7, 5}));
  CHECK(react::cooToSparse(coo, Format::csf(3)) ==
        make(Format::csf(3), {2, 3, 4}, {{{0, 2}, {0, 1}}, {{0, 1, 2}, {2, 2}}, {{0, 1, 3}, {1, 0, 3}}}, {6, 7, 5}));
}

TEST_CASE("sparse tensors: csr is CsrMatrix's arrays exactly, both ways") {
  const CsrMatrix m = react::uniformRandom(300, 200, 4.0, 3);
  const SparseTensor t = react::csrToSparse(m);
  CHECK(t.format == Format::csr());
  CHECK(t.levels[1].pos == m.rowptr);
  CHECK(t.levels[1].crd == m.col);
  CHECK(t.val == m.val);
  CHECK(react::sparseToCsr(t) == m);
  CHECK_NOTHROW(t.validate());
  // From any format without dense levels, the same matrix; with them, the same values.
  for (const char* f : {"csc", "dcsr", "coo", "ss:1,0", "uq:1,0"})
    CHECK(react::sparseToCsr(react::convertFormat(t, react::parseFormat(f, 2))) == m);
  for (const char* f : {"dense", "sd:1,0"}) {
    const CsrMatrix withZeros = react::sparseToCsr(react::convertFormat(t, react::parseFormat(f, 2)));
    CHECK(withZeros.nnz() > m.nnz());
    CHECK(sameValues(react::csrToDense(withZeros), react::csrToDense(m)));
  }
  CHECK(react::cooToSparse(react::sparseToCoo(t), Format::csr()) == t);
  // A real matrix read into csr is readMatrixMarketCsr's; into csc, the same matrix.
  const std::string cora = REACT_SOURCE_DIR "/../shared/data/matrices/cora.mtx";
  const CsrMatrix c = react::readMatrixMarketCsr(cora);
  CHECK(react::readMatrixMarketSparse(cora, Format::csr()) == react::csrToSparse(c));
  const SparseTensor csc = react::readMatrixMarketSparse(cora, Format::csc());
  CHECK(csc.levels[1].pos.size() == static_cast<size_t>(c.cols + 1));
  CHECK(react::sparseToCsr(csc) == c);
}

// A csr matrix by columns: csc as convertFormat makes it, and each entry's csr position.
TEST_CASE("sparse tensors: csrByColumns is the csc form with each entry's csr position") {
  CsrMatrix m;  // [[1, 0, 2], [0, 3, 0], [4, 5, 0]], then an empty row and an empty column
  m.rows = 4;
  m.cols = 4;
  m.rowptr = {0, 2, 3, 5, 5};
  m.col = {0, 2, 1, 0, 1};
  m.val = {1, 2, 3, 4, 5};
  const react::ColumnOrder o = react::csrByColumns(m);
  CHECK(o.byColumns == react::convertFormat(react::csrToSparse(m), Format::csc()));
  CHECK(o.byColumns.levels[1].pos == std::vector<int64_t>{0, 2, 4, 5, 5});
  CHECK(o.byColumns.levels[1].crd == std::vector<int32_t>{0, 2, 1, 2, 0});
  CHECK(o.source == std::vector<int64_t>{0, 3, 2, 4, 1});
  const CsrMatrix big = react::uniformRandom(300, 200, 4.0, 3);
  const react::ColumnOrder b = react::csrByColumns(big);
  CHECK(b.byColumns == react::convertFormat(react::csrToSparse(big), Format::csc()));
  for (size_t q = 0; q < b.source.size(); ++q) CHECK(big.val[static_cast<size_t>(b.source[q])] == b.byColumns.val[q]);
}

TEST_CASE("sparse tensors: every format and ordering of rank 2 and 3 round-trips against a dense reference") {
  for (int rank : {2, 3}) {
    const std::vector<int64_t> shape = rank == 2 ? std::vector<int64_t>{9, 7} : std::vector<int64_t>{5, 4, 6};
    const DenseTensor d = sparseDense(shape, 0.3, static_cast<uint64_t>(rank));
    const std::vector<Format> formats = formatsOfRank(rank, 17);
    for (const Format& f : formats) {
      CAPTURE(f.str());
      const SparseTensor t = react::denseToSparse(d, f);
      CHECK_NOTHROW(t.validate());
      CHECK(sameValues(react::sparseToDense(t), d));
      CHECK(react::cooToSparse(react::sparseToCoo(t), f) == t);
      for (const Format& g : formats) {  // through g and back: the same tensor
        CAPTURE(g.str());
        const SparseTensor u = react::convertFormat(react::denseToSparse(d, g), f);
        CHECK(sameValues(react::sparseToDense(u), d));
        // g's stored entries are t's, unless a dense level of g adds zeros: then t again, exactly.
        if (!hasDenseLevel(g)) CHECK(react::convertFormat(react::convertFormat(t, g), f) == t);
      }
    }
  }
}

TEST_CASE("sparse tensors: coordinates in any order, duplicates summed in input order, explicit zeros kept") {
  CooTensor coo{{3, 2, 4}, {{2, 0, 2, 0, 1, 0}, {1, 1, 1, 0, 0, 1}, {3, 2, 3, 0, 1, 2}}, {1.0, -1, 2.5, 0.0, 7, 1}};
  for (const char* f : {"csf", "coo", "dense", "sss:2,0,1", "dsd:1,2,0"}) {
    CAPTURE(f);
    const SparseTensor t = react::cooToSparse(coo, react::parseFormat(f, 3));
    CHECK_NOTHROW(t.validate());
    const DenseTensor d = react::sparseToDense(t);
    CHECK(d.at({2, 1, 3}) == 3.5);
    CHECK(d.at({0, 1, 2}) == 0.0);  // -1 + 1
    CHECK(d.at({1, 0, 1}) == 7.0);
    const CooTensor back = react::sparseToCoo(t);
    if (react::parseFormat(f, 3).hasSparseLevel() && std::string(f).find('d') == std::string::npos)
      CHECK(back.entries() == 4);  // (0,0,0) = 0 and (0,1,2) = -1 + 1 are explicit zeros
  }
  // Summed in input order: 1e16 + 1 - 1e16 is 0 in double, - 1e16 + 1e16 + 1 would be 1.
  CooTensor order{{2}, {{1, 1, 1}}, {1e16, 1, -1e16}};
  CHECK(react::cooToSparse(order, Format::csf(1)).val == std::vector<double>{0.0});
  // float32: the sums are rounded.
  CooTensor f32{{1, 1}, {{0, 0}, {0, 0}}, {1.0, 1e-9}, react::ValueType::Float32};
  const SparseTensor t32 = react::cooToSparse(f32, Format::csr());
  CHECK(t32.val == std::vector<double>{1.0});
  CHECK((t32.valueType == react::ValueType::Float32));
}

TEST_CASE("sparse tensors: entries a format cannot store, and bad coordinates, are user errors") {
  CooTensor rows{{3, 3}, {{0, 0, 2}, {0, 2, 1}}, {1, 2, 3}};
  CHECK(errorOf([&] { react::cooToSparse(rows, react::parseFormat("sq", 2)); }) ==
        "cooToSparse: format sq cannot store these entries: its level 1 (singleton) needs exactly one entry under "
        "each position of the level above, and (0, *) has 2");
  CHECK(errorOf([&] { react::cooToSparse(rows, react::parseFormat("dq", 2)); }) ==
        "cooToSparse: format dq cannot store these entries: its level 1 (singleton) needs exactly one entry under "
        "each position of the level above, and (0, *) has 2");
  CooTensor oneEach{{3, 3}, {{0, 2}, {1, 1}}, {1, 2}};
  CHECK(errorOf([&] { react::cooToSparse(oneEach, react::parseFormat("dq", 2)); }).find("and (1, *) has 0") !=
        std::string::npos);
  CHECK(react::sparseToDense(react::cooToSparse(oneEach, react::parseFormat("sq", 2))).at({2, 1}) == 2.0);
  CooTensor fibres{{1, 3, 4}, {{0, 0, 0}, {2, 2, 1}, {1, 3, 0}}, {1, 2, 3}};
  CHECK(errorOf([&] { react::cooToSparse(fibres, react::parseFormat("uqq", 3)); }) ==
        "cooToSparse: format uqq cannot store these entries: its level 1 (singleton) is unique, and the entries at "
        "(0, 2, *) would repeat its coordinate");
  CHECK(errorOf([&] { react::cooToSparse(fibres, react::parseFormat("ud", 2)); }) ==
        "cooToSparse: format ud has 2 levels, the tensor 3 dimensions");
  CooTensor twoInRow{{2, 3}, {{1, 1}, {0, 2}}, {1, 2}};
  CHECK(errorOf([&] { react::cooToSparse(twoInRow, react::parseFormat("ud", 2)); }) ==
        "cooToSparse: format ud cannot store these entries: its level 1 (dense) is unique, and the entries at "
        "(1, 0) would repeat its coordinate");
  CHECK(react::sparseToDense(react::cooToSparse(CooTensor{{2, 3}, {{1}, {2}}, {5}}, react::parseFormat("ud", 2)))
            .at({1, 2}) == 5.0);

  CHECK(errorOf([] { react::cooToSparse(CooTensor{{2, 2}, {{0, 2}, {1, 1}}, {1, 2}}, Format::csr()); }) ==
        "cooToSparse: entry 1 at (2, 1) is outside the 2 x 2 tensor");
  CHECK(errorOf([] { react::cooToSparse(CooTensor{{2, -1}, {{}, {}}, {}}, Format::csr()); }) ==
        "cooToSparse: dimension 1 has negative size -1");
  CHECK(errorOf([] { react::cooToSparse(CooTensor{{2, 3}, {{0}, {}}, {1}}, Format::csr()); }) ==
        "cooToSparse: dimension 1 has 0 coordinates, val 1 values");
  CHECK(errorOf([] { react::cooToSparse(CooTensor{{2, int64_t{1} << 32}, {{}, {}}, {}}, Format::csr()); }) ==
        "cooToSparse: dimension 1 of size 4294967296 does not fit 32-bit coordinates (at most 2147483648)");
  CHECK(errorOf([] { react::cooToSparse(CooTensor{}, Format()); }) ==
        "cooToSparse: no dimensions (a sparse tensor has rank 1 or more)");
  // A dense level of more positions than fit.
  CHECK(errorOf([] {
          react::cooToSparse(CooTensor{{int64_t{1} << 31, int64_t{1} << 31, int64_t{1} << 31}, {{}, {}, {}}, {}},
                             Format::dense(3));
        }) == "cooToSparse: level 1 (dense) of 2147483648 x 2147483648 positions needs more than 2^63 bytes");
}

TEST_CASE("sparse tensors: conversions to and from dense and CSR check ranks") {
  CHECK(errorOf([] { react::sparseToCsr(react::denseToSparse(DenseTensor({2, 2, 2}), Format::csf(3))); }) ==
        "sparseToCsr: expected a tensor of rank 2, got rank 3");
  CHECK(errorOf([] { react::denseToSparse(DenseTensor({2, 2}), Format::csf(3)); }) ==
        "denseToSparse: expected a tensor of rank 3, got rank 2");
  CHECK(errorOf([] { react::denseToSparse(DenseTensor(), Format()); }) ==
        "denseToSparse: a scalar is not a sparse tensor (rank 1 or more)");
  const SparseTensor matrix = react::denseToSparse(DenseTensor({2, 2}), Format::csr());
  CHECK(errorOf([&] { react::convertFormat(matrix, Format::csf(3)); }) ==
        "convertFormat: expected a format of rank 2, got rank 3");
  // A dense format keeps the zeros; others store the nonzeros (NaN is one).
  DenseTensor d({2, 2});
  d.at({1, 0}) = std::nan("");
  d.setValueType(react::ValueType::Float32);
  CHECK(react::denseToSparse(d, Format::dense(2)).nnz() == 4);
  const SparseTensor s = react::denseToSparse(d, Format::csf(2));
  CHECK(s.nnz() == 1);
  CHECK((s.valueType == react::ValueType::Float32));
  CHECK((react::sparseToDense(s).valueType == react::ValueType::Float32));
}

TEST_CASE("SparseTensor::validate accepts the formats' tensors and names each broken invariant") {
  const SparseTensor dcsr = react::denseToSparse(example(), Format::dcsr());
  const SparseTensor coo = react::denseToSparse(example(), Format::coo(2));
  const SparseTensor csc = react::denseToSparse(example(), Format::csc());
  CHECK_NOTHROW(dcsr.validate());
  CHECK_NOTHROW(coo.validate());
  CHECK_NOTHROW(csc.validate());
  auto broken = [](SparseTensor t, const std::function<void(SparseTensor&)>& change) {
    change(t);
    return errorOf([&] { t.validate(); });
  };
  const std::string invalid = "invalid sparse tensor: ";
  CHECK(broken(dcsr, [](SparseTensor& t) { t.format = Format(); }) ==
        invalid + "its format has no levels (a sparse tensor has rank 1 or more)");
  CHECK(broken(dcsr, [](SparseTensor& t) { t.shape.push_back(2); }) ==
        invalid + "format dcsr has 2 levels, the shape 3 dimensions");
  CHECK(broken(dcsr, [](SparseTensor& t) { t.levels.pop_back(); }) ==
        invalid + "1 level arrays for the 2 levels of format dcsr");
  CHECK(broken(dcsr, [](SparseTensor& t) { t.shape[1] = -4; }) == invalid + "dimension 1 has negative size -4");
  CHECK(broken(csc, [](SparseTensor& t) { t.levels[0].crd = {0}; }) ==
        invalid + "level 0 (dense) keeps a crd array; a dense level keeps none");
  CHECK(broken(coo, [](SparseTensor& t) { t.levels[1].pos = {0, 1}; }) ==
        invalid + "level 1 (singleton) keeps a pos array; only a compressed level does");
  CHECK(broken(dcsr, [](SparseTensor& t) { t.levels[1].pos.pop_back(); }) ==
        invalid + "level 1 (compressed): pos has 2 entries, expected 3 (one more than level 0's 2 positions)");
  CHECK(broken(dcsr, [](SparseTensor& t) { t.levels[0].pos = {1, 2}; }) ==
        invalid + "level 0 (compressed): pos[0] is 1, expected 0");
  CHECK(broken(dcsr, [](SparseTensor& t) { t.levels[1].pos = {0, 3, 2}; }) ==
        invalid + "level 1 (compressed): pos decreases at parent position 1 (3 > 2)");
  CHECK(broken(dcsr, [](SparseTensor& t) { t.levels[1].crd.pop_back(); }) ==
        invalid + "level 1 (compressed): crd has 3 entries, expected pos[2] = 4");
  CHECK(broken(coo, [](SparseTensor& t) { t.levels[1].crd.pop_back(); }) ==
        invalid + "level 1 (singleton): crd has 3 entries, expected one per position of level 0, 4");
  CHECK(broken(dcsr, [](SparseTensor& t) { t.levels[1].crd[2] = 4; }) ==
        invalid + "level 1 (compressed): coordinate 4 at position 2 is outside 0..3 (dimension 1)");
  CHECK(broken(csc, [](SparseTensor& t) { t.levels[1].crd[0] = -1; }) ==
        invalid + "level 1 (compressed): coordinate -1 at position 0 is outside 0..2 (dimension 0)");
  CHECK(broken(dcsr, [](SparseTensor& t) { t.levels[1].crd = {3, 1, 0, 3}; }) ==
        invalid + "level 1 (compressed): coordinates out of order at (0, 1): 1 at position 1 follows 3 at position 0 "
                  "under the same coordinates of the levels above");
  CHECK(broken(dcsr, [](SparseTensor& t) { t.levels[0].crd = {2, 2}; }) ==
        invalid + "level 0 (compressed): coordinate 2 repeats at (2, *) (positions 0 and 1), and the level is unique");
  // coo: rows may repeat (non-unique), but not go back; (row, column) pairs may not repeat.
  CHECK(broken(coo, [](SparseTensor& t) { t.levels[0].crd = {0, 2, 0, 2}; }) ==
        invalid + "level 0 (compressed-nonunique): coordinates out of order at (0, *): 0 at position 2 follows 2 at "
                  "position 1 under the same coordinates of the levels above");
  CHECK(broken(coo, [](SparseTensor& t) { t.levels[1].crd = {1, 1, 0, 3}; }) ==
        invalid + "level 1 (singleton): coordinate 1 repeats at (0, 1) (positions 0 and 1), and the level is unique");
  CHECK(broken(coo, [](SparseTensor& t) { t.levels[1].crd = {3, 1, 0, 3}; }) ==
        invalid + "level 1 (singleton): coordinates out of order at (0, 1): 1 at position 1 follows 3 at position 0 "
                  "under the same coordinates of the levels above");
  CHECK(broken(dcsr, [](SparseTensor& t) { t.val.pop_back(); }) ==
        invalid + "val has 3 entries, expected 4 (one per position of level 1)");
  CHECK(broken(dcsr, [](SparseTensor& t) { t.valueType = react::ValueType::Float32, t.val[1] = 0.1; }) ==
        invalid + "value 1 (0.100000) is not a float32 value");
  // A non-unique level repeats coordinates; the levels below continue in order across them.
  SparseTensor nonunique = react::cooToSparse(CooTensor{{2, 3}, {{1, 1}, {0, 2}}, {1, 2}}, react::parseFormat("us", 2));
  CHECK(nonunique.levels[0].crd == std::vector<int32_t>{1, 1});
  CHECK_NOTHROW(nonunique.validate());
  CHECK(broken(nonunique, [](SparseTensor& t) { t.levels[1].crd = {2, 0}; }) ==
        invalid + "level 1 (compressed): coordinates out of order at (1, 0): 0 at position 1 follows 2 at position 0 "
                  "under the same coordinates of the levels above");
  CHECK(broken(nonunique, [](SparseTensor& t) { t.levels[1].crd = {2, 2}; }) ==
        invalid + "level 1 (compressed): coordinate 2 repeats at (1, 2) (positions 0 and 1), and the level is unique");
  // Functions that read a sparse tensor validate it.
  SparseTensor bad = dcsr;
  bad.levels[1].crd[2] = 9;
  CHECK(errorOf([&] { react::sparseToDense(bad); }).find("invalid sparse tensor") == 0);
  CHECK(errorOf([&] { react::sparseToCoo(bad); }).find("invalid sparse tensor") == 0);
  CHECK(errorOf([&] { react::convertFormat(bad, Format::csr()); }).find("invalid sparse tensor") == 0);
}

TEST_CASE("sparse tensors: Matrix Market into any matrix format, and written back from any") {
  const std::string general =
      "%%MatrixMarket matrix coordinate real general\n3 4 5\n3 4 4\n1 2 1\n3 1 3\n1 4 2\n1 2 0\n";
  const DenseTensor d = example();
  const std::filesystem::path scratch = std::filesystem::path(REACT_BINARY_DIR) / "test-scratch";
  std::filesystem::create_directories(scratch);
  const std::string path = (scratch / "sparse-tensor.mtx").string();
  for (const char* f : {"csr", "csc", "dcsr", "coo", "dense", "sd", "ds:1,0", "ss:1,0", "uq:1,0"}) {
    CAPTURE(f);
    const Format format = react::parseFormat(f, 2);
    const SparseTensor t = react::parseMatrixMarketSparse(general, "g.mtx", format);
    CHECK(t.format == format);
    CHECK_NOTHROW(t.validate());
    CHECK(sameValues(react::sparseToDense(t), d));
    react::writeMatrixMarket(path, t);
    CHECK(react::readMatrixMarketSparse(path, format) == t);
  }
  std::remove(path.c_str());
  // Symmetric files are expanded; an array file stores its nonzeros (all of them in a dense format).
  const SparseTensor sym = react::parseMatrixMarketSparse(
      "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 5\n3 3 1\n", "s.mtx", Format::csc());
  CHECK(react::sparseToDense(sym).at({0, 1}) == 5.0);
  CHECK(react::sparseToDense(sym).at({1, 0}) == 5.0);
  const std::string array = "%%MatrixMarket matrix array real general\n2 2\n1\n0\n0\n4\n";
  CHECK(react::parseMatrixMarketSparse(array, "a.mtx", Format::dcsr()).nnz() == 2);
  CHECK(react::parseMatrixMarketSparse(array, "a.mtx", Format::dense(2)).nnz() == 4);
  CHECK((react::parseMatrixMarketSparse(general, "g.mtx", Format::csr(), react::ValueType::Float32).valueType ==
         react::ValueType::Float32));
  // The reader's errors, and formats of another rank.
  CHECK(errorOf([&] { react::parseMatrixMarketSparse(general + "1 1 1\n", "g.mtx", Format::csc()); }) ==
        "g.mtx:8: expected 5 entries (as the size line says), got more");
  CHECK(errorOf([&] { react::parseMatrixMarketSparse(general, "g.mtx", Format::csf(3)); }) ==
        "g.mtx: a Matrix Market file holds a matrix, and format csf is of rank 3");
  CHECK(errorOf([&] { react::parseMatrixMarketSparse(general, "g.mtx", react::parseFormat("dq", 2)); }) ==
        "g.mtx: format dq cannot store these entries: its level 1 (singleton) needs exactly one entry under each "
        "position of the level above, and (0, *) has 2");
  const SparseTensor cube = react::denseToSparse(DenseTensor({1, 1, 1}), Format::csf(3));
  CHECK(errorOf([&] { react::writeMatrixMarket("x.mtx", cube); }) ==
        "x.mtx: Matrix Market holds matrices (rank 2), got a tensor of rank 3");
}
