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

// Inlines `producer` into `consumer`, or returns nothing when one nest cannot compute both: a
// reduction inlines only as a factor of a sum of products (distributivity), once.
std::optional<Statement> inlineInto(IndexTree& t, const Statement& producer, const Statement& consumer) {
  const std::string& name = producer.lhs;
  if (producer.reductionIndices().empty()) {
    Statement s = consumer;
    s.rhs = mapAccesses(consumer.rhs, [&](const ExprNode& a) -> Expr {
      if (a.tensor != name) return std::make_shared<ExprNode>(a);
      return instantiate(t, producer, a, consumer);
    });
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
