// Fusion modes as sequences of passes; every pass's output is verified.
#include "fusion/internal.hpp"

#include <functional>

namespace react {

namespace {

using Pass = std::function<IndexTree(const IndexTree&)>;
using Passes = std::vector<std::pair<std::string, Pass>>;

// React's passes before partial fusion: no fusion plan changes what they do.
Passes reactPlanFreePasses() {
  return {{"hoist-invariants", hoistInvariants},
          {"hoist-reductions", hoistReductions},
          {"sparse-propagation", sparsePropagation},
          {"restrict-to-pattern", restrictToPattern}};
}

// React's passes from partial fusion on, which follow `plan`.
Passes reactPlannedPasses(const FusionPlan& plan) {
  return {{"partial-fusion", [plan](const IndexTree& t) { return partialFusion(t, plan); }},
          {"shrink-temporaries", shrinkTemporaries}};
}

// A tree that breaks checkTree's rules is react's bug: the program was checked when it was built
// (parseProgram, ProgramBuilder, associate) and every pass keeps the rules.
void requireValid(const std::string& stage, const IndexTree& t) {
  Legality legality = checkTree(t);
  if (!legality.ok()) internalError(stage + ": " + legality.why + "\n" + printTree(t));
}

// Runs `passes` after the snapshots in `out`, verifying each pass's tree.
void runPasses(std::vector<PassSnapshot>& out, const Passes& passes) {
  for (const auto& [name, pass] : passes) {
    IndexTree next = pass(out.back().tree);
    requireValid("after pass " + name, next);
    out.push_back({name, std::move(next)});
  }
}

std::vector<PassSnapshot> built(const Program& p) {
  std::vector<PassSnapshot> out{{"build", buildIndexTree(p)}};
  requireValid("the tree built from the program", out.back().tree);
  return out;
}

}  // namespace

FusionMode parseFusionMode(const std::string& s) {
  if (s == "none") return FusionMode::None;
  if (s == "maximal") return FusionMode::Maximal;
  if (s == "react") return FusionMode::React;
  if (s == "auto") return FusionMode::Auto;
  throw UserError("unknown fusion mode '" + s + "' (expected none, maximal, react or auto)");
}

std::string toString(FusionMode m) {
  switch (m) {
    case FusionMode::None: return "none";
    case FusionMode::Maximal: return "maximal";
    case FusionMode::React: return "react";
    case FusionMode::Auto: return "auto";
  }
  internalError("a FusionMode outside the enumeration: " + std::to_string(static_cast<int>(m)));
}

std::vector<PassSnapshot> runPipeline(const Program& p, FusionMode mode, const FusionPlan& plan) {
  if (mode == FusionMode::Auto)
    throw UserError("fusion mode auto needs the inputs' statistics: decide with decideFusion, then fuse its choice");
  std::vector<PassSnapshot> out = built(p);
  if (mode == FusionMode::Maximal) runPasses(out, {{"maximal-fusion", maximalFusion}});
  if (mode == FusionMode::React) {
    runPasses(out, reactPlanFreePasses());
    runPasses(out, reactPlannedPasses(plan));
  }
  return out;
}

IndexTree fuse(const Program& p, FusionMode mode, const FusionPlan& plan) { return runPipeline(p, mode, plan).back().tree; }

IndexTree fusion::reactBeforePlan(const Program& p) {
  std::vector<PassSnapshot> out = built(p);
  runPasses(out, reactPlanFreePasses());
  return out.back().tree;
}

IndexTree fusion::reactWithPlan(const IndexTree& beforePlan, const FusionPlan& plan) {
  std::vector<PassSnapshot> out{{"sparse-propagation", beforePlan}};
  runPasses(out, reactPlannedPasses(plan));
  return out.back().tree;
}

}  // namespace react
