// Greedy minimisation of failing programs (minimize.hpp).
#include "fuzz/minimize.hpp"

#include "fuzz/differential.hpp"

#include <algorithm>
#include <chrono>
#include <set>

namespace react::fuzz {

namespace {

int countNodes(const Expr& e) {
  int n = 1;
  for (const Expr& a : e->args) n += countNodes(a);
  return n;
}

// The node at pre-order position `target` of `e`.
const Expr& nodeAt(const Expr& e, int& pos, int target) {
  if (pos == target) return e;
  for (const Expr& a : e->args) {
    ++pos;
    const Expr& found = nodeAt(a, pos, target);
    if (found) return found;
  }
  static const Expr none;
  return none;
}

// `e` with the node at pre-order position `target` replaced by `by`.
Expr replaceAt(const Expr& e, int& pos, int target, const Expr& by) {
  if (pos == target) return by;
  auto copy = std::make_shared<ExprNode>(*e);
  for (Expr& a : copy->args) {
    ++pos;
    a = replaceAt(a, pos, target, by);
  }
  return copy;
}

// A sparse input's stored entries (csr or any other format), and its data with other entries.
bool isSparse(const TensorData& v) { return !std::holds_alternative<DenseTensor>(v); }
CooTensor entriesOf(const TensorData& v) {
  if (const CsrMatrix* m = std::get_if<CsrMatrix>(&v)) return sparseToCoo(csrToSparse(*m));
  return sparseToCoo(std::get<SparseTensor>(v));
}
TensorData withEntries(const TensorData& like, CooTensor coo) {
  coo.valueType = valueTypeOf(like);
  if (std::holds_alternative<CsrMatrix>(like)) return sparseToCsr(cooToSparse(coo, Format::csr()));
  return cooToSparse(coo, std::get<SparseTensor>(like).format);
}

class Minimizer {
 public:
  Minimizer(const std::function<bool(const RandomProgram&)>& stillFails, double seconds)
      : stillFails_(stillFails), deadline_(std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds))) {}

  RandomProgram run(RandomProgram p) {
    bool progress = true;
    while (progress && !timeUp()) {
      progress = dropStatements(p) | simplifyExpressions(p) | simplifyStatements(p) | shrinkExtents(p) |
                 dropEntries(p) | simplifyValues(p);
    }
    return p;
  }

 private:
  bool timeUp() const { return std::chrono::steady_clock::now() > deadline_; }

  // Keeps `c` in `p` if it is a valid program that still fails.
  bool attempt(RandomProgram& p, RandomProgram c) {
    if (timeUp()) return false;
    c.text = programText(c.statements);
    std::optional<Program> compiled = compileProgram(c);
    if (!compiled) return false;
    for (const std::string& name : compiled->inputs())  // e.g. a declared output whose statement was dropped
      if (!c.inputs.count(name)) return false;
    try {
      if (!keepsValueRules(c.statements, *compiled, c.inputs)) return false;
    } catch (const std::exception&) {
      return false;  // not a program the reference evaluates: no reproducer
    }
    if (!stillFails_(c)) return false;
    p = std::move(c);
    return true;
  }

  bool dropStatements(RandomProgram& p) {
    bool any = false;
    for (size_t s = p.statements.size(); s-- > 0 && p.statements.size() > 1;) {
      RandomProgram c = p;
      if (!c.inputs.count(c.statements[s].lhs)) c.env.tensors.erase(c.statements[s].lhs);  // a declared output
      c.statements.erase(c.statements.begin() + static_cast<std::ptrdiff_t>(s));
      any |= attempt(p, c);
    }
    return any;
  }

  bool simplifyExpressions(RandomProgram& p) {
    bool any = false;
    for (size_t s = 0; s < p.statements.size(); ++s)
      for (int n = 0; n < countNodes(p.statements[s].rhs); ++n) {
        int pos = 0;
        Expr node = nodeAt(p.statements[s].rhs, pos, n);
        std::vector<Expr> replacements(node->args.begin(), node->args.end());
        if (node->op != Op::Literal) replacements.push_back(literal(1.0));
        for (const Expr& by : replacements) {
          RandomProgram c = p;
          int at = 0;
          c.statements[s].rhs = replaceAt(p.statements[s].rhs, at, n, by);
          if (attempt(p, c)) {
            any = true;
            break;
          }
        }
      }
    return any;
  }

  bool simplifyStatements(RandomProgram& p) {
    bool any = false;
    for (size_t s = 0; s < p.statements.size(); ++s) {
      if (p.statements[s].reduce == ReduceOp::Max) {
        RandomProgram c = p;
        c.statements[s].reduce = ReduceOp::Sum;
        any |= attempt(p, c);
      }
      for (size_t x = p.statements[s].lhsIndices.size(); x-- > 0;) {
        RandomProgram c = p;
        c.statements[s].lhsIndices.erase(c.statements[s].lhsIndices.begin() + static_cast<std::ptrdiff_t>(x));
        c.env.tensors.erase(c.statements[s].lhs);  // a declared output keeps its rank otherwise
        any |= attempt(p, c);
      }
    }
    return any;
  }

  bool shrinkExtents(RandomProgram& p) {  // one change at a time: the extents change with it
    std::map<std::string, int64_t> extents;
    for (const auto& [name, idx] : p.inputIndices) {
      const TensorDecl& d = p.env.tensors.at(name);
      for (size_t k = 0; k < idx.size(); ++k) extents[idx[k]] = d.shape[k];
    }
    // Each index alone, then all indices of one extent together (a tensor read transposed
    // needs both of its extents equal).
    std::vector<std::vector<std::string>> groups;
    std::map<int64_t, std::vector<std::string>> byExtent;
    for (const auto& [x, n] : extents) {
      groups.push_back({x});
      byExtent[n].push_back(x);
    }
    for (const auto& [n, xs] : byExtent)
      if (xs.size() > 1) groups.push_back(xs);
    for (const std::vector<std::string>& g : groups) {
      int64_t now = extents.at(g[0]);
      for (int64_t target : {int64_t{1}, now - 1})
        if (target >= 1 && target < now && attempt(p, withExtent(p, g, target))) return true;
    }
    return false;
  }

  static std::vector<std::string> inputNames(const RandomProgram& p) {
    std::vector<std::string> names;
    for (const auto& entry : p.inputs) names.push_back(entry.first);
    return names;
  }

  bool dropEntries(RandomProgram& p) {
    bool any = false;
    for (const std::string& name : inputNames(p)) {
      if (!isSparse(p.inputs.at(name))) continue;
      for (int64_t q = entriesOf(p.inputs.at(name)).entries(); q-- > 0;) {
        CooTensor coo = entriesOf(p.inputs.at(name));
        if (q >= coo.entries()) continue;
        for (std::vector<int64_t>& crd : coo.crd) crd.erase(crd.begin() + q);
        coo.val.erase(coo.val.begin() + q);
        RandomProgram c = p;
        c.inputs[name] = withEntries(p.inputs.at(name), std::move(coo));
        any |= attempt(p, c);
      }
    }
    return any;
  }

  bool simplifyValues(RandomProgram& p) {
    bool any = false;
    for (const std::string& name : inputNames(p)) {
      RandomProgram c = p;
      std::vector<double>& vals = valuesOf(c.inputs.at(name));
      if (std::all_of(vals.begin(), vals.end(), [](double x) { return x == 1.0; })) continue;
      std::fill(vals.begin(), vals.end(), 1.0);
      any |= attempt(p, c);
    }
    return any;
  }

  const std::function<bool(const RandomProgram&)>& stillFails_;
  std::chrono::steady_clock::time_point deadline_;
};

}  // namespace

RandomProgram withExtent(const RandomProgram& p, const std::vector<std::string>& indices, int64_t extent) {
  RandomProgram c = p;
  auto shrunk = [&](const std::string& x) { return std::find(indices.begin(), indices.end(), x) != indices.end(); };
  for (const std::string& x : indices)
    if (c.env.indexSizes.count(x)) c.env.indexSizes[x] = extent;
  for (const auto& [name, idx] : p.inputIndices) {
    TensorDecl& d = c.env.tensors.at(name);
    std::vector<int64_t> old = d.shape;
    for (size_t k = 0; k < idx.size(); ++k)
      if (shrunk(idx[k])) d.shape[k] = std::min(d.shape[k], extent);
    if (isSparse(p.inputs.at(name))) {
      CooTensor coo = entriesOf(p.inputs.at(name)), kept;
      kept.shape = d.shape;
      kept.crd.resize(d.shape.size());
      for (int64_t q = 0; q < coo.entries(); ++q) {
        bool inside = true;
        for (size_t k = 0; k < d.shape.size(); ++k) inside = inside && coo.crd[k][static_cast<size_t>(q)] < d.shape[k];
        if (!inside) continue;
        for (size_t k = 0; k < d.shape.size(); ++k) kept.crd[k].push_back(coo.crd[k][static_cast<size_t>(q)]);
        kept.val.push_back(coo.val[static_cast<size_t>(q)]);
      }
      c.inputs[name] = withEntries(p.inputs.at(name), std::move(kept));
      continue;
    }
    const DenseTensor& t = std::get<DenseTensor>(p.inputs.at(name));
    DenseTensor s(d.shape);
    for (int64_t flat = 0; flat < s.size(); ++flat) {  // row-major position in s -> position in t
      int64_t rest = flat, from = 0, stride = 1;
      for (size_t k = d.shape.size(); k-- > 0;) {
        from += (rest % d.shape[k]) * stride;
        rest /= d.shape[k];
        stride *= old[k];
      }
      s.data[static_cast<size_t>(flat)] = t.data[static_cast<size_t>(from)];
    }
    c.inputs[name] = s;
  }
  return c;
}

RandomProgram minimize(RandomProgram p, const std::function<bool(const RandomProgram&)>& stillFails, double seconds) {
  return Minimizer(stillFails, seconds).run(std::move(p));
}

}  // namespace react::fuzz
