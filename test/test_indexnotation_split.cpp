// Golden one-operator splits of the kernels (printed Program text), shapes, formats and roles.
#include "indexnotation_test_util.hpp"

using namespace react;
using react::test::kernelEnv;

namespace {

std::string split(const std::string& text, const Environment& env = kernelEnv()) {
  return parseProgram(text, env).str();
}

}  // namespace

TEST_CASE("split: SDDMM in index notation") {
  Program p = parseIndexNotation("A(i,j) = S(i,j) * B(i,k) * C(k,j)", kernelEnv());
  CHECK(p.str() ==
        "T0(i,j) = B(i,k) * C(k,j)\n"
        "A(i,j) = S(i,j) * T0(i,j)\n");
  REQUIRE(p.statements.size() == 2);
  CHECK(p.statements[0].reductionIndices() == std::vector<std::string>{"k"});
  CHECK(p.statements[1].reductionIndices().empty());
  const TensorDecl& a = p.tensor("A");
  CHECK(a.format == Format::csr());
  CHECK(a.pattern == "S");
  CHECK(a.role == TensorRole::Output);
  CHECK(a.shape == std::vector<int64_t>{4, 5});
  const TensorDecl& t0 = p.tensor("T0");
  CHECK(t0.role == TensorRole::Temporary);
  CHECK(t0.format == Format::dense(2));
  CHECK(t0.shape == std::vector<int64_t>{4, 5});
  CHECK(p.tensor("S").pattern == "S");
  CHECK(p.inputs() == std::vector<std::string>{"B", "C", "S"});
  CHECK(p.outputs() == std::vector<std::string>{"A"});
  CHECK(p.indexSizes == std::map<std::string, int64_t>{{"i", 4}, {"j", 5}, {"k", 3}});
  CHECK(p.tensors.size() == 5);  // unused declarations are not kept
}

TEST_CASE("split: SDDMM in operator form gives the same program") {
  Program a = parseOperatorForm("A = S * (B @ C)", kernelEnv());
  CHECK(a.str() ==
        "T0(i,j) = B(i,k) * C(k,j)\n"
        "A(i,j) = S(i,j) * T0(i,j)\n");
  CHECK(a == parseIndexNotation("A(i,j) = S(i,j) * B(i,k) * C(k,j)", kernelEnv()));
  CHECK(a.tensor("A").pattern == "S");
}

TEST_CASE("split: SpMM-MM, sizes from index names") {
  Environment env;
  env.declare("B", {6, 6}, Format::csr());
  env.declare("C", {6, -1}, Format::dense(2));
  env.declare("D", {-1, -1}, Format::dense(2));
  env.indexSizes = {{"h", 256}, {"j", 16}, {"unused", 3}};
  Program p = parseProgram("A = B @ C @ D", env);
  CHECK(p.str() ==
        "T0(i,h) = B(i,k) * C(k,h)\n"
        "A(i,j) = T0(i,h) * D(h,j)\n");
  CHECK(p.tensor("A").format == Format::dense(2));
  CHECK(p.tensor("A").shape == std::vector<int64_t>{6, 16});
  CHECK(p.tensor("T0").shape == std::vector<int64_t>{6, 256});
  CHECK(p.tensor("C").shape == std::vector<int64_t>{6, 256});
  CHECK(p.tensor("D").shape == std::vector<int64_t>{256, 16});
  CHECK(p.indexSizes == std::map<std::string, int64_t>{{"h", 256}, {"i", 6}, {"j", 16}, {"k", 6}});
  // The same in index notation.
  CHECK(split("A(i,j) = B(i,k) * C(k,h) * D(h,j)", env) == p.str());
}

TEST_CASE("split: row normalisation") {
  Program p = parseProgram("A = S / sum(S, axis=1)", kernelEnv());
  CHECK(p.str() ==
        "T0(i) = S(i,j)\n"
        "A(i,j) = S(i,j) / T0(i)\n");
  CHECK(p.tensor("T0").format == Format::dense(1));
  CHECK(p.tensor("A").pattern == "S");
  CHECK(split("A(i,j) = S(i,j) / sum(S(i,j), j)") == p.str());
}

TEST_CASE("split: sparse softmax shares exp(S) (common subexpressions)") {
  std::string expected =
      "T0(i,j) = exp(S(i,j))\n"
      "T1(i) = T0(i,j)\n"
      "A(i,j) = T0(i,j) / T1(i)\n";
  Program p = parseProgram("A = exp(S) / sum(exp(S), axis=1)", kernelEnv());
  CHECK(p.str() == expected);
  CHECK(p.tensor("T0").format == Format::csr());
  CHECK(p.tensor("T0").pattern == "S");
  CHECK(p.tensor("T1").format == Format::dense(1));
  CHECK(p.tensor("A").pattern == "S");
  CHECK(split("A(i,j) = exp(S(i,j)) / sum(exp(S(i,j)), j)") == expected);
}

TEST_CASE("split: where with a scaled copy (leaky relu)") {
  Program p = parseProgram("A = where(S < 0, 0.5 * S, S)", kernelEnv());
  CHECK(p.str() ==
        "T0(i,j) = S(i,j) < 0\n"
        "T1(i,j) = 0.5 * S(i,j)\n"
        "A(i,j) = where(T0(i,j), T1(i,j), S(i,j))\n");
  for (const char* t : {"T0", "T1", "A"}) {
    CHECK(p.tensor(t).format == Format::csr());
    CHECK(p.tensor(t).pattern == "S");
  }
}

TEST_CASE("split: row scaling applies the factor after the sum (DESIGN redundancy 1)") {
  CHECK(split("c(i) = v(i) * D(i,j)") ==
        "T0(i) = D(i,j)\n"
        "c(i) = v(i) * T0(i)\n");
  // Operator form with a column vector (4x1): NumPy broadcasting keeps the size-1 axis.
  Program p = parseProgram("c = col * sum(D, axis=1)", kernelEnv());
  CHECK(p.str() ==
        "T0(i) = D(i,k)\n"
        "c(i,j) = col(i,j) * T0(i)\n");
  CHECK(p.tensor("c").shape == std::vector<int64_t>{4, 1});
  // A 1-d vector is a row vector (NumPy): this is an outer product, as in NumPy.
  CHECK(split("c = v * sum(D, axis=1)") ==
        "T0(i) = D(i,k)\n"
        "c(i,j) = v(j) * T0(i)\n");
}

TEST_CASE("split: (B + E) * (C @ D) keeps the invariant sum apart (DESIGN redundancy 2)") {
  Environment env;
  for (const char* t : {"B", "E", "C", "D"}) env.declare(t, {8, 8}, Format::dense(2));
  std::string expected =
      "T0(i,j) = B(i,j) + E(i,j)\n"
      "T1(i,j) = C(i,k) * D(k,j)\n"
      "A(i,j) = T0(i,j) * T1(i,j)\n";
  CHECK(split("A = (B + E) * (C @ D)", env) == expected);
  CHECK(split("A(i,j) = (B(i,j) + E(i,j)) * C(i,k) * D(k,j)", env) == expected);
}

TEST_CASE("split: max reduction") {
  Program p = parseIndexNotation("m(i) = max(S(i,j), j)", kernelEnv());
  CHECK(p.str() == "m(i) = max(S(i,j), j)\n");
  CHECK(p.statements[0].reduce == ReduceOp::Max);
  CHECK(p.tensor("m").format == Format::dense(1));
  // Operator form: the result axis is i, the reduced one k (docs/semantics.md naming rule).
  CHECK(split("m = max(S, axis=1)") == "m(i) = max(S(i,k), k)\n");
  CHECK(split("m(i) = max(S(i,j) * 2 + 1, j)") ==
        "T0(i,j) = S(i,j) * 2\n"
        "T1(i,j) = T0(i,j) + 1\n"
        "m(i) = max(T1(i,j), j)\n");
  // max(a, b) with a second operand that is not an index of a is element-wise.
  CHECK(split("A(i,j) = max(S(i,j), alpha)") == "A(i,j) = max(S(i,j), alpha)\n");
}

TEST_CASE("split: Einstein sum over the whole right-hand side") {
  CHECK(split("a(i) = D(i,j) + E(i,j)") ==
        "T0(i,j) = D(i,j) + E(i,j)\n"
        "a(i) = T0(i,j)\n");
  CHECK(split("a(i) = exp(S(i,j))") ==
        "T0(i,j) = exp(S(i,j))\n"
        "a(i) = T0(i,j)\n");
  CHECK(split("y(i) = S(i,j) * u(j)") == "y(i) = S(i,j) * u(j)\n");
  CHECK(split("s() = sum(S(i,j), i, j)") == "s() = S(i,j)\n");
  CHECK(split("s = sum(S)") == "s() = S(k,h)\n");
  CHECK(split("x(j) = 2 * S(i,j) * alpha") ==
        "T0(j) = S(i,j)\n"
        "T1(j) = 2 * T0(j)\n"
        "x(j) = T1(j) * alpha\n");
}

TEST_CASE("split: contraction order sums an index as soon as one factor holds it") {
  Environment env;
  env.declare("P", {3, 4}, Format::dense(2));
  env.declare("Q", {4, 5}, Format::dense(2));
  env.declare("W", {5, 6}, Format::dense(2));
  // h is only in W: summed first; then P*Q contracts k.
  CHECK(split("a(i) = P(i,k) * Q(k,j) * W(j,h)", env) ==
        "T0(j) = W(j,h)\n"
        "T1(i,j) = P(i,k) * Q(k,j)\n"
        "a(i) = T1(i,j) * T0(j)\n");
  CHECK(split("A(i,h) = P(i,k) * Q(k,j) * W(j,h)", env) ==
        "T0(i,j) = P(i,k) * Q(k,j)\n"
        "A(i,h) = T0(i,j) * W(j,h)\n");
}

TEST_CASE("split: copies, scalars, literals and transposes") {
  CHECK(split("A(i,j) = S(i,j)") == "A(i,j) = S(i,j)\n");
  CHECK(parseIndexNotation("A(i,j) = S(i,j)", kernelEnv()).tensor("A").pattern == "S");
  Program t = parseIndexNotation("A(j,i) = S(i,j)", kernelEnv());
  CHECK(t.tensor("A").format == Format::dense(2));  // a transposed copy scatters into a dense result
  CHECK(t.tensor("A").shape == std::vector<int64_t>{5, 4});
  CHECK(split("A = S.T") == "A(i,j) = S(j,i)\n");
  CHECK(split("A = -S * alpha") ==
        "T0(i,j) = -S(i,j)\n"
        "A(i,j) = T0(i,j) * alpha\n");
  CHECK(split("a() = 2") == "a() = 2\n");
  CHECK(split("a = alpha") == "a() = alpha\n");
  CHECK(split("a() = alpha * -2.5e-3") == "a() = alpha * -0.0025\n");
  CHECK(split("y = S @ u") == "y(i) = S(i,k) * u(k)\n");
  CHECK(split("y = v @ S") == "y(i) = v(k) * S(k,i)\n");
  CHECK(split("d = u @ u") == "d() = u(k) * u(k)\n");
  CHECK(split("A = sqrt(S) + S") ==
        "T0(i,j) = sqrt(S(i,j))\n"
        "A(i,j) = T0(i,j) + S(i,j)\n");
  CHECK(split("A = min(D, E) >= 1") ==
        "T0(i,j) = min(D(i,j), E(i,j))\n"
        "A(i,j) = T0(i,j) >= 1\n");
}

TEST_CASE("split: broadcasting in the operator form") {
  CHECK(split("A = D + u") == "A(i,j) = D(i,j) + u(j)\n");
  CHECK(split("A = D * col") ==  // (4,5) * (4,1): the size-1 axis is stretched
        "T0(i) = col(i,k)\n"
        "A(i,j) = D(i,j) * T0(i)\n");
  CHECK(split("A = S * 2 + 1") ==
        "T0(i,j) = S(i,j) * 2\n"
        "A(i,j) = T0(i,j) + 1\n");
  CHECK(split("A = D - sum(D, axis=0)") ==
        "T0(j) = D(i,j)\n"
        "A(i,j) = D(i,j) - T0(j)\n");
  CHECK(split("A = D / max(D, axis=-1)") ==
        "T0(i) = max(D(i,j), j)\n"
        "A(i,j) = D(i,j) / T0(i)\n");
  // Kept axes that meet only each other reduce one index: the two equal sums are one temporary.
  CHECK(split("a = sum(D, axis=1) * sum(D, axis=1) + max(D, axis=1)") ==
        "T0(i) = D(i,k)\n"
        "T1(i) = T0(i) * T0(i)\n"
        "T2(i) = max(D(i,k), k)\n"
        "a(i) = T1(i) + T2(i)\n");
}

TEST_CASE("split: several statements, later ones read earlier results") {
  Program p = parseProgram("T = B @ C\nA = S * T; n = sum(A, axis=1)", kernelEnv());
  CHECK(p.str() ==
        "T(i,j) = B(i,k) * C(k,j)\n"
        "A(i,j) = S(i,j) * T(i,j)\n"
        "n(i) = A(i,h)\n");  // k is taken by an index of another size
  CHECK(p.tensor("T").role == TensorRole::Output);
  CHECK(p.tensor("A").pattern == "S");
  CHECK(split("X(i,j) = D(i,j) * 2; y(i) = X(i,j) * u(j)") ==
        "X(i,j) = D(i,j) * 2\n"
        "y(i) = X(i,j) * u(j)\n");
}

TEST_CASE("split: temporaries skip user names") {
  Environment env = kernelEnv();
  env.declare("T0", {4, 5}, Format::dense(2));
  Program p = parseIndexNotation("A(i,j) = exp(S(i,j)) * T0(i,j); T1(i,j) = exp(D(i,j)) + 1", env);
  CHECK(p.str() ==
        "T2(i,j) = exp(S(i,j))\n"
        "A(i,j) = T2(i,j) * T0(i,j)\n"
        "T3(i,j) = exp(D(i,j))\n"
        "T1(i,j) = T3(i,j) + 1\n");
  CHECK(p.tensor("T0").role == TensorRole::Input);
  CHECK(p.tensor("T1").role == TensorRole::Output);
  CHECK(p.tensor("T2").role == TensorRole::Temporary);
  CHECK(p.tensor("A").pattern == "S");
}

TEST_CASE("split: a declared dense output of a sparse expression") {
  Environment env = kernelEnv();
  env.declare("A", {4, 5}, Format::dense(2));
  Program p = parseProgram("A = S * 2", env);
  CHECK(p.tensor("A").format == Format::dense(2));
  CHECK(p.tensor("A").pattern == "");
  CHECK(p.tensor("A").role == TensorRole::Output);
}

// Found by react-fuzz (fuzz/regressions/declared-dense-copy-of-csr.txt): the splitter took A for
// csr, gave T0 A's index order, and T0 came out dense, so the max saw zeros instead of no entries.
TEST_CASE("split: a declared dense copy of a csr operand does not set a temporary's index order") {
  Environment env;
  env.declare("Q", {4, 4}, Format::csr());
  env.declare("A", {4, 4}, Format::dense(2));
  Program p = parseIndexNotation("A(i,j) = Q(i,j)\nm() = max(A(i,j) * Q(j,i), i, j)", env);
  CHECK(p.str() ==
        "A(i,j) = Q(i,j)\n"
        "T0(j,i) = A(i,j) * Q(j,i)\n"
        "m() = max(T0(j,i), j, i)\n");
  CHECK(p.tensor("A").format == Format::dense(2));
  CHECK(p.tensor("T0").format == Format::csr());
  CHECK(p.tensor("T0").pattern == "Q");
}

TEST_CASE("split: a declaration without a format or name is a dense tensor named by its key") {
  Environment env;
  TensorDecl w;
  w.shape = {4, 5};
  env.tensors["W"] = w;
  Program p = parseIndexNotation("A(i,j) = W(i,j) * 2", env);
  CHECK(p.tensor("W").format == Format::dense(2));
  CHECK(p.tensor("W").name == "W");
  CHECK(p.tensor("A").shape == std::vector<int64_t>{4, 5});
}
