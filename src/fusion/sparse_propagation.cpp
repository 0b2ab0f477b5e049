// Sparse propagation (type 4): compute a dense temporary only where a sparse consumer reads it.
#include "fusion/internal.hpp"

#include <algorithm>

namespace react {

std::optional<std::string> fusion::sparseReadPattern(const IndexTree& t, const std::string& name) {
  std::optional<std::string> pattern;
  bool ok = true, read = false;
  visitTree(t.root, [&](const TreeNode& n, const TreePath& path) {
    if (n.kind != NodeKind::Compute || n.stmt.lhs == name) return;
    for (const ExprNode* a : accesses(n.stmt.rhs)) {
      if (a->tensor != name) continue;
      read = true;
      // The candidate: the pattern of the innermost Sparse loop that binds one of the access's
      // indices; the access must then be at that pattern's positions, level by level.
      auto sparseOverAccess = [&](const TreeNode* p) {
        return p->kind == NodeKind::Index && p->loop.kind == LoopKind::Sparse &&
               std::find(a->indices.begin(), a->indices.end(), p->loop.index) != a->indices.end();
      };
      auto loop = std::find_if(path.rbegin(), path.rend(), sparseOverAccess);
      if (loop == path.rend() || (pattern && *pattern != (*loop)->loop.pattern) ||
          !atPatternPositions(path, (*loop)->loop.pattern, t.tensor((*loop)->loop.pattern).decl.format, a->indices)) {
        ok = false;
        continue;
      }
      pattern = (*loop)->loop.pattern;
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
    if (d.role != TensorRole::Temporary || d.format.hasSparseLevel() || storage.shrunk()) continue;
    auto pattern = fusion::sparseReadPattern(t, name);
    if (!pattern) continue;
    IndexTree trial = out;
    trial.tensors[name].decl.format = t.tensor(*pattern).decl.format;
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
