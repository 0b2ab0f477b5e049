// Index notation in TACO's syntax: `A(i,j) = S(i,j) * B(i,k) * C(k,j)`; several statements.
#include "indexnotation/syntax.hpp"

#include <cstdint>

namespace react {
namespace detail {
namespace {

UserError operatorFormOnly(const Syntax& s, const std::string& what, const std::string& instead) {
  return errorAt(s.pos, what + " belongs to the operator form; in index notation " + instead);
}

Expr indexExpr(const Syntax& s);

std::vector<std::string> indexArguments(const Syntax& call, size_t from) {
  std::vector<std::string> out;
  for (size_t n = from; n < call.args.size(); ++n) out.push_back(indexArgument(call, n));
  return out;
}

// max(a, k, ...) reduces over k when every later argument is a bare name used as an index in a.
bool isMaxReduction(const Syntax& call, const Expr& first) {
  if (call.args.size() < 2) return false;
  std::vector<std::string> free = freeIndices(first);
  for (size_t n = 1; n < call.args.size(); ++n)
    if (call.args[n].kind != Syntax::Kind::Name || !contains(free, call.args[n].text)) return false;
  return true;
}

// softmax(a, k, ...) / logsumexp(a, k, ...) over the indices k, ... of a.
Expr stableBuiltin(const Syntax& s) {
  checkArgCount(s, 2, SIZE_MAX);
  std::vector<std::string> over = indexArguments(s, 1);
  Expr operand = indexExpr(s.args[0]);
  std::vector<std::string> free = freeIndices(operand);
  for (size_t n = 1; n < s.args.size(); ++n)
    if (!contains(free, s.args[n].text))
      throw errorAt(s.args[n].pos, "index " + quoted(s.args[n].text) + " of " + quoted(s.text) +
                                       " does not appear in its first argument");
  StableBuiltins<Expr> builtins{[&](ReduceOp op, const Expr& x) { return reduce(op, over, x, s.pos); },
                                [&](Op op, std::vector<Expr> args) { return apply(op, std::move(args), s.pos); }};
  return builtins.expand(s.text, operand);
}

Expr callExpr(const Syntax& s) {
  for (const Syntax& a : s.args)
    if (a.kind == Syntax::Kind::Keyword)
      throw operatorFormOnly(a, "a keyword argument", "name the indices to reduce over: sum(expr, k)");
  if (s.text == "sum") {
    checkArgCount(s, 2, SIZE_MAX);
    return reduce(ReduceOp::Sum, indexArguments(s, 1), indexExpr(s.args[0]), s.pos);
  }
  if (isStableBuiltin(s.text)) return stableBuiltin(s);
  Op op = functionOp(s.text);
  if (op == Op::Access) return access(s.text, indexArguments(s, 0), s.pos);
  if (op == Op::Max && !s.args.empty()) {
    Expr first = indexExpr(s.args[0]);
    if (isMaxReduction(s, first)) return reduce(ReduceOp::Max, indexArguments(s, 1), first, s.pos);
  }
  checkArgCount(s, opArity(op), opArity(op));
  std::vector<Expr> args;
  for (const Syntax& a : s.args) args.push_back(indexExpr(a));
  return apply(op, args, s.pos);
}

Expr indexExpr(const Syntax& s) {
  switch (s.kind) {
    case Syntax::Kind::Number: return literal(s.value, s.pos);
    case Syntax::Kind::Name:
      if (isFunctionName(s.text)) throw errorAt(s.pos, quoted(s.text) + " is a function and needs arguments");
      return access(s.text, {}, s.pos);
    case Syntax::Kind::Unary: return apply(Op::Neg, {indexExpr(s.args[0])}, s.pos);
    case Syntax::Kind::Binary: {
      Op op = binaryOp(s.text);
      if (op == Op::Access) throw operatorFormOnly(s, "'@'", "write the product with indices: B(i,k) * C(k,j)");
      return apply(op, {indexExpr(s.args[0]), indexExpr(s.args[1])}, s.pos);
    }
    case Syntax::Kind::Transpose: throw operatorFormOnly(s, "'.T'", "swap the indices instead");
    case Syntax::Kind::Keyword: break;  // only inside calls, handled there
    case Syntax::Kind::Call: return callExpr(s);
  }
  throw operatorFormOnly(s, "a keyword argument", "name the indices to reduce over: sum(expr, k)");
}

}  // namespace
}  // namespace detail

std::vector<Statement> parseIndexNotationStatements(const std::string& text) {
  std::vector<Statement> statements;
  for (const detail::SyntaxStatement& s : detail::parseSyntax(text)) {
    Statement st;
    st.lhs = s.lhs.text;
    st.pos = s.lhs.pos;
    if (s.lhs.kind == detail::Syntax::Kind::Call) st.lhsIndices = detail::indexArguments(s.lhs, 0);
    st.rhs = detail::indexExpr(s.rhs);
    statements.push_back(st);
  }
  return statements;
}

Program parseIndexNotation(const std::string& text, const Environment& env) {
  Program p;
  p.tensors = env.tensors;
  p.indexSizes = env.indexSizes;
  p.statements = parseIndexNotationStatements(text);
  return splitStatements(p);
}

Program parseProgram(const std::string& text, const Environment& env) {
  return detail::startsWithIndexNotation(text) ? parseIndexNotation(text, env) : parseOperatorForm(text, env);
}

}  // namespace react
