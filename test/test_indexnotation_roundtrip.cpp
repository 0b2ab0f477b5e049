// Printer/parser round trips: parseIndexNotation(p.str(), p's declarations) == p.
#include "indexnotation_test_util.hpp"

#include <random>

using namespace react;
using react::test::kernelEnv;

namespace {

// The declarations a reader of p.str() needs: inputs, and temporaries so that they stay temporaries.
Environment declarationsOf(const Program& p, bool withTemporaries) {
  Environment env;
  for (const auto& [name, decl] : p.tensors)
    if (decl.role == TensorRole::Input || (withTemporaries && decl.role == TensorRole::Temporary))
      env.tensors[name] = decl;
  return env;
}

void checkRoundTrip(const Program& p) {
  INFO(p.str());
  Program q = parseIndexNotation(p.str(), declarationsOf(p, true));
  CHECK(q == p);
  CHECK(q.str() == p.str());
  // Read with the inputs only, temporaries come back as outputs; nothing else changes.
  Program r = parseIndexNotation(p.str(), declarationsOf(p, false));
  CHECK(r.statements == p.statements);
  CHECK(r.indexSizes == p.indexSizes);
  REQUIRE(r.tensors.size() == p.tensors.size());
  for (const auto& [name, decl] : p.tensors) {
    TensorDecl d = r.tensor(name);
    if (decl.role == TensorRole::Temporary && d.role == TensorRole::Output) d.role = TensorRole::Temporary;
    CHECK(d == decl);
  }
  // parseProgram picks index notation for printed programs (scalar left sides print as "a()").
  CHECK(parseProgram(p.str(), declarationsOf(p, true)) == p);
}

}  // namespace

TEST_CASE("round trip: kernels in both front ends") {
  Environment spmm;
  spmm.declare("B", {6, 6}, Format::csr());
  spmm.declare("C", {6, -1}, Format::dense(2));
  spmm.declare("D", {-1, -1}, Format::dense(2));
  spmm.indexSizes = {{"h", 256}, {"j", 16}};
  checkRoundTrip(parseProgram("A = B @ C @ D", spmm));
  for (const char* text : {
           "A(i,j) = S(i,j) * B(i,k) * C(k,j)",
           "A = S * (B @ C)",
           "A = S / sum(S, axis=1)",
           "A = exp(S) / sum(exp(S), axis=1)",
           "A = where(S < 0, 0.5 * S, S)",
           "m(i) = max(S(i,j), j)",
           "m = max(S, axis=1)",
           "c(i) = v(i) * D(i,j)",
           "c = col * sum(D, axis=1)",
           "a() = alpha * -2.5e-3 - -(2) + --alpha",
           "s = sum(S)",
           "A(j,i) = S(i,j)",
           "T = B @ C\nA = S * T; n = sum(A, axis=1)",
           "A = D + u - v @ D * 1e-300 / 3",
           "A = where(D != E, min(D, E) <= 1, max(D, E) > 2) == 0",
           "y = sqrt(S @ u) >= -1",
       }) {
    INFO(std::string(text));
    checkRoundTrip(parseProgram(text, kernelEnv()));
  }
}

TEST_CASE("round trip: printing keeps the tree (parentheses, unary minus, literals)") {
  Environment env = kernelEnv();
  Expr d = access("D", {"i", "j"}), e = access("E", {"i", "j"}), a = access("alpha", {});
  std::vector<std::pair<Expr, std::string>> cases = {
      {apply(Op::Sub, {d, apply(Op::Sub, {e, a})}), "D(i,j) - (E(i,j) - alpha)"},
      {apply(Op::Sub, {apply(Op::Sub, {d, e}), a}), "D(i,j) - E(i,j) - alpha"},
      {apply(Op::Mul, {apply(Op::Add, {d, e}), a}), "(D(i,j) + E(i,j)) * alpha"},
      {apply(Op::Div, {d, apply(Op::Mul, {e, a})}), "D(i,j) / (E(i,j) * alpha)"},
      {apply(Op::Neg, {literal(2)}), "-(2)"},
      {literal(-2), "-2"},
      {apply(Op::Neg, {literal(-2)}), "--2"},
      {apply(Op::Neg, {apply(Op::Neg, {d})}), "--D(i,j)"},
      {apply(Op::Neg, {apply(Op::Add, {d, e})}), "-(D(i,j) + E(i,j))"},
      {apply(Op::Mul, {d, literal(-0.1)}), "D(i,j) * -0.1"},
      {apply(Op::Lt, {apply(Op::Lt, {d, e}), a}), "D(i,j) < E(i,j) < alpha"},
      {apply(Op::Lt, {d, apply(Op::Lt, {e, a})}), "D(i,j) < (E(i,j) < alpha)"},
      {apply(Op::Add, {d, apply(Op::Lt, {e, a})}), "D(i,j) + (E(i,j) < alpha)"},
      {reduce(ReduceOp::Sum, {"k"}, apply(Op::Mul, {access("B", {"i", "k"}), access("C", {"k", "j"})})),
       "sum(B(i,k) * C(k,j), k)"},
      {reduce(ReduceOp::Max, {"j"}, access("S", {"i", "j"})), "max(S(i,j), j)"},
      {literal(1.0 / 3), "0.3333333333333333"},
      {literal(1e21), "1e+21"},
  };
  for (const auto& [expr, text] : cases) {
    CHECK(toString(expr) == text);
    std::vector<std::string> idx = freeIndices(expr);
    Program direct;
    direct.tensors = env.tensors;
    direct.statements.push_back(Statement{"X", idx, expr, ReduceOp::Sum, {}});
    Program viaText = parseIndexNotation(direct.statements[0].str(), env);
    CHECK(viaText == splitStatements(direct));
  }
}

TEST_CASE("round trip: random dense expressions print and parse to the same tree") {
  std::mt19937 rng(12345);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const std::vector<Op> unary = {Op::Neg, Op::Exp, Op::Sqrt, Op::Log};
  const std::vector<Op> binary = {Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Max, Op::Min,
                                  Op::Lt,  Op::Le,  Op::Gt,  Op::Ge,  Op::Eq,  Op::Ne};
  const std::vector<double> values = {0, 1, 2, -1, 0.5, -0.25, 1e-7, 3e10, -0.0};
  std::function<Expr(int)> gen = [&](int depth) -> Expr {
    int kind = depth == 0 ? pick(2) : pick(6);
    if (kind == 0) {
      switch (pick(4)) {
        case 0: return access("D", {"i", "j"});
        case 1: return access("E", {"i", "j"});
        case 2: return access("u", {"j"});
        default: return access("alpha", {});
      }
    }
    if (kind == 1) return literal(values[static_cast<size_t>(pick(static_cast<int>(values.size())))]);
    if (kind == 2) return apply(unary[static_cast<size_t>(pick(static_cast<int>(unary.size())))], {gen(depth - 1)});
    if (kind == 3) return apply(Op::Where, {gen(depth - 1), gen(depth - 1), gen(depth - 1)});
    return apply(binary[static_cast<size_t>(pick(static_cast<int>(binary.size())))], {gen(depth - 1), gen(depth - 1)});
  };
  Environment env = kernelEnv();
  for (int n = 0; n < 300; ++n) {
    Expr e = gen(4);
    std::vector<std::string> idx = freeIndices(e);
    Program direct;
    direct.tensors = env.tensors;
    direct.statements.push_back(Statement{"X", idx, e, ReduceOp::Sum, {}});
    std::string text = direct.statements[0].str();
    INFO(text);
    Program p = splitStatements(direct);
    CHECK(parseIndexNotation(text, env) == p);
    checkRoundTrip(p);
  }
}
