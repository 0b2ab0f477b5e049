// Reduction hoisting (type 1): factors invariant in a sum move outside it (distributivity).
#include "fusion/internal.hpp"

namespace react {

IndexTree hoistReductions(const IndexTree& t) {
  return fusion::rewriteSingleStatementChains(t, [](IndexTree& tree, const Statement& s) -> std::vector<Statement> {
    std::vector<std::string> reduced = s.reductionIndices();
    if (reduced.empty() || s.reduce != ReduceOp::Sum) return {};
    std::vector<Expr> invariant, variant;
    for (const Expr& f : fusion::factorsOf(s.rhs)) (fusion::mentionsAny(f, reduced) ? variant : invariant).push_back(f);
    if (invariant.empty() || variant.empty()) return {};

    // t(free indices of the variant part, in left-hand order) = sum over `reduced` of the variant part.
    Expr inner = fusion::productOf(variant);
    std::vector<std::string> kept;
    std::vector<std::string> innerFree = freeIndices(inner);
    for (const auto& x : s.lhsIndices)
      if (std::find(innerFree.begin(), innerFree.end(), x) != innerFree.end()) kept.push_back(x);
    const TensorDecl& out = tree.tensor(s.lhs).decl;
    bool samePattern = out.format.hasSparseLevel() && kept == s.lhsIndices;
    std::string name = fusion::freshTemporary(tree);
    fusion::declareTemporary(tree, name, kept, samePattern ? out.pattern : "", s);

    Statement sum{name, kept, inner, ReduceOp::Sum, s.pos};
    invariant.push_back(access(name, kept));
    Statement scaled{s.lhs, s.lhsIndices, fusion::productOf(invariant), ReduceOp::Sum, s.pos};
    return {sum, scaled};
  });
}

}  // namespace react
