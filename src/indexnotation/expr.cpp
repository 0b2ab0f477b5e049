// Expression nodes: constructors, printing, free indices, structural helpers.
#include "indexnotation/internal.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace react {

Expr access(std::string tensor, std::vector<std::string> indices, SourcePos pos) {
  auto n = std::make_shared<ExprNode>();
  n->op = Op::Access;
  n->tensor = std::move(tensor);
  n->indices = std::move(indices);
  n->pos = pos;
  return n;
}

Expr literal(double v, SourcePos pos) {
  auto n = std::make_shared<ExprNode>();
  n->op = Op::Literal;
  n->value = v;
  n->pos = pos;
  return n;
}

Expr apply(Op op, std::vector<Expr> args, SourcePos pos) {
  if (op == Op::Access || op == Op::Literal || op == Op::Reduce)
    throw detail::errorAt(pos, std::string("apply() cannot build a ") + opName(op) + " node");
  if (static_cast<int>(args.size()) != opArity(op))
    throw detail::errorAt(pos, detail::quoted(opName(op)) + " takes " + std::to_string(opArity(op)) +
                                   " operands, got " + std::to_string(args.size()));
  for (const Expr& a : args)
    if (!a) throw detail::errorAt(pos, detail::quoted(opName(op)) + " has an empty operand");
  auto n = std::make_shared<ExprNode>();
  n->op = op;
  n->args = std::move(args);
  n->pos = pos;
  return n;
}

Expr reduce(ReduceOp r, std::vector<std::string> indices, Expr body, SourcePos pos) {
  if (!body) throw detail::errorAt(pos, "reduction of an empty expression");
  auto n = std::make_shared<ExprNode>();
  n->op = Op::Reduce;
  n->reduceOp = r;
  n->reduceIndices = std::move(indices);
  n->args = {std::move(body)};
  n->pos = pos;
  return n;
}

namespace {

// Binding strength when printing: comparisons < + - < * / < unary minus < everything else.
int precedence(const ExprNode& e) {
  switch (e.op) {
    case Op::Lt:
    case Op::Le:
    case Op::Gt:
    case Op::Ge:
    case Op::Eq:
    case Op::Ne: return 1;
    case Op::Add:
    case Op::Sub: return 2;
    case Op::Mul:
    case Op::Div: return 3;
    case Op::Neg: return 4;
    case Op::Literal: return std::signbit(e.value) ? 4 : 5;
    default: return 5;
  }
}

std::string print(const Expr& e);

std::string printAt(const Expr& e, int minPrecedence) {
  std::string s = print(e);
  return precedence(*e) < minPrecedence ? "(" + s + ")" : s;
}

std::string printCall(const std::string& name, const std::vector<Expr>& args,
                      const std::vector<std::string>& extra = {}) {
  std::vector<std::string> parts;
  for (const Expr& a : args) parts.push_back(print(a));
  parts.insert(parts.end(), extra.begin(), extra.end());
  return name + "(" + detail::join(parts, ", ") + ")";
}

std::string print(const Expr& e) {
  switch (e->op) {
    case Op::Access:
      return e->tensor + (e->indices.empty() ? "" : "(" + detail::join(e->indices, ",") + ")");
    case Op::Literal: return detail::formatNumber(e->value);
    case Op::Neg: {
      const Expr& a = e->args[0];
      // "-2" would read back as the literal -2; keep Neg(2) distinct as "-(2)".
      if (a->op == Op::Literal && !std::signbit(a->value)) return "-(" + print(a) + ")";
      return "-" + printAt(a, 4);
    }
    case Op::Exp:
    case Op::Sqrt:
    case Op::Log:
    case Op::Max:
    case Op::Min:
    case Op::Where: return printCall(opName(e->op), e->args);
    case Op::Reduce:
      return printCall(e->reduceOp == ReduceOp::Sum ? "sum" : "max", e->args, e->reduceIndices);
    default: {  // binary infix, left-associative
      int p = precedence(*e);
      return printAt(e->args[0], p) + " " + opName(e->op) + " " + printAt(e->args[1], p + 1);
    }
  }
}

void collectFree(const Expr& e, std::vector<std::string>& bound, std::vector<std::string>& out) {
  if (e->op == Op::Access) {
    for (const std::string& i : e->indices)
      if (!detail::contains(bound, i) && !detail::contains(out, i)) out.push_back(i);
    return;
  }
  size_t mark = bound.size();
  if (e->op == Op::Reduce) bound.insert(bound.end(), e->reduceIndices.begin(), e->reduceIndices.end());
  for (const Expr& a : e->args) collectFree(a, bound, out);
  bound.resize(mark);
}

void collectAccesses(const Expr& e, std::vector<const ExprNode*>& out) {
  if (e->op == Op::Access) out.push_back(e.get());
  for (const Expr& a : e->args) collectAccesses(a, out);
}

}  // namespace

std::string toString(const Expr& e) { return e ? print(e) : "<null>"; }

std::vector<std::string> freeIndices(const Expr& e) {
  std::vector<std::string> bound, out;
  collectFree(e, bound, out);
  return out;
}

std::vector<const ExprNode*> accesses(const Expr& e) {
  std::vector<const ExprNode*> out;
  collectAccesses(e, out);
  return out;
}

bool sameExpr(const Expr& a, const Expr& b) {
  if (a == b) return true;
  if (!a || !b || a->op != b->op || a->args.size() != b->args.size()) return false;
  if (a->tensor != b->tensor || a->indices != b->indices || a->reduceIndices != b->reduceIndices) return false;
  if (a->op == Op::Literal && !(a->value == b->value)) return false;
  if (a->op == Op::Reduce && a->reduceOp != b->reduceOp) return false;
  for (size_t n = 0; n < a->args.size(); ++n)
    if (!sameExpr(a->args[n], b->args[n])) return false;
  return true;
}

namespace detail {

int exprDepth(const Expr& e, int limit) {
  int deepest = 0;
  std::vector<std::pair<const ExprNode*, int>> stack{{e.get(), 1}};
  while (!stack.empty()) {
    auto [node, depth] = stack.back();
    stack.pop_back();
    if (!node) continue;
    deepest = std::max(deepest, depth);
    if (deepest > limit) return deepest;
    for (const Expr& a : node->args) stack.push_back({a.get(), depth + 1});
  }
  return deepest;
}

Expr mapIndices(const Expr& e, const std::function<std::string(const std::string&)>& f) {
  auto n = std::make_shared<ExprNode>(*e);
  for (std::string& i : n->indices) i = f(i);
  for (std::string& i : n->reduceIndices) i = f(i);
  for (Expr& a : n->args) a = mapIndices(a, f);
  return n;
}

std::string formatNumber(double v) {
  char buf[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

}  // namespace detail
}  // namespace react
