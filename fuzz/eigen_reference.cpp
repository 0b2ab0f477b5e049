// Eigen evaluation of one-operator programs (eigen_reference.hpp).
#include "fuzz/eigen_reference.hpp"

#include "fuzz/reference.hpp"

#include <Eigen/Dense>
#include <Eigen/SparseCore>

#include <algorithm>
#include <cmath>
#include <limits>

namespace react::fuzz {

namespace {

using Arr = Eigen::ArrayXXd;

// A tensor of rank <= 2 over its own indices: rank 1 is a column, rank 0 is 1x1. `present` is 1
// at stored entries of a csr-typed value and everywhere for dense ones.
struct Value {
  Arr v, present;
};

class EigenEvaluator {
 public:
  EigenEvaluator(const Program& p, const TensorValues& inputs) : p_(p), inputs_(inputs) {
    for (const auto& [name, data] : inputs) {
      if (const SparseTensor* t = std::get_if<SparseTensor>(&data)) {
        // csc and dcsr: the same entries as csr; a 3-tensor is not matrix shaped.
        if (t->rank() == 2) values_[name] = sparseValue(sparseToCsr(*t));
      } else if (const CsrMatrix* m = std::get_if<CsrMatrix>(&data)) {
        values_[name] = sparseValue(*m);
      } else {
        const DenseTensor& t = std::get<DenseTensor>(data);
        if (t.rank() > 2) continue;
        int64_t rows = t.rank() >= 1 ? t.shape[0] : 1, cols = t.rank() == 2 ? t.shape[1] : 1;
        Value x{Arr(rows, cols), Arr::Ones(rows, cols)};
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = 0; c < cols; ++c) x.v(r, c) = t.data[static_cast<size_t>(r * cols + c)];
        values_[name] = x;
      }
    }
  }

  static Value sparseValue(const CsrMatrix& m) {
    Value x{Arr::Zero(m.rows, m.cols), Arr::Zero(m.rows, m.cols)};
    for (int64_t r = 0; r < m.rows; ++r)
      for (int64_t q = m.rowptr[r]; q < m.rowptr[r + 1]; ++q) {
        x.v(r, m.col[q]) = m.val[q];
        x.present(r, m.col[q]) = 1;
      }
    return x;
  }

  // Computes `s`, or leaves its result unknown when it is not matrix shaped.
  void statement(const Statement& s) {
    std::vector<const ExprNode*> operands = s.rhs->op == Op::Access ? std::vector<const ExprNode*>{s.rhs.get()} : accesses(s.rhs);
    for (const ExprNode* a : operands)
      if (!values_.count(a->tensor)) return;
    const TensorDecl& d = p_.tensor(s.lhs);
    std::vector<std::string> reduced = s.reductionIndices();
    std::optional<Value> r;
    if (reduced.empty() || !d.format.hasSparseLevel()) {
      r = product(s, reduced);
      if (!r) r = elementwise(s, reduced);
    }
    if (!r) return;
    if (!d.format.hasSparseLevel()) r->v = (r->present > 0).select(r->v, 0.0);  // zeros off the pattern
    if (!d.format.hasSparseLevel()) r->present = Arr::Ones(r->v.rows(), r->v.cols());
    values_[s.lhs] = *r;
  }

  // The result in the compiled format (csr values read at the pattern's entries).
  std::optional<TensorData> result(const std::string& name) const {
    auto it = values_.find(name);
    if (it == values_.end()) return std::nullopt;
    const TensorDecl& d = p_.tensor(name);
    const Value& x = it->second;
    if (d.format.hasSparseLevel()) {
      // A pattern a co-iteration assembles is not known here (the element-wise evaluation keeps
      // one operand's stored entries); the dense reference checks it.
      if (!inputs_.count(d.pattern)) return std::nullopt;
      auto at = [&](int64_t r, int64_t c) { return x.present(r, c) > 0 ? x.v(r, c) : std::numeric_limits<double>::quiet_NaN(); };
      TensorData pattern = iteratedForm(inputs_.at(d.pattern));
      if (SparseTensor* t = std::get_if<SparseTensor>(&pattern)) {  // csc, dcsr: values at its positions, in its order
        const CooTensor entries = sparseToCoo(*t);
        for (int64_t k = 0; k < entries.entries(); ++k) t->val[static_cast<size_t>(k)] = at(entries.crd[0][k], entries.crd[1][k]);
        return pattern;
      }
      CsrMatrix& m = std::get<CsrMatrix>(pattern);
      for (int64_t r = 0; r < m.rows; ++r)
        for (int64_t q = m.rowptr[r]; q < m.rowptr[r + 1]; ++q) m.val[q] = at(r, m.col[q]);
      return m;
    }
    DenseTensor t(d.shape);
    for (int64_t k = 0; k < t.size(); ++k) t.data[static_cast<size_t>(k)] = x.v(d.rank() == 2 ? k / d.shape[1] : k, d.rank() == 2 ? k % d.shape[1] : 0);
    return t;
  }

 private:
  int64_t extent(const std::string& index) const { return index.empty() ? 1 : p_.indexSizes.at(index); }

  // `x` (accessed with `idx`) laid out over (u0, u1); "" is an axis of extent 1.
  Arr arrange(const Arr& x, const std::vector<std::string>& idx, const std::string& u0, const std::string& u1) const {
    const int64_t n0 = extent(u0), n1 = extent(u1);
    if (idx.empty()) return Arr::Constant(n0, n1, x(0, 0));
    if (idx.size() == 1) return idx[0] == u0 ? Arr(x.col(0).replicate(1, n1)) : Arr(x.col(0).transpose().replicate(n0, 1));
    return idx[0] == u0 ? x : Arr(x.transpose());
  }

  // Element-wise over at most two indices (the left side's, then the reduced ones), then a masked
  // reduction of the rows, the columns or everything.
  std::optional<Value> elementwise(const Statement& s, const std::vector<std::string>& reduced) const {
    std::vector<std::string> u = s.lhsIndices;
    u.insert(u.end(), reduced.begin(), reduced.end());
    if (u.size() > 2) return std::nullopt;
    u.resize(2);
    const int64_t n0 = extent(u[0]), n1 = extent(u[1]);
    std::vector<Arr> a, presents;
    Arr present = Arr::Ones(n0, n1), anyPresent = Arr::Zero(n0, n1);
    bool allSparse = true;
    const std::vector<Expr> args = s.rhs->op == Op::Access ? std::vector<Expr>{s.rhs} : s.rhs->args;
    for (const Expr& x : args) {
      if (x->op == Op::Literal) {
        a.push_back(Arr::Constant(n0, n1, x->value));
        allSparse = false;
        continue;
      }
      if (x->op != Op::Access) return std::nullopt;
      const Value& val = values_.at(x->tensor);
      a.push_back(arrange(val.v, x->indices, u[0], u[1]));
      presents.push_back(arrange(val.present, x->indices, u[0], u[1]));
      present *= presents.back();
      anyPresent = anyPresent.max(presents.back());
      allSparse = allSparse && p_.tensor(x->tensor).format.hasSparseLevel();
    }
    // A sum or difference of sparse operands is stored where either is (a union: docs/semantics.md,
    // "Two sparse patterns"), the missing operand read as 0.
    if ((s.rhs->op == Op::Add || s.rhs->op == Op::Sub) && allSparse) {
      for (size_t k = 0; k < a.size(); ++k) a[k] = (presents[k] > 0).select(a[k], 0.0);
      present = anyPresent;
    }
    Arr r;
    auto cmp = [](const auto& c) { return Arr(c.template cast<double>()); };
    switch (s.rhs->op) {
      case Op::Access: r = a[0]; break;
      case Op::Neg: r = -a[0]; break;
      // std::exp as the reference and the kernels call it: Eigen's vectorised exp may differ in
      // the last bit, which a comparison turns into 0 or 1.
      case Op::Exp: r = a[0].unaryExpr([](double x) { return std::exp(x); }); break;
      case Op::Sqrt: r = a[0].unaryExpr([](double x) { return std::sqrt(x); }); break;
      case Op::Log: r = a[0].unaryExpr([](double x) { return std::log(x); }); break;
      case Op::Add: r = a[0] + a[1]; break;
      case Op::Sub: r = a[0] - a[1]; break;
      case Op::Mul: r = a[0] * a[1]; break;
      case Op::Div: r = a[0] / a[1]; break;
      case Op::Max: r = (a[0] < a[1]).select(a[1], a[0]); break;
      case Op::Min: r = (a[1] < a[0]).select(a[1], a[0]); break;
      case Op::Lt: r = cmp(a[0] < a[1]); break;
      case Op::Le: r = cmp(a[0] <= a[1]); break;
      case Op::Gt: r = cmp(a[0] > a[1]); break;
      case Op::Ge: r = cmp(a[0] >= a[1]); break;
      case Op::Eq: r = cmp(a[0] == a[1]); break;
      case Op::Ne: r = cmp(a[0] != a[1]); break;
      case Op::Where: r = (a[0] != 0.0).select(a[1], a[2]); break;
      default: return std::nullopt;
    }
    if (reduced.empty()) return Value{r, present};
    const bool isMax = s.reduce == ReduceOp::Max;
    const Arr masked = (present > 0).select(r, isMax ? -std::numeric_limits<double>::infinity() : 0.0);
    Arr out;
    if (s.lhsIndices.empty()) out = Arr::Constant(1, 1, isMax ? masked.maxCoeff() : masked.sum());
    else out = isMax ? Arr(masked.rowwise().maxCoeff()) : Arr(masked.rowwise().sum());
    return Value{out, Arr::Ones(out.rows(), out.cols())};
  }

  // A product of two accesses summed over one index that both hold, each holding at most one
  // other index (the left side's): an Eigen matrix product, sparse times dense for csr operands.
  std::optional<Value> product(const Statement& s, const std::vector<std::string>& reduced) const {
    if (s.rhs->op != Op::Mul || reduced.size() != 1 || s.reduce != ReduceOp::Sum) return std::nullopt;
    const std::string& k = reduced[0];
    std::vector<std::string> other;  // each factor's other index, "" for none
    for (const Expr& x : s.rhs->args) {
      if (x->op != Op::Access || x->indices.size() > 2) return std::nullopt;
      std::vector<std::string> rest;
      for (const std::string& i : x->indices)
        if (i != k) rest.push_back(i);
      if (rest.size() == x->indices.size()) return std::nullopt;  // does not hold k
      other.push_back(rest.empty() ? "" : rest[0]);
    }
    if (!other[0].empty() && other[0] == other[1]) return std::nullopt;
    // Factor f as (other index x k).
    auto factor = [&](int f) { return arrange(values_.at(s.rhs->args[f]->tensor).v, s.rhs->args[f]->indices, other[f], k); };
    auto sparse = [&](int f) {
      Arr mask = arrange(values_.at(s.rhs->args[f]->tensor).present, s.rhs->args[f]->indices, other[f], k);
      Arr v = factor(f);
      std::vector<Eigen::Triplet<double>> entries;
      for (Eigen::Index c = 0; c < v.cols(); ++c)
        for (Eigen::Index r = 0; r < v.rows(); ++r)
          if (mask(r, c) > 0) entries.emplace_back(r, c, v(r, c));
      Eigen::SparseMatrix<double> m(v.rows(), v.cols());
      m.setFromTriplets(entries.begin(), entries.end());
      return m;
    };
    auto isCsr = [&](int f) { return p_.tensor(s.rhs->args[f]->tensor).format.hasSparseLevel(); };
    Eigen::MatrixXd r;  // other[0] x other[1]
    if (isCsr(0) && isCsr(1)) return std::nullopt;
    if (isCsr(0)) r = sparse(0) * factor(1).matrix().transpose();
    else if (isCsr(1)) r = (sparse(1) * factor(0).matrix().transpose()).transpose();
    else r = factor(0).matrix() * factor(1).matrix().transpose();
    // The left side names other[0] and other[1] (those that exist) in some order.
    std::vector<std::string> want;
    for (const std::string& o : other)
      if (!o.empty()) want.push_back(o);
    std::vector<std::string> lhs = s.lhsIndices;
    std::vector<std::string> sortedLhs = lhs, sortedWant = want;
    std::sort(sortedLhs.begin(), sortedLhs.end());
    std::sort(sortedWant.begin(), sortedWant.end());
    if (sortedLhs != sortedWant) return std::nullopt;
    Arr out = r.array();
    if (lhs.size() == 1) out = other[0].empty() ? Arr(out.row(0).transpose()) : Arr(out.col(0));
    if (lhs.size() == 2 && lhs[0] != other[0]) out = Arr(out.transpose());
    return Value{out, Arr::Ones(out.rows(), out.cols())};
  }

  const Program& p_;
  const TensorValues& inputs_;
  std::map<std::string, Value> values_;
};

}  // namespace

std::optional<Mismatch> checkEigen(const Program& compiled, const TensorValues& inputs, const TensorValues& want,
                                   EigenCoverage* coverage) {
  EigenEvaluator e(compiled, inputs);
  for (const Statement& s : compiled.statements) e.statement(s);
  for (const std::string& name : compiled.outputs()) {
    std::optional<TensorData> got = e.result(name);
    if (!got) {
      if (coverage) ++coverage->leftOut;
      continue;
    }
    if (coverage) ++coverage->outputs;
    if (auto m = compareOutput(name, *got, want.at(name), "eigen vs reference")) return m;
  }
  return std::nullopt;
}

}  // namespace react::fuzz
