// Invariant hoisting (type 2): a compound subexpression invariant in a statement's reduction loops
// gets its own statement, computed once per value of its indices.
#include "fusion/internal.hpp"

namespace react {

namespace {

// The csr pattern a hoisted subexpression keeps (stored-entry semantics), "" for dense, or nothing
// when its result is not representable (a csr operand inside a rank-3 result).
std::optional<std::string> resultPattern(const IndexTree& t, const Expr& e) {
  std::vector<std::string> free = freeIndices(e);
  std::string pattern;
  for (const ExprNode* a : accesses(e)) {
    const TensorStorage& s = t.tensor(a->tensor);
    if (!s.decl.format.hasSparseLevel()) continue;
    if (a->indices != free) return std::nullopt;
    pattern = s.decl.pattern;
  }
  return pattern;
}

// Hoists the compound subexpressions of `e` (a part of statement `s`) that `reduced` leaves invariant.
Expr hoist(IndexTree& t, const Statement& s, const Expr& e, const std::vector<std::string>& reduced, bool isRoot,
           std::vector<Statement>& hoisted) {
  bool compound = e->op != Op::Access && e->op != Op::Literal;
  if (!compound) return e;
  if (!isRoot && !fusion::mentionsAny(e, reduced) && !accesses(e).empty()) {
    auto pattern = resultPattern(t, e);
    if (pattern) {
      std::vector<std::string> idx = freeIndices(e);
      std::string name = fusion::freshTemporary(t);
      fusion::declareTemporary(t, name, idx, *pattern, s);
      hoisted.push_back(Statement{name, idx, e, ReduceOp::Sum, e->pos});
      return access(name, idx);
    }
  }
  auto copy = std::make_shared<ExprNode>(*e);
  for (auto& a : copy->args) a = hoist(t, s, a, reduced, false, hoisted);
  return copy;
}

}  // namespace

IndexTree hoistInvariants(const IndexTree& t) {
  return fusion::rewriteSingleStatementChains(t, [](IndexTree& tree, const Statement& s) -> std::vector<Statement> {
    std::vector<std::string> reduced = s.reductionIndices();
    if (reduced.empty()) return {};
    std::vector<Statement> out;
    Expr rhs = hoist(tree, s, s.rhs, reduced, true, out);
    if (out.empty()) return {};
    Statement rest = s;
    rest.rhs = rhs;
    out.push_back(rest);
    return out;
  });
}

}  // namespace react
