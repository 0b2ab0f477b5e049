// OpenMP: innermost loops of independent iterations onto the vector unit.
//
// Why the pragma: without it GCC unrolls a short loop (16 iterations) completely and leaves it
// scalar, since it cannot tell the arrays apart (`A[k*16 + j] += hoisted0 * D[h*16 + j]`: 16
// scalar FMAs, with it two vector ones).
#include "lower/ir/analysis.hpp"
#include "lower/passes/passes.hpp"

namespace react::passes {

using namespace ir;

LoopProgram vectorizeInnermost(const LoopProgram& p, bool vectorMath) {
  return rewriteNestedInnermost(p, [&](const Stmt& loop) -> Stmt {
    if (loop->schedule != Schedule::Serial || !worthVectorizing(*loop, vectorMath) ||
        analyzeIterations(*loop, p.tensors).kind != Iterations::Independent)
      return loop;
    auto v = copy(loop);
    v->schedule = Schedule::Vector;
    return v;
  });
}

}  // namespace react::passes
