// OpenMP: innermost loops that reduce into one scalar onto the vector unit, with a lane
// accumulator (`omp simd reduction`).
//
// Why: a dot product (SDDMM's `T += B(i,k) * C(k,j)` over k, a row's sum) is a chain of dependent
// adds, one per cycle at best; its lanes make as many independent chains. The floating-point
// policy (docs/design.md, "Floating point"): reductions are reassociated, so a result may differ
// from the written order's by rounding, within what the reduction's length allows.
#include "lower/ir/analysis.hpp"
#include "lower/passes/passes.hpp"

namespace react::passes {

using namespace ir;

LoopProgram vectorizeReductions(const LoopProgram& p) {
  return rewriteNestedInnermost(p, [&](const Stmt& loop) -> Stmt {
    if (loop->schedule != Schedule::Serial || !worthVectorizing(*loop)) return loop;
    IterationFacts facts = analyzeIterations(*loop, p.tensors);
    if (facts.kind != Iterations::ReduceScalar) return loop;
    return reduceOnLanes(loop, facts.reduceTarget, facts.op, [](Stmt combine) { return combine; });
  });
}

}  // namespace react::passes
