// The C++ API builds the same programs as the text front ends.
#include "indexnotation_test_util.hpp"

using namespace react;
using react::test::errorOf;
using react::test::kernelEnv;

TEST_CASE("api: SDDMM equals the parsed program") {
  IndexVar i("i"), j("j"), k("k");
  TensorVar A("A", {4, 5}, Format::csr()), S("S", {4, 5}, Format::csr());
  TensorVar B("B", {4, 3}, Format::dense(2)), C("C", {3, 5}, Format::dense(2));
  ProgramBuilder prog;
  prog.add(A(i, j) = S(i, j) * B(i, k) * C(k, j));
  Program p = prog.build();
  CHECK(p.str() ==
        "T0(i,j) = B(i,k) * C(k,j)\n"
        "A(i,j) = S(i,j) * T0(i,j)\n");
  CHECK(p == parseIndexNotation("A(i,j) = S(i,j) * B(i,k) * C(k,j)", kernelEnv()));
}

TEST_CASE("api: operators, functions, reductions, literals, scalars") {
  IndexVar i("i"), j("j"), k("k");
  TensorVar S("S", {4, 5}, Format::csr()), D("D", {4, 5}, Format::dense(2)), u("u", {5}, Format::dense(1));
  TensorVar alpha("alpha", {}, Format::dense(0));
  TensorVar A("A", {4, 5}, Format::csr()), L("L", {4, 5}, Format::csr()), m("m", {4}, Format::dense(1));
  TensorVar n("n", {4}, Format::dense(1)), s("s", {}, Format::dense(0)), X("X", {4, 5}, Format::dense(2));
  TensorVar Y("Y", {4, 5}, Format::dense(2)), Z("Z", {4, 5}, Format::dense(2));
  ProgramBuilder prog;
  prog.add(A(i, j) = exp(S(i, j)) / sum(exp(S(i, j)), j));
  prog.add(L(i, j) = where(S(i, j) < 0, 0.5 * S(i, j), S(i, j)));
  prog.add(m(i) = max(S(i, j), j));
  prog.add(n(i) = S(i, j) * u(j));
  prog.add(s() = sum(sum(D(i, j), i), j) * alpha() + 1);
  prog.add(X(i, j) = D(i, j));  // TensorAccess = TensorAccess builds an assignment too
  prog.add(Y(i, j) = -sqrt(D(i, j)) - max(D(i, j), 2) + min(D(i, j), u(j)));
  prog.add(Z(i, j) = (D(i, j) <= 1) + (D(i, j) > 2) * (D(i, j) >= 3) - (D(i, j) == 4) / (D(i, j) != 5));
  Program p = prog.build();
  std::string text =
      "A(i,j) = exp(S(i,j)) / sum(exp(S(i,j)), j)\n"
      "L(i,j) = where(S(i,j) < 0, 0.5 * S(i,j), S(i,j))\n"
      "m(i) = max(S(i,j), j)\n"
      "n(i) = S(i,j) * u(j)\n"
      "s() = sum(sum(D(i,j), i), j) * alpha + 1\n"
      "X(i,j) = D(i,j)\n"
      "Y(i,j) = -sqrt(D(i,j)) - max(D(i,j), 2) + min(D(i,j), u(j))\n"
      "Z(i,j) = (D(i,j) <= 1) + (D(i,j) > 2) * (D(i,j) >= 3) - (D(i,j) == 4) / (D(i,j) != 5)\n";
  Environment env = kernelEnv();
  for (const char* out : {"A", "L"}) env.declare(out, {4, 5}, Format::csr());
  CHECK(p == parseIndexNotation(text, env));
  CHECK(p.tensor("L").pattern == "S");
  CHECK(p.tensor("s").role == TensorRole::Output);
}

TEST_CASE("api: index sizes, declarations and errors") {
  IndexVar i("i"), j("j"), h("h");
  TensorVar B("B", {6, 6}, Format::csr()), C("C", {6, -1}, Format::dense(2)), A("A", {6, -1}, Format::dense(2));
  ProgramBuilder prog;
  prog.add(A(i, h) = B(i, j) * C(j, h));
  CHECK(errorOf([&] { prog.build(); }) == "size of index 'h' is unknown (dimension 2 of 'C')");
  prog.setIndexSize(h, 32);
  CHECK(prog.build().tensor("A").shape == std::vector<int64_t>{6, 32});

  ProgramBuilder bad;
  bad.add(A(i) = B(i, j));
  CHECK(errorOf([&] { bad.build(); }) == "rank mismatch: 'A' has rank 2 but is used with 1 index");
  TensorVar other("B", {5, 5}, Format::dense(2));
  CHECK(errorOf([&] { bad.add(A(i, j) = other(i, j)); }) ==
        "tensor 'B' is declared twice with different shapes, formats or value types");
  ProgramBuilder dense;
  TensorVar S("S", {4, 5}, Format::csr()), Dn("Dn", {4, 5}, Format::dense(2));
  dense.add(Dn(i, j) = S(i, j) + 1);
  dense.declare(TensorVar("unused", {3}, Format::dense(1)));
  Program p = dense.build();
  CHECK(p.tensor("Dn").format == Format::dense(2));  // declared dense: stored entries, zeros elsewhere
  CHECK(p.tensors.count("unused") == 0);
}

TEST_CASE("api: splitStatements on a hand-made program") {
  Program p;
  p.tensors = kernelEnv().tensors;
  p.statements.push_back(Statement{"y", {"i"}, apply(Op::Mul, {access("D", {"i", "j"}), access("u", {"j"})}),
                                   ReduceOp::Max, {}});
  Program q = splitStatements(p);
  CHECK(q.str() ==
        "T0(i,j) = D(i,j) * u(j)\n"
        "y(i) = max(T0(i,j), j)\n");
  CHECK(splitStatements(q) == q);  // one-operator programs are a fixed point
  CHECK(errorOf([] { apply(Op::Add, {literal(1)}); }) == "'+' takes 2 operands, got 1");
  Program empty;
  empty.statements.push_back(Statement{"y", {}, nullptr, ReduceOp::Sum, {}});
  CHECK(errorOf([&] { splitStatements(empty); }) == "the statement for 'y' has no right-hand side");
}
