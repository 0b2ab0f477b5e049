// The NumPy-like operator form: `A = S * (B @ C)`, `A = S / sum(S, axis=1)`, `.T`, broadcasting.
// Each axis of each value is an index class; '@' and broadcasting unify classes. After splitting,
// classes get index names (docs/semantics.md, "Operator form").
#include "indexnotation/syntax.hpp"

#include <cstdint>

namespace react {
namespace detail {
namespace {

// Index classes: which axes are the same index (classes), and which have the same size (groups,
// which also hold tensor dimensions, so that two uses of one tensor agree without being one index).
class Classes {
 public:
  int fresh() {
    group_.push_back(groups_.add(-1));
    return classes_.add(-1);
  }
  int find(int c) { return classes_.find(c); }
  int64_t size(int c) { return groups_.size(group_[c]); }
  bool compatible(int a, int b) {
    return groups_.find(group_[a]) == groups_.find(group_[b]) || (size(a) >= 0 && size(a) == size(b));
  }
  void unify(int a, int b) {  // callers check that known sizes agree
    classes_.unite(a, b);
    groups_.unite(group_[a], group_[b]);
  }
  // Class c has the size of dimension d of tensor t (whose size is `size`, or -1 if unknown).
  void tie(int c, const std::string& t, int d, int64_t size) {
    auto [it, added] = dims_.emplace(t + ":" + std::to_string(d), 0);
    if (added) it->second = groups_.add(size);
    groups_.unite(group_[c], it->second);
  }

 private:
  SizedUnionFind classes_;  // sizes unused: identity only
  SizedUnionFind groups_;
  std::vector<int> group_;  // the group of each class
  std::map<std::string, int> dims_;
};

std::string indexOf(int c) { return "#" + std::to_string(c); }
int classOf(const std::string& index) { return std::stoi(index.substr(1)); }

// cls < 0: a size-1 axis kept by sum/max(axis=); `reduced` is the class that was reduced there.
struct Axis {
  int cls = -1;
  int reduced = -1;
};

struct Value {
  Expr e;
  std::vector<Axis> axes;
};

class OperatorForm {
 public:
  explicit OperatorForm(const Environment& env) : env_(env) {}

  Program run(const std::string& text) {
    SplitResult split;
    split.program.tensors = env_.tensors;
    split.program.indexSizes = env_.indexSizes;
    for (const SyntaxStatement& s : parseSyntax(text)) split.program.statements.push_back(statement(s));
    split = splitOnly(split.program);
    nameIndices(split);
    return finishProgram(split);
  }

 private:
  Statement statement(const SyntaxStatement& s) {
    if (s.lhs.kind != Syntax::Kind::Name)
      throw errorAt(s.lhs.pos, "the operator form assigns whole tensors: write " + quoted(s.lhs.text + " = ...") +
                                   " (or index notation for every statement)");
    Value v = value(s.rhs);
    std::vector<int> result;
    for (const Axis& a : v.axes)
      if (a.cls >= 0) result.push_back(a.cls);
    auto decl = env_.tensors.find(s.lhs.text);
    for (size_t d = 0; d < result.size(); ++d) {
      bool declared = decl != env_.tensors.end() && d < decl->second.shape.size();
      classes_.tie(result[d], s.lhs.text, static_cast<int>(d), declared ? decl->second.shape[d] : -1);
    }
    results_[s.lhs.text] = static_cast<int>(result.size());
    auto canonical = [&](const std::string& i) { return indexOf(classes_.find(classOf(i))); };
    Statement st;
    st.lhs = s.lhs.text;
    st.pos = s.lhs.pos;
    for (int c : result) st.lhsIndices.push_back(canonical(indexOf(c)));
    st.rhs = mapIndices(v.e, canonical);
    return st;
  }

  Value value(const Syntax& s) {
    switch (s.kind) {
      case Syntax::Kind::Number: return {literal(s.value, s.pos), {}};
      case Syntax::Kind::Name: return tensor(s);
      case Syntax::Kind::Unary: {
        Value v = value(s.args[0]);
        return {apply(Op::Neg, {v.e}, s.pos), v.axes};
      }
      case Syntax::Kind::Binary: {
        Value a = value(s.args[0]), b = value(s.args[1]);
        Op op = binaryOp(s.text);
        Value v = op == Op::Access ? matmul(a, b, s.pos) : broadcast(op, {a, b}, s);
        // A parenthesised product keeps its association (docs/semantics.md, "Association").
        if (s.parenthesized && (op == Op::Access || op == Op::Mul)) {
          auto grouped = std::make_shared<ExprNode>(*v.e);
          grouped->grouped = true;
          v.e = grouped;
        }
        return v;
      }
      case Syntax::Kind::Transpose: {
        Value v = value(s.args[0]);
        return {v.e, std::vector<Axis>(v.axes.rbegin(), v.axes.rend())};
      }
      case Syntax::Kind::Call: return call(s);
      case Syntax::Kind::Keyword: break;
    }
    throw errorAt(s.pos, "unexpected keyword argument " + quoted(s.text));
  }

  Value tensor(const Syntax& s) {
    const std::string& name = s.text;
    if (isFunctionName(name)) throw errorAt(s.pos, quoted(name) + " is a function and needs arguments");
    std::vector<int64_t> shape;
    auto decl = env_.tensors.find(name);
    if (results_.count(name)) shape.assign(static_cast<size_t>(results_[name]), -1);
    else if (decl != env_.tensors.end()) shape = decl->second.shape;
    else throw errorAt(s.pos, "unknown tensor " + quoted(name));
    Value v;
    std::vector<std::string> idx;
    for (size_t d = 0; d < shape.size(); ++d) {
      int c = classes_.fresh();
      classes_.tie(c, name, static_cast<int>(d), shape[d]);
      v.axes.push_back({c, -1});
      idx.push_back(indexOf(c));
    }
    v.e = access(name, idx, s.pos);
    return v;
  }

  Value call(const Syntax& s) {
    std::vector<const Syntax*> positional;
    const Syntax* axis = nullptr;
    for (const Syntax& a : s.args) {
      if (a.kind != Syntax::Kind::Keyword) positional.push_back(&a);
      else if (a.text != "axis") throw errorAt(a.pos, "unknown keyword argument " + quoted(a.text) + " (only 'axis=')");
      else axis = &a.args[0];
    }
    bool isReduction = s.text == "sum" || (s.text == "max" && (axis || positional.size() == 1));
    if (isReduction || isStableBuiltin(s.text)) {
      if (positional.size() != 1) throw errorAt(s.pos, quoted(s.text) + " takes one operand and an optional 'axis='");
      Value operand = value(*positional[0]);
      if (isStableBuiltin(s.text)) return stableBuiltins(axis, s).expand(s.text, operand);
      return reduction(s.text == "sum" ? ReduceOp::Sum : ReduceOp::Max, operand, axis, s.pos);
    }
    Op op = functionOp(s.text);
    if (op == Op::Access) {
      if (env_.tensors.count(s.text) || results_.count(s.text))
        throw errorAt(s.pos, quoted(s.text) + " is a tensor, not a function (index notation needs '(' on the left "
                                              "side of the first statement, e.g. 'y() = ...')");
      throw errorAt(s.pos, "unknown function " + quoted(s.text));
    }
    if (axis) throw errorAt(axis->pos, quoted(s.text) + " takes no 'axis='");
    checkArgCount(s, opArity(op), opArity(op));
    std::vector<Value> args;
    for (const Syntax* a : positional) args.push_back(value(*a));
    return elementwise(op, std::move(args), s);
  }

  // An element-wise operator: a unary one keeps its operand's axes, the others broadcast.
  Value elementwise(Op op, std::vector<Value> args, const Syntax& at) {
    if (opArity(op) == 1) return {apply(op, {args[0].e}, at.pos), args[0].axes};
    return broadcast(op, std::move(args), at);
  }

  // softmax / logsumexp over `axis` (every axis when null), as if written out at the call.
  StableBuiltins<Value> stableBuiltins(const Syntax* axis, const Syntax& call) {
    return {[this, axis, &call](ReduceOp op, const Value& v) { return reduction(op, v, axis, call.pos); },
            [this, &call](Op op, std::vector<Value> args) { return elementwise(op, std::move(args), call); }};
  }

  Value reduction(ReduceOp op, Value v, const Syntax* axis, SourcePos pos) {
    std::vector<std::string> over;
    if (!axis) {
      for (const Axis& a : v.axes)
        if (a.cls >= 0) over.push_back(indexOf(a.cls));
      v.axes.clear();
    } else {
      long rank = static_cast<long>(v.axes.size());
      double n = axis->value;
      if (axis->kind != Syntax::Kind::Number || n != static_cast<double>(static_cast<long>(n)))
        throw errorAt(axis->pos, "'axis' must be an integer");
      if (n < -rank || n >= rank)
        throw errorAt(axis->pos, "axis " + axis->text + " is out of range for an operand of rank " + std::to_string(rank));
      Axis& a = v.axes[static_cast<size_t>(n < 0 ? n + rank : n)];
      if (a.cls >= 0) over.push_back(indexOf(a.cls));
      a = {-1, a.cls};
    }
    if (!over.empty()) v.e = reduce(op, over, v.e, pos);
    return v;
  }

  std::string shapeText(const Value& v) {
    std::vector<std::string> dims;
    for (const Axis& a : v.axes) {
      int64_t n = a.cls < 0 ? 1 : classes_.size(a.cls);
      dims.push_back(n < 0 ? "?" : std::to_string(n));
    }
    return "(" + join(dims, ",") + ")";
  }

  UserError mismatch(const std::string& op, const std::vector<Value>& vs, SourcePos pos) {
    std::vector<std::string> shapes;
    for (const Value& v : vs) shapes.push_back(shapeText(v));
    return errorAt(pos, "dimension mismatch for " + quoted(op) + ": shapes " + join(shapes, " and ") + " do not match");
  }

  // NumPy broadcasting: trailing axes aligned; a size-1 axis stretches (its index is summed
  // away, a sum over one element); an axis kept by sum/max(axis=) takes the index it meets.
  Value broadcast(Op op, std::vector<Value> vs, const Syntax& at) {
    size_t rank = 0;
    for (const Value& v : vs) rank = std::max(rank, v.axes.size());
    Value out;
    out.axes.resize(rank);
    for (size_t p = 0; p < rank; ++p) {
      std::vector<std::pair<size_t, int>> real;
      std::vector<int> kept;
      for (size_t k = 0; k < vs.size(); ++k) {
        size_t offset = rank - vs[k].axes.size();
        if (p < offset) continue;
        const Axis& a = vs[k].axes[p - offset];
        if (a.cls >= 0) real.push_back({k, a.cls});
        else kept.push_back(a.reduced);
      }
      if (real.empty()) {
        out.axes[p] = {-1, shareKeptIndex(kept)};
        continue;
      }
      int base = pickBase(real);
      for (auto [k, c] : real) {
        int64_t sb = classes_.size(base), sc = classes_.size(c);
        if (sb >= 0 && sc >= 0 && sb != sc) {
          if (sc != 1) throw mismatch(opName(op), vs, at.pos);
          vs[k].e = reduce(ReduceOp::Sum, {indexOf(c)}, vs[k].e, at.pos);
        } else {
          classes_.unify(base, c);
        }
      }
      for (int r : kept)
        if (r >= 0 && classes_.compatible(r, base)) classes_.unify(base, r);
      out.axes[p] = {base, -1};
    }
    std::vector<Expr> args;
    for (const Value& v : vs) args.push_back(v.e);
    out.e = apply(op, args, at.pos);
    return out;
  }

  // Kept axes that meet only each other reduce one index when compatible, so that equal
  // reductions are one temporary: `max(S, axis=1) + log(sum(exp(S - max(S, axis=1)), axis=1))`
  // computes the maximum once. Returns the class reduced there (-1: none).
  int shareKeptIndex(const std::vector<int>& kept) {
    int first = -1;
    for (int r : kept) {
      if (r < 0) continue;
      if (first < 0) first = r;
      else if (classes_.compatible(first, r)) classes_.unify(first, r);
    }
    return first;
  }

  // The class a broadcast axis becomes: a known size other than 1 wins, then an unknown one.
  int pickBase(const std::vector<std::pair<size_t, int>>& real) {
    for (auto [k, c] : real)
      if (classes_.size(c) >= 0 && classes_.size(c) != 1) return c;
    for (auto [k, c] : real)
      if (classes_.size(c) < 0) return c;
    return real[0].second;
  }

  Value matmul(const Value& a, const Value& b, SourcePos pos) {
    for (const Value* v : {&a, &b})
      if (v->axes.empty() || v->axes.size() > 2)
        throw errorAt(pos, std::string("'@' needs operands of rank 1 or 2, but the ") + (v == &a ? "left" : "right") +
                               " one has rank " + std::to_string(v->axes.size()));
    Axis x = a.axes.back(), y = b.axes.front();
    Value out;
    out.axes.assign(a.axes.begin(), a.axes.end() - 1);
    out.axes.insert(out.axes.end(), b.axes.begin() + 1, b.axes.end());
    Expr product = apply(Op::Mul, {a.e, b.e}, pos);
    if (x.cls < 0 && y.cls < 0) {
      out.e = product;
      return out;
    }
    if (x.cls < 0 || y.cls < 0 ||
        (classes_.size(x.cls) >= 0 && classes_.size(y.cls) >= 0 && classes_.size(x.cls) != classes_.size(y.cls)))
      throw mismatch("@", {a, b}, pos);
    classes_.unify(x.cls, y.cls);
    out.e = reduce(ReduceOp::Sum, {indexOf(x.cls)}, product, pos);
    return out;
  }

  // Result axes are i, j, ...; other indices k, h, l, m, ... in order of first appearance in
  // the right-hand sides (then left-hand sides) of each statement's split. A name is reused
  // across statements only for an index of the same size.
  void nameIndices(SplitResult& split) {
    static const std::vector<std::string> all = {"i", "j", "k", "h", "l", "m", "n", "p", "q",
                                                 "r", "s", "t", "u", "v", "w", "x", "y", "z"};
    static const std::vector<std::string> others(all.begin() + 2, all.end());
    std::set<std::string> tensorNames;
    for (const auto& [name, decl] : split.program.tensors) tensorNames.insert(name);
    for (const Statement& st : split.program.statements) tensorNames.insert(st.lhs);
    std::map<std::string, std::string> nameOf;
    std::map<std::string, int> owner;
    std::vector<Statement>& sts = split.program.statements;
    for (size_t begin = 0; begin < sts.size();) {
      size_t end = begin;
      while (end < sts.size() && split.origin[end] == split.origin[begin]) ++end;
      std::vector<std::string> order = sts[end - 1].lhsIndices;
      for (size_t n = begin; n < end; ++n) {
        for (const ExprNode* a : accesses(sts[n].rhs)) order.insert(order.end(), a->indices.begin(), a->indices.end());
        order.insert(order.end(), sts[n].lhsIndices.begin(), sts[n].lhsIndices.end());
      }
      std::set<std::string> local;
      for (const std::string& key : order) {
        if (nameOf.count(key)) continue;
        const std::vector<std::string>& seq = contains(sts[end - 1].lhsIndices, key) ? all : others;
        int c = classOf(key);
        for (size_t n = 0;; ++n) {
          std::string name = seq[n % seq.size()] + (n < seq.size() ? "" : std::to_string(n / seq.size()));
          if (local.count(name) || tensorNames.count(name)) continue;
          if (owner.count(name) && !classes_.compatible(owner[name], c)) continue;
          nameOf[key] = name;
          local.insert(name);
          owner.emplace(name, c);
          break;
        }
      }
      begin = end;
    }
    auto rename = [&](const std::string& i) { return nameOf.count(i) ? nameOf[i] : i; };
    for (Statement& st : sts) {
      for (std::string& i : st.lhsIndices) i = rename(i);
      st.rhs = mapIndices(st.rhs, rename);
    }
  }

  const Environment& env_;
  Classes classes_;
  std::map<std::string, int> results_;  // rank of each tensor assigned so far
};

}  // namespace
}  // namespace detail

Program parseOperatorForm(const std::string& text, const Environment& env) {
  return detail::OperatorForm(env).run(text);
}

}  // namespace react
