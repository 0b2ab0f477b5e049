// The dense reference evaluator (loops over every index point, stored-entry semantics) and the
// entry-by-entry comparison of results.
#include "fuzz/reference.hpp"

#include "fuzz/float32_bound.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <stdexcept>

namespace react::fuzz {

TensorData iteratedForm(const TensorData& pattern) {
  if (const SparseTensor* t = std::get_if<SparseTensor>(&pattern); t && t->format != t->format.iterated())
    return convertFormat(*t, t->format.iterated());
  return pattern;
}

namespace {

// A value at one index point: absent where a csr operand has no stored entry. `bound`: how far
// the float32 evaluation may lie from it (float32_bound.hpp).
struct Point {
  double value;
  bool present;
  double bound = 0;
};

class Reference {
 public:
  Reference(const Program& compiled, const TensorValues& inputs) : compiled_(compiled) {
    for (const auto& [name, v] : inputs) values_[name] = v;
  }

  void statement(const Statement& s) {
    range_ = ValueRange();
    const TensorDecl& d = compiled_.tensor(s.lhs);
    std::vector<std::string> reduced = s.reductionIndices();
    std::vector<double>& bounds = bounds_[s.lhs];
    bounds.clear();
    auto valueAt = [&]() {
      Point p = reduceOver(reduced, s.reduce, s.rhs);
      bounds.push_back(p.bound);
      return p.value;
    };
    if (d.format.hasSparseLevel()) {
      TensorData result = d.pattern == s.lhs ? assembledPattern(s, d) : iteratedForm(values_.at(d.pattern));
      if (d.format.storesPatternPrefix()) result = patternPrefix(result, d.format, d.shape);  // ssd: blocks under fibres
      if (CsrMatrix* m = std::get_if<CsrMatrix>(&result)) {
        for (int64_t r = 0; r < m->rows; ++r)
          for (int64_t q = m->rowptr[r]; q < m->rowptr[r + 1]; ++q) {
            idx_[s.lhsIndices[0]] = r;
            idx_[s.lhsIndices[1]] = m->col[q];
            m->val[q] = valueAt();
          }
      } else {
        SparseTensor& t = std::get<SparseTensor>(result);
        const CooTensor entries = sparseToCoo(t);  // entry k is at position k of the last level
        for (int64_t k = 0; k < entries.entries(); ++k) {
          for (size_t dim = 0; dim < s.lhsIndices.size(); ++dim) idx_[s.lhsIndices[dim]] = entries.crd[dim][k];
          t.val[static_cast<size_t>(k)] = valueAt();
        }
      }
      values_[s.lhs] = std::move(result);
      return;
    }
    DenseTensor out(d.shape);
    int64_t flat = 0;
    forAll(s.lhsIndices, 0, [&] { out.data[static_cast<size_t>(flat++)] = valueAt(); });
    values_[s.lhs] = out;
  }

  // The pattern a co-iteration assembles (docs/semantics.md, "Two sparse patterns"), found by
  // asking both operands (of the user's statement: expressions at a pattern each) at every
  // coordinate: where both are stored for `*`, where either is for `+` and `-`; in the result's
  // format (csr data as a CsrMatrix).
  TensorData assembledPattern(const Statement& s, const TensorDecl& d) {
    CooTensor entries;
    entries.shape = d.shape;
    entries.crd.resize(d.shape.size());
    const bool unite = s.rhs->op != Op::Mul;
    forAll(s.lhsIndices, 0, [&] {
      const bool a = eval(s.rhs->args.at(0)).present, b = eval(s.rhs->args.at(1)).present;
      if (!(unite ? a || b : a && b)) return;
      for (size_t dim = 0; dim < s.lhsIndices.size(); ++dim) entries.crd[dim].push_back(idx_.at(s.lhsIndices[dim]));
      entries.val.push_back(0.0);
    });
    SparseTensor t = cooToSparse(entries, d.format);
    return d.format == Format::csr() ? TensorData(sparseToCsr(t)) : TensorData(std::move(t));
  }

  const TensorValues& values() const { return values_; }
  // The float32 bounds of a result, in the layout of its values.
  TensorData bounds(const std::string& name) const {
    TensorData b = values_.at(name);
    valuesOf(b) = bounds_.at(name);
    return b;
  }
  const ValueRange& range() const { return range_; }

 private:
  void forAll(const std::vector<std::string>& indices, size_t d, const std::function<void()>& body) {
    if (d == indices.size()) return body();
    for (int64_t x = 0; x < compiled_.indexSizes.at(indices[d]); ++x) {
      idx_[indices[d]] = x;
      forAll(indices, d + 1, body);
    }
  }

  // The sum or maximum of `body` over `indices` (its present values), with its float32 bound.
  Point reduceOver(const std::vector<std::string>& indices, ReduceOp op, const Expr& body) {
    double acc = reduceIdentity(op);
    ReductionBound bound(op);
    forAll(indices, 0, [&] {
      Point p = eval(body);
      if (!p.present) return;
      acc = op == ReduceOp::Sum ? acc + p.value : std::max(acc, p.value);
      bound.add(p.value, p.bound);
    });
    return {acc, true, bound.bound(acc)};
  }

  // An input's float32 bound is 0: the float32 checks give every input as float32 values.
  Point load(const ExprNode& a) {
    const TensorData& v = values_.at(a.tensor);
    auto it = bounds_.find(a.tensor);
    auto boundAt = [&](int64_t k) { return it == bounds_.end() ? 0.0 : it->second[static_cast<size_t>(k)]; };
    if (const CsrMatrix* m = std::get_if<CsrMatrix>(&v)) {
      int64_t r = idx_.at(a.indices[0]), c = idx_.at(a.indices[1]);
      for (int64_t q = m->rowptr[r]; q < m->rowptr[r + 1]; ++q)
        if (m->col[q] == c) return {m->val[q], true, boundAt(q)};
      return {0.0, false};
    }
    if (const SparseTensor* t = std::get_if<SparseTensor>(&v)) {
      std::vector<int64_t> coordinates;
      for (const std::string& i : a.indices) coordinates.push_back(idx_.at(i));
      int64_t q = storedPosition(*t, coordinates, 0, 0);
      if (q < 0) return {0.0, false};
      return {t->val[static_cast<size_t>(q)], true, boundAt(q)};
    }
    const DenseTensor& t = std::get<DenseTensor>(v);
    int64_t off = 0;
    for (size_t d = 0; d < a.indices.size(); ++d) off = off * t.shape[d] + idx_.at(a.indices[d]);
    return {t.data[static_cast<size_t>(off)], true, boundAt(off)};
  }

  // The position of the last level at which `t` stores the element at `coordinates` (logical
  // dimension order), searched level by level from `parent`, a position of level `l - 1`; -1
  // when it is not stored. A level that is not unique may hold the coordinate at several
  // positions: each is searched.
  static int64_t storedPosition(const SparseTensor& t, const std::vector<int64_t>& coordinates, int l, int64_t parent) {
    if (l == t.rank()) return parent;
    const Level& level = t.format.level(l);
    const LevelArrays& arrays = t.levels[static_cast<size_t>(l)];
    const size_t d = static_cast<size_t>(t.format.dimension(l));
    const int64_t c = coordinates[d];
    int64_t begin = parent, end = parent + 1;
    switch (level.kind) {
      case LevelKind::Dense: return storedPosition(t, coordinates, l + 1, parent * t.shape[d] + c);
      case LevelKind::Compressed:
        begin = arrays.pos[static_cast<size_t>(parent)];
        end = arrays.pos[static_cast<size_t>(parent) + 1];
        break;
      case LevelKind::Singleton: break;
    }
    for (int64_t q = begin; q < end; ++q) {
      if (arrays.crd[static_cast<size_t>(q)] != c) continue;
      int64_t found = storedPosition(t, coordinates, l + 1, q);
      if (found >= 0) return found;
    }
    return -1;
  }

  // Whether `e` keeps a csr operand's stored-entry pattern (docs/semantics.md): a csr access, or
  // an element-wise operator over one with the same indices. Anything else is dense: a product
  // that spreads a csr operand over more indices is exactly zero where the operand is absent.
  bool sparseTyped(const Expr& e) {
    auto it = sparseTyped_.find(e.get());
    if (it != sparseTyped_.end()) return it->second;
    bool typed = false;
    if (e->op == Op::Access) {
      typed = compiled_.tensor(e->tensor).format.hasSparseLevel();
    } else if (e->op == Op::Reduce) {
      typed = patternFactor(e) != nullptr;
    } else if (e->op != Op::Literal) {
      std::vector<std::string> mine = freeIndices(e);
      std::sort(mine.begin(), mine.end());
      for (const Expr& a : e->args) {
        std::vector<std::string> theirs = freeIndices(a);
        std::sort(theirs.begin(), theirs.end());
        typed = typed || (sparseTyped(a) && theirs == mine);
      }
    }
    return sparseTyped_[e.get()] = typed;
  }

  // A sum of a product keeps the pattern of a sparse factor that has exactly the sum's indices:
  // the factor is applied after the sum (docs/semantics.md, one-operator form).
  const Expr* patternFactor(const Expr& e) {
    if (e->op != Op::Reduce || e->reduceOp != ReduceOp::Sum) return nullptr;
    std::vector<Expr> factors;
    std::function<void(const Expr&)> flatten = [&](const Expr& x) {
      if (x->op != Op::Mul) return factors.push_back(x);
      flatten(x->args[0]);
      flatten(x->args[1]);
    };
    flatten(e->args[0]);
    std::vector<std::string> mine = freeIndices(e);
    std::sort(mine.begin(), mine.end());
    for (const Expr& f : factors) {
      std::vector<std::string> theirs = freeIndices(f);
      std::sort(theirs.begin(), theirs.end());
      if (theirs == mine && sparseTyped(f)) {
        patternFactors_.push_back(f);
        return &patternFactors_.back();
      }
    }
    return nullptr;
  }

  Point eval(const Expr& e) {
    Point p = evalPoint(e);
    if (!p.present && !sparseTyped(e)) return {0.0, true};
    if (p.present && e->op != Op::Reduce) {
      range_.nonFinite = range_.nonFinite || !std::isfinite(p.value);
      if (std::isfinite(p.value)) range_.maxAbs = std::max(range_.maxAbs, std::abs(p.value));
    }
    return p;
  }

  Point evalPoint(const Expr& e) {
    if (e->op == Op::Access) return load(*e);
    if (e->op == Op::Literal) return {e->value, true, literalBound(e->value)};
    if (e->op == Op::Reduce) {
      if (sparseTyped(e) && !evalPoint(*patternFactor(e)).present) return {0.0, false};
      std::map<std::string, int64_t> saved = idx_;
      Point p = reduceOver(e->reduceIndices, e->reduceOp, e->args[0]);
      idx_ = saved;
      return p;
    }
    std::vector<Point> a;
    std::vector<double> values, bounds;
    bool present = true, anyPresent = false, allSparse = true;
    for (const Expr& x : e->args) {
      a.push_back(eval(x));
      present = present && a.back().present;
      anyPresent = anyPresent || a.back().present;
      allSparse = allSparse && sparseTyped(x);
      values.push_back(a.back().value);
      bounds.push_back(a.back().bound);
    }
    // A sum or difference of sparse operands is stored where either is (a union, when they are
    // stored at different patterns: docs/semantics.md, "Two sparse patterns"); the missing one is 0.
    if ((e->op == Op::Add || e->op == Op::Sub) && allSparse) {
      present = anyPresent;
      for (size_t k = 0; k < a.size(); ++k)
        if (!a[k].present) a[k] = {0.0, false, 0.0}, values[k] = bounds[k] = 0.0;
    }
    auto v = [&](size_t k) { return a[k].value; };
    double r = 0;
    switch (e->op) {
      case Op::Neg: r = -v(0); break;
      case Op::Exp: r = std::exp(v(0)); break;
      case Op::Sqrt: r = std::sqrt(v(0)); break;
      case Op::Log: r = std::log(v(0)); break;
      case Op::Add: r = v(0) + v(1); break;
      case Op::Sub: r = v(0) - v(1); break;
      case Op::Mul: r = v(0) * v(1); break;
      case Op::Div: r = v(0) / v(1); break;
      case Op::Max: r = std::max(v(0), v(1)); break;
      case Op::Min: r = std::min(v(0), v(1)); break;
      case Op::Lt: r = v(0) < v(1); break;
      case Op::Le: r = v(0) <= v(1); break;
      case Op::Gt: r = v(0) > v(1); break;
      case Op::Ge: r = v(0) >= v(1); break;
      case Op::Eq: r = v(0) == v(1); break;
      case Op::Ne: r = v(0) != v(1); break;
      case Op::Where: r = v(0) != 0.0 ? v(1) : v(2); break;
      default: throw std::logic_error(std::string("reference: unexpected operator ") + opName(e->op));
    }
    return {r, present, operationBound(e->op, values, bounds, r)};
  }

  const Program& compiled_;
  std::map<const ExprNode*, bool> sparseTyped_;
  std::deque<Expr> patternFactors_;
  TensorValues values_;
  std::map<std::string, std::vector<double>> bounds_;  // results' float32 bounds, in their values' layout
  std::map<std::string, int64_t> idx_;
  ValueRange range_;
};

}  // namespace

TensorValues referenceEvaluate(const std::vector<Statement>& statements, const Program& compiled,
                               const TensorValues& inputs, std::vector<ValueRange>* ranges, TensorValues* float32Bounds) {
  Reference r(compiled, inputs);
  if (ranges) ranges->clear();
  for (const Statement& s : statements) {
    r.statement(s);
    if (ranges) ranges->push_back(r.range());
    if (float32Bounds) (*float32Bounds)[s.lhs] = r.bounds(s.lhs);
  }
  return r.values();
}

double relativeError(const TensorData& a, const TensorData& b) {
  if (!sameStructure(a, b)) return std::numeric_limits<double>::infinity();
  const std::vector<double>* va = &valuesOf(a);
  const std::vector<double>* vb = &valuesOf(b);
  double diff = 0, scale = 0;
  for (size_t k = 0; k < va->size(); ++k) {
    double x = (*va)[k], y = (*vb)[k];
    if (std::isnan(x) || std::isnan(y) || std::isinf(x) || std::isinf(y)) {
      bool same = (std::isnan(x) && std::isnan(y)) || x == y;
      if (!same) return std::numeric_limits<double>::infinity();
      continue;
    }
    diff = std::max(diff, std::abs(x - y));
    scale = std::max(scale, std::abs(y));
  }
  return scale > 0 ? diff / scale : diff;
}

}  // namespace react::fuzz
