// The C++ API: TensorVar, IndexVar, IndexExpr operators and ProgramBuilder.
#include "indexnotation/internal.hpp"

namespace react {
namespace {

std::vector<TensorDecl> mergeTensors(std::initializer_list<const IndexExpr*> parts) {
  std::vector<TensorDecl> out;
  for (const IndexExpr* p : parts)
    for (const TensorDecl& d : p->tensors()) {
      bool seen = false;
      for (const TensorDecl& o : out) seen = seen || o.name == d.name;
      if (!seen) out.push_back(d);
    }
  return out;
}

IndexExpr applied(Op op, const IndexExpr& a) { return IndexExpr(apply(op, {a.expr()}), a.tensors()); }
IndexExpr applied(Op op, const IndexExpr& a, const IndexExpr& b) {
  return IndexExpr(apply(op, {a.expr(), b.expr()}), mergeTensors({&a, &b}));
}

// softmax / logsumexp over k.
detail::StableBuiltins<Expr> stableBuiltinsOver(const IndexVar& k) {
  return {[k](ReduceOp op, const Expr& x) { return reduce(op, {k.name()}, x); },
          [](Op op, std::vector<Expr> args) { return apply(op, std::move(args)); }};
}

}  // namespace

IndexExpr::IndexExpr(double v) : e_(literal(v)) {}

IndexExpr operator+(const IndexExpr& a, const IndexExpr& b) { return applied(Op::Add, a, b); }
IndexExpr operator-(const IndexExpr& a, const IndexExpr& b) { return applied(Op::Sub, a, b); }
IndexExpr operator*(const IndexExpr& a, const IndexExpr& b) { return applied(Op::Mul, a, b); }
IndexExpr operator/(const IndexExpr& a, const IndexExpr& b) { return applied(Op::Div, a, b); }
IndexExpr operator-(const IndexExpr& a) { return applied(Op::Neg, a); }
IndexExpr operator<(const IndexExpr& a, const IndexExpr& b) { return applied(Op::Lt, a, b); }
IndexExpr operator<=(const IndexExpr& a, const IndexExpr& b) { return applied(Op::Le, a, b); }
IndexExpr operator>(const IndexExpr& a, const IndexExpr& b) { return applied(Op::Gt, a, b); }
IndexExpr operator>=(const IndexExpr& a, const IndexExpr& b) { return applied(Op::Ge, a, b); }
IndexExpr operator==(const IndexExpr& a, const IndexExpr& b) { return applied(Op::Eq, a, b); }
IndexExpr operator!=(const IndexExpr& a, const IndexExpr& b) { return applied(Op::Ne, a, b); }
IndexExpr exp(const IndexExpr& a) { return applied(Op::Exp, a); }
IndexExpr sqrt(const IndexExpr& a) { return applied(Op::Sqrt, a); }
IndexExpr log(const IndexExpr& a) { return applied(Op::Log, a); }
IndexExpr max(const IndexExpr& a, const IndexExpr& b) { return applied(Op::Max, a, b); }
IndexExpr min(const IndexExpr& a, const IndexExpr& b) { return applied(Op::Min, a, b); }

IndexExpr where(const IndexExpr& c, const IndexExpr& a, const IndexExpr& b) {
  return IndexExpr(apply(Op::Where, {c.expr(), a.expr(), b.expr()}), mergeTensors({&c, &a, &b}));
}

IndexExpr sum(const IndexExpr& body, const IndexVar& k) {
  return IndexExpr(reduce(ReduceOp::Sum, {k.name()}, body.expr()), body.tensors());
}

IndexExpr max(const IndexExpr& body, const IndexVar& k) {
  return IndexExpr(reduce(ReduceOp::Max, {k.name()}, body.expr()), body.tensors());
}

IndexExpr softmax(const IndexExpr& body, const IndexVar& k) {
  return IndexExpr(stableBuiltinsOver(k).softmax(body.expr()), body.tensors());
}

IndexExpr logsumexp(const IndexExpr& body, const IndexVar& k) {
  return IndexExpr(stableBuiltinsOver(k).logsumexp(body.expr()), body.tensors());
}

TensorAccess::TensorAccess(const TensorVar& t, std::vector<std::string> idx)
    : IndexExpr(access(t.decl().name, idx), {t.decl()}), decl_(t.decl()), idx_(std::move(idx)) {}

Assignment TensorAccess::operator=(const IndexExpr& rhs) const { return Assignment{decl_, idx_, rhs}; }
Assignment TensorAccess::operator=(const TensorAccess& rhs) const {
  return *this = static_cast<const IndexExpr&>(rhs);
}

TensorVar::TensorVar(std::string name, std::vector<int64_t> shape, Format format, ValueType valueType) {
  Environment env;
  env.declare(name, std::move(shape), std::move(format), valueType);
  decl_ = env.tensors.at(name);
}

void ProgramBuilder::declare(const TensorVar& t) {
  const TensorDecl& d = t.decl();
  auto [it, added] = env_.tensors.emplace(d.name, d);
  if (!added && !(it->second == d))
    throw UserError("tensor " + detail::quoted(d.name) + " is declared twice with different shapes, formats or value types");
}

void ProgramBuilder::add(const Assignment& a) {
  for (const TensorDecl& d : a.rhs.tensors()) declare(TensorVar(d.name, d.shape, d.format, d.valueType));
  declare(TensorVar(a.lhs.name, a.lhs.shape, a.lhs.format, a.lhs.valueType));
  Statement s;
  s.lhs = a.lhs.name;
  s.lhsIndices = a.indices;
  s.rhs = a.rhs.expr();
  statements_.push_back(s);
}

void ProgramBuilder::setIndexSize(const IndexVar& i, int64_t size) { env_.indexSizes[i.name()] = size; }

Program ProgramBuilder::build() const {
  Program p;
  p.tensors = env_.tensors;
  p.indexSizes = env_.indexSizes;
  p.statements = statements_;
  return splitStatements(p);
}

}  // namespace react
