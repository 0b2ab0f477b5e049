// Loop-invariant reads before an innermost loop, into constants.
//
// Why: tensors are distinct arrays, which the compiler cannot know: in `A[i*16 + j] += C[k*256 +
// h] * D[h*16 + j]` over j it must assume the store to A may change C[k*256 + h], reloads it on
// every iteration and leaves the loop scalar (GCC 12 and 13: 16 scalar FMAs where two vector
// ones do). A constant read once before the loop makes it an axpy the compiler vectorizes.
#include "lower/ir/analysis.hpp"
#include "lower/ir/mutator.hpp"
#include "lower/passes/passes.hpp"

#include <algorithm>

namespace react::passes {

using namespace ir;
using ir::Expr;

namespace {

struct HoistReads {
  int hoisted = 0;  // constants made so far (their names: hoisted0, hoisted1, ...)

  // Appends the constants the loop reads, then the loop reading them.
  void hoistBefore(const Stmt& loop, std::vector<Stmt>& out) {
    std::set<std::string> written;
    forEachStmt(loop, [&](const Stmt& s) {
      if (writesMemory(*s)) written.insert(writtenTensor(*s));
    });
    const std::string& index = loopIndex(*loop);
    std::vector<std::pair<Expr, Expr>> constants;  // access -> the constant holding it
    struct Replace : Mutator {
      std::vector<std::pair<Expr, Expr>>* constants;
      std::function<bool(const Expr&)> invariant;
      std::function<Expr(const Expr&)> constantFor;
      Expr visit(const Expr& e) override {
        if (e->kind == ExprKind::Access && invariant(e)) return constantFor(e);
        return mutateChildren(e);
      }
      Stmt visit(const Stmt& s) override {
        if (s->kind != StmtKind::Assign && s->kind != StmtKind::EntryRuns) return mutateChildren(s);
        auto n = copy(s);  // the target is written, not read
        n->value = mutate(s->value);
        n->hi = mutate(s->hi);
        n->body = visitBody(s->body);
        return n->value == s->value && n->hi == s->hi && n->body == s->body ? s : n;
      }
    } replace;
    replace.invariant = [&](const Expr& e) {
      return !written.count(e->tensor) && std::find(e->indices.begin(), e->indices.end(), index) == e->indices.end();
    };
    replace.constantFor = [&](const Expr& e) {
      for (const auto& [a, c] : constants)
        if (equal(a, e)) return c;
      Expr c = var(Name{Role::Generated, "hoisted" + std::to_string(hoisted++)}, e->type);
      out.push_back(let(c->name, e->type, e));
      constants.emplace_back(e, c);
      return c;
    };
    out.push_back(replace.mutate(loop));
  }
};

}  // namespace

LoopProgram hoistInvariantReads(const LoopProgram& p) {
  HoistReads hoist;
  return rewriteNestedInnermostInPlace(p, [&](const Stmt& loop, std::vector<Stmt>& out) { hoist.hoistBefore(loop, out); });
}

}  // namespace react::passes
