// The numerically stable builtins softmax and logsumexp (docs/semantics.md, "Softmax and
// logsumexp"): they split into the statements of the stable form written by hand, so every fusion
// mode builds the same tree, and their values stay finite where exp(S) / sum(exp(S)) overflows.
#include "fusion/fusion.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace react;
using namespace react::test;

namespace {

// 4 x 5 with rows that break the naive form: row 1 holds 4615 (exp overflows: inf / inf), row 3
// only values below -745 (exp underflows: 0 / 0), row 2 has no entries.
CsrMatrix extremeRows() {
  CsrMatrix s;
  s.rows = 4;
  s.cols = 5;
  s.rowptr = {0, 3, 6, 6, 8};
  s.col = {0, 2, 4, 1, 3, 4, 0, 2};
  s.val = {1.0, -2.0, 0.5, 4615.0, 4614.0, 1.0, -800.0, -801.5};
  return s;
}

Environment csrEnv(const CsrMatrix& s) {
  Environment env;
  env.declare("S", {s.rows, s.cols}, Format::csr());
  env.declare("D", {3, 2}, Format::dense(2));
  return env;
}

// softmax over each row's stored values and each row's logsumexp, computed directly.
struct RowsReference {
  std::vector<double> softmax;    // per stored entry
  std::vector<double> logsumexp;  // per row; -inf for a row without entries
};
RowsReference directReference(const CsrMatrix& s) {
  RowsReference r{std::vector<double>(s.val.size()), std::vector<double>(static_cast<size_t>(s.rows))};
  for (int64_t row = 0; row < s.rows; ++row) {
    double max = -std::numeric_limits<double>::infinity(), sum = 0;
    for (int64_t p = s.rowptr[row]; p < s.rowptr[row + 1]; ++p) max = std::max(max, s.val[p]);
    for (int64_t p = s.rowptr[row]; p < s.rowptr[row + 1]; ++p) sum += std::exp(s.val[p] - max);
    for (int64_t p = s.rowptr[row]; p < s.rowptr[row + 1]; ++p) r.softmax[p] = std::exp(s.val[p] - max) / sum;
    r.logsumexp[row] = max + std::log(sum);
  }
  return r;
}

bool close(double got, double want) { return std::abs(got - want) <= 1e-12 * std::max(1.0, std::abs(want)); }

// A's values against the direct softmax, and every non-empty row summing to 1.
void checkSoftmax(const CsrMatrix& a, const CsrMatrix& s, const std::string& what) {
  INFO(what);
  REQUIRE(a.rowptr == s.rowptr);
  REQUIRE(a.col == s.col);
  RowsReference want = directReference(s);
  for (size_t p = 0; p < a.val.size(); ++p) REQUIRE_MESSAGE(close(a.val[p], want.softmax[p]), "entry " << p);
  for (int64_t row = 0; row < s.rows; ++row) {
    double sum = 0;
    for (int64_t p = a.rowptr[row]; p < a.rowptr[row + 1]; ++p) sum += a.val[p];
    if (a.rowptr[row] < a.rowptr[row + 1]) REQUIRE_MESSAGE(close(sum, 1.0), "row " << row);
  }
}

void checkLogsumexp(const DenseTensor& a, const CsrMatrix& s, const std::string& what) {
  INFO(what);
  RowsReference want = directReference(s);
  REQUIRE(a.data.size() == want.logsumexp.size());
  for (size_t row = 0; row < a.data.size(); ++row) {
    if (std::isinf(want.logsumexp[row])) REQUIRE_MESSAGE(a.data[row] == want.logsumexp[row], "row " << row);
    else REQUIRE_MESSAGE(close(a.data[row], want.logsumexp[row]), "row " << row);
  }
}

const std::vector<FusionMode> kModes = {FusionMode::None, FusionMode::Maximal, FusionMode::React};

// The builtin and the form written by hand give one program, and one tree in every mode.
void checkSameAsByHand(const std::string& builtin, const std::string& byHand, const Environment& env) {
  INFO(builtin << "  vs  " << byHand);
  Program a = parseProgram(builtin, env), b = parseProgram(byHand, env);
  CHECK(a == b);
  for (FusionMode m : kModes) CHECK(printTree(fuse(a, m)) == printTree(fuse(b, m)));
}

}  // namespace

TEST_CASE("softmax: the builtin splits into the stable form (max, shifted exp, row sums)") {
  Environment env = csrEnv(extremeRows());
  CHECK(parseProgram("A = softmax(S, axis=1)", env).str() ==
        "T0(i) = max(S(i,j), j)\n"
        "T1(i,j) = S(i,j) - T0(i)\n"
        "T2(i,j) = exp(T1(i,j))\n"
        "T3(i) = T2(i,j)\n"
        "A(i,j) = T2(i,j) / T3(i)\n");
  CHECK(parseProgram("a = logsumexp(S, axis=1)", env).str() ==
        "T0(i) = max(S(i,k), k)\n"
        "T1(i,k) = S(i,k) - T0(i)\n"
        "T2(i,k) = exp(T1(i,k))\n"
        "T3(i) = T2(i,k)\n"
        "T4(i) = log(T3(i))\n"
        "a(i) = T0(i) + T4(i)\n");
}

TEST_CASE("softmax: the builtin's program and fused trees are the hand-written stable form's") {
  Environment env = csrEnv(extremeRows());
  const std::string rows = "exp(S - max(S, axis=1)) / sum(exp(S - max(S, axis=1)), axis=1)";
  checkSameAsByHand("A = softmax(S, axis=1)", "A = " + rows, env);
  checkSameAsByHand("A = softmax(S, axis=-1)", "A = " + rows, env);
  checkSameAsByHand("A = softmax(S, axis=0)", "A = exp(S - max(S, axis=0)) / sum(exp(S - max(S, axis=0)), axis=0)", env);
  checkSameAsByHand("A = softmax(D, axis=1)", "A = exp(D - max(D, axis=1)) / sum(exp(D - max(D, axis=1)), axis=1)", env);
  // Over every axis: the operator form written out names each max(S) and sum's indices apart (no
  // kept axis meets them), so it would compute exp twice; index notation names them.
  checkSameAsByHand("A = softmax(S)", "A(i,j) = exp(S(i,j) - max(S(i,j), i, j)) / sum(exp(S(i,j) - max(S(i,j), i, j)), i, j)",
                    env);
  checkSameAsByHand("a = logsumexp(S, axis=1)",
                    "a = max(S, axis=1) + log(sum(exp(S - max(S, axis=1)), axis=1))", env);
  checkSameAsByHand("A(i,j) = softmax(S(i,j), j)",
                    "A(i,j) = exp(S(i,j) - max(S(i,j), j)) / sum(exp(S(i,j) - max(S(i,j), j)), j)", env);
  checkSameAsByHand("a(i) = logsumexp(S(i,j), j)",
                    "a(i) = max(S(i,j), j) + log(sum(exp(S(i,j) - max(S(i,j), j)), j))", env);
  // In index notation the operator form's axis=1 and the index j are one program.
  CHECK(parseProgram("A(i,j) = softmax(S(i,j), j)", env) == parseProgram("A = softmax(S, axis=1)", env));
  // The C++ API's builtins are index notation's.
  IndexVar i("i"), j("j");
  TensorVar S("S", {4, 5}, Format::csr()), A("A", {4, 5}, Format::csr()), a("a", {4}, Format::dense(1));
  ProgramBuilder soft, lse;
  soft.add(A(i, j) = softmax(S(i, j), j));
  lse.add(a(i) = logsumexp(S(i, j), j));
  CHECK(soft.build() == parseProgram("A(i,j) = softmax(S(i,j), j)", env));
  CHECK(lse.build() == parseProgram("a(i) = logsumexp(S(i,j), j)", env));
  // The builtin composes like any other operand.
  checkSameAsByHand("A = 2 * softmax(S, axis=1)", "A = 2 * (" + rows + ")", env);
}

TEST_CASE("softmax: finite on rows above 709 and below -745 where the naive form gives NaN") {
  CsrMatrix s = extremeRows();
  Environment env = csrEnv(s);
  TensorValues in = {{"S", s}};
  Program naive = parseProgram("A = exp(S) / sum(exp(S), axis=1)", env);
  const std::vector<double> overflowed = std::get<CsrMatrix>(interpret(fuse(naive, FusionMode::React), in).at("A")).val;
  CHECK(std::isnan(overflowed[3]));  // inf / inf in row 1
  CHECK(std::isnan(overflowed[6]));  // 0 / 0 in row 3
  for (const char* text : {"A = softmax(S, axis=1)", "A(i,j) = softmax(S(i,j), j)"})
    for (FusionMode m : kModes)
      checkSoftmax(std::get<CsrMatrix>(interpret(fuse(parseProgram(text, env), m), in).at("A")), s,
                   std::string(text) + ", interpreter, " + toString(m));
  for (FusionMode m : kModes)
    checkLogsumexp(std::get<DenseTensor>(interpret(fuse(parseProgram("a = logsumexp(S, axis=1)", env), m), in).at("a")), s,
                   "logsumexp, interpreter, " + toString(m));
}

TEST_CASE("softmax: over a dense operand's columns") {
  Environment env = csrEnv(extremeRows());
  DenseTensor d({3, 2});
  d.data = {1000.0, -1.0, 999.0, -2.0, 0.0, -3.0};
  TensorValues out = interpret(fuse(parseProgram("A = softmax(D, axis=0)", env), FusionMode::React), {{"D", d}});
  const std::vector<double>& a = std::get<DenseTensor>(out.at("A")).data;
  // Column 0 holds 1000, 999, 0; column 1 holds -1, -2, -3 (each shifted by its maximum).
  const double column0 = 1 + std::exp(-1.0) + std::exp(-1000.0), column1 = 1 + std::exp(-1.0) + std::exp(-2.0);
  const std::vector<double> want = {1 / column0,    1 / column1,    std::exp(-1.0) / column0,
                                    std::exp(-1.0) / column1, std::exp(-1000.0) / column0, std::exp(-2.0) / column1};
  for (size_t n = 0; n < want.size(); ++n) CHECK_MESSAGE(close(a[n], want[n]), n);
}

TEST_CASE("softmax: JIT kernels of both emitters agree with the direct computation") {
  CsrMatrix small = extremeRows();
  CsrMatrix real = readMatrixMarketCsr(sharedMatrixDir() + "/bcsstk16.mtx");
  REQUIRE(*std::max_element(real.val.begin(), real.val.end()) > 709);  // exp(S) overflows there
  Environment env = csrEnv(small);
  std::vector<Program> programs = {parseProgram("A = softmax(S, axis=1)", env), parseProgram("a = logsumexp(S, axis=1)", env)};
  for (Target target : {Target::OpenMP, Target::Kokkos})
    for (FusionMode m : kModes) {
      if (target == Target::Kokkos && m != FusionMode::React) continue;  // the emitters share expr()
      CompileOptions o;
      o.fusion = m;
      o.target = target;
      o.jit = testCache();
      std::vector<Kernel> kernels = Kernel::compileBatch(programs, o);
      for (const CsrMatrix* s : {&small, &real}) {
        std::string what = toString(target) + " " + toString(m) + (s == &small ? " small" : " bcsstk16");
        checkSoftmax(std::get<CsrMatrix>(kernels[0].run({{"S", *s}}).at("A")), *s, what);
        checkLogsumexp(std::get<DenseTensor>(kernels[1].run({{"S", *s}}).at("a")), *s, what);
      }
    }
}

// The stable softmax's exponentials exp(S(i,j) - max) are set at every stored entry before any read
// (recompute-entries): their storage is allocated unfilled, and in a bounds-checked kernel filled
// with NaN instead, which a read before the set would carry into the result. A power-law graph's
// rows above 1,024 entries take the runs form (reduction-runs), the others the row form.
TEST_CASE("softmax: on Kokkos the exponentials are set before they are read, in both row forms") {
  const CsrMatrix longRows = powerLaw(3000, 4, 5);
  int64_t longest = 0;
  for (int64_t r = 0; r < longRows.rows; ++r) longest = std::max(longest, longRows.rowptr[r + 1] - longRows.rowptr[r]);
  REQUIRE(longest > 1024);
  const CsrMatrix bcsstk16 = readMatrixMarketCsr(sharedMatrixDir() + "/bcsstk16.mtx");
  const std::vector<const CsrMatrix*> matrices{&longRows, &bcsstk16};
  std::vector<Program> programs;
  for (const CsrMatrix* s : matrices) programs.push_back(parseProgram("A = softmax(S, axis=1)", csrEnv(*s)));
  CompileOptions o;
  o.fusion = FusionMode::React;
  o.target = Target::Kokkos;
  o.jit = testCache();
  o.emit.boundsCheck = true;
  const std::vector<Kernel> kernels = Kernel::compileBatch(programs, o);
  for (size_t m = 0; m < matrices.size(); ++m) {
    INFO(kernels[m].loops().str());
    CHECK(kernels[m].loops().str().find("(set before read) (shared by every thread)") != std::string::npos);
    CHECK(kernels[m].source().find(", static_cast<double>(NAN));") != std::string::npos);
    const TensorValues inputs{{"S", *matrices[m]}};  // borrowed by the bound kernel
    BoundKernel bound = kernels[m].bind(inputs);
    for (int call = 0; call < 2; ++call) {
      bound.run();
      checkSoftmax(std::get<CsrMatrix>(bound.results().at("A")), *matrices[m], "call " + std::to_string(call));
    }
  }
}
