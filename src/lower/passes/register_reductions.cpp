// OpenMP: a scalar loop that reduces into a tensor's element (a row's sum into T(i)) accumulates
// in a local and stores once.
//
// Why: the element is memory the loop's other arrays might alias, as far as the C++ compiler can
// tell, so it loads and stores the element in every iteration: a chain through memory of several
// cycles per stored entry, longer than the add it carries. Only under reassociation: the element's
// value before the loop is added to the local's sum instead of to the first term.
#include "lower/ir/analysis.hpp"
#include "lower/passes/passes.hpp"

namespace react::passes {

using namespace ir;

LoopProgram reduceInRegisters(const LoopProgram& p) {
  return rewriteNestedInnermost(p, [&](const Stmt& loop) -> Stmt {
    if (loop->schedule != Schedule::Serial) return loop;
    IterationFacts facts = analyzeIterations(*loop, p.tensors);
    if (facts.kind != Iterations::ReduceScalar || facts.reduceTarget->kind != ExprKind::Access) return loop;
    return reduceInRegister(loop, facts.reduceTarget, facts.op);
  });
}

}  // namespace react::passes
