// Rewriting and walking the loop IR, in the manner of Halide's IRMutator: a pass overrides the
// hooks for what it changes; everything else is rebuilt only where a child changed, and shared
// where nothing did.
#pragma once

#include "lower/ir/ir.hpp"

#include <functional>

namespace react::ir {

class Mutator {
 public:
  virtual ~Mutator() = default;
  Expr mutate(const Expr& e) { return e ? visit(e) : e; }
  Stmt mutate(const Stmt& s) { return visit(s); }
  std::vector<Stmt> mutate(const std::vector<Stmt>& body) { return visitBody(body); }
  KernelIR mutate(KernelIR k);

 protected:
  virtual Expr visit(const Expr& e) { return mutateChildren(e); }
  virtual Stmt visit(const Stmt& s) { return mutateChildren(s); }
  // A statement list: a pass that inserts or drops statements overrides this.
  virtual std::vector<Stmt> visitBody(const std::vector<Stmt>& body);
  Expr mutateChildren(const Expr& e);
  Stmt mutateChildren(const Stmt& s);
};

// Does `e` name what a reduction writes: the variable, or any element of the (scalar) tensor,
// `reduced` names? writesReduced: is `assign` an assignment to it?
bool namesReduced(const ExprNode& e, const ExprNode& reduced);
bool writesReduced(const StmtNode& assign, const ExprNode& reduced);
// The statements with every assignment to what `reduced` names redirected to `target` (an
// accumulator).
std::vector<Stmt> retargetWrites(const std::vector<Stmt>& body, const Expr& reduced, const Expr& target);

// Read-only walks, in execution (pre-)order.
void forEachStmt(const Stmt& s, const std::function<void(const Stmt&)>& f);
void forEachStmt(const std::vector<Stmt>& body, const std::function<void(const Stmt&)>& f);
void forEachExpr(const Expr& e, const std::function<void(const Expr&)>& f);
// Every expression a statement holds itself (not those of the statements inside it).
void forEachOwnExpr(const Stmt& s, const std::function<void(const Expr&)>& f);
// Every expression of `s` and of the statements inside it.
void forEachExpr(const Stmt& s, const std::function<void(const Expr&)>& f);

}  // namespace react::ir
