// OpenMP, reassociated order: in an innermost loop, a division by a value the loop does not change
// becomes a multiplication by its reciprocal, computed once before the loop.
//
// Why: a row normalisation divides every stored entry by its row's sum. A vector division costs
// 8 to 16 times a multiplication's throughput, about as long as the entry's load from memory, so
// at one thread it was the kernel's bound (TACO gets the multiplication from -ffast-math). The
// price is rounding: x * fl(1/d) has a relative error of at most 2u + u^2 (u = 2^-53 in float64)
// where fl(x/d) has u, which the reassociated order allows (docs/design.md, "Floating point").
#include "lower/ir/analysis.hpp"
#include "lower/ir/mutator.hpp"
#include "lower/passes/passes.hpp"

namespace react::passes {

using namespace ir;
using ir::Expr;

namespace {

struct ReciprocalDivisions {
  int made = 0;  // reciprocals made so far (their names: reciprocal0, reciprocal1, ...)

  // Appends the reciprocals of the loop's invariant divisors, then the loop multiplying by them.
  void multiplyBefore(const Stmt& loop, std::vector<Stmt>& out) {
    std::set<Name> changing{loop->counter};  // variables the loop declares or assigns
    forEachStmt(loop, [&](const Stmt& s) {
      if (s->kind == StmtKind::Let) changing.insert(s->name);
      if (s->kind == StmtKind::Assign && s->target->kind == ExprKind::Var) changing.insert(s->target->name);
    });
    std::vector<std::pair<Name, Expr>> reciprocals;  // divisor -> its reciprocal
    struct Replace : Mutator {
      std::function<Expr(const Expr&)> reciprocalOf;  // null where the divisor changes in the loop
      Expr visit(const Expr& e) override {
        Expr n = mutateChildren(e);
        if (n->kind != ExprKind::Binary || n->op != BinOp::Div || (n->type != Type::Float64 && n->type != Type::Float32)) return n;
        Expr r = reciprocalOf(n->args[1]);
        return r ? binary(BinOp::Mul, n->args[0], r) : n;
      }
    } replace;
    replace.reciprocalOf = [&](const Expr& divisor) -> Expr {
      if (divisor->kind != ExprKind::Var || changing.count(divisor->name)) return nullptr;
      for (const auto& [d, r] : reciprocals)
        if (d == divisor->name) return r;
      Expr r = var(Name{Role::Generated, "reciprocal" + std::to_string(made++)}, divisor->type);
      out.push_back(let(r->name, divisor->type, binary(BinOp::Div, floatImm(1.0, divisor->type), divisor)));
      reciprocals.emplace_back(divisor->name, r);
      return r;
    };
    out.push_back(replace.mutate(loop));
  }
};

}  // namespace

LoopProgram multiplyByReciprocals(const LoopProgram& p) {
  ReciprocalDivisions reciprocals;
  return rewriteNestedInnermostInPlace(p, [&](const Stmt& loop, std::vector<Stmt>& out) { reciprocals.multiplyBefore(loop, out); });
}

}  // namespace react::passes
