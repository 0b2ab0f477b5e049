// The tree a kernel is compiled from: the fusion mode's, or auto's choice for the inputs'
// statistics (cached per decision: the JIT keys on the source, which only the choice changes).
#include "lower/lower.hpp"
#include "lower/passes/passes.hpp"

namespace react {

FusionMode fusionModeOf(const Program& p, const CompileOptions& options) {
  if (options.fusion) return *options.fusion;
  for (const std::string& name : p.inputs())  // auto needs the statistics of every sparse input
    if (p.tensor(name).format.hasSparseLevel() && !options.stats) return FusionMode::React;
  return FusionMode::Auto;
}

IndexTree fusedTree(const Program& p, const CompileOptions& options, AutoDecision* decision) {
  FusionMode mode = fusionModeOf(p, options);
  if (mode != FusionMode::Auto) return fuse(p, mode);
  InputStats stats = options.stats ? *options.stats : InputStats{};
  requireStatistics(p, stats);
  const MachineModel machine =
      modelForLowering(options.machine ? *options.machine : machineModel(options.jit, 0, options.target), options.target, options.emit);
  AutoDecision d = decideFusion(p, stats, machine);
  IndexTree tree = d.choice().tree;
  if (decision) *decision = std::move(d);
  return tree;
}

MachineModel modelForLowering(MachineModel m, Target target, const EmitOptions& emit) {
  const bool reassociate = emit.floatOrder == FloatOrder::Reassociate;
  // Kernels call the library's product only under the reassociated order (passes/dense_product.cpp).
  if (!reassociate || !emit.libraryProducts) m.productFlops = 0;
  // The Kokkos lowering spreads a row's entries over team threads where each entry sums a dense
  // loop a warp wide (passes/dense_lanes.cpp), under the reassociated order only.
  m.splitRowsFrom = target == Target::Kokkos && reassociate ? passes::kDenseLanesFrom : 0;
  return m;
}

Kernel Kernel::compile(const Program& p, CompileOptions options, const TensorValues& inputs) {
  if (!options.stats) options.stats = inputStats(inputs);
  return compile(p, options);
}

}  // namespace react
