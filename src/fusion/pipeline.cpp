// Fusion modes as sequences of passes; every pass's output is verified.
#include "fusion/internal.hpp"

#include <functional>

namespace react {

FusionMode parseFusionMode(const std::string& s) {
  if (s == "none") return FusionMode::None;
  if (s == "maximal") return FusionMode::Maximal;
  if (s == "react") return FusionMode::React;
  if (s == "auto") return FusionMode::Auto;
  throw Error("unknown fusion mode '" + s + "' (expected none, maximal, react or auto)");
}

std::string toString(FusionMode m) {
  switch (m) {
    case FusionMode::None: return "none";
    case FusionMode::Maximal: return "maximal";
    case FusionMode::React: return "react";
    case FusionMode::Auto: return "auto";
  }
  return "?";
}

std::vector<PassSnapshot> runPipeline(const Program& p, FusionMode mode, const FusionPlan& plan) {
  if (mode == FusionMode::Auto)
    throw Error("fusion mode auto needs the inputs' statistics: decide with decideFusion, then fuse its choice");
  using Pass = std::function<IndexTree(const IndexTree&)>;
  std::vector<std::pair<std::string, Pass>> passes;
  if (mode == FusionMode::Maximal) passes = {{"maximal-fusion", maximalFusion}};
  Pass partial = [&plan](const IndexTree& t) { return partialFusion(t, plan); };
  if (mode == FusionMode::React)
    passes = {{"hoist-invariants", hoistInvariants},   {"hoist-reductions", hoistReductions},
              {"sparse-propagation", sparsePropagation}, {"partial-fusion", partial},
              {"shrink-temporaries", shrinkTemporaries}};
  std::vector<PassSnapshot> out{{"build", buildIndexTree(p)}};
  verifyTree(out.back().tree);
  for (const auto& [name, pass] : passes) {
    IndexTree next = pass(out.back().tree);
    try {
      verifyTree(next);
    } catch (const Error& e) {
      throw Error("after pass " + name + ": " + e.what() + "\n" + printTree(next));
    }
    out.push_back({name, std::move(next)});
  }
  return out;
}

IndexTree fuse(const Program& p, FusionMode mode, const FusionPlan& plan) { return runPipeline(p, mode, plan).back().tree; }

}  // namespace react
