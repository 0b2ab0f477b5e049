// The tree a kernel is compiled from: the fusion mode's, or auto's choice for the inputs'
// statistics (cached per decision: the JIT keys on the source, which only the choice changes).
#include "lower/lower.hpp"

namespace react {

IndexTree fusedTree(const Program& p, const CompileOptions& options, AutoDecision* decision) {
  if (options.fusion != FusionMode::Auto) return fuse(p, options.fusion);
  InputStats stats = options.stats ? *options.stats : InputStats{};
  MachineModel machine = options.machine ? *options.machine : machineModel(options.jit);
  AutoDecision d = decideFusion(p, stats, machine);
  IndexTree tree = d.choice().tree;
  if (decision) *decision = std::move(d);
  return tree;
}

Kernel Kernel::compile(const Program& p, CompileOptions options, const TensorValues& inputs) {
  if (!options.stats) options.stats = inputStats(inputs);
  return compile(p, options);
}

}  // namespace react
