// Fusion passes: the symbolic costs and redundancies of each mode (the full trees are in
// test/golden/), pass-by-pass before/after trees, and differential checks of every mode against
// the unfused tree.
#include "fusion/fusion.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

using namespace react;
using namespace react::test;

namespace {

Program kernel(const std::string& name, int64_t dense = 3) {
  for (const KernelCase& c : benchmarkKernels(randomCsr(6, 5, 0.5, 42), dense, 1))
    if (c.name == name) return parseProgram(c.text, c.env);
  FAIL("no kernel " << name);
  return {};
}

Program dense(const std::string& text, const std::vector<std::pair<std::string, std::vector<int64_t>>>& tensors) {
  Environment env;
  for (const auto& [n, shape] : tensors) env.declare(n, shape, Format::dense(static_cast<int>(shape.size())));
  return parseProgram(text, env);
}

CostReport cost(const Program& p, FusionMode m) { return analyzeCost(fuse(p, m)); }

bool mentions(const std::vector<std::string>& lines, const std::string& fragment) {
  for (const auto& l : lines)
    if (l.find(fragment) != std::string::npos) return true;
  return false;
}

}  // namespace

// --- SpMM-MM -----------------------------------------------------------------------------------

TEST_CASE("SpMM-MM: react fuses on i, T0 shrinks to a row of NH, reset after its consumer") {
  Program p = kernel("spmm_mm");
  CostReport c = cost(p, FusionMode::React);
  CHECK(c.flops.str() == "2*NH*NI*NJ + 2*NH*nnz(S)");
  CHECK(c.temporarySize.str() == "NH");
  CHECK(c.redundancies.empty());
}

TEST_CASE("SpMM-MM: maximal fusion is one nest of O(nnz*NH*NJ)") {
  Program p = kernel("spmm_mm");
  CostReport c = cost(p, FusionMode::Maximal);
  CHECK(c.flops.str() == "3*NH*NJ*nnz(S)");
  CHECK(c.temporarySize.str() == "0");
  CHECK(mentions(c.redundancies, "type 1"));
}

TEST_CASE("SpMM-MM: no fusion keeps the NI x NH temporary") {
  CostReport c = cost(kernel("spmm_mm"), FusionMode::None);
  CHECK(c.flops.str() == "2*NH*NI*NJ + 2*NH*nnz(S)");
  CHECK(c.temporarySize.str() == "NH*NI");
  CHECK(mentions(c.redundancies, "type 3 (load-store): temporary 'T0'"));
}

// --- SDDMM -------------------------------------------------------------------------------------

TEST_CASE("SDDMM: react computes only at S's nonzeros with a scalar temporary") {
  Program p = kernel("sddmm");
  CostReport c = cost(p, FusionMode::React);
  CHECK(c.flops.str() == "2*NK*nnz(S) + nnz(S)");
  CHECK(c.temporarySize.str() == "1");
  CHECK(c.redundancies.empty());
}

TEST_CASE("SDDMM: no fusion computes the dense product (dead values)") {
  CostReport c = cost(kernel("sddmm"), FusionMode::None);
  CHECK(c.flops.str() == "2*NI*NJ*NK + nnz(S)");
  CHECK(mentions(c.redundancies, "type 4 (dead value): temporary 'T0'"));
}

TEST_CASE("SDDMM: maximal fusion multiplies S inside the k loop (type 1)") {
  Program p = kernel("sddmm");
  CostReport c = cost(p, FusionMode::Maximal);
  CHECK(c.flops.str() == "3*NK*nnz(S)");
  CHECK(mentions(c.redundancies, "type 1 (reduction): 'S(i,j)'"));
}

// --- row normalisation and softmax -------------------------------------------------------------

TEST_CASE("row normalisation: one scalar per row in react mode") {
  Program p = kernel("norm_row");
  CHECK(cost(p, FusionMode::React).temporarySize.str() == "1");
  // Maximal fusion cannot put a division by a sum into one nest: two nests, NI row sums stored.
  CHECK(fuse(p, FusionMode::Maximal).root.children.size() == 2);
  CHECK(mentions(cost(p, FusionMode::Maximal).redundancies, "type 3"));
}

TEST_CASE("softmax: exp stored per entry, one scalar sum per row in react mode") {
  Program p = kernel("softmax");
  CHECK(cost(p, FusionMode::React).temporarySize.str() == "nnz(S) + 1");
  CHECK(cost(p, FusionMode::React).flops.str() == "3*nnz(S)");
  CHECK(cost(p, FusionMode::Maximal).flops.str() == "4*nnz(S)");  // maximal recomputes exp in both nests
}

// --- the DESIGN §4 examples --------------------------------------------------------------------

TEST_CASE("type 1: c = b * sum(A,1) multiplies once per row in react mode") {
  Program p = dense("c(i) = b(i) * A(i,j)", {{"b", {4}}, {"A", {4, 3}}});
  CHECK(cost(p, FusionMode::React).flops.str() == "NI*NJ + NI");
  CHECK(cost(p, FusionMode::Maximal).flops.str() == "2*NI*NJ");
  CHECK(mentions(cost(p, FusionMode::Maximal).redundancies, "type 1 (reduction): 'b(i)'"));
}

TEST_CASE("type 2: A = (B+E) * (C@D) computes B+E once per (i,j) in react mode") {
  Program p = dense("A = (B + E) * (C @ D)", {{"B", {4, 3}}, {"E", {4, 3}}, {"C", {4, 5}}, {"D", {5, 3}}});
  CostReport maximal = cost(p, FusionMode::Maximal);
  CHECK(mentions(maximal.redundancies, "type 2 (loop-invariant): 'B(i,j) + E(i,j)' is recomputed in loop k"));
  CHECK(cost(p, FusionMode::React).redundancies.empty());
}

TEST_CASE("type 3: s = sum(A,1) then B = A / s keeps s as a scalar per row") {
  Program p = dense("s(i) = A(i,j)\nB(i,j) = A(i,j) / s(i)", {{"A", {4, 3}}});
  CHECK(cost(p, FusionMode::None).temporarySize.str() == "0");  // s is a user output: kept
  Program q = dense("B = A / sum(A, axis=1)", {{"A", {4, 3}}});
  CHECK(cost(q, FusionMode::None).temporarySize.str() == "NI");
  CHECK(cost(q, FusionMode::React).temporarySize.str() == "1");
}

TEST_CASE("type 4: where(A<0, alpha*A, A) computes only at A's stored entries") {
  Environment env;
  env.declare("S", {5, 4}, Format::csr());
  Program p = parseProgram("A = where(S < 0, 0.5 * S, S)", env);
  IndexTree t = fuse(p, FusionMode::React);
  CHECK(printTree(t) ==
        "root\n"
        "└─ i (D)\n"
        "   └─ j (S: S row i)\n"
        "      ├─ T0 = S(i,j) < 0\n"
        "      ├─ T1 = 0.5 * S(i,j)\n"
        "      └─ A(i,j) = where(T0, T1, S(i,j))\n");
  CHECK(analyzeCost(t).flops.str() == "3*nnz(S)");
}

// --- each pass, before and after ---------------------------------------------------------------

TEST_CASE("pass: sparse propagation makes a dense producer iterate the mask") {
  IndexTree before = buildIndexTree(kernel("sddmm"));
  IndexTree after = sparsePropagation(before);
  CHECK(printTree(after) ==
        "root\n"
        "├─ i (D)\n"
        "│  └─ j (S: S row i)\n"
        "│     └─ k (D)   T0(i,j) += B(i,k) * C(k,j)\n"
        "└─ i (D)\n"
        "   └─ j (S: S row i)   A(i,j) = S(i,j) * T0(i,j)\n");
  CHECK(after.tensor("T0").decl.format == Format::csr());
  CHECK(after.tensor("T0").decl.pattern == "S");
  CHECK_NOTHROW(verifyTree(after));
}

TEST_CASE("pass: partial fusion merges the common prefix only") {
  IndexTree after = partialFusion(buildIndexTree(kernel("spmm_mm")));
  CHECK(printTree(after) ==
        "root\n"
        "└─ i (D)\n"
        "   ├─ k (S: S row i)\n"
        "   │  └─ h (D)   T0(i,h) += S(i,k) * C(k,h)\n"
        "   └─ h (D)\n"
        "      └─ j (D)   A(i,j) += T0(i,h) * D(h,j)\n");
  CHECK_NOTHROW(verifyTree(after));
}

TEST_CASE("pass: partial fusion per edge: an edge limited to depth 0 stays unfused, the others merge") {
  // softmax after sparse propagation: exp(S) into T0, its row sums into T1, A = T0 / T1.
  IndexTree before = sparsePropagation(hoistReductions(hoistInvariants(buildIndexTree(kernel("softmax")))));
  CHECK(printTree(before) ==
        "root\n"
        "├─ i (D)\n"
        "│  └─ j (S: S row i)   T0(i,j) = exp(S(i,j))\n"
        "├─ i (D)\n"
        "│  └─ j (S: S row i)   T1(i) += T0(i,j)\n"
        "└─ i (D)\n"
        "   └─ j (S: S row i)   A(i,j) = T0(i,j) / T1(i)\n");
  std::vector<FusionEdge> edges = fusionEdges(before);
  REQUIRE(edges.size() == 3);
  CHECK(edges[0].str() == "T0 -> T1");
  CHECK(edges[1].str() == "T0 -> A");
  CHECK(edges[2].str() == "T1 -> A");
  FusionPlan plan;
  plan.edgeDepth[{"T1", "A"}] = 0;
  CHECK(plan.str() == "T1 -> A unfused");
  IndexTree after = partialFusion(before, plan);
  CHECK(printTree(after) ==
        "root\n"
        "├─ i (D)\n"
        "│  └─ j (S: S row i)\n"
        "│     ├─ T0(i,j) = exp(S(i,j))\n"
        "│     └─ T1(i) += T0(i,j)\n"
        "└─ i (D)\n"
        "   └─ j (S: S row i)   A(i,j) = T0(i,j) / T1(i)\n");
  // Without a limit the rows merge too (the j loops stay apart: A reads the finished sum).
  CHECK(printTree(partialFusion(before)) ==
        "root\n"
        "└─ i (D)\n"
        "   ├─ j (S: S row i)\n"
        "   │  ├─ T0(i,j) = exp(S(i,j))\n"
        "   │  └─ T1(i) += T0(i,j)\n"
        "   └─ j (S: S row i)   A(i,j) = T0(i,j) / T1(i)\n");
  // T0 -> T1 limited to depth 1: the row loops merge, the entry loops do not.
  CHECK(printTree(partialFusion(before, FusionPlan{0, {{{"T0", "T1"}, 1}}})) ==
        "root\n"
        "└─ i (D)\n"
        "   ├─ j (S: S row i)   T0(i,j) = exp(S(i,j))\n"
        "   ├─ j (S: S row i)   T1(i) += T0(i,j)\n"
        "   └─ j (S: S row i)   A(i,j) = T0(i,j) / T1(i)\n");
  CHECK_NOTHROW(verifyTree(after));
  TensorValues in{{"S", randomCsr(6, 5, 0.5, 42)}};
  requireClose(kernel("softmax"), interpret(after, in), interpret(before, in), "T1 -> A unfused");
}

TEST_CASE("pass: partial fusion refuses a merge that reads an unfinished reduction") {
  IndexTree after = partialFusion(buildIndexTree(kernel("norm_row")));
  REQUIRE(after.root.children.size() == 1);
  CHECK(after.root.children[0].children.size() == 2);  // the two j loops stay apart
}

TEST_CASE("pass: shrinking handles any rank and any number of uses") {
  // A rank-3 temporary with three consumers, all inside the fused i, j, h loops: it becomes a scalar.
  Environment env;
  for (auto n : {"B", "C", "D", "E"}) env.declare(n, {3, 4, 5}, Format::dense(3));
  Program p = parseIndexNotation(
      "T(i,j,h) = B(i,j,h) * C(i,j,h)\nX(i,j) = T(i,j,h) * D(i,j,h)\nY(i,j) = T(i,j,h) * E(i,j,h)\nZ(i,j) = T(i,j,h)",
      env);
  p.tensors.at("T").role = TensorRole::Temporary;  // as if the compiler had introduced it
  IndexTree before = partialFusion(buildIndexTree(p));
  IndexTree after = shrinkTemporaries(before);
  CHECK(printTree(after) ==
        "root\n"
        "└─ i (D)\n"
        "   └─ j (D)\n"
        "      └─ h (D)\n"
        "         ├─ T = B(i,j,h) * C(i,j,h)\n"
        "         ├─ X(i,j) += T * D(i,j,h)\n"
        "         ├─ Y(i,j) += T * E(i,j,h)\n"
        "         └─ Z(i,j) += T\n");
  CHECK(after.tensor("T").kept == std::vector<bool>{false, false, false});
  CHECK_NOTHROW(verifyTree(after));
  TensorValues in;
  for (auto n : {"B", "C", "D", "E"}) in[n] = randomPositive({3, 4, 5}, static_cast<uint64_t>(n[0]));
  TensorValues a = interpret(buildIndexTree(p), in), b = interpret(after, in);
  for (auto n : {"X", "Y", "Z"}) CHECK(relativeError(b.at(n), a.at(n)) < 1e-12);
}

TEST_CASE("pass: reduction hoisting pulls the invariant factor out of the sum") {
  IndexTree maximal = maximalFusion(buildIndexTree(kernel("sddmm")));
  IndexTree after = hoistReductions(maximal);
  CHECK(printTree(after) ==
        "root\n"
        "├─ i (D)\n"
        "│  └─ j (S: S row i)\n"
        "│     └─ k (D)   T0(i,j) += B(i,k) * C(k,j)\n"
        "└─ i (D)\n"
        "   └─ j (S: S row i)   A(i,j) = S(i,j) * T0(i,j)\n");
  CHECK(after.tensor("T0").decl.pattern == "S");
  CHECK_NOTHROW(verifyTree(after));
}

TEST_CASE("pass: invariant hoisting moves B+E out of the k loop") {
  Program p = dense("A = (B + E) * (C @ D)", {{"B", {4, 3}}, {"E", {4, 3}}, {"C", {4, 5}}, {"D", {5, 3}}});
  IndexTree maximal = maximalFusion(buildIndexTree(p));
  IndexTree after = hoistInvariants(maximal);
  CHECK(printTree(after) ==
        "root\n"
        "├─ i (D)\n"
        "│  └─ j (D)   T0(i,j) = B(i,j) + E(i,j)\n"
        "└─ i (D)\n"
        "   └─ j (D)\n"
        "      └─ k (D)   A(i,j) += T0(i,j) * C(i,k) * D(k,j)\n");
  CHECK_NOTHROW(verifyTree(after));
}

TEST_CASE("pipeline: every mode's snapshots pass the verifier") {
  for (const char* k : {"sddmm", "spmm_mm", "norm_row", "softmax"})
    for (FusionMode m : {FusionMode::None, FusionMode::Maximal, FusionMode::React})
      for (const PassSnapshot& s : runPipeline(kernel(k), m)) {
        INFO(k << " " << toString(m) << " after " << s.pass);
        CHECK_NOTHROW(verifyTree(s.tree));
      }
}

TEST_CASE("modes: parse and print") {
  CHECK(toString(parseFusionMode("react")) == "react");
  CHECK(toString(FusionMode::Maximal) == "maximal");
  CHECK_THROWS_WITH_AS(parseFusionMode("tile"), "unknown fusion mode 'tile' (expected none, maximal, react or auto)", UserError);
}

// --- differential: fused trees equal the unfused tree -------------------------------------------

TEST_CASE("differential: every mode equals the unfused tree on random programs of up to 5 statements") {
  int checked = 0;
  for (uint64_t seed = 1000; seed < 3000; ++seed) {
    RandomProgram r = randomProgram(seed, 5);
    INFO("seed " << seed << "\n" << r.text);
    Program p = parseIndexNotation(r.text, r.env);
    TensorValues want = interpret(buildIndexTree(p), r.inputs);
    for (FusionMode m : {FusionMode::Maximal, FusionMode::React}) {
      INFO("mode " << toString(m));
      requireClose(p, interpret(fuse(p, m), r.inputs), want, toString(m));
    }
    ++checked;
  }
  CHECK(checked == 2000);
}

TEST_CASE("differential: the four kernels in every mode on real-shaped random inputs") {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    CsrMatrix s = randomCsr(3 + static_cast<int64_t>(seed % 7), 2 + static_cast<int64_t>(seed % 5), 0.4, seed);
    for (const KernelCase& k : benchmarkKernels(s, 2 + static_cast<int64_t>(seed % 4), seed)) {
      Program p = parseProgram(k.text, k.env);
      TensorValues want = interpret(buildIndexTree(p), k.inputs);
      for (FusionMode m : {FusionMode::Maximal, FusionMode::React})
        requireClose(p, interpret(fuse(p, m), k.inputs), want, k.name + " " + toString(m));
    }
  }
}
