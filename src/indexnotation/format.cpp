// Formats of tensor variables and the operator table.
#include "indexnotation/internal.hpp"

#include <limits>

namespace react {

bool Format::isSparse() const {
  for (LevelFormat l : levels)
    if (l == LevelFormat::Compressed) return true;
  return false;
}

std::string Format::str() const {
  if (!isSparse()) return "dense";
  if (*this == csr()) return "csr";
  std::string s;
  for (LevelFormat l : levels) s += std::string(s.empty() ? "" : ",") + (l == LevelFormat::Dense ? "dense" : "compressed");
  return s;
}

int opArity(Op op) {
  switch (op) {
    case Op::Access:
    case Op::Literal: return 0;
    case Op::Neg:
    case Op::Exp:
    case Op::Sqrt:
    case Op::Log:
    case Op::Reduce: return 1;
    case Op::Where: return 3;
    default: return 2;
  }
}

const char* opName(Op op) {
  switch (op) {
    case Op::Access: return "access";
    case Op::Literal: return "literal";
    case Op::Neg: return "-";
    case Op::Exp: return "exp";
    case Op::Sqrt: return "sqrt";
    case Op::Log: return "log";
    case Op::Add: return "+";
    case Op::Sub: return "-";
    case Op::Mul: return "*";
    case Op::Div: return "/";
    case Op::Max: return "max";
    case Op::Min: return "min";
    case Op::Lt: return "<";
    case Op::Le: return "<=";
    case Op::Gt: return ">";
    case Op::Ge: return ">=";
    case Op::Eq: return "==";
    case Op::Ne: return "!=";
    case Op::Where: return "where";
    case Op::Reduce: return "reduce";
  }
  internalError("an Op outside the enumeration: " + std::to_string(static_cast<int>(op)));
}

double reduceIdentity(ReduceOp r) {
  return r == ReduceOp::Sum ? 0.0 : -std::numeric_limits<double>::infinity();
}

namespace detail {

FormatKind formatKind(const Format& f, int rank) {
  if (f.levels.empty()) return FormatKind::Dense;  // not given: dense
  if (static_cast<int>(f.levels.size()) != rank) return FormatKind::Unsupported;
  if (!f.isSparse()) return FormatKind::Dense;
  return f == Format::csr() ? FormatKind::Csr : FormatKind::Unsupported;
}

}  // namespace detail
}  // namespace react
