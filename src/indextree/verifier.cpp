// The rules every pass keeps (see checkTree in indextree.hpp). Each check returns the first rule
// broken, as the message that names the node, or nothing.
#include "indextree/internal.hpp"

#include <algorithm>
#include <optional>
#include <set>

namespace react {

namespace {

using Path = std::vector<const TreeNode*>;
using Violation = std::optional<std::string>;

Violation broken(const Path& path, const TreeNode& n, const std::string& rule) {
  return "index tree verifier: node '" + detail::pathName(path, n) + "': " + rule;
}

const TreeNode* binder(const Path& path, const std::string& index) {
  for (const TreeNode* a : path)
    if (a->kind == NodeKind::Index && a->loop.index == index) return a;
  return nullptr;
}

Violation checkLoops(const TreeNode& n, const Path& path) {
  if (n.kind == NodeKind::Root && !path.empty()) return broken(path, n, "a root below the root");
  if (n.kind == NodeKind::Compute && !n.children.empty()) return broken(path, n, "a compute node has children");
  if (n.kind != NodeKind::Index) return std::nullopt;
  if (binder(path, n.loop.index)) return broken(path, n, "index '" + n.loop.index + "' is bound twice on this path");
  if (n.loop.kind != LoopKind::Dense && !n.loop.parentIndex.empty() && !binder(path, n.loop.parentIndex))
    return broken(path, n, "sparse loop over '" + n.loop.pattern + "' is not nested under its row index '" +
                               n.loop.parentIndex + "'");
  return std::nullopt;
}

Violation checkCompute(const IndexTree& t, const TreeNode& n, const Path& path) {
  std::vector<std::string> named = n.reads();
  named.push_back(n.stmt.lhs);
  for (const std::string& name : named)
    if (!t.tensors.count(name)) return broken(path, n, "tensor '" + name + "' is not declared");
  std::vector<std::string> used = n.stmt.lhsIndices;
  for (const auto& x : freeIndices(n.stmt.rhs)) used.push_back(x);
  for (const auto& x : used)
    if (!binder(path, x)) return broken(path, n, "index '" + x + "' is not bound by an enclosing loop");
  auto checkSparse = [&](const std::string& name, const std::vector<std::string>& idx) -> Violation {
    const TensorStorage& s = t.tensor(name);
    if (!s.decl.format.hasSparseLevel() || s.shrunk()) return std::nullopt;
    if (!atPatternPositions(path, s.decl.pattern, s.decl.format, idx))
      return broken(path, n, s.decl.format.str() + " tensor '" + name + "' is accessed outside a sparse loop over its pattern '" +
                                 s.decl.pattern + "'");
    return std::nullopt;
  };
  if (Violation v = checkSparse(n.stmt.lhs, n.stmt.lhsIndices)) return v;
  for (const ExprNode* a : accesses(n.stmt.rhs))
    if (Violation v = checkSparse(a->tensor, a->indices)) return v;
  return std::nullopt;
}

struct Leaf {
  const TreeNode* node;
  Path path;
};

// The loop nodes that fix a shrunk tensor's dropped dimensions, as seen from one access.
std::vector<const TreeNode*> fixingLoops(const IndexTree& t, const Leaf& leaf, const std::string& name,
                                         const std::vector<std::string>& idx) {
  const TensorStorage& s = t.tensor(name);
  std::vector<const TreeNode*> loops;
  for (size_t d = 0; d < idx.size() && d < s.kept.size(); ++d)
    if (!s.kept[d]) loops.push_back(binder(leaf.path, idx[d]));
  return loops;
}

// The node under which a reset runs: its nearest ancestor that is not one of the reset's own
// loops over the kept dimensions.
size_t resetScopeDepth(const IndexTree& t, const Leaf& reset) {
  const TensorStorage& s = t.tensor(reset.node->stmt.lhs);
  std::set<std::string> keptIdx;
  for (size_t d = 0; d < s.kept.size(); ++d)
    if (s.kept[d]) keptIdx.insert(reset.node->stmt.lhsIndices[d]);
  size_t depth = reset.path.size();
  while (depth > 1 && reset.path[depth - 1]->kind == NodeKind::Index && keptIdx.count(reset.path[depth - 1]->loop.index))
    --depth;
  return depth;  // reset.path[depth-1] is the scope node
}

bool under(const Leaf& leaf, const TreeNode* scope) {
  return std::find(leaf.path.begin(), leaf.path.end(), scope) != leaf.path.end();
}

// Over the leaves of a tree whose compute nodes passed checkCompute (every tensor declared).
Violation checkDataflow(const IndexTree& t, const std::vector<Leaf>& leaves) {
  std::map<std::string, size_t> firstWrite;
  for (size_t l = 0; l < leaves.size(); ++l) {
    const TreeNode& n = *leaves[l].node;
    for (const std::string& r : n.reads()) {
      const TensorStorage& s = t.tensor(r);
      bool computed = s.decl.role != TensorRole::Input;
      if (computed && r != n.stmt.lhs && !firstWrite.count(r))
        return broken(leaves[l].path, n, "tensor '" + r + "' is read before it is written");
    }
    if (n.computeKind == ComputeKind::Compute) firstWrite.emplace(n.stmt.lhs, l);
  }

  // Shrunk tensors: every access shares the loops that fix the dropped dimensions.
  std::map<std::string, std::vector<const TreeNode*>> fixedBy;
  for (const Leaf& leaf : leaves) {
    auto check = [&](const std::string& name, const std::vector<std::string>& idx) -> Violation {
      if (!t.tensor(name).shrunk()) return std::nullopt;
      auto loops = fixingLoops(t, leaf, name, idx);
      auto [it, fresh] = fixedBy.emplace(name, loops);
      if (!fresh && it->second != loops)
        return broken(leaf.path, *leaf.node,
                      "shrunk tensor '" + name + "' is used outside the loop that fixes its dropped dimensions");
      return std::nullopt;
    };
    if (Violation v = check(leaf.node->stmt.lhs, leaf.node->stmt.lhsIndices)) return v;
    for (const ExprNode* a : accesses(leaf.node->stmt.rhs))
      if (Violation v = check(a->tensor, a->indices)) return v;
  }

  // Resets come after the last consumer in their scope, and after a producer.
  for (size_t l = 0; l < leaves.size(); ++l) {
    const Leaf& reset = leaves[l];
    if (reset.node->computeKind != ComputeKind::Reset) continue;
    const std::string& name = reset.node->stmt.lhs;
    const TreeNode* scope = reset.path[resetScopeDepth(t, reset) - 1];
    bool produced = false;
    for (size_t o = 0; o < leaves.size(); ++o) {
      const TreeNode& n = *leaves[o].node;
      if (o == l || !under(leaves[o], scope)) continue;
      auto reads = n.reads();
      bool reads_it = std::find(reads.begin(), reads.end(), name) != reads.end();
      if (o < l && n.computeKind == ComputeKind::Compute && n.stmt.lhs == name) produced = true;
      if (o > l && reads_it && n.stmt.lhs != name)
        return broken(reset.path, *reset.node, "reset of '" + name + "' comes before its consumer '" +
                                                   detail::computeLabel(n, &t) + "'");
    }
    if (!produced) return broken(reset.path, *reset.node, "reset of '" + name + "' has no producer before it in its loop");
  }
  return std::nullopt;
}

}  // namespace

Legality checkTree(const IndexTree& t) {
  if (t.root.kind != NodeKind::Root) return Legality::illegal("index tree verifier: the tree has no root");
  for (const auto& [name, s] : t.tensors)
    if (s.decl.format.rank() != s.decl.rank())
      return Legality::illegal("index tree verifier: tensor '" + name + "' has format " + s.decl.format.str() + " with " +
                               std::to_string(s.decl.format.rank()) + " levels for rank " + std::to_string(s.decl.rank()));
  Violation first;
  std::vector<Leaf> leaves;
  visitTree(t.root, [&](const TreeNode& n, const Path& path) {
    if (first) return;
    first = checkLoops(n, path);
    if (first || n.kind != NodeKind::Compute) return;
    first = checkCompute(t, n, path);
    leaves.push_back({&n, path});
  });
  if (!first) first = checkDataflow(t, leaves);
  return first ? Legality::illegal(*first) : Legality{};
}

void verifyTree(const IndexTree& t) {
  Legality legality = checkTree(t);
  if (!legality.ok()) throw UserError(legality.why);
}

}  // namespace react
