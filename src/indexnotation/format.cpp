// Which formats the pipeline runs, and the operator table.
#include "indexnotation/internal.hpp"

#include <limits>

namespace react {

std::optional<std::string> unsupportedFormat(const std::string& tensor, const Format& format) {
  // What the index tree, the interpreter and the lowering can run: later formats add cases here.
  if (format == Format::dense(format.rank()) || format == Format::csr()) return std::nullopt;
  return "format " + format.str() + " of tensor '" + tensor + "' is not supported yet; only csr and dense";
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

}  // namespace react
