// Maximal fusion (TACO's default): inline temporaries into their consumers, one nest per statement.
#include "fusion/internal.hpp"

#include <algorithm>

namespace react {

namespace {

using fusion::factorsOf;

bool readsTensor(const Expr& e, const std::string& name) {
  for (const ExprNode* a : accesses(e))
    if (a->tensor == name) return true;
  return false;
}

// The producer's right-hand side as seen through the consumer's access `use`: its left-hand
// indices renamed to the access's, its reduction indices to names the consumer does not use.
Expr instantiate(IndexTree& t, const Statement& producer, const ExprNode& use, const Statement& consumer) {
  std::map<std::string, std::string> renaming;
  for (size_t d = 0; d < producer.lhsIndices.size(); ++d) renaming[producer.lhsIndices[d]] = use.indices[d];
  std::set<std::string> taken(consumer.lhsIndices.begin(), consumer.lhsIndices.end());
  for (const auto& x : freeIndices(consumer.rhs)) taken.insert(x);
  for (const auto& r : producer.reductionIndices()) {
    if (!taken.count(r)) {
      renaming[r] = r;
      taken.insert(r);
      continue;
    }
    std::string fresh = fusion::freshIndex(t, r, taken);
    t.indexSizes[fresh] = t.indexSizes.at(r);
    renaming[r] = fresh;
    taken.insert(fresh);
  }
  return renameIndices(producer.rhs, renaming);
}

// Csr operands (pattern and indices) an expression iterates.
std::set<std::pair<std::string, std::vector<std::string>>> sparseIterations(const IndexTree& t, const Expr& e) {
  std::set<std::pair<std::string, std::vector<std::string>>> out;
  for (const ExprNode* a : accesses(e)) {
    const TensorDecl& d = t.tensor(a->tensor).decl;
    if (d.format.isSparse()) out.insert({d.pattern, a->indices});
  }
  return out;
}

// Inlining must not shrink the consumer's iteration space: the producer's csr operands would make
// the consumer iterate only their stored entries. That is exact when the consumer already iterates
// them, or when the inlined value is a factor of the consumer's product (it is zero elsewhere).
bool keepsIterationSpace(const IndexTree& t, const Expr& inlined, const Statement& consumer, bool isFactor) {
  if (isFactor) return true;
  auto own = sparseIterations(t, consumer.rhs);
  const TensorDecl& out = t.tensor(consumer.lhs).decl;
  if (out.format.isSparse()) own.insert({out.pattern, consumer.lhsIndices});
  for (const auto& s : sparseIterations(t, inlined))
    if (!own.count(s)) return false;
  return true;
}

// Inlines `producer` into `consumer`, or returns nothing when one nest cannot compute both: a
// reduction inlines only as a factor of a sum of products (distributivity), once.
std::optional<Statement> inlineInto(IndexTree& t, const Statement& producer, const Statement& consumer) {
  const std::string& name = producer.lhs;
  // Zeros annihilate in a product that is summed (or not reduced), not in a max.
  bool isFactor = false;
  if (consumer.reduce == ReduceOp::Sum || consumer.reductionIndices().empty())
    for (const Expr& f : factorsOf(consumer.rhs)) isFactor |= f->op == Op::Access && f->tensor == name;
  if (producer.reductionIndices().empty()) {
    bool ok = true;
    Statement s = consumer;
    s.rhs = mapAccesses(consumer.rhs, [&](const ExprNode& a) -> Expr {
      if (a.tensor != name) return std::make_shared<ExprNode>(a);
      Expr inlined = instantiate(t, producer, a, consumer);
      ok = ok && keepsIterationSpace(t, inlined, consumer, isFactor);
      return inlined;
    });
    if (!ok) return std::nullopt;
    return s;
  }
  if (producer.reduce != ReduceOp::Sum) return std::nullopt;
  if (consumer.reduce != ReduceOp::Sum && !consumer.reductionIndices().empty()) return std::nullopt;
  std::vector<Expr> factors = factorsOf(consumer.rhs);
  std::vector<Expr> inlined;
  int uses = 0;
  for (const Expr& f : factors) {
    if (f->op == Op::Access && f->tensor == name) {
      ++uses;
      for (const Expr& g : factorsOf(instantiate(t, producer, *f, consumer))) inlined.push_back(g);
    } else {
      if (readsTensor(f, name)) return std::nullopt;
      inlined.push_back(f);
    }
  }
  if (uses != 1) return std::nullopt;
  Statement s = consumer;
  s.rhs = fusion::productOf(inlined);
  s.reduce = ReduceOp::Sum;
  return s;
}

// One inlining step: the first temporary that every consumer can absorb. False when none can.
bool inlineOne(IndexTree& t, std::vector<Statement>& stmts) {
  for (size_t p = 0; p < stmts.size(); ++p) {
    const std::string name = stmts[p].lhs;
    if (t.tensor(name).decl.role != TensorRole::Temporary) continue;
    IndexTree trial = t;
    std::vector<Statement> next = stmts;
    bool ok = true, used = false;
    for (size_t c = p + 1; c < stmts.size() && ok; ++c) {
      if (!readsTensor(stmts[c].rhs, name)) continue;
      used = true;
      auto s = inlineInto(trial, stmts[p], stmts[c]);
      if (s) next[c] = *s;
      else ok = false;
    }
    // One nest must still be able to iterate each statement (no co-iteration of two patterns).
    try {
      for (size_t c = p + 1; c < next.size() && ok; ++c) buildChain(next[c], trial.tensors);
    } catch (const Error&) {
      ok = false;
    }
    if (!ok || !used) continue;
    next.erase(next.begin() + static_cast<long>(p));
    trial.tensors.erase(name);
    t = std::move(trial);
    stmts = std::move(next);
    return true;
  }
  return false;
}

}  // namespace

IndexTree maximalFusion(const IndexTree& t) {
  IndexTree out = t;
  std::vector<Statement> stmts = fusion::statementsOf(t);
  while (inlineOne(out, stmts)) {
  }
  return fusion::withChains(out, stmts);
}

}  // namespace react
