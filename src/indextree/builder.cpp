// Statements -> index tree: one chain of index nodes per statement (docs/design.md, "Index trees").
#include "indextree/internal.hpp"

#include <algorithm>

namespace react {

namespace {

// Appends x to v unless present.
void addUnique(std::vector<std::string>& v, const std::string& x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

// The loops of one statement's chain, outermost first, or why one nest cannot iterate it.
struct ChainPlan {
  std::vector<IndexLoop> loops;
  Legality legality;
};

bool distinct(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return std::adjacent_find(v.begin(), v.end()) == v.end();
}

// The loop of each index the statement iterates sparsely (every level iterated by position of an
// operand stored at a pattern, under the index of the level above), into `loops`; the reason
// when two accesses disagree.
Legality sparseLoops(const Statement& s, const std::map<std::string, TensorStorage>& tensors,
                     std::map<std::string, IndexLoop>& loops) {
  auto note = [&](const std::string& tensor, const std::vector<std::string>& idx) -> Legality {
    const TensorStorage& t = tensors.at(tensor);
    const Format& f = t.decl.format;
    if (!f.hasSparseLevel() || t.shrunk()) return {};
    if (static_cast<int>(idx.size()) != f.rank() || !distinct(idx))
      return Legality::illegal("statement '" + s.str() + "': " + f.str() + " tensor '" + tensor + "' needs " +
                               std::to_string(f.rank()) + " distinct indices");
    for (int l = 0; l < f.rank(); ++l) {
      if (!f.level(l).iteratedByPosition()) continue;
      const std::string& index = idx[f.dimension(l)];
      IndexLoop loop = IndexLoop::sparse(index, t.decl.pattern, l, l == 0 ? "" : idx[f.dimension(l - 1)]);
      auto [it, fresh] = loops.emplace(index, loop);
      if (!fresh && !(it->second == loop))
        return Legality::illegal("statement '" + s.str() + "': index '" + index + "' would iterate two sparse patterns ('" +
                                 it->second.pattern + "' and '" + loop.pattern + "'); co-iteration is not supported");
    }
    return {};
  };
  auto decl = [&](const std::string& name) -> const TensorDecl& { return tensors.at(name).decl; };
  std::optional<CoIteration> merged = coIterationOf(s, decl);
  const bool unshrunk = std::none_of(tensors.begin(), tensors.end(), [&](const auto& t) {
    return t.second.shrunk() && (t.first == s.lhs || std::any_of(s.rhs->args.begin(), s.rhs->args.end(),
                                                                   [&](const Expr& a) { return a->tensor == t.first; }));
  });
  if (merged && unshrunk) {
    // The front end admits operands of one format, accessed with the result's indices.
    const ExprNode& first = *accesses(s.rhs).front();
    const Format& f = decl(first.tensor).format;
    const TensorStorage& out = tensors.at(s.lhs);
    const std::string assembled = out.decl.format.hasSparseLevel() ? out.decl.pattern : "";
    for (int l = 0; l < f.rank(); ++l) {
      if (!f.level(l).iteratedByPosition()) continue;
      const std::string& index = first.indices[f.dimension(l)];
      loops.emplace(index, IndexLoop::merge(index, merged->operands, merged->unite, assembled, l,
                                            l == 0 ? "" : first.indices[f.dimension(l - 1)]));
    }
    return {};
  }
  Legality legality = note(s.lhs, s.lhsIndices);
  for (const ExprNode* a : accesses(s.rhs))
    if (legality.ok()) legality = note(a->tensor, a->indices);
  return legality;
}

ChainPlan planChain(const Statement& s, const std::map<std::string, TensorStorage>& tensors) {
  ChainPlan plan;
  std::map<std::string, IndexLoop> sparse;
  plan.legality = sparseLoops(s, tensors, sparse);
  if (!plan.legality.ok()) return plan;

  // Preferred order: a sparse left-hand side's indices first, in storage order (its values are
  // written in pattern order), then first appearance over the right-hand side, then the left.
  std::vector<std::string> preferred;
  const TensorStorage& out = tensors.at(s.lhs);
  const Format& outFormat = out.decl.format;
  if (outFormat.hasSparseLevel() && !out.shrunk())
    for (int l = 0; l < outFormat.rank(); ++l) addUnique(preferred, s.lhsIndices.at(outFormat.dimension(l)));
  for (const auto& x : freeIndices(s.rhs)) addUnique(preferred, x);
  for (const auto& x : s.lhsIndices) addUnique(preferred, x);

  // Place indices in preferred order, deferring a sparse level until the index above it is placed.
  std::vector<std::string> order;
  while (order.size() < preferred.size()) {
    bool placed = false;
    for (const auto& x : preferred) {
      if (std::find(order.begin(), order.end(), x) != order.end()) continue;
      auto sp = sparse.find(x);
      if (sp != sparse.end() && !sp->second.parentIndex.empty() &&
          std::find(order.begin(), order.end(), sp->second.parentIndex) == order.end())
        continue;
      order.push_back(x);
      placed = true;
      break;
    }
    if (!placed) {
      plan.legality = Legality::illegal("statement '" + s.str() + "': no loop order nests every sparse level under the level above");
      return plan;
    }
  }
  for (const std::string& x : order) {
    auto sp = sparse.find(x);
    plan.loops.push_back(sp != sparse.end() ? sp->second : IndexLoop::dense(x));
  }
  return plan;
}

// The chain of a legal plan: its loops around the compute node.
TreeNode chainOf(const Statement& s, const ChainPlan& plan) {
  TreeNode node = TreeNode::compute(s);
  for (auto it = plan.loops.rbegin(); it != plan.loops.rend(); ++it) {
    TreeNode loop = TreeNode::index(*it);
    loop.children.push_back(std::move(node));
    node = std::move(loop);
  }
  return node;
}

}  // namespace

Legality chainLegality(const Statement& s, const std::map<std::string, TensorStorage>& tensors) {
  return planChain(s, tensors).legality;
}

TreeNode buildChain(const Statement& s, const std::map<std::string, TensorStorage>& tensors) {
  ChainPlan plan = planChain(s, tensors);
  REACT_ASSERT(plan.legality.ok(), "buildChain on a statement no loop nest can iterate: " + plan.legality.why);
  return chainOf(s, plan);
}

IndexTree buildIndexTree(const Program& p) {
  IndexTree t;
  t.indexSizes = p.indexSizes;
  for (const auto& [name, decl] : p.tensors) t.tensors[name] = TensorStorage{decl, std::vector<bool>(decl.shape.size(), true)};
  for (const Statement& s : p.statements) {
    ChainPlan plan = planChain(s, t.tensors);
    if (!plan.legality.ok()) throw UserError(plan.legality.why);  // the user's program
    t.root.children.push_back(chainOf(s, plan));
  }
  return t;
}

}  // namespace react
