// Restriction to a pattern: a sum of products that reads a temporary which is zero outside the
// loops of a sparse pattern iterates those loops, so that partial fusion can merge it into its
// producer's loops and the temporary shrinks (MTTKRP: `T0(i,k,j) = B(i,k,l) * D(l,j)` is zero
// outside B's (i,k) fibres, so `A(i,j) += T0(i,k,j) * C(k,j)` runs over them, and T0 becomes one
// row of j per fibre).
#include "fusion/internal.hpp"

#include <algorithm>

namespace react {

namespace {

// A top-level chain of one compute node: its loops, outermost first, and its statement.
struct Chain {
  std::vector<IndexLoop> loops;
  const TreeNode* leaf = nullptr;
};

std::optional<Chain> chainOf(const TreeNode& top) {
  Chain c;
  const TreeNode* n = &top;
  for (; n->kind == NodeKind::Index && n->children.size() == 1; n = &n->children[0]) c.loops.push_back(n->loop);
  if (n->kind != NodeKind::Compute || n->computeKind != ComputeKind::Compute) return std::nullopt;
  c.leaf = n;
  return c;
}

bool contains(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// The loops outside which `producer` writes nothing: its sparse loops over one pattern's levels,
// from the first compressed one down while each binds an index of the temporary it writes (and,
// under a dense first level, the dense level's index does too). Empty when there are none.
std::vector<IndexLoop> nonzeroLoops(const IndexTree& t, const Chain& producer) {
  const Statement& s = producer.leaf->stmt;
  for (const IndexLoop& first : producer.loops) {
    if (first.kind != LoopKind::Sparse) continue;
    const Format& f = t.tensor(first.pattern).decl.format;
    const int start = f.level(0).kind == LevelKind::Dense ? 1 : 0;
    if (first.level != start || (start == 1 && !contains(s.lhsIndices, first.parentIndex))) continue;
    std::vector<IndexLoop> loops;
    for (int l = start; l < f.rank(); ++l) {
      auto overLevel = [&](const IndexLoop& x) { return x.kind == LoopKind::Sparse && x.pattern == first.pattern && x.level == l; };
      auto at = std::find_if(producer.loops.begin(), producer.loops.end(), overLevel);
      if (at == producer.loops.end() || !contains(s.lhsIndices, at->index)) break;
      loops.push_back(*at);
    }
    if (!loops.empty()) return loops;
  }
  return {};
}

// The consumer's chain over `nonzero` (the producer's loops, renamed to the consumer's indices):
// the dense parent of a first compressed level, the sparse loops, then the consumer's other loops
// in their order; or nothing when the consumer cannot take them.
std::optional<std::vector<IndexLoop>> restrictedLoops(const Chain& consumer, const std::vector<IndexLoop>& nonzero,
                                                      const std::map<std::string, std::string>& rename) {
  auto current = [&](const std::string& index) {
    return std::find_if(consumer.loops.begin(), consumer.loops.end(), [&](const IndexLoop& l) { return l.index == index; });
  };
  std::vector<IndexLoop> out;
  const IndexLoop& first = nonzero.front();
  if (!first.parentIndex.empty()) {  // under a dense first level: its loop first
    auto parent = current(rename.at(first.parentIndex));
    if (parent == consumer.loops.end() || parent->kind != LoopKind::Dense) return std::nullopt;
    out.push_back(*parent);
  }
  for (const IndexLoop& l : nonzero) {
    auto loop = current(rename.at(l.index));
    if (loop == consumer.loops.end() || loop->kind != LoopKind::Dense) return std::nullopt;
    out.push_back(IndexLoop::sparse(rename.at(l.index), l.pattern, l.level, l.parentIndex.empty() ? "" : rename.at(l.parentIndex)));
  }
  for (const IndexLoop& l : consumer.loops)
    if (std::none_of(out.begin(), out.end(), [&](const IndexLoop& x) { return x.index == l.index; })) out.push_back(l);
  return out;
}

// The one access to `name` in `leaf`'s statement when that statement sums a product with it as a
// factor (zero wherever `name` is zero, and not writing it), else null.
const ExprNode* summedFactor(const TreeNode& leaf, const std::string& name) {
  const Statement& s = leaf.stmt;
  if (!leaf.accumulates() || s.reduce != ReduceOp::Sum || s.lhs == name) return nullptr;
  std::vector<const ExprNode*> reads;
  for (const ExprNode* a : accesses(s.rhs))
    if (a->tensor == name) reads.push_back(a);
  const std::vector<Expr> factors = fusion::factorsOf(s.rhs);
  auto isRead = [&](const Expr& f) { return reads.size() == 1 && f.get() == reads[0]; };
  return std::any_of(factors.begin(), factors.end(), isRead) ? reads[0] : nullptr;
}

TreeNode chainNode(const std::vector<IndexLoop>& loops, const TreeNode& leaf) {
  TreeNode node = leaf;
  for (auto it = loops.rbegin(); it != loops.rend(); ++it) {
    TreeNode loop = TreeNode::index(*it);
    loop.children.push_back(std::move(node));
    node = std::move(loop);
  }
  return node;
}

}  // namespace

IndexTree restrictToPattern(const IndexTree& t) {
  IndexTree out = t;
  std::vector<TreeNode>& chains = out.root.children;
  // Each temporary's writers, by top-level chain.
  std::map<std::string, std::vector<size_t>> writers;
  for (size_t c = 0; c < chains.size(); ++c)
    visitTree(chains[c], [&](const TreeNode& n, const TreePath&) {
      if (n.kind == NodeKind::Compute) writers[n.stmt.lhs].push_back(c);
    });
  for (const auto& [name, storage] : t.tensors) {
    const TensorDecl& d = storage.decl;
    if (d.role != TensorRole::Temporary || d.format.hasSparseLevel() || storage.shrunk() || writers[name].size() != 1) continue;
    std::optional<Chain> producer = chainOf(chains[writers[name][0]]);
    // Zero where it is not written: its storage starts at 0, the identity of a sum.
    if (!producer || (producer->leaf->accumulates() && producer->leaf->stmt.reduce != ReduceOp::Sum)) continue;
    const std::vector<IndexLoop> nonzero = nonzeroLoops(t, *producer);
    if (nonzero.empty()) continue;
    for (size_t c = writers[name][0] + 1; c < chains.size(); ++c) {
      std::optional<Chain> consumer = chainOf(chains[c]);
      const ExprNode* read = consumer ? summedFactor(*consumer->leaf, name) : nullptr;
      if (!read) continue;
      std::map<std::string, std::string> rename;  // the producer's index of each dimension -> the consumer's
      for (size_t dim = 0; dim < read->indices.size(); ++dim) rename[producer->leaf->stmt.lhsIndices[dim]] = read->indices[dim];
      if (auto loops = restrictedLoops(*consumer, nonzero, rename)) chains[c] = chainNode(*loops, *consumer->leaf);
    }
  }
  return out;
}

}  // namespace react
