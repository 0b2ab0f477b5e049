// Fusion mode auto: the candidates (associations of the product chains x none/maximal/react),
// their estimated times on the inputs' statistics, and the choice (docs/auto.md).
#include "fusion/internal.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <sstream>
#include <unordered_set>

namespace react {
namespace {

// Every combination of the chains' associations, the program's own first; chains longer than
// kMaxEnumeratedFactors keep theirs.
std::vector<std::vector<Association>> combinations(const Program& p, const std::vector<ProductChain>& chains) {
  std::vector<Association> current;
  std::vector<std::vector<Association>> options;
  for (const ProductChain& c : chains) {
    current.push_back(currentAssociation(p, c));
    std::vector<Association> all{current.back()};
    if (static_cast<int>(c.factors.size()) <= kMaxEnumeratedFactors)
      for (const Association& a : allAssociations(static_cast<int>(c.factors.size())))
        if (!(a == current.back())) all.push_back(a);
    options.push_back(all);
  }
  std::vector<std::vector<Association>> out{{}};
  for (const std::vector<Association>& o : options) {
    std::vector<std::vector<Association>> next;
    for (const std::vector<Association>& prefix : out)
      for (const Association& a : o) {
        next.push_back(prefix);
        next.back().push_back(a);
      }
    out = std::move(next);
  }
  return out;
}

// Loop nesting depth of a tree (0 for a root without loops).
int loopDepth(const TreeNode& n) {
  int below = 0;
  for (const TreeNode& c : n.children) below = std::max(below, loopDepth(c));
  return below + (n.kind == NodeKind::Index ? 1 : 0);
}

// Plans that limit react's partial fusion: the whole prefix to each shorter depth (deepest
// first), then every combination of per-edge limits (each edge: no limit, each shorter depth,
// unfused), as long as there are at most kMaxEdgePlans combinations; with more, each edge varies
// alone, in program order, for at most kMaxEdgePlans plans.
constexpr size_t kMaxEdgePlans = 64;
std::vector<FusionPlan> limitedPlans(const IndexTree& react) {
  int depth = loopDepth(react.root);
  std::vector<FusionPlan> plans;
  for (int d = depth - 1; d >= 1; --d) plans.push_back(FusionPlan{d, {}});
  std::vector<FusionEdge> edges = fusionEdges(react);
  std::vector<int> limits{-1};  // -1: no limit
  for (int d = depth - 1; d >= 0; --d) limits.push_back(d);
  size_t combinations = 1;
  for (size_t e = 0; e < edges.size() && combinations <= kMaxEdgePlans; ++e) combinations *= limits.size();
  if (combinations <= kMaxEdgePlans) {
    std::vector<FusionPlan> all{FusionPlan{}};
    for (const FusionEdge& e : edges) {
      std::vector<FusionPlan> next;
      for (const FusionPlan& prefix : all)
        for (int limit : limits) {
          next.push_back(prefix);
          if (limit >= 0) next.back().edgeDepth[e] = limit;
        }
      all = std::move(next);
    }
    for (FusionPlan& p : all)
      if (!p.unlimited()) plans.push_back(std::move(p));
  } else {
    // Each plan costs a run of partial fusion over the whole program: with one per edge, auto
    // was quadratic in the statements. At most kMaxEdgePlans of them keep it linear.
    size_t alone = 0;
    for (const FusionEdge& e : edges)
      for (int limit : limits)
        if (limit >= 0 && alone++ < kMaxEdgePlans) plans.push_back(FusionPlan{0, {{e, limit}}});
  }
  return plans;
}

}  // namespace

std::string AutoCandidate::label() const {
  if (mode == FusionMode::React && !plan.unlimited()) return "react (" + plan.str() + ")";
  return toString(mode);
}

void requireStatistics(const Program& p, const InputStats& stats) {
  for (const auto& [name, decl] : p.tensors) {
    if (decl.role != TensorRole::Input || !decl.format.hasSparseLevel()) continue;
    auto found = stats.sparse.find(name);
    if (found == stats.sparse.end())
      throw UserError("auto: no statistics for " + decl.format.str() + " input '" + name + "' (give its values, or its nnz)");
    // csr's levels are its rows and entries; another format's level loops count their positions.
    if (decl.format != Format::csr() && found->second.levelPositions.size() != static_cast<size_t>(decl.format.rank()))
      throw UserError("auto: the statistics of " + decl.format.str() + " input '" + name +
                      "' lack the positions of each of its levels (give its values)");
  }
}

AutoDecision decideFusion(const Program& p, const InputStats& stats, const MachineModel& machine) {
  requireStatistics(p, stats);
  AutoDecision d;
  d.stats = stats;
  d.machine = machine;
  d.chains = productChains(p);
  std::vector<std::vector<Association>> orders = combinations(p, d.chains);
  for (size_t o = 0; o < orders.size(); ++o) {
    AutoCandidate base;
    base.asWritten = o == 0;
    for (size_t c = 0; c < d.chains.size(); ++c) base.associations.push_back(orders[o][c].str(d.chains[c]));
    if (base.asWritten) {
      base.program = p;
    } else {
      Reassociation r = reassociate(p, d.chains, orders[o]);
      base.program = std::move(r.program);
      base.rejected = r.legality.why;
    }
    // A candidate of `mode` and `plan` whose tree `build` makes, unless its association is
    // rejected. A supported program always fuses: anything `build` or the estimate throws is an
    // error (an InternalError is react's bug), never a rejection, and leaves auto.
    auto add = [&](FusionMode mode, const FusionPlan& plan, const std::function<IndexTree()>& build) {
      AutoCandidate c = base;
      c.mode = mode;
      c.plan = plan;
      if (c.rejected.empty()) {
        c.tree = build();
        c.cost = estimateCost(c.tree, stats, machine);
      }
      d.candidates.push_back(std::move(c));
    };
    // React's passes before partial fusion do not depend on the plan: they run once here.
    IndexTree beforePlan;
    add(FusionMode::React, {}, [&] {
      beforePlan = fusion::reactBeforePlan(base.program);
      return fusion::reactWithPlan(beforePlan, {});
    });
    // React with limited merges (shorter prefixes, per-edge choices), where they give another
    // tree than react's, none's or an earlier one's.
    std::optional<IndexTree> none;
    if (base.rejected.empty()) {
      std::unordered_set<std::string> seen{printTree(d.candidates.back().tree)};
      none = fuse(base.program, FusionMode::None);
      seen.insert(printTree(*none));
      // A plan only refuses merges: every plan gives a legal tree (docs/auto.md).
      for (const FusionPlan& plan : limitedPlans(d.candidates.back().tree)) {
        IndexTree tree = fusion::reactWithPlan(beforePlan, plan);
        if (!seen.insert(printTree(tree)).second) continue;
        add(FusionMode::React, plan, [&] { return std::move(tree); });
      }
    }
    add(FusionMode::None, {}, [&] { return none ? std::move(*none) : fuse(base.program, FusionMode::None); });
    add(FusionMode::Maximal, {}, [&] { return fuse(base.program, FusionMode::Maximal); });
  }
  bool found = false;
  for (size_t n = 0; n < d.candidates.size(); ++n) {
    const AutoCandidate& c = d.candidates[n];
    if (!c.rejected.empty()) continue;
    // Estimates equal up to rounding (the same work summed in another order) are a tie.
    if (!found || c.cost.seconds < d.candidates[d.chosen].cost.seconds * (1 - 1e-9)) d.chosen = n;
    found = true;
  }
  // Only re-associations are rejected; the program as written is checked, so it always fuses.
  REACT_ASSERT(found, "auto: no candidate, not even the program as written");
  return d;
}

std::string AutoDecision::str() const {
  std::ostringstream out;
  out << "auto: " << candidates.size() << " candidates";
  if (chains.empty()) out << " (no product chain to re-associate; fusion modes only)";
  out << "\ninputs:  " << stats.str() << "\nmachine: " << machine.str() << "\n";
  for (size_t c = 0; c < chains.size(); ++c) out << "chain " << c + 1 << ": " << chains[c].str() << "\n";
  for (size_t n = 0; n < candidates.size(); ++n) {
    const AutoCandidate& c = candidates[n];
    char head[48];
    std::snprintf(head, sizeof head, "%s %2zu  ", n == chosen ? "*" : " ", n + 1);
    std::string label = c.label();  // padded to a column; a plan's longer label runs past it
    if (label.size() < 17) label.resize(17, ' ');
    out << head << label << " ";
    if (chains.empty()) out << "";
    else {
      std::string a;
      for (const std::string& s : c.associations) a += (a.empty() ? "" : "; ") + s;
      out << a << (c.asWritten ? " (as written)" : "") << "  ";
    }
    out << (c.rejected.empty() ? c.cost.str() : "rejected: " + c.rejected.substr(0, c.rejected.find('\n'))) << "\n";
  }
  const AutoCandidate& c = choice();
  out << "choice: " << chosen + 1 << " (" << c.label();
  if (!chains.empty()) out << (c.asWritten ? ", association as written" : ", re-associated");
  out << "), estimated " << c.cost.str() << "\n";
  return out.str();
}

}  // namespace react
