// Partial (trie) fusion: merge sibling loops over the same index along the common prefix.
#include "fusion/internal.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

namespace react {

namespace {

// How a subtree uses one tensor, for merging loops over `index` (the subtree's own loop index):
// whether it writes the tensor, and the dimension every access names `index` in, or kNoDim when
// some access lacks `index` or two name it in different dimensions.
constexpr int kNoDim = -1;
struct TensorUse {
  bool write = false;
  int dim = kNoDim;
};
using Uses = std::map<std::string, TensorUse>;

Uses usesIn(const TreeNode& n) {
  const std::string index = n.kind == NodeKind::Index ? n.loop.index : "";
  Uses out;
  auto note = [&](const std::string& tensor, const std::vector<std::string>& indices, bool write) {
    auto it = std::find(indices.begin(), indices.end(), index);
    const int dim = it == indices.end() ? kNoDim : static_cast<int>(it - indices.begin());
    auto [u, added] = out.try_emplace(tensor, TensorUse{write, dim});
    if (added) return;
    u->second.write |= write;
    if (u->second.dim != dim) u->second.dim = kNoDim;
  };
  visitTree(n, [&](const TreeNode& leaf, const TreePath&) {
    if (leaf.kind != NodeKind::Compute) return;
    note(leaf.stmt.lhs, leaf.stmt.lhsIndices, true);
    for (const ExprNode* a : accesses(leaf.stmt.rhs)) note(a->tensor, a->indices, false);
  });
  return out;
}

// The uses of two subtrees as one (`into` absorbs `from`), in time linear in the smaller.
void absorb(Uses& into, Uses& from) {
  if (from.size() > into.size()) std::swap(into, from);
  for (const auto& [tensor, use] : from) {
    auto [u, added] = into.try_emplace(tensor, use);
    if (added) continue;
    u->second.write |= use.write;
    if (u->second.dim != use.dim) u->second.dim = kNoDim;
  }
}

// Calls f(a's use, b's use) for each tensor both touch, one of them writing; stops when f is false.
template <typename F>
bool everyConflict(const Uses& a, const Uses& b, F f) {
  const Uses& small = a.size() <= b.size() ? a : b;
  const Uses& large = a.size() <= b.size() ? b : a;
  for (const auto& [tensor, use] : small) {
    auto it = large.find(tensor);
    if (it != large.end() && (use.write || it->second.write) && !f(use, it->second)) return false;
  }
  return true;
}

// Iteration v of the merged loop may run a's body then b's body when every access to a shared,
// written tensor names the loop's index in one and the same dimension: then iteration v touches
// only the slice v of that tensor, in both subtrees.
bool fusable(const Uses& a, const Uses& b) {
  return everyConflict(a, b, [](const TensorUse& x, const TensorUse& y) { return x.dim != kNoDim && x.dim == y.dim; });
}

bool independent(const Uses& a, const Uses& b) {
  return everyConflict(a, b, [](const TensorUse&, const TensorUse&) { return false; });
}

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
// are their subtrees, with tensor uses `producerUses` and `consumerUses`: within the prefix limit,
// and within the limit of every edge between them. Only the plan's edges limited below `depth`
// are looked at, and their statements only when the uses say the subtrees may hold both ends:
// a merge costs the plan's size, not the subtrees' (they grow along a chain of merges).
bool allowed(const FusionPlan& plan, const IndexTree& t, const TreeNode& producer, const Uses& producerUses,
             const TreeNode& consumer, const Uses& consumerUses, int depth) {
  if (plan.prefixDepth > 0 && depth > plan.prefixDepth) return false;
  auto writes = [](const Uses& u, const std::string& tensor) {
    auto it = u.find(tensor);
    return it != u.end() && it->second.write;
  };
  for (const auto& [edge, limit] : plan.edgeDepth) {
    if (depth <= limit || !writes(producerUses, edge.temporary) || !writes(consumerUses, edge.consumer) ||
        !consumerUses.count(edge.temporary) || t.tensor(edge.temporary).decl.role != TensorRole::Temporary)
      continue;
    bool produced = false, consumed = false;
    for (const Statement* w : statementsIn(producer)) produced |= w->lhs == edge.temporary;
    for (const Statement* r : statementsIn(consumer)) consumed |= r->lhs == edge.consumer && reads(*r, edge.temporary);
    if (produced && consumed) return false;
  }
  return true;
}

// Merges siblings (loops at `depth`) where `plan` allows: an earlier loop into a later one with the
// same loop (the later is the host, so producers stay before consumers), moving the earlier past
// the siblings between them only when it is independent of each. For each sibling b in order, the
// nearest earlier one with the same loop is the candidate. A merge changes nothing before the
// merged-away sibling, so the scan resumes just after it, and every sibling's tensor uses are kept
// (merged ones combined): linear in the siblings for chains of merges, where rescanning from the
// first sibling and recomputing the uses made it quadratic.
void mergeSiblings(std::vector<TreeNode>& children, const IndexTree& t, const FusionPlan& plan, int depth) {
  const size_t n = children.size();
  std::vector<Uses> uses(n);
  for (size_t c = 0; c < n; ++c) uses[c] = usesIn(children[c]);
  // The siblings not merged away, as a list: prev[c] is the one before c (n: none).
  std::vector<size_t> prev(n), next(n);
  std::vector<bool> gone(n, false);
  for (size_t c = 0; c < n; ++c) {
    prev[c] = c == 0 ? n : c - 1;
    next[c] = c + 1;
  }
  for (size_t b = 0; b < n;) {
    size_t resume = next[b];
    if (children[b].kind == NodeKind::Index) {
      for (size_t a = prev[b]; a != n; a = prev[a]) {
        const TreeNode& cand = children[a];
        if (cand.kind != NodeKind::Index || !(cand.loop == children[b].loop)) continue;
        bool movable = true;
        for (size_t m = next[a]; m != b && movable; m = next[m]) movable = independent(uses[a], uses[m]);
        if (!movable || !fusable(uses[a], uses[b]) || !allowed(plan, t, cand, uses[a], children[b], uses[b], depth))
          break;
        std::vector<TreeNode>& body = children[a].children;
        body.insert(body.end(), std::make_move_iterator(children[b].children.begin()),
                    std::make_move_iterator(children[b].children.end()));
        children[b].children = std::move(body);
        absorb(uses[b], uses[a]);
        gone[a] = true;
        if (prev[a] != n) next[prev[a]] = next[a];
        prev[next[a]] = prev[a];
        resume = next[a];
        break;
      }
    }
    b = resume;
  }
  size_t kept = 0;
  for (size_t c = 0; c < n; ++c) {
    if (gone[c]) continue;
    if (kept != c) children[kept] = std::move(children[c]);
    ++kept;
  }
  children.resize(kept);
}

// Merges the children of `n` (loops at depth `depth`) and, below, as far as `plan` allows.
void fuseChildren(TreeNode& n, const IndexTree& t, const FusionPlan& plan, int depth) {
  if (plan.prefixDepth > 0 && depth > plan.prefixDepth) return;
  mergeSiblings(n.children, t, plan, depth);
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
  std::map<std::string, std::vector<const Statement*>> readers;  // tensor -> its readers, in order
  for (const Statement* r : all) {
    std::set<std::string> read;
    for (const ExprNode* a : accesses(r->rhs))
      if (read.insert(a->tensor).second) readers[a->tensor].push_back(r);
  }
  std::vector<FusionEdge> out;
  std::set<FusionEdge> seen;
  for (const Statement* w : all) {
    auto r = readers.find(w->lhs);
    if (r == readers.end() || t.tensor(w->lhs).decl.role != TensorRole::Temporary) continue;
    for (const Statement* reader : r->second) {
      FusionEdge e{w->lhs, reader->lhs};
      if (reader != w && seen.insert(e).second) out.push_back(e);
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
