// Helpers shared by the fusion passes.
#include "fusion/internal.hpp"

#include <algorithm>

namespace react::fusion {

std::vector<Statement> statementsOf(const IndexTree& t) {
  std::vector<Statement> out;
  visitTree(t.root, [&](const TreeNode& n, const TreePath&) {
    if (n.kind == NodeKind::Compute && n.computeKind == ComputeKind::Compute) out.push_back(n.stmt);
  });
  return out;
}

IndexTree withChains(const IndexTree& t, const std::vector<Statement>& statements) {
  IndexTree out;
  out.tensors = t.tensors;
  out.indexSizes = t.indexSizes;
  for (const Statement& s : statements) out.root.children.push_back(buildChain(s, out.tensors));
  return out;
}

std::string freshTemporary(const IndexTree& t) {
  for (int n = 0;; ++n) {
    std::string name = "T" + std::to_string(n);
    if (!t.tensors.count(name)) return name;
  }
}

std::string freshIndex(const IndexTree& t, const std::string& base, const std::set<std::string>& alsoTaken) {
  for (int n = 1;; ++n) {
    std::string name = base + std::to_string(n);
    if (!t.indexSizes.count(name) && !alsoTaken.count(name)) return name;
  }
}

void declareTemporary(IndexTree& t, const std::string& name, const std::vector<std::string>& indices,
                      const std::string& pattern, const Statement& from) {
  TensorDecl d;
  d.valueType = t.tensor(from.lhs).decl.valueType;
  d.name = name;
  for (const auto& x : indices) d.shape.push_back(t.indexSizes.at(x));
  d.format = pattern.empty() ? Format::dense(static_cast<int>(indices.size())) : t.tensor(pattern).decl.format;
  d.role = TensorRole::Temporary;
  d.pattern = pattern;
  t.tensors[name] = TensorStorage{d, std::vector<bool>(indices.size(), true)};
}

std::vector<Expr> factorsOf(const Expr& e) {
  if (e->op != Op::Mul) return {e};
  std::vector<Expr> out = factorsOf(e->args[0]);
  for (const Expr& f : factorsOf(e->args[1])) out.push_back(f);
  return out;
}

Expr productOf(const std::vector<Expr>& factors) {
  Expr e = factors.at(0);
  for (size_t f = 1; f < factors.size(); ++f) e = apply(Op::Mul, {e, factors[f]});
  return e;
}

bool mentionsAny(const Expr& e, const std::vector<std::string>& indices) {
  for (const auto& x : freeIndices(e))
    if (std::find(indices.begin(), indices.end(), x) != indices.end()) return true;
  return false;
}

IndexTree rewriteSingleStatementChains(
    const IndexTree& t, const std::function<std::vector<Statement>(IndexTree&, const Statement&)>& rewrite) {
  IndexTree out = t;
  out.root.children.clear();
  for (const TreeNode& chain : t.root.children) {
    std::vector<const TreeNode*> leaves;
    visitTree(chain, [&](const TreeNode& n, const TreePath&) {
      if (n.kind == NodeKind::Compute) leaves.push_back(&n);
    });
    std::vector<Statement> replaced;
    if (leaves.size() == 1 && leaves[0]->computeKind == ComputeKind::Compute) replaced = rewrite(out, leaves[0]->stmt);
    if (replaced.empty()) {
      out.root.children.push_back(chain);
      continue;
    }
    for (const Statement& s : replaced) out.root.children.push_back(buildChain(s, out.tensors));
  }
  return out;
}

}  // namespace react::fusion
