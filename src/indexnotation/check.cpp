// Checks shared by every front end: names, ranks, one size per index, single assignment.
#include "indexnotation/internal.hpp"

#include <cctype>

namespace react::detail {
namespace {

bool isIdentifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

std::string indexCount(size_t n) { return n == 1 ? "1 index" : std::to_string(n) + " indices"; }

// Index names and tensor dimensions, keyed by text, in one sized union-find.
class SizeClasses {
 public:
  int node(const std::string& key, int64_t size) {
    auto it = ids_.find(key);
    return it != ids_.end() ? it->second : ids_[key] = classes_.add(size);
  }
  int64_t size(int n) { return classes_.size(n); }
  bool unite(int a, int b) { return classes_.unite(a, b); }

 private:
  std::map<std::string, int> ids_;
  SizedUnionFind classes_;
};

class Checker {
 public:
  explicit Checker(const Program& p) : p_(p) {}

  CheckedProgram run() {
    for (const Statement& s : p_.statements) statement(s);
    CheckedProgram out;
    for (const std::string& i : indexOrder_) {
      int64_t n = sizes_.size(indexNode(i));
      const FirstUse& u = firstUse_.at(i);
      if (n < 0)
        throw errorAt(u.pos, "size of index " + quoted(i) + " is unknown (dimension " + std::to_string(u.dim + 1) +
                                 " of " + quoted(u.tensor) + ")");
      out.indexSizes[i] = n;
    }
    for (const auto& [name, rank] : ranks_) {
      std::vector<int64_t>& shape = out.shapes[name];
      for (int d = 0; d < rank; ++d) shape.push_back(sizes_.size(dimNode(name, d)));
    }
    out.assigned = defined_;
    return out;
  }

 private:
  struct FirstUse {
    std::string tensor;
    int dim;
    SourcePos pos;
  };

  int indexNode(const std::string& i) {
    auto it = p_.indexSizes.find(i);
    return sizes_.node("i:" + i, it == p_.indexSizes.end() ? -1 : it->second);
  }
  int dimNode(const std::string& t, int d, int64_t size = -1) {
    return sizes_.node("t:" + t + ":" + std::to_string(d), size);
  }

  void statement(const Statement& s) {
    name(s.lhs, s.pos, "tensor");
    if (!s.rhs) throw errorAt(s.pos, "the statement for " + quoted(s.lhs) + " has no right-hand side");
    if (exprDepth(s.rhs, kMaxExprDepth) > kMaxExprDepth)
      throw errorAt(s.pos, "expression is too deep (more than " + std::to_string(kMaxExprDepth) + " levels)");
    structure(*s.rhs);
    for (const ExprNode* a : accesses(s.rhs)) {
      if (!p_.tensors.count(a->tensor) && !defined_.count(a->tensor))
        throw errorAt(a->pos, "unknown tensor " + quoted(a->tensor));
      use(a->tensor, a->indices, a->pos);
      read_.insert(a->tensor);
    }
    assign(s);
  }

  void name(const std::string& n, SourcePos pos, const std::string& what) {
    if (!isIdentifier(n)) throw errorAt(pos, "invalid " + what + " name " + quoted(n));
    if (what == "tensor" && isFunctionName(n))
      throw errorAt(pos, quoted(n) + " is a function and cannot name a tensor");
  }

  void uniqueIndices(const std::vector<std::string>& idx, SourcePos pos, const std::string& where) {
    for (size_t a = 0; a < idx.size(); ++a) {
      name(idx[a], pos, "index");
      for (size_t b = 0; b < a; ++b)
        if (idx[a] == idx[b]) throw errorAt(pos, "index " + quoted(idx[a]) + " appears twice in " + where);
    }
  }

  void structure(const ExprNode& e) {
    if (e.op == Op::Access) {
      name(e.tensor, e.pos, "tensor");
      uniqueIndices(e.indices, e.pos, quoted(e.tensor));
    }
    if (static_cast<int>(e.args.size()) != opArity(e.op))
      throw errorAt(e.pos, quoted(opName(e.op)) + " has " + std::to_string(e.args.size()) + " operands");
    for (const Expr& a : e.args)
      if (!a) throw errorAt(e.pos, quoted(opName(e.op)) + " has an empty operand");
    if (e.op == Op::Reduce) {
      std::string fn = e.reduceOp == ReduceOp::Sum ? "sum" : "max";
      if (e.reduceIndices.empty()) throw errorAt(e.pos, quoted(fn) + " needs the indices to reduce over");
      uniqueIndices(e.reduceIndices, e.pos, quoted(fn));
      std::vector<std::string> free = freeIndices(e.args[0]);
      for (const std::string& i : e.reduceIndices)
        if (!contains(free, i))
          throw errorAt(e.pos, "index " + quoted(i) + " of " + quoted(fn) + " does not appear in its argument");
    }
    for (const Expr& a : e.args) structure(*a);
  }

  // Rank, declaration and sizes of one access (or of a left-hand side).
  void use(const std::string& t, const std::vector<std::string>& idx, SourcePos pos) {
    auto decl = p_.tensors.find(t);
    if (!ranks_.count(t)) {
      if (decl != p_.tensors.end()) declared(t, decl->second, pos);
      else ranks_[t] = static_cast<int>(idx.size());
    }
    size_t rank = static_cast<size_t>(ranks_[t]);
    if (idx.size() != rank)
      throw errorAt(pos, "rank mismatch: " + quoted(t) + " has rank " + std::to_string(rank) + " but is used with " +
                             indexCount(idx.size()));
    uniqueIndices(idx, pos, quoted(t));
    for (size_t d = 0; d < idx.size(); ++d) {
      const std::string& i = idx[d];
      int in = indexNode(i);
      if (!firstUse_.count(i)) {
        firstUse_[i] = {t, static_cast<int>(d), pos};
        indexOrder_.push_back(i);
      }
      int64_t was = sizes_.size(in);
      int dn = dimNode(t, static_cast<int>(d));
      if (!sizes_.unite(in, dn))
        throw errorAt(pos, "index " + quoted(i) + " has two sizes: " + std::to_string(was) + " and " +
                               std::to_string(sizes_.size(dn)));
    }
  }

  // `t` is the name the program uses (the key of p.tensors).
  void declared(const std::string& t, const TensorDecl& d, SourcePos pos) {
    for (size_t n = 0; n < d.shape.size(); ++n) {
      if (d.shape[n] < -1) throw errorAt(pos, "tensor " + quoted(t) + " has a negative dimension");
      dimNode(t, static_cast<int>(n), d.shape[n]);
    }
    if (!d.format.levels().empty() && d.format.rank() != d.rank())  // no levels: not given, inferred
      throw errorAt(pos, "format " + d.format.str() + " of tensor " + quoted(t) + " has " +
                             std::to_string(d.format.rank()) + " levels, but the tensor has rank " + std::to_string(d.rank()));
    if (auto unsupported = unsupportedFormat(t, d.format)) throw errorAt(pos, *unsupported);
    ranks_[t] = d.rank();
  }

  void assign(const Statement& s) {
    if (defined_.count(s.lhs)) throw errorAt(s.pos, quoted(s.lhs) + " is assigned twice");
    if (read_.count(s.lhs))
      throw errorAt(s.pos, "cannot assign " + quoted(s.lhs) + ": it is an input (read before it is assigned)");
    std::vector<std::string> free = freeIndices(s.rhs);
    for (const std::string& i : s.lhsIndices)
      if (!contains(free, i))
        throw errorAt(s.pos, "index " + quoted(i) + " of " + quoted(s.lhs) + " appears nowhere on the right-hand side");
    use(s.lhs, s.lhsIndices, s.pos);
    defined_.insert(s.lhs);
  }

  const Program& p_;
  SizeClasses sizes_;
  std::map<std::string, int> ranks_;
  std::set<std::string> defined_, read_;
  std::map<std::string, FirstUse> firstUse_;
  std::vector<std::string> indexOrder_;
};

}  // namespace

bool isFunctionName(const std::string& s) {
  return s == "exp" || s == "sqrt" || s == "log" || s == "max" || s == "min" || s == "where" || s == "sum" ||
         s == "softmax" || s == "logsumexp";
}

CheckedProgram checkProgram(const Program& p) {
  for (const auto& [i, n] : p.indexSizes)
    if (n < 0) throw UserError("size of index " + quoted(i) + " must not be negative");
  return Checker(p).run();
}

}  // namespace react::detail
