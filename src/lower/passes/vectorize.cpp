// OpenMP: innermost loops of independent iterations onto the vector unit.
//
// Why the pragma: without it GCC unrolls a short loop (16 iterations) completely and leaves it
// scalar, since it cannot tell the arrays apart (`A[k*16 + j] += hoisted0 * D[h*16 + j]`: 16
// scalar FMAs, with it two vector ones).
#include "lower/ir/analysis.hpp"
#include "lower/ir/mutator.hpp"
#include "lower/passes/passes.hpp"

namespace react::passes {

using namespace ir;
using ir::Expr;

namespace {

struct Vectorize : Mutator {
  explicit Vectorize(const LoopProgram& p) : p(p) {}
  const LoopProgram& p;
  int loops = 0;

  Stmt visit(const Stmt& s) override {
    if (s->kind != StmtKind::For) return mutateChildren(s);
    if (loops > 0 && s->schedule == Schedule::Serial && isInnermost(*s) && isDenseLoop(*s) &&
        analyzeIterations(*s, p.tensors).kind == Iterations::Independent) {
      auto v = copy(s);
      v->schedule = Schedule::Vector;
      return v;
    }
    ++loops;
    Stmt out = mutateChildren(s);
    --loops;
    return out;
  }
};

}  // namespace

LoopProgram vectorizeInnermost(const LoopProgram& p) { return Vectorize(p).mutate(p); }

}  // namespace react::passes
