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

// Statements in a subtree (resets excluded: they belong to their temporary's producer).
std::vector<const Statement*> statementsIn(const TreeNode& n) {
  std::vector<const Statement*> out;
  visitTree(n, [&](const TreeNode& leaf, const TreePath&) {
    if (leaf.kind == NodeKind::Compute && leaf.computeKind != ComputeKind::Reset) out.push_back(&leaf.stmt);
  });
  return out;
}

bool reads(const Statement& s, const std::string& tensor) {
  for (const ExprNode* a : accesses(s.rhs))
    if (a->tensor == tensor) return true;
  return false;
}

// Whether the plan lets loops at `depth` merge when `producer` (earlier) and `consumer` (later)
// are their subtrees: within the prefix limit, and within the limit of every edge between them.
bool allowed(const FusionPlan& plan, const IndexTree& t, const TreeNode& producer, const TreeNode& consumer,
             int depth) {
  if (plan.prefixDepth > 0 && depth > plan.prefixDepth) return false;
  if (plan.edgeDepth.empty()) return true;
  for (const Statement* w : statementsIn(producer)) {
    if (t.tensor(w->lhs).decl.role != TensorRole::Temporary) continue;
    for (const Statement* r : statementsIn(consumer)) {
      if (!reads(*r, w->lhs)) continue;
      auto limit = plan.edgeDepth.find({w->lhs, r->lhs});
      if (limit != plan.edgeDepth.end() && depth > limit->second) return false;
    }
  }
  return true;
}

// Merges one pair of siblings (loops at `depth`) if any that `plan` allows: an earlier loop into
// a later one with the same loop (the later is the host, so producers stay before consumers),
// moving the earlier past the siblings between them only when it is independent of each.
bool mergeOnePair(std::vector<TreeNode>& children, const IndexTree& t, const FusionPlan& plan, int depth) {
  for (size_t b = 0; b < children.size(); ++b) {
    if (children[b].kind != NodeKind::Index) continue;
    for (size_t a = b; a-- > 0;) {
      const TreeNode& cand = children[a];
      if (cand.kind != NodeKind::Index || !(cand.loop == children[b].loop)) continue;
      bool movable = true;
      for (size_t m = a + 1; m < b && movable; ++m) movable = independent(cand, children[m]);
      if (!movable || !fusable(cand, children[b]) || !allowed(plan, t, cand, children[b], depth)) break;
      std::vector<TreeNode> body = cand.children;
      for (TreeNode& c : children[b].children) body.push_back(std::move(c));
      children[b].children = std::move(body);
      children.erase(children.begin() + static_cast<long>(a));
      return true;
    }
  }
  return false;
}

// Merges the children of `n` (loops at depth `depth`) and, below, as far as `plan` allows.
void fuseChildren(TreeNode& n, const IndexTree& t, const FusionPlan& plan, int depth) {
  if (plan.prefixDepth > 0 && depth > plan.prefixDepth) return;
  while (mergeOnePair(n.children, t, plan, depth)) {
  }
  for (TreeNode& c : n.children)
    if (c.kind == NodeKind::Index) fuseChildren(c, t, plan, depth + 1);
}

}  // namespace

std::string FusionEdge::str() const { return temporary + " -> " + consumer; }

std::string FusionPlan::str() const {
  std::string out = prefixDepth > 0 ? "prefix " + std::to_string(prefixDepth) : "";
  for (const auto& [edge, depth] : edgeDepth)
    out += (out.empty() ? "" : "; ") + edge.str() + (depth == 0 ? " unfused" : " depth " + std::to_string(depth));
  return out;
}

std::vector<FusionEdge> fusionEdges(const IndexTree& t) {
  std::vector<const Statement*> all = statementsIn(t.root);
  std::vector<FusionEdge> out;
  for (const Statement* w : all) {
    if (t.tensor(w->lhs).decl.role != TensorRole::Temporary) continue;
    for (const Statement* r : all) {
      FusionEdge e{w->lhs, r->lhs};
      if (r != w && reads(*r, w->lhs) && std::find(out.begin(), out.end(), e) == out.end()) out.push_back(e);
    }
  }
  return out;
}

IndexTree partialFusion(const IndexTree& t, const FusionPlan& plan) {
  IndexTree out = t;
  // Tensor declarations do not change while merging: `t` answers the plan's role questions.
  fuseChildren(out.root, t, plan, 1);
  return out;
}

}  // namespace react
