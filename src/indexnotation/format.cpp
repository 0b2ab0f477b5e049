// Which formats the pipeline runs, and the operator table.
#include "indexnotation/internal.hpp"

#include <limits>

namespace react {

std::optional<std::string> unsupportedFormat(const std::string& tensor, const Format& format) {
  // What the index tree, the interpreter and the lowering can run: later formats add cases here.
  const std::string what = "format " + format.str() + " of tensor '" + tensor + "' is not supported yet: ";
  if (!format.hasSparseLevel()) {
    // Lowering addresses a dense tensor in row-major order of its logical dimensions.
    if (format == Format::dense(format.rank())) return std::nullopt;
    return what + "a dense tensor is stored row-major (no mode ordering)";
  }
  for (int l = 0; l < format.rank(); ++l) {
    const Level& level = format.level(l);
    // A loop over a level that repeats a coordinate (coo's) visits that coordinate once per
    // repeat, and a fused loop nest computes a whole row at each visit.
    if (level.kind == LevelKind::Singleton || !level.unique)
      return what + "level " + std::to_string(l) + " is " + level.str() + "; the levels run are dense and compressed";
    // A level under a dense one finds its parent's position from every coordinate above it,
    // which a loop does not record.
    if (level.kind == LevelKind::Dense && l > 0)
      return what + "level " + std::to_string(l) + " is dense under another level; a dense level runs as the first only";
  }
  return std::nullopt;
}

std::optional<std::string> unsupportedResultFormat(const std::string& tensor, const Format& format) {
  if (auto unsupported = unsupportedFormat(tensor, format)) return unsupported;
  if (!format.hasSparseLevel() || format == Format::csr()) return std::nullopt;
  return "result '" + tensor + "' of format " + format.str() + " is not supported yet; a result is csr or dense";
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
