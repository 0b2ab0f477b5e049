// Temporary shrinking (type 3): drop the dimensions the enclosing fused loops fix; reset after use.
#include "fusion/internal.hpp"

namespace react {

namespace {

struct Use {
  const TreeNode* leaf;
  TreePath path;
  std::vector<std::string> indices;
};

// The uses of every temporary of `t`, in execution order, from one walk of the tree.
std::map<std::string, std::vector<Use>> temporaryUses(const IndexTree& t) {
  std::map<std::string, std::vector<Use>> uses;
  auto note = [&](const TreeNode& n, const TreePath& path, const std::string& name,
                  const std::vector<std::string>& indices) {
    if (t.tensor(name).decl.role == TensorRole::Temporary) uses[name].push_back({&n, path, indices});
  };
  visitTree(t.root, [&](const TreeNode& n, const TreePath& path) {
    if (n.kind != NodeKind::Compute) return;
    note(n, path, n.stmt.lhs, n.stmt.lhsIndices);
    for (const ExprNode* a : accesses(n.stmt.rhs)) note(n, path, a->tensor, a->indices);
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

// How one temporary shrinks: the dimensions it keeps, and the reset to append to the loop at
// `scope` (child positions from the root), if it needs one.
struct Shrinking {
  std::vector<bool> kept;
  std::optional<TreeNode> reset;
  std::vector<size_t> scope;
};

// The child positions leading from the root to the last node of `path` (a path from the root).
std::vector<size_t> positions(const TreePath& path) {
  std::vector<size_t> out;
  for (size_t n = 1; n < path.size(); ++n) out.push_back(static_cast<size_t>(path[n] - path[n - 1]->children.data()));
  return out;
}

// How temporary `name` with `uses` shrinks; nothing when no dimension can be dropped.
std::optional<Shrinking> shrinking(const IndexTree& t, const std::string& name, const std::vector<Use>& uses) {
  const TensorStorage& storage = t.tensors.at(name);
  if (storage.shrunk()) return std::nullopt;
  TreePath prefix = commonPrefix(uses);
  std::vector<bool> kept = storage.kept;
  for (size_t d = 0; d < kept.size(); ++d) {
    bool fixed = binds(prefix, uses.front().indices[d]);
    for (const Use& u : uses) fixed = fixed && u.indices[d] == uses.front().indices[d];
    kept[d] = !fixed;
  }
  bool anyDropped = std::find(kept.begin(), kept.end(), false) != kept.end();
  bool allDropped = std::find(kept.begin(), kept.end(), true) == kept.end();
  if (!anyDropped || (storage.decl.format.hasSparseLevel() && !allDropped)) return std::nullopt;

  const Use* producer = nullptr;
  for (const Use& u : uses)
    if (u.leaf->stmt.lhs == name && u.leaf->computeKind == ComputeKind::Compute) producer = &u;
  if (!producer) return std::nullopt;

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
      if (binds(prefix, p.lhsIndices[d])) return std::nullopt;  // its name is taken by an enclosing loop
      TreeNode loop = TreeNode::index(IndexLoop::dense(p.lhsIndices[d]));
      loop.children.push_back(std::move(chain));
      chain = std::move(loop);
    }
    reset = std::move(chain);
  }
  // The deepest shared loop is where the reset goes, last.
  return Shrinking{kept, std::move(reset), positions(prefix)};
}

}  // namespace

// Every temporary's shrinking is decided on `t` (one shrinking changes no other temporary's
// uses), then applied in name order: appending a reset moves no other node's position.
IndexTree shrinkTemporaries(const IndexTree& t) {
  std::map<std::string, Shrinking> shrinkings;
  for (const auto& [name, uses] : temporaryUses(t))
    if (auto s = shrinking(t, name, uses)) shrinkings.emplace(name, std::move(*s));
  IndexTree out = t;
  for (auto& [name, s] : shrinkings) {
    out.tensors.at(name).kept = s.kept;
    if (!s.reset) continue;
    TreeNode* scope = &out.root;
    for (size_t c : s.scope) scope = &scope->children[c];
    scope->children.push_back(std::move(*s.reset));
  }
  return out;
}

}  // namespace react
