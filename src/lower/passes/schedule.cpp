// Each target's passes, in order.
#include "lower/ir/ir.hpp"
#include "lower/passes/passes.hpp"

namespace react {

LoopProgram scheduleLoops(const LoopProgram& p, Target target, const EmitOptions& options) {
  LoopProgram s = p;
  auto run = [&](LoopProgram (*pass)(const LoopProgram&)) {
    s = pass(s);
    ir::verify(s);
  };
  if (target == Target::Kokkos) {
    run(passes::mapLanes);
    s = passes::interchangeLaneLoops(s, options.laneLoopsOutermost);
    ir::verify(s);
    run(passes::accumulateInRegisters);
    run(passes::hoistInvariantReads);
  } else {
    run(passes::hoistInvariantReads);
    run(passes::vectorizeInnermost);
  }
  run(passes::lowerAccesses);
  if (options.boundsCheck) run(passes::checkBounds);
  return s;
}

std::string emitSource(const LoopProgram& p, Target target, const EmitOptions& options) {
  return printSource(scheduleLoops(p, target, options), target, options);
}

}  // namespace react
