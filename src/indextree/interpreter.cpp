// The reference interpreter: walks any index tree and evaluates its statements one scalar at a
// time. Slow and exact; the golden model of every differential test.
#include "indextree/internal.hpp"

#include <cmath>
#include <limits>

namespace react {

namespace {

struct Storage {
  std::vector<double> values;
  std::vector<int64_t> strides;  // one per logical dimension; 0 for dropped dims
  bool sparse = false;           // values indexed by the pattern position
  std::string pattern;
};

class Interpreter {
 public:
  Interpreter(const IndexTree& t, const TensorValues& inputs) : t_(t) {
    for (const auto& [name, s] : t.tensors)
      if (s.decl.role == TensorRole::Input) bindInput(name, s, inputs);
    for (const auto& [name, s] : t.tensors)
      if (s.decl.role != TensorRole::Input) allocate(name, s, identityOf(name));
  }

  void run() { exec(t_.root); }

  TensorValues outputs() const {
    TensorValues out;
    for (const auto& [name, s] : t_.tensors) {
      if (s.decl.role != TensorRole::Output) continue;
      const Storage& st = store_.at(name);
      if (s.decl.format.isSparse()) {
        CsrMatrix m = patterns_.at(s.decl.pattern);
        m.val = st.values;
        out[name] = m;
      } else {
        DenseTensor d(s.decl.shape);
        d.data = st.values;
        out[name] = d;
      }
    }
    return out;
  }

 private:
  double identityOf(const std::string& name) const {
    double id = 0.0;
    visitTree(t_.root, [&](const TreeNode& n, const std::vector<const TreeNode*>&) {
      if (n.kind == NodeKind::Compute && n.computeKind == ComputeKind::Compute && n.stmt.lhs == name)
        id = reduceIdentity(n.stmt.reduce);
    });
    return id;
  }

  void allocate(const std::string& name, const TensorStorage& s, double init) {
    Storage st;
    st.sparse = s.decl.format.isSparse() && !s.shrunk();
    st.pattern = s.decl.pattern;
    st.strides.assign(s.decl.shape.size(), 0);
    int64_t size = 1;
    if (st.sparse) {
      size = nnzOf(s.decl.pattern);
    } else {
      for (int d = static_cast<int>(s.decl.shape.size()) - 1; d >= 0; --d)
        if (s.kept[d]) {
          st.strides[d] = size;
          size *= s.decl.shape[d];
        }
    }
    st.values.assign(static_cast<size_t>(size), init);
    store_[name] = std::move(st);
  }

  int64_t nnzOf(const std::string& pattern) const {
    auto it = patterns_.find(pattern);
    if (it == patterns_.end()) throw Error("interpreter: pattern '" + pattern + "' is not an input");
    return it->second.nnz();
  }

  void bindInput(const std::string& name, const TensorStorage& s, const TensorValues& inputs) {
    auto it = inputs.find(name);
    if (it == inputs.end()) throw Error("interpreter: no value given for input '" + name + "'");
    if (s.decl.format.isSparse()) {
      const CsrMatrix* m = std::get_if<CsrMatrix>(&it->second);
      if (!m) throw Error("interpreter: input '" + name + "' is declared csr but given dense");
      if (m->rows != s.decl.shape[0] || m->cols != s.decl.shape[1])
        throw Error("interpreter: input '" + name + "' has the wrong shape");
      patterns_[name] = *m;
      Storage st;
      st.sparse = true;
      st.pattern = name;
      st.values = m->val;
      st.strides.assign(2, 0);
      store_[name] = std::move(st);
      return;
    }
    const DenseTensor* d = std::get_if<DenseTensor>(&it->second);
    if (!d) throw Error("interpreter: input '" + name + "' is declared dense but given csr");
    if (d->shape != s.decl.shape) throw Error("interpreter: input '" + name + "' has the wrong shape");
    allocate(name, s, 0.0);
    store_[name].values = d->data;
  }

  double& slot(const std::string& name, const std::vector<std::string>& idx) {
    Storage& st = store_.at(name);
    if (st.sparse) {
      // The position bound by the sparse loop over this access's column index (several loops may
      // iterate one pattern, nested, under different rows).
      auto it = position_.find(idx[1]);
      REACT_ASSERT(it != position_.end(), "interpreter: '" + name + "' read outside a loop over its pattern");
      return st.values[static_cast<size_t>(it->second)];
    }
    int64_t off = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      if (st.strides[d]) off += st.strides[d] * index_.at(idx[d]);
    return st.values[static_cast<size_t>(off)];
  }

  double eval(const Expr& e) {
    switch (e->op) {
      case Op::Access: return slot(e->tensor, e->indices);
      case Op::Literal: return e->value;
      default: break;
    }
    std::vector<double> a;
    for (const Expr& x : e->args) a.push_back(eval(x));
    switch (e->op) {
      case Op::Neg: return -a[0];
      case Op::Exp: return std::exp(a[0]);
      case Op::Sqrt: return std::sqrt(a[0]);
      case Op::Log: return std::log(a[0]);
      case Op::Add: return a[0] + a[1];
      case Op::Sub: return a[0] - a[1];
      case Op::Mul: return a[0] * a[1];
      case Op::Div: return a[0] / a[1];
      case Op::Max: return std::max(a[0], a[1]);
      case Op::Min: return std::min(a[0], a[1]);
      case Op::Lt: return a[0] < a[1];
      case Op::Le: return a[0] <= a[1];
      case Op::Gt: return a[0] > a[1];
      case Op::Ge: return a[0] >= a[1];
      case Op::Eq: return a[0] == a[1];
      case Op::Ne: return a[0] != a[1];
      case Op::Where: return a[0] != 0.0 ? a[1] : a[2];
      default: internalError("interpreter: unexpected operator '" + std::string(opName(e->op)) + "'");
    }
  }

  void exec(const TreeNode& n) {
    switch (n.kind) {
      case NodeKind::Root:
        for (const TreeNode& c : n.children) exec(c);
        return;
      case NodeKind::Compute: {
        double v = eval(n.stmt.rhs);
        double& out = slot(n.stmt.lhs, n.stmt.lhsIndices);
        auto acc = accumulates_.find(&n);
        if (acc == accumulates_.end()) acc = accumulates_.emplace(&n, n.accumulates()).first;
        if (!acc->second) out = v;
        else if (n.stmt.reduce == ReduceOp::Sum) out += v;
        else out = std::max(out, v);
        return;
      }
      case NodeKind::Index: break;
    }
    const IndexLoop& loop = n.loop;
    if (loop.kind == LoopKind::Dense) {
      int64_t size = t_.indexSizes.at(loop.index);
      for (int64_t v = 0; v < size; ++v) {
        index_[loop.index] = v;
        for (const TreeNode& c : n.children) exec(c);
      }
      index_.erase(loop.index);
      return;
    }
    const CsrMatrix& p = patterns_.at(loop.pattern);
    int64_t row = index_.at(loop.parentIndex);
    for (int64_t q = p.rowptr[row]; q < p.rowptr[row + 1]; ++q) {
      index_[loop.index] = p.col[q];
      position_[loop.index] = q;
      for (const TreeNode& c : n.children) exec(c);
    }
    index_.erase(loop.index);
    position_.erase(loop.index);
  }

  const IndexTree& t_;
  std::map<std::string, Storage> store_;
  std::map<std::string, CsrMatrix> patterns_;
  std::map<std::string, int64_t> index_;
  std::map<std::string, int64_t> position_;  // sparse loop index -> its position
  std::map<const TreeNode*, bool> accumulates_;
};

}  // namespace

TensorValues interpret(const IndexTree& t, const TensorValues& inputs) {
  verifyTree(t);
  Interpreter in(t, inputs);
  in.run();
  return in.outputs();
}

}  // namespace react
