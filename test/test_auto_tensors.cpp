// Fusion mode auto on sparse inputs other than csr (issue 21): the statistics of each storage
// level (csc's columns, dcsr's rows with entries, csf's slices and fibres), and MTTKRP's choice
// between react's fused form and maximal fusion following the fibres' lengths.
#include "fusion/fusion.hpp"
#include "indexnotation_test_util.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

using namespace react;
using namespace react::test;

namespace {

// The 3 x 4 matrix of docs/formats.md: (0,1)=1, (0,3)=2, (2,0)=3, (2,3)=4.
SparseTensor exampleMatrix(const Format& f) {
  CooTensor coo;
  coo.shape = {3, 4};
  coo.crd = {{0, 0, 2, 2}, {1, 3, 0, 3}};
  coo.val = {1, 2, 3, 4};
  return cooToSparse(coo, f);
}

// An ni x nk x nl csf tensor whose nonempty (i,k) fibres each hold `fibre` entries, `fibres` of
// them per slice.
SparseTensor fibred(int64_t ni, int64_t nk, int64_t nl, int64_t fibres, int64_t fibre) {
  CooTensor coo;
  coo.shape = {ni, nk, nl};
  coo.crd.resize(3);
  for (int64_t i = 0; i < ni; ++i)
    for (int64_t f = 0; f < fibres; ++f)
      for (int64_t l = 0; l < fibre; ++l) {
        coo.crd[0].push_back(i);
        coo.crd[1].push_back((i + f * 7) % nk);
        coo.crd[2].push_back((l * 3 + f) % nl);
        coo.val.push_back(0.5 + 0.01 * static_cast<double>(l));
      }
  return cooToSparse(coo, Format::csf(3));
}

const char* const kMttkrp = "A(i,j) = B(i,k,l) * D(l,j) * C(k,j)";

Program mttkrp(const SparseTensor& b, int64_t nj) {
  Environment env;
  env.declare("B", b.shape, Format::csf(3));
  env.declare("C", {b.shape[1], nj}, Format::dense(2));
  env.declare("D", {b.shape[2], nj}, Format::dense(2));
  return parseIndexNotation(kMttkrp, env);
}

}  // namespace

TEST_CASE("auto: the statistics of csc, dcsr and csf inputs count each level's positions") {
  InputStats s = inputStats({{"R", sparseToCsr(exampleMatrix(Format::csr()))},
                             {"K", exampleMatrix(Format::csc())},
                             {"M", exampleMatrix(Format::dcsr())}});
  CHECK(s.sparse.at("R").positions(0) == 3);  // csr: rows, then entries
  CHECK(s.sparse.at("R").positions(1) == 4);
  CHECK(s.sparse.at("R").longestRow == 2);
  CHECK(s.sparse.at("K").levelPositions == std::vector<int64_t>{4, 4});  // 4 columns, 4 entries
  CHECK(s.sparse.at("K").longestRow == 2);                                // column 3
  CHECK(s.sparse.at("M").levelPositions == std::vector<int64_t>{2, 4});  // rows 0 and 2 have entries
  SparseTensor b = fibred(5, 9, 7, 2, 3);
  SparseStats csf = inputStats({{"B", b}}).sparse.at("B");
  CHECK(csf.levelPositions == std::vector<int64_t>{5, 10, 30});  // slices, fibres, entries
  CHECK(csf.longestRow == 6);
  CHECK(csf.shape == std::vector<int64_t>{5, 9, 7});
  CHECK(inputStats({{"B", b}}).str() == "B: 5x9x7, positions per level 5/10/30, nnz 30, longest slice 6");
  // dss: the dense first level has a position per coordinate.
  CHECK(inputStats({{"B", convertFormat(b, parseFormat("dss", 3))}}).sparse.at("B").levelPositions ==
        std::vector<int64_t>{5, 10, 30});
}

TEST_CASE("auto: a sparse input of another format than csr needs the positions of its levels") {
  Program p = mttkrp(fibred(4, 4, 4, 1, 2), 3);
  InputStats csrLike;
  csrLike.sparse["B"] = {4, 4, 8, 2};
  CHECK(errorOf([&] { requireStatistics(p, csrLike); }) ==
        "auto: the statistics of csf input 'B' lack the positions of each of its levels (give its values)");
  CHECK(errorOf([&] { requireStatistics(p, InputStats{}); }) ==
        "auto: no statistics for csf input 'B' (give its values, or its nnz)");
  CompileOptions o;
  CHECK((fusionModeOf(p, o) == FusionMode::React));  // no statistics: react
  o.stats = inputStats({{"B", fibred(4, 4, 4, 1, 2)}});
  CHECK((fusionModeOf(p, o) == FusionMode::Auto));
}

TEST_CASE("auto: MTTKRP's fibres decide: long ones fuse as react does, fibres of one entry maximally") {
  const int64_t nj = 32;
  // 4096 entries in two fibres of 32 per slice, or in 64 fibres of one entry per slice.
  SparseTensor longFibres = fibred(64, 64, 64, 2, 32), shortFibres = fibred(64, 64, 64, 64, 1);
  REQUIRE(longFibres.nnz() == shortFibres.nnz());
  for (const auto& [b, want] : {std::pair{&longFibres, FusionMode::React}, std::pair{&shortFibres, FusionMode::Maximal}}) {
    Program p = mttkrp(*b, nj);
    InputStats stats = inputStats({{"B", *b}});
    AutoDecision d = decideFusion(p, stats, testMachine());
    INFO(d.str());
    CHECK(d.choice().asWritten);
    CHECK((d.choice().mode == want));
    CHECK(d.choice().plan.unlimited());
    CHECK(d.str().find("positions per level") != std::string::npos);
    // react's fused form: 2 flops per entry and j, and 3 per fibre and j (C times the fibre's row of
    // T0 into A, and its reset); maximal's: 3 per entry and j.
    const double nnz = static_cast<double>(b->nnz()), fibres = static_cast<double>(stats.sparse.at("B").positions(1));
    for (const AutoCandidate& c : d.candidates) {
      if (!c.asWritten || !c.rejected.empty() || !c.plan.unlimited()) continue;
      if (c.mode == FusionMode::React) CHECK(c.cost.flops == doctest::Approx(2 * nj * nnz + 3 * nj * fibres));
      if (c.mode == FusionMode::Maximal) CHECK(c.cost.flops == doctest::Approx(3 * nj * nnz));
    }
    // Whichever it chose computes MTTKRP.
    TensorValues in{{"B", *b}, {"C", randomPositive({64, nj}, 1)}, {"D", randomPositive({64, nj}, 2)}};
    requireClose(p, interpret(d.choice().tree, in), referenceEvaluate(parseIndexNotationStatements(kMttkrp), p, in), "auto's choice");
  }
}

TEST_CASE("auto: TTM on a csf tensor in any mode ordering decides and computes the product") {
  SparseTensor b = fibred(6, 5, 7, 2, 3);
  for (const char* format : {"csf", "sss:1,0,2", "sss:2,1,0", "dss"}) {
    Environment env;
    const Format f = parseFormat(format, 3);
    env.declare("B", b.shape, f);
    env.declare("U", {7, 4}, Format::dense(2));
    const char* ttm = "A(i,k,r) = B(i,k,l) * U(l,r)";
    Program p = parseIndexNotation(ttm, env);
    TensorValues in{{"B", convertFormat(b, f)}, {"U", randomPositive({7, 4}, 3)}};
    AutoDecision d = decideFusion(p, inputStats(in), testMachine());
    INFO(format << "\n" << d.str());
    requireClose(p, interpret(d.choice().tree, in), referenceEvaluate(parseIndexNotationStatements(ttm), p, in), "auto's choice");
  }
}
