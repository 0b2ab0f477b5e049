// OpenMP: innermost loops that reduce into one scalar onto the vector unit, with a lane
// accumulator (`omp simd reduction`).
//
// Why: a dot product (SDDMM's `T += B(i,k) * C(k,j)` over k, a row's sum) is a chain of dependent
// adds, one per cycle at best; its lanes make as many independent chains. The floating-point
// policy (docs/design.md, "Floating point"): reductions are reassociated, so a result may differ
// from the written order's by rounding, within what the reduction's length allows.
#include "lower/ir/analysis.hpp"
#include "lower/ir/mutator.hpp"
#include "lower/passes/passes.hpp"

namespace react::passes {

using namespace ir;
using ir::Expr;

namespace {

struct VectorizeReductions : Mutator {
  explicit VectorizeReductions(const LoopProgram& p) : p(p) {}
  const LoopProgram& p;
  int loops = 0;

  Stmt visit(const Stmt& s) override {
    if (s->kind != StmtKind::For) return mutateChildren(s);
    if (loops > 0 && s->schedule == Schedule::Serial && isInnermost(*s)) {
      IterationFacts facts = analyzeIterations(*s, p.tensors);
      if (facts.kind == Iterations::ReduceScalar)
        return reduceOnLanes(s, facts.reduceTarget, facts.op, [](Stmt combine) { return combine; });
    }
    ++loops;
    Stmt out = mutateChildren(s);
    --loops;
    return out;
  }
};

}  // namespace

LoopProgram vectorizeReductions(const LoopProgram& p) { return VectorizeReductions(p).mutate(p); }

}  // namespace react::passes
