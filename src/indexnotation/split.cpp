// One-operator form (ReACT's step 1): every right-hand side becomes one operator over leaves, or
// a single leaf (a copy, possibly reduced); compiler temporaries T0, T1, ... hold the rest.
// See docs/semantics.md, "One-operator form".
#include "indexnotation/internal.hpp"

#include <algorithm>

namespace react::detail {
namespace {

bool isLeaf(const Expr& e) { return e->op == Op::Access || e->op == Op::Literal; }

// A statement not yet written: `?(idx) = rhs`, reduced with `reduce` over the other free indices.
struct Pending {
  std::vector<std::string> idx;
  Expr rhs;
  ReduceOp reduce = ReduceOp::Sum;
};

std::vector<std::string> unite(std::vector<std::string> a, const std::vector<std::string>& b) {
  for (const std::string& i : b)
    if (!contains(a, i)) a.push_back(i);
  return a;
}

std::vector<std::string> without(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::string> out;
  for (const std::string& i : a)
    if (!contains(b, i)) out.push_back(i);
  return out;
}

// A product the user grouped with parentheses (below the top) stays one factor.
void flattenProduct(const Expr& e, std::vector<Expr>& out, bool top = true) {
  if (e->op != Op::Mul || (e->grouped && !top)) return out.push_back(e);
  flattenProduct(e->args[0], out, false);
  flattenProduct(e->args[1], out, false);
}

class Splitter {
 public:
  explicit Splitter(const Program& p) : p_(p) {
    for (const auto& [name, decl] : p.tensors) {
      taken_.insert(name);
      if (decl.format.hasSparseLevel()) csr_.insert(name);
    }
    for (const Statement& s : p.statements) {
      taken_.insert(s.lhs);
      if (s.rhs)
        for (const ExprNode* a : accesses(s.rhs)) taken_.insert(a->tensor);
    }
  }

  SplitResult run() {
    out_.program.tensors = p_.tensors;
    out_.program.indexSizes = p_.indexSizes;
    for (size_t n = 0; n < p_.statements.size(); ++n) {
      current_ = static_cast<int>(n);
      const Statement& s = p_.statements[n];
      Expr rhs = s.rhs;
      std::vector<std::string> reduced = s.reductionIndices();
      if (!reduced.empty()) rhs = reduceOver(s.reduce, reduced, rhs, s.pos);
      emit(s.lhs, compute(s.lhsIndices, rhs), s.pos);
    }
    return std::move(out_);
  }

 private:
  // reduce(op, k, reduce(op, k2, body)) is reduce(op, k + k2, body).
  static Expr reduceOver(ReduceOp op, std::vector<std::string> k, const Expr& body, SourcePos pos) {
    if (body->op == Op::Reduce && body->reduceOp == op) {
      k.insert(k.end(), body->reduceIndices.begin(), body->reduceIndices.end());
      return reduce(op, k, body->args[0], body->pos);
    }
    return reduce(op, k, body, pos);
  }

  // Emits what `e` needs and returns the statement that computes it from leaves.
  Pending compute(const std::vector<std::string>& idx, const Expr& e) {
    if (e->op == Op::Reduce) return e->reduceOp == ReduceOp::Sum ? sum(idx, e) : Pending{idx, leaf(e->args[0]), ReduceOp::Max};
    if (isLeaf(e)) return {idx, e, ReduceOp::Sum};
    std::vector<Expr> leaves;
    for (const Expr& a : e->args) leaves.push_back(leaf(a));
    return {idx, apply(e->op, leaves, e->pos), ReduceOp::Sum};
  }

  Expr leaf(const Expr& e) {
    if (isLeaf(e)) return e;
    Expr t = temporary(compute(freeIndices(e), e));
    if (e->grouped) out_.grouped.insert(t->tensor);
    return t;
  }

  // A sum over a product: each summed index is summed as soon as only one factor holds it;
  // otherwise the first two factors holding summed indices are contracted; factors without summed
  // indices are multiplied in last, in their original order.
  Pending sum(const std::vector<std::string>& idx, const Expr& e) {
    const Expr& body = e->args[0];
    std::vector<Expr> items;
    flattenProduct(body, items);
    for (Expr& f : items) f = leaf(f);
    std::vector<std::string> summed;
    for (const std::string& k : e->reduceIndices)
      if (std::any_of(items.begin(), items.end(), [&](const Expr& f) { return contains(f->indices, k); }))
        summed.push_back(k);
    if (summed.empty()) return {idx, body, ReduceOp::Sum};  // not reached for checked programs
    auto othersHold = [&](size_t skipA, size_t skipB, const std::string& k) {
      for (size_t n = 0; n < items.size(); ++n)
        if (n != skipA && n != skipB && contains(items[n]->indices, k)) return true;
      return false;
    };
    auto holdsSummed = [&](const Expr& f) {
      return std::any_of(f->indices.begin(), f->indices.end(), [&](const std::string& i) { return contains(summed, i); });
    };
    while (!summed.empty()) {
      for (size_t n = 0; n < items.size(); ++n) {
        std::vector<std::string> own;
        for (const std::string& k : items[n]->indices)
          if (contains(summed, k) && !othersHold(n, n, k)) own.push_back(k);
        if (own.empty()) continue;
        if (items.size() == 1) return {idx, items[0], ReduceOp::Sum};
        items[n] = temporary({without(items[n]->indices, own), items[n], ReduceOp::Sum});
        summed = without(summed, own);
      }
      if (summed.empty()) break;
      size_t a = 0;
      while (!holdsSummed(items[a])) ++a;
      size_t b = a + 1;
      while (!holdsSummed(items[b])) ++b;
      Expr product = apply(Op::Mul, {items[a], items[b]}, body->pos);
      if (items.size() == 2) return {idx, product, ReduceOp::Sum};
      std::vector<std::string> here, both = unite(items[a]->indices, items[b]->indices);
      for (const std::string& k : both)
        if (contains(summed, k) && !othersHold(a, b, k)) here.push_back(k);
      items[a] = temporary({without(both, here), product, ReduceOp::Sum});
      items.erase(items.begin() + static_cast<long>(b));
      summed = without(summed, here);
    }
    Expr acc = items[0];
    for (size_t n = 1; n < items.size(); ++n) {
      Expr product = apply(Op::Mul, {acc, items[n]}, body->pos);
      if (n + 1 == items.size()) return {idx, product, ReduceOp::Sum};
      acc = temporary({unite(acc->indices, items[n]->indices), product, ReduceOp::Sum});
    }
    return {idx, acc, ReduceOp::Sum};
  }

  // The csr operand an element-wise statement keeps the stored entries of (docs/semantics.md),
  // if any: a result over the same indices is csr with its pattern.
  const ExprNode* storedEntryOperand(const std::vector<std::string>& idx, const Expr& rhs) const {
    std::vector<std::string> free = freeIndices(rhs);
    auto sameSet = [](std::vector<std::string> a, std::vector<std::string> b) {
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      return a == b;
    };
    if (!sameSet(free, idx)) return nullptr;  // a reduction
    for (const ExprNode* a : accesses(rhs))
      if (csr_.count(a->tensor) && sameSet(a->indices, idx)) return a;
    return nullptr;
  }

  // Writes `p` into a new temporary, or reuses an earlier temporary computing the same thing.
  Expr temporary(Pending p) {
    // A stored-entry result takes its csr operand's index order, so that it stays csr.
    if (const ExprNode* a = storedEntryOperand(p.idx, p.rhs)) p.idx = a->indices;
    Statement s{"", p.idx, p.rhs, p.reduce, p.rhs->pos};
    canonical(s);
    for (const Statement& t : out_.program.statements)
      if (out_.temporaries.count(t.lhs) && t.lhsIndices == s.lhsIndices && t.reduce == s.reduce &&
          sameExpr(t.rhs, s.rhs))
        return access(t.lhs, t.lhsIndices, s.pos);
    while (taken_.count("T" + std::to_string(next_))) ++next_;
    s.lhs = "T" + std::to_string(next_++);
    out_.temporaries.insert(s.lhs);
    if (storedEntryOperand(s.lhsIndices, s.rhs)) csr_.insert(s.lhs);
    push(s);
    return access(s.lhs, s.lhsIndices, s.pos);
  }

  void emit(const std::string& lhs, const Pending& p, SourcePos pos) {
    Statement s{lhs, p.idx, p.rhs, p.reduce, pos};
    canonical(s);
    // A declared format is kept (-f=A:dense makes a stored-entry result dense): only undeclared
    // results follow their csr operand.
    auto decl = p_.tensors.find(lhs);
    bool declared = decl != p_.tensors.end() && !decl->second.format.levels().empty();
    if (const ExprNode* a = storedEntryOperand(s.lhsIndices, s.rhs); !declared && a && a->indices == s.lhsIndices) csr_.insert(lhs);
    push(s);
  }

  static void canonical(Statement& s) {
    if (s.reductionIndices().empty()) s.reduce = ReduceOp::Sum;
  }

  void push(const Statement& s) {
    out_.program.statements.push_back(s);
    out_.origin.push_back(current_);
  }

  const Program& p_;
  SplitResult out_;
  std::set<std::string> taken_;
  std::set<std::string> csr_;  // tensors known to be csr: inputs and stored-entry results
  int next_ = 0;
  int current_ = 0;
};

}  // namespace

SplitResult splitOnly(const Program& p) { return Splitter(p).run(); }

}  // namespace react::detail

namespace react {

Program splitStatements(const Program& p) {
  detail::checkProgram(p);  // reports errors in the order of the user's text
  return detail::finishProgram(detail::splitOnly(p));
}

}  // namespace react
