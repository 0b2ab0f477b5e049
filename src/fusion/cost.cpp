// Symbolic cost of an index tree: trip counts as polynomials in extents and nnz, and the
// redundancies (docs/design.md, "Redundancies") the tree still contains.
#include "fusion/internal.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace react {

Polynomial& Polynomial::operator+=(const Polynomial& o) {
  for (const auto& [m, c] : o.terms) terms[m] += c;
  return *this;
}

int Polynomial::degree() const {
  int d = 0;
  for (const auto& [m, c] : terms) d = std::max(d, static_cast<int>(m.size()));
  return d;
}

std::string Polynomial::str() const {
  if (terms.empty()) return "0";
  std::vector<std::pair<std::vector<std::string>, double>> sorted(terms.begin(), terms.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  std::ostringstream out;
  for (size_t t = 0; t < sorted.size(); ++t) {
    const auto& [m, c] = sorted[t];
    if (t) out << " + ";
    bool showCoeff = c != 1.0 || m.empty();
    if (showCoeff) out << c;
    for (size_t s = 0; s < m.size(); ++s) out << (s || showCoeff ? "*" : "") << m[s];
  }
  return out.str();
}

double Polynomial::evaluate(const std::map<std::string, double>& symbols) const {
  double total = 0;
  for (const auto& [m, c] : terms) {
    double v = c;
    for (const auto& s : m) v *= symbols.at(s);
    total += v;
  }
  return total;
}

namespace fusion {

std::string extentSymbol(const std::string& index) {
  std::string s = "N";
  for (char ch : index) s += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}

Polynomial monomial(std::vector<std::string> symbols, double coeff) {
  std::sort(symbols.begin(), symbols.end());
  Polynomial p;
  if (coeff != 0) p.terms[symbols] = coeff;
  return p;
}

std::string positionsSymbol(const std::string& pattern, int level, int rank) {
  return (level == rank - 1 ? "nnz(" : "nnz" + std::to_string(level) + "(") + pattern + ")";
}

std::string mergedName(const IndexLoop& merge) {
  std::string name;
  for (const std::string& o : merge.operands) name += (name.empty() ? "" : merge.unite ? " | " : " & ") + o;
  return name;
}

// Iterations of the loops on `path`: a sparse loop over level l of S under row index r replaces
// the count of r's loop (N_r, or the positions of level l-1) by the positions of level l.
std::vector<std::string> tripSymbols(const IndexTree& t, const TreePath& path) {
  std::vector<std::string> symbols;
  std::map<std::string, std::string> countOf;  // index -> the symbol its loop counts
  for (const TreeNode* n : path)
    if (n->kind == NodeKind::Index && n->loop.kind == LoopKind::Dense) {
      symbols.push_back(extentSymbol(n->loop.index));
      countOf[n->loop.index] = symbols.back();
    }
  for (const TreeNode* n : path) {
    if (n->kind != NodeKind::Index || n->loop.kind == LoopKind::Dense) continue;
    const IndexLoop& loop = n->loop;
    auto parent = countOf.find(loop.parentIndex);
    if (parent != countOf.end()) {
      auto row = std::find(symbols.begin(), symbols.end(), parent->second);
      if (row != symbols.end()) symbols.erase(row);
    }
    const std::string iterated = loop.kind == LoopKind::Merge ? mergedName(loop) : loop.pattern;
    const std::string& levels = loop.kind == LoopKind::Merge ? loop.operands.front() : loop.pattern;
    symbols.push_back(positionsSymbol(iterated, loop.level, t.tensor(levels).decl.format.rank()));
    countOf[loop.index] = symbols.back();
  }
  return symbols;
}

int operatorCount(const Expr& e) {
  int n = (e->op == Op::Access || e->op == Op::Literal) ? 0 : 1;
  for (const Expr& a : e->args) n += operatorCount(a);
  return n;
}

}  // namespace fusion

namespace {

using fusion::extentSymbol;
using fusion::monomial;
using fusion::operatorCount;
using fusion::tripSymbols;

void findInvariantSubexpressions(const Expr& e, bool isRoot, const TreePath& path, const TreeNode& leaf,
                                 std::vector<std::string>& out) {
  if (e->op == Op::Access || e->op == Op::Literal) return;
  if (!isRoot && !accesses(e).empty()) {
    std::vector<std::string> free = freeIndices(e);
    // The deepest loop binding one of e's indices; any loop below it recomputes e needlessly.
    size_t deepest = 0;
    for (size_t d = 0; d < path.size(); ++d)
      if (path[d]->kind == NodeKind::Index &&
          std::find(free.begin(), free.end(), path[d]->loop.index) != free.end())
        deepest = d;
    for (size_t d = deepest + 1; d < path.size(); ++d)
      if (path[d]->kind == NodeKind::Index) {
        out.push_back("type 2 (loop-invariant): '" + toString(e) + "' is recomputed in loop " + path[d]->loop.index +
                      " of '" + leaf.label() + "'");
        return;
      }
  }
  for (const Expr& a : e->args) findInvariantSubexpressions(a, false, path, leaf, out);
}

std::vector<std::string> redundancies(const IndexTree& t) {
  std::vector<std::string> out;
  std::map<std::string, std::vector<TreePath>> usePaths;
  visitTree(t.root, [&](const TreeNode& n, const TreePath& path) {
    if (n.kind != NodeKind::Compute) return;
    usePaths[n.stmt.lhs].push_back(path);
    for (const ExprNode* a : accesses(n.stmt.rhs)) usePaths[a->tensor].push_back(path);
    if (n.computeKind == ComputeKind::Reset) return;
    std::vector<std::string> reduced = n.stmt.reductionIndices();
    if (n.accumulates() && n.stmt.reduce == ReduceOp::Sum) {
      auto factors = fusion::factorsOf(n.stmt.rhs);
      // A factor invariant in one of the summed indices could be applied after that sum.
      auto invariantIn = [&](const Expr& f) {
        for (const auto& r : reduced)
          if (!fusion::mentionsAny(f, {r})) return true;
        return false;
      };
      for (const Expr& f : factors)
        if (factors.size() > 1 && invariantIn(f) && f->op != Op::Literal)
          out.push_back("type 1 (reduction): '" + toString(f) + "' is multiplied inside the sum of '" + n.label() + "'");
    }
    findInvariantSubexpressions(n.stmt.rhs, true, path, n, out);
  });
  for (const auto& [name, s] : t.tensors) {
    if (s.decl.role != TensorRole::Temporary) continue;
    const auto& paths = usePaths[name];
    bool separateNests = paths.size() > 1 && std::any_of(paths.begin(), paths.end(), [&](const TreePath& p) {
      return p.size() < 2 || p[1] != paths.front()[1];
    });
    if (separateNests && s.decl.rank() > 0)
      out.push_back("type 3 (load-store): temporary '" + name + "' is stored in one loop nest and loaded in another");
    if (!s.decl.format.hasSparseLevel() && !s.shrunk()) {
      if (auto pattern = fusion::sparseReadPattern(t, name))
        out.push_back("type 4 (dead value): temporary '" + name + "' is computed densely but read only at the stored entries of '" +
                      *pattern + "'");
    }
  }
  return out;
}

}  // namespace

CostReport analyzeCost(const IndexTree& t) {
  CostReport r;
  visitTree(t.root, [&](const TreeNode& n, const TreePath& path) {
    if (n.kind != NodeKind::Compute) return;
    std::vector<std::string> trips = tripSymbols(t, path);
    bool acc = n.accumulates();
    r.flops += monomial(trips, operatorCount(n.stmt.rhs) + (acc ? 1 : 0));
    r.reads += monomial(trips, static_cast<double>(accesses(n.stmt.rhs).size()) + (acc ? 1 : 0));
    r.writes += monomial(trips, 1);
  });
  // Each tensor's index names as its (last) producer writes it, from one walk of the tree.
  std::map<std::string, std::vector<std::string>> producerIndices;
  visitTree(t.root, [&](const TreeNode& n, const TreePath&) {
    if (n.kind == NodeKind::Compute && n.computeKind == ComputeKind::Compute) producerIndices[n.stmt.lhs] = n.stmt.lhsIndices;
  });
  for (const auto& [name, s] : t.tensors) {
    if (s.decl.role != TensorRole::Temporary) continue;
    if (s.decl.format.hasSparseLevel()) {
      r.temporarySize += monomial(s.shrunk() ? std::vector<std::string>{} : std::vector<std::string>{"nnz(" + s.decl.pattern + ")"}, 1);
      continue;
    }
    // Extent symbols by the producer's index names.
    const std::vector<std::string>& idx = producerIndices[name];
    std::vector<std::string> symbols;
    for (size_t d = 0; d < idx.size(); ++d)
      if (s.kept[d]) symbols.push_back(extentSymbol(idx[d]));
    r.temporarySize += monomial(symbols, 1);
  }
  r.redundancies = redundancies(t);
  return r;
}

std::map<std::string, double> costSymbols(const IndexTree& t, const std::map<std::string, int64_t>& nnz) {
  std::map<std::string, double> s;
  for (const auto& [index, size] : t.indexSizes) s[extentSymbol(index)] = static_cast<double>(size);
  for (const auto& [pattern, n] : nnz) s["nnz(" + pattern + ")"] = static_cast<double>(n);
  return s;
}

std::string CostReport::str() const {
  std::ostringstream out;
  out << "flops:          " << flops.str() << "\n"
      << "reads:          " << reads.str() << "\n"
      << "writes:         " << writes.str() << "\n"
      << "temporary size: " << temporarySize.str() << "\n"
      << "redundancies:" << (redundancies.empty() ? "   none" : "") << "\n";
  for (const auto& r : redundancies) out << "  - " << r << "\n";
  return out.str();
}

}  // namespace react
