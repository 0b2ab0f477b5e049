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
    if (d.format.hasSparseLevel()) out.insert({d.pattern, a->indices});
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
  if (out.format.hasSparseLevel()) own.insert({out.pattern, consumer.lhsIndices});
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
// A failed attempt leaves `t` as it was: it only adds index sizes (fresh reduction indices), which
// are put back; consumers are rebuilt only where they change.
bool inlineOne(IndexTree& t, std::vector<Statement>& stmts) {
  for (size_t p = 0; p < stmts.size(); ++p) {
    const std::string name = stmts[p].lhs;
    if (t.tensor(name).decl.role != TensorRole::Temporary) continue;
    const std::map<std::string, int64_t> sizesBefore = t.indexSizes;
    std::vector<std::pair<size_t, Statement>> inlined;  // consumer position, its new statement
    bool ok = true;
    for (size_t c = p + 1; c < stmts.size() && ok; ++c) {
      if (!readsTensor(stmts[c].rhs, name)) continue;
      auto s = inlineInto(t, stmts[p], stmts[c]);
      if (s) inlined.emplace_back(c, std::move(*s));
      else ok = false;
    }
    // One nest must still be able to iterate each statement (no co-iteration of two patterns).
    for (size_t i = 0; i < inlined.size() && ok; ++i) ok = chainLegality(inlined[i].second, t.tensors).ok();
    if (!ok || inlined.empty()) {
      t.indexSizes = sizesBefore;
      continue;
    }
    for (auto& [c, s] : inlined) stmts[c] = std::move(s);
    stmts.erase(stmts.begin() + static_cast<long>(p));
    t.tensors.erase(name);
    return true;
  }
  return false;
}

}  // namespace

IndexTree maximalFusion(const IndexTree& t) {
  IndexTree out;  // declarations only: the statements are rebuilt into chains at the end
  out.tensors = t.tensors;
  out.indexSizes = t.indexSizes;
  std::vector<Statement> stmts = fusion::statementsOf(t);
  while (inlineOne(out, stmts)) {
  }
  return fusion::withChains(out, stmts);
}

}  // namespace react
