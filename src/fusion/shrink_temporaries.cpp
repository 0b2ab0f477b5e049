// Temporary shrinking (type 3): drop the dimensions the enclosing fused loops fix; reset after use.
#include "fusion/internal.hpp"

namespace react {

namespace {

struct Use {
  const TreeNode* leaf;
  TreePath path;
  std::vector<std::string> indices;
};

std::vector<Use> usesOf(const IndexTree& t, const std::string& name) {
  std::vector<Use> uses;
  visitTree(t.root, [&](const TreeNode& n, const TreePath& path) {
    if (n.kind != NodeKind::Compute) return;
    if (n.stmt.lhs == name) uses.push_back({&n, path, n.stmt.lhsIndices});
    for (const ExprNode* a : accesses(n.stmt.rhs))
      if (a->tensor == name) uses.push_back({&n, path, a->indices});
  });
  return uses;
}

// The longest common prefix of the uses' paths (shared loop nodes, root first).
TreePath commonPrefix(const std::vector<Use>& uses) {
  TreePath prefix = uses.front().path;
  for (const Use& u : uses) {
    size_t n = 0;
    while (n < prefix.size() && n < u.path.size() && prefix[n] == u.path[n]) ++n;
    prefix.resize(n);
  }
  return prefix;
}

bool binds(const TreePath& path, const std::string& index) {
  for (const TreeNode* n : path)
    if (n->kind == NodeKind::Index && n->loop.index == index) return true;
  return false;
}

// Shrinks one temporary; false when nothing can be dropped.
bool shrinkOne(IndexTree& t, const std::string& name) {
  TensorStorage& storage = t.tensors.at(name);
  std::vector<Use> uses = usesOf(t, name);
  if (uses.empty() || storage.shrunk()) return false;
  TreePath prefix = commonPrefix(uses);
  std::vector<bool> kept = storage.kept;
  for (size_t d = 0; d < kept.size(); ++d) {
    bool fixed = binds(prefix, uses.front().indices[d]);
    for (const Use& u : uses) fixed = fixed && u.indices[d] == uses.front().indices[d];
    kept[d] = !fixed;
  }
  bool anyDropped = std::find(kept.begin(), kept.end(), false) != kept.end();
  bool allDropped = std::find(kept.begin(), kept.end(), true) == kept.end();
  if (!anyDropped || (storage.decl.format.isSparse() && !allDropped)) return false;

  const Use* producer = nullptr;
  for (const Use& u : uses)
    if (u.leaf->stmt.lhs == name && u.leaf->computeKind == ComputeKind::Compute) producer = &u;
  if (!producer) return false;

  // A reset restores what the next iteration of the prefix expects: the reduction's identity, or
  // zeros where a producer under a sparse loop writes only the stored positions of a kept dimension.
  bool partial = false;
  for (const TreeNode* n : producer->path)
    if (n->kind == NodeKind::Index && n->loop.kind == LoopKind::Sparse)
      for (size_t d = 0; d < kept.size(); ++d) partial |= kept[d] && producer->indices[d] == n->loop.index;
  std::optional<TreeNode> reset;
  if (producer->leaf->accumulates() || partial) {
    const Statement& p = producer->leaf->stmt;
    TreeNode chain = TreeNode::compute(
        Statement{name, p.lhsIndices, literal(reduceIdentity(p.reduce)), ReduceOp::Sum, p.pos}, ComputeKind::Reset);
    for (size_t d = kept.size(); d-- > 0;) {
      if (!kept[d]) continue;
      if (binds(prefix, p.lhsIndices[d])) return false;  // its name is taken by an enclosing loop
      TreeNode loop = TreeNode::index(IndexLoop{p.lhsIndices[d], LoopKind::Dense, "", ""});
      loop.children.push_back(std::move(chain));
      chain = std::move(loop);
    }
    reset = std::move(chain);
  }
  // The prefix points into t itself: the deepest shared loop is where the reset goes, last.
  if (reset) const_cast<TreeNode*>(prefix.back())->children.push_back(std::move(*reset));
  t.tensors.at(name).kept = kept;
  return true;
}

}  // namespace

IndexTree shrinkTemporaries(const IndexTree& t) {
  IndexTree out = t;
  for (const auto& [name, storage] : t.tensors)
    if (storage.decl.role == TensorRole::Temporary) shrinkOne(out, name);
  return out;
}

}  // namespace react
