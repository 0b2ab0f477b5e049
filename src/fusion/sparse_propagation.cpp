// Sparse propagation (type 4): compute a dense temporary only where a sparse consumer reads it.
#include "fusion/internal.hpp"

namespace react {

std::optional<std::string> fusion::sparseReadPattern(const IndexTree& t, const std::string& name) {
  std::optional<std::string> pattern;
  bool ok = true, read = false;
  visitTree(t.root, [&](const TreeNode& n, const TreePath& path) {
    if (n.kind != NodeKind::Compute || n.stmt.lhs == name) return;
    for (const ExprNode* a : accesses(n.stmt.rhs)) {
      if (a->tensor != name) continue;
      read = true;
      const TreeNode* loop = nullptr;
      for (const TreeNode* p : path)
        if (p->kind == NodeKind::Index && p->loop.index == a->indices[1]) loop = p;
      if (!loop || loop->loop.kind != LoopKind::Sparse || loop->loop.parentIndex != a->indices[0] ||
          (pattern && *pattern != loop->loop.pattern)) {
        ok = false;
        continue;
      }
      pattern = loop->loop.pattern;
    }
  });
  if (!ok || !read) return std::nullopt;
  return pattern;
}

IndexTree sparsePropagation(const IndexTree& t) {
  IndexTree out = t;
  std::set<std::string> changed;
  for (const auto& [name, storage] : t.tensors) {
    const TensorDecl& d = storage.decl;
    if (d.role != TensorRole::Temporary || d.format.isSparse() || d.rank() != 2 || storage.shrunk()) continue;
    auto pattern = fusion::sparseReadPattern(t, name);
    if (!pattern) continue;
    IndexTree trial = out;
    trial.tensors[name].decl.format = Format::csr();
    trial.tensors[name].decl.pattern = *pattern;
    // The producer must be able to iterate the pattern (no second sparse pattern on its loops).
    bool iterable = true;
    for (const Statement& s : fusion::statementsOf(trial))
      if (s.lhs == name) iterable = iterable && chainLegality(s, trial.tensors).ok();
    if (!iterable) continue;
    out = std::move(trial);
    changed.insert(name);
  }
  return fusion::rewriteSingleStatementChains(out, [&](IndexTree&, const Statement& s) -> std::vector<Statement> {
    if (changed.count(s.lhs)) return {s};
    return {};
  });
}

}  // namespace react
