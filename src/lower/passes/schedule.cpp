// Each target's passes, in order.
#include "lower/ir/ir.hpp"
#include "lower/passes/passes.hpp"

namespace react {

namespace passes {

std::vector<Pass> pipeline(Target target, const EmitOptions& options) {
  std::vector<Pass> passes;
  const bool reassociate = options.floatOrder == FloatOrder::Reassociate;
  if (!reassociate) passes.push_back({"written-order", runReductionsInOrder});
  if (reassociate && options.libraryProducts) passes.push_back({"dense-product", markDenseProducts});
  if (target == Target::Kokkos) {
    passes.push_back({"recompute-entries", recomputeEntrywise});
    if (reassociate) passes.push_back({"dense-lanes", mapLanesToDenseReductions});
    if (reassociate) passes.push_back({"column-walks", walkColumns});
    if (reassociate) passes.push_back({"fibre-chunks", chunkFibres});
    if (reassociate) passes.push_back({"reduction-runs", runRowReductions});
    passes.push_back({"operand-layout", [](const LoopProgram& p) { return transposeStridedOperands(p, Target::Kokkos); }});
    passes.push_back({"search-merged-entries", searchMergedEntries});
    passes.push_back({"lane-mapping", [reassociate](const LoopProgram& p) { return mapLanes(p, reassociate); }});
    bool forced = options.laneLoopsOutermost;
    passes.push_back({"interchange", [forced](const LoopProgram& p) { return interchangeLaneLoops(p, forced); }});
    passes.push_back({"register-accumulation", accumulateInRegisters});
    passes.push_back({"hoist-reads", hoistInvariantReads});
  } else {
    passes.push_back({"merge-resets", mergeResets});
    passes.push_back({"operand-layout", [](const LoopProgram& p) { return transposeStridedOperands(p, Target::OpenMP); }});
    if (reassociate) passes.push_back({"flatten-entries", flattenEntrywise});
    passes.push_back({"hoist-reads", hoistInvariantReads});
    if (reassociate) passes.push_back({"reciprocal-divisions", multiplyByReciprocals});
    passes.push_back({"vectorize", [reassociate](const LoopProgram& p) { return vectorizeInnermost(p, reassociate); }});
    if (reassociate) passes.push_back({"vectorize-reductions", vectorizeReductions});
    if (reassociate) passes.push_back({"register-reductions", reduceInRegisters});
    passes.push_back({"balance-rows", balanceRows});
  }
  passes.push_back({"lower-accesses", lowerAccesses});
  if (target == Target::OpenMP && reassociate) passes.push_back({"jam-entries", jamEntries});
  if (options.boundsCheck) passes.push_back({"bounds-check", checkBounds});
  if (target == Target::OpenMP && reassociate) passes.push_back({"masked-blocks", maskBlocks});
  return passes;
}

}  // namespace passes

LoopProgram scheduleLoops(const LoopProgram& p, Target target, const EmitOptions& options) {
  LoopProgram s = p;
  for (const passes::Pass& pass : passes::pipeline(target, options)) {
    s = pass.run(s);
    ir::verify(s);
  }
  return s;
}

std::string emitSource(const LoopProgram& p, Target target, const EmitOptions& options) {
  return printSource(scheduleLoops(p, target, options), target, options);
}

}  // namespace react
