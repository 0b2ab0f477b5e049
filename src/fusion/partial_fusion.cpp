// Partial (trie) fusion: merge sibling loops over the same index along the common prefix.
#include "fusion/internal.hpp"

#include <algorithm>

namespace react {

namespace {

struct Access {
  std::string tensor;
  std::vector<std::string> indices;
  bool write;
};

std::vector<Access> accessesIn(const TreeNode& n) {
  std::vector<Access> out;
  visitTree(n, [&](const TreeNode& leaf, const TreePath&) {
    if (leaf.kind != NodeKind::Compute) return;
    out.push_back({leaf.stmt.lhs, leaf.stmt.lhsIndices, true});
    for (const ExprNode* a : accesses(leaf.stmt.rhs)) out.push_back({a->tensor, a->indices, false});
  });
  return out;
}

// Tensors that both access lists touch, one of them writing.
std::set<std::string> conflicts(const std::vector<Access>& a, const std::vector<Access>& b) {
  std::set<std::string> out;
  for (const Access& x : a)
    for (const Access& y : b)
      if (x.tensor == y.tensor && (x.write || y.write)) out.insert(x.tensor);
  return out;
}

// Iteration v of the merged loop over `index` may run a's body then b's body when every access to
// a shared, written tensor names `index` in one and the same dimension: then iteration v touches
// only the slice v of that tensor, in both subtrees.
bool fusable(const TreeNode& a, const TreeNode& b) {
  auto aa = accessesIn(a), bb = accessesIn(b);
  const std::string& index = a.loop.index;
  for (const std::string& name : conflicts(aa, bb)) {
    std::optional<size_t> dim;
    for (const auto* list : {&aa, &bb})
      for (const Access& x : *list) {
        if (x.tensor != name) continue;
        auto it = std::find(x.indices.begin(), x.indices.end(), index);
        if (it == x.indices.end()) return false;
        size_t d = static_cast<size_t>(it - x.indices.begin());
        if (dim && *dim != d) return false;
        dim = d;
      }
  }
  return true;
}

bool independent(const TreeNode& a, const TreeNode& b) { return conflicts(accessesIn(a), accessesIn(b)).empty(); }

// Merges one pair of siblings if any: an earlier loop into a later one with the same loop (the
// later is the host, so producers stay before consumers), moving the earlier past the siblings
// between them only when it is independent of each.
bool mergeOnePair(std::vector<TreeNode>& children) {
  for (size_t b = 0; b < children.size(); ++b) {
    if (children[b].kind != NodeKind::Index) continue;
    for (size_t a = b; a-- > 0;) {
      const TreeNode& cand = children[a];
      if (cand.kind != NodeKind::Index || !(cand.loop == children[b].loop)) continue;
      bool movable = true;
      for (size_t m = a + 1; m < b && movable; ++m) movable = independent(cand, children[m]);
      if (!movable || !fusable(cand, children[b])) break;
      std::vector<TreeNode> body = cand.children;
      for (TreeNode& c : children[b].children) body.push_back(std::move(c));
      children[b].children = std::move(body);
      children.erase(children.begin() + static_cast<long>(a));
      return true;
    }
  }
  return false;
}

// Merges the children of `n` (loops at depth `depth`) and, below, down to `maxDepth` (0: all).
void fuseChildren(TreeNode& n, int depth, int maxDepth) {
  if (maxDepth > 0 && depth > maxDepth) return;
  while (mergeOnePair(n.children)) {
  }
  for (TreeNode& c : n.children)
    if (c.kind == NodeKind::Index) fuseChildren(c, depth + 1, maxDepth);
}

}  // namespace

IndexTree partialFusion(const IndexTree& t, int maxDepth) {
  IndexTree out = t;
  fuseChildren(out.root, 1, maxDepth);
  return out;
}

}  // namespace react
