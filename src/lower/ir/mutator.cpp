// The Mutator's default: rebuild a node only when one of its children changed.
#include "lower/ir/mutator.hpp"

namespace react::ir {

KernelIR Mutator::mutate(KernelIR k) {
  k.body = visitBody(k.body);
  return k;
}

std::vector<Stmt> Mutator::visitBody(const std::vector<Stmt>& body) {
  std::vector<Stmt> out;
  out.reserve(body.size());
  for (const Stmt& s : body) out.push_back(mutate(s));
  return out;
}

Expr Mutator::mutateChildren(const Expr& e) {
  std::vector<Expr> args;
  bool changed = false;
  for (const Expr& a : e->args) {
    args.push_back(mutate(a));
    changed |= args.back() != a;
  }
  if (!changed) return e;
  auto n = std::make_shared<ExprNode>(*e);
  n->args = std::move(args);
  return n;
}

Stmt Mutator::mutateChildren(const Stmt& s) {
  auto n = copy(s);
  n->value = mutate(s->value);
  n->target = mutate(s->target);
  n->lo = mutate(s->lo);
  n->hi = mutate(s->hi);
  n->laneTrips = mutate(s->laneTrips);
  n->body = visitBody(s->body);
  bool changed = n->value != s->value || n->target != s->target || n->lo != s->lo || n->hi != s->hi ||
                 n->laneTrips != s->laneTrips || n->body != s->body;
  for (MergeFinger& f : n->fingers) {
    const MergeFinger was = f;
    f.lo = mutate(was.lo);
    f.hi = mutate(was.hi);
    changed |= f.lo != was.lo || f.hi != was.hi;
  }
  if (n->appended) {
    const Expr was = n->appended->lo;
    n->appended->lo = mutate(was);
    changed |= n->appended->lo != was;
  }
  return changed ? n : s;
}

bool namesReduced(const ExprNode& e, const ExprNode& reduced) {
  if (e.kind != reduced.kind) return false;
  return reduced.kind == ExprKind::Var ? e.name == reduced.name : e.tensor == reduced.tensor;
}

bool writesReduced(const StmtNode& assign, const ExprNode& reduced) {
  return assign.kind == StmtKind::Assign && namesReduced(*assign.target, reduced);
}

std::vector<Stmt> retargetWrites(const std::vector<Stmt>& body, const Expr& reduced, const Expr& target) {
  struct Retarget : Mutator {
    const Expr* reduced;
    const Expr* target;
    Stmt visit(const Stmt& s) override {
      if (!writesReduced(*s, **reduced)) return mutateChildren(s);
      auto n = copy(s);
      n->target = *target;
      return n;
    }
  } retarget;
  retarget.reduced = &reduced;
  retarget.target = &target;
  return retarget.mutate(body);
}

void forEachStmt(const Stmt& s, const std::function<void(const Stmt&)>& f) {
  f(s);
  for (const Stmt& c : s->body) forEachStmt(c, f);
}

void forEachStmt(const std::vector<Stmt>& body, const std::function<void(const Stmt&)>& f) {
  for (const Stmt& s : body) forEachStmt(s, f);
}

void forEachExpr(const Expr& e, const std::function<void(const Expr&)>& f) {
  if (!e) return;
  f(e);
  for (const Expr& a : e->args) forEachExpr(a, f);
}

void forEachOwnExpr(const Stmt& s, const std::function<void(const Expr&)>& f) {
  for (const Expr& e : {s->target, s->value, s->lo, s->hi, s->laneTrips}) forEachExpr(e, f);
  for (const MergeFinger& m : s->fingers) {
    forEachExpr(m.lo, f);
    forEachExpr(m.hi, f);
  }
  if (s->appended) forEachExpr(s->appended->lo, f);
}

void forEachExpr(const Stmt& s, const std::function<void(const Expr&)>& f) {
  forEachStmt(s, [&](const Stmt& t) { forEachOwnExpr(t, f); });
}

}  // namespace react::ir
