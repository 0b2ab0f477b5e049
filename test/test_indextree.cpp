// Index tree: builder golden trees, verifier rules, dependence graph, interpreter vs Eigen.
#include "fusion/fusion.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

#include <Eigen/Dense>

using namespace react;
using namespace react::test;

namespace {

Program kernelProgram(const std::string& name, const CsrMatrix& s, int64_t dense = 3) {
  for (const KernelCase& c : benchmarkKernels(s, dense, 1))
    if (c.name == name) return parseProgram(c.text, c.env);
  FAIL("no kernel " << name);
  return {};
}

CsrMatrix small() { return randomCsr(6, 5, 0.5, 42); }

}  // namespace

TEST_CASE("builder: SDDMM before fusion") {
  CHECK(printTree(buildIndexTree(kernelProgram("sddmm", small()))) ==
        "root\n"
        "├─ i (D)\n"
        "│  └─ k (D)\n"
        "│     └─ j (D)   T0(i,j) += B(i,k) * C(k,j)\n"
        "└─ i (D)\n"
        "   └─ j (S: S row i)   A(i,j) = S(i,j) * T0(i,j)\n");
}

TEST_CASE("builder: SpMM-MM before fusion") {
  CHECK(printTree(buildIndexTree(kernelProgram("spmm_mm", small()))) ==
        "root\n"
        "├─ i (D)\n"
        "│  └─ k (S: S row i)\n"
        "│     └─ h (D)   T0(i,h) += S(i,k) * C(k,h)\n"
        "└─ i (D)\n"
        "   └─ h (D)\n"
        "      └─ j (D)   A(i,j) += T0(i,h) * D(h,j)\n");
}

TEST_CASE("builder: row normalisation before fusion") {
  CHECK(printTree(buildIndexTree(kernelProgram("norm_row", small()))) ==
        "root\n"
        "├─ i (D)\n"
        "│  └─ j (S: S row i)   T0(i) += S(i,j)\n"
        "└─ i (D)\n"
        "   └─ j (S: S row i)   A(i,j) = S(i,j) / T0(i)\n");
}

TEST_CASE("builder: sparse softmax before fusion") {
  CHECK(printTree(buildIndexTree(kernelProgram("softmax", small()))) ==
        "root\n"
        "├─ i (D)\n"
        "│  └─ j (S: S row i)   T0(i,j) = exp(S(i,j))\n"
        "├─ i (D)\n"
        "│  └─ j (S: S row i)   T1(i) += T0(i,j)\n"
        "└─ i (D)\n"
        "   └─ j (S: S row i)   A(i,j) = T0(i,j) / T1(i)\n");
}

TEST_CASE("printer: Graphviz names every node and the dependence edges") {
  std::string dot = printDot(buildIndexTree(kernelProgram("sddmm", small())));
  CHECK(dot.rfind("digraph IndexTree {", 0) == 0);
  CHECK(dot.find("label=\"j (S: S row i)\"") != std::string::npos);
  CHECK(dot.find("style=dashed") != std::string::npos);  // T0 producer -> consumer
}

TEST_CASE("dependence graph: producers before consumers, reachability") {
  IndexTree t = buildIndexTree(kernelProgram("softmax", small()));
  DependenceGraph g(t);
  REQUIRE(g.size() == 3);
  CHECK(g.topologicalOrder() == std::vector<int>{0, 1, 2});
  CHECK(g.reaches(0, 2));
  CHECK(g.reaches(1, 2));
  CHECK_FALSE(g.reaches(2, 0));
  CHECK(g.carried(0, 1) == std::vector<std::string>{"T0"});
  CHECK(g.carried(1, 2) == std::vector<std::string>{"T1"});
}

// --- verifier: one hand-broken tree per rule ---------------------------------------------------

namespace {
IndexTree normRow() { return buildIndexTree(kernelProgram("norm_row", small())); }

// checkTree names the rule; verifyTree, for a tree from a user, throws it as a user error.
void requireRejected(const IndexTree& t, const std::string& fragment) {
  Legality legality = checkTree(t);
  INFO(legality.why);
  REQUIRE_FALSE(legality.ok());
  CHECK(legality.why.find(fragment) != std::string::npos);
  CHECK_THROWS_WITH_AS(verifyTree(t), legality.why.c_str(), UserError);
}
}  // namespace

TEST_CASE("verifier: accepts built trees") {
  CHECK(checkTree(normRow()).ok());
  CHECK_NOTHROW(verifyTree(normRow()));
}

TEST_CASE("verifier: a compute node naming an undeclared tensor") {
  IndexTree t = normRow();
  t.tensors.erase("T0");
  requireRejected(t, "tensor 'T0' is not declared");
}

TEST_CASE("verifier: an index bound twice on a path") {
  IndexTree t = normRow();
  TreeNode inner = t.root.children[0];  // i -> j -> compute
  t.root.children[0] = TreeNode::index(IndexLoop::dense("i"));
  t.root.children[0].children.push_back(inner);
  requireRejected(t, "index 'i' is bound twice");
  requireRejected(t, "root/i (D)/i (D)");
}

TEST_CASE("verifier: a sparse loop outside its row index") {
  IndexTree t = normRow();
  t.root.children[0] = t.root.children[0].children[0];  // j (S: S row i) directly under root
  requireRejected(t, "not nested under its row index 'i'");
}

TEST_CASE("verifier: a compute node using an unbound index") {
  IndexTree t = normRow();
  t.root.children[1].children[0].children[0].stmt.rhs = apply(Op::Div, {access("S", {"i", "j"}), access("T0", {"x"})});
  requireRejected(t, "index 'x' is not bound");
}

TEST_CASE("verifier: a csr tensor read outside a loop over its pattern") {
  IndexTree t = normRow();
  t.root.children[0].children[0].loop = IndexLoop::dense("j");
  requireRejected(t, "csr tensor 'S' is accessed outside a sparse loop");
}

TEST_CASE("verifier: a temporary read before it is written") {
  IndexTree t = normRow();
  std::swap(t.root.children[0], t.root.children[1]);
  requireRejected(t, "tensor 'T0' is read before it is written");
}

TEST_CASE("verifier: a reset before the last consumer") {
  IndexTree t = fuse(kernelProgram("norm_row", small()), FusionMode::React);
  REQUIRE(t.root.children.size() == 1);
  auto& body = t.root.children[0].children;  // j, j, reset
  REQUIRE(body.size() == 3);
  std::swap(body[1], body[2]);
  requireRejected(t, "reset of 'T0' comes before its consumer");
}

TEST_CASE("verifier: a shrunk temporary used outside the loop fixing it") {
  IndexTree t = fuse(kernelProgram("norm_row", small()), FusionMode::React);
  // Move the consumer into a separate nest: T0 no longer lives in one i iteration.
  TreeNode consumer = t.root.children[0].children[1];
  t.root.children[0].children.erase(t.root.children[0].children.begin() + 1);
  TreeNode nest = TreeNode::index(IndexLoop::dense("i"));
  nest.children.push_back(consumer);
  t.root.children.push_back(nest);
  requireRejected(t, "outside the loop that fixes");
}

// --- interpreter vs dense Eigen ----------------------------------------------------------------

namespace {

using Mat = Eigen::MatrixXd;

Mat dense(const TensorData& d) {
  if (const CsrMatrix* m = std::get_if<CsrMatrix>(&d)) {
    DenseTensor t = csrToDense(*m);
    return Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(t.data.data(), t.shape[0], t.shape[1]);
  }
  const DenseTensor& t = std::get<DenseTensor>(d);
  return Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(t.data.data(), t.shape[0], t.shape[1]);
}

// Stored-entry mask of a csr matrix.
Mat mask(const CsrMatrix& s) {
  CsrMatrix ones = s;
  std::fill(ones.val.begin(), ones.val.end(), 1.0);
  return dense(ones);
}

Mat eigenKernel(const std::string& name, const TensorValues& in) {
  const CsrMatrix& s = std::get<CsrMatrix>(in.at("S"));
  Mat S = dense(in.at("S")), M = mask(s);
  if (name == "sddmm") return S.cwiseProduct(dense(in.at("B")) * dense(in.at("C")));
  if (name == "spmm_mm") return S * dense(in.at("C")) * dense(in.at("D"));
  Mat E = name == "softmax" ? Mat(S.array().exp().matrix().cwiseProduct(M)) : S;
  Eigen::VectorXd rows = E.rowwise().sum();
  Mat out = Mat::Zero(S.rows(), S.cols());
  for (int r = 0; r < S.rows(); ++r)
    for (int c = 0; c < S.cols(); ++c)
      if (M(r, c) != 0) out(r, c) = E(r, c) / rows(r);
  return out;
}

double relative(const Mat& a, const Mat& b) { return (a - b).cwiseAbs().maxCoeff() / std::max(1e-300, b.cwiseAbs().maxCoeff()); }

}  // namespace

TEST_CASE("interpreter agrees with Eigen on the four kernels (empty rows, rectangular)") {
  for (auto [rows, cols, seed] : {std::tuple{7, 7, 1}, std::tuple{9, 4, 2}, std::tuple{3, 11, 3}, std::tuple{12, 12, 4}}) {
    CsrMatrix s = randomCsr(rows, cols, 0.4, static_cast<uint64_t>(seed));
    for (const KernelCase& k : benchmarkKernels(s, 4, static_cast<uint64_t>(seed))) {
      INFO(k.name << " on " << rows << "x" << cols);
      Program p = parseProgram(k.text, k.env);
      TensorValues out = interpret(buildIndexTree(p), k.inputs);
      CHECK(relative(dense(out.at("A")), eigenKernel(k.name, k.inputs)) < 1e-12);
    }
  }
}

TEST_CASE("interpreter agrees with the dense reference on random programs of 1-4 statements") {
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    RandomProgram r = randomProgram(seed, 4);
    INFO("seed " << seed << "\n" << r.text);
    Program p = parseIndexNotation(r.text, r.env);
    TensorValues got = interpret(buildIndexTree(p), r.inputs);
    requireClose(p, got, referenceEvaluate(r.statements, p, r.inputs), "interpreter");
  }
}
