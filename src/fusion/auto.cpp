// Fusion mode auto: the candidates (associations of the product chains x none/maximal/react),
// their estimated times on the inputs' statistics, and the choice (docs/auto.md).
#include "fusion/internal.hpp"

#include <cstdio>
#include <sstream>

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

}  // namespace

AutoDecision decideFusion(const Program& p, const InputStats& stats, const MachineModel& machine) {
  AutoDecision d;
  d.stats = stats;
  d.machine = machine;
  d.chains = productChains(p);
  for (const auto& [name, decl] : p.tensors)
    if (decl.role == TensorRole::Input && decl.format.isSparse() && !stats.sparse.count(name))
      throw Error("auto: no statistics for csr input '" + name + "' (give its values, or its nnz)");
  std::vector<std::vector<Association>> orders = combinations(p, d.chains);
  for (size_t o = 0; o < orders.size(); ++o) {
    AutoCandidate base;
    base.asWritten = o == 0;
    for (size_t c = 0; c < d.chains.size(); ++c) base.associations.push_back(orders[o][c].str(d.chains[c]));
    try {
      base.program = base.asWritten ? p : associate(p, d.chains, orders[o]);
    } catch (const Error& e) {
      base.rejected = e.what();
    }
    for (FusionMode mode : {FusionMode::React, FusionMode::None, FusionMode::Maximal}) {
      AutoCandidate c = base;
      c.mode = mode;
      if (c.rejected.empty()) {
        try {
          c.tree = fuse(c.program, mode);
          c.cost = estimateCost(c.tree, stats, machine);
        } catch (const Error& e) {
          c.rejected = e.what();
        }
      }
      d.candidates.push_back(std::move(c));
    }
  }
  bool found = false;
  for (size_t n = 0; n < d.candidates.size(); ++n) {
    const AutoCandidate& c = d.candidates[n];
    if (!c.rejected.empty()) continue;
    // Estimates equal up to rounding (the same work summed in another order) are a tie.
    if (!found || c.cost.seconds < d.candidates[d.chosen].cost.seconds * (1 - 1e-9)) d.chosen = n;
    found = true;
  }
  if (!found) throw Error("auto: no candidate could be built: " + d.candidates.front().rejected);
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
    char head[32];
    std::snprintf(head, sizeof head, "%s %2zu  %-8s ", n == chosen ? "*" : " ", n + 1, toString(c.mode).c_str());
    out << head;
    if (chains.empty()) out << "";
    else {
      std::string a;
      for (const std::string& s : c.associations) a += (a.empty() ? "" : "; ") + s;
      out << a << (c.asWritten ? " (as written)" : "") << "  ";
    }
    out << (c.rejected.empty() ? c.cost.str() : "rejected: " + c.rejected.substr(0, c.rejected.find('\n'))) << "\n";
  }
  const AutoCandidate& c = choice();
  out << "choice: " << chosen + 1 << " (" << toString(c.mode);
  if (!chains.empty()) out << (c.asWritten ? ", association as written" : ", re-associated");
  out << "), estimated " << c.cost.str() << "\n";
  return out.str();
}

}  // namespace react
