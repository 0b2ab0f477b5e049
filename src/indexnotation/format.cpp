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
    // which a loop does not record. Dense levels below the pattern's (TTM's ssd result) locate
    // their coordinate under the position of the last pattern level, which its loop binds.
    if (level.kind == LevelKind::Dense && l > 0 && l < format.patternLevels())
      return what + "level " + std::to_string(l) + " is dense under another level; a dense level runs as the first only";
  }
  return std::nullopt;
}

std::optional<std::string> patternFormatMismatch(const TensorDecl& d, const TensorDecl& pattern) {
  const Format& f = d.format;
  if (!f.hasSparseLevel()) return std::nullopt;
  const int prefix = f.patternLevels();
  if (prefix < f.rank() && d.role != TensorRole::Output)
    return "format " + d.declaredFormat().str() + " of tensor '" + d.name + "' is not supported yet: level " +
           std::to_string(prefix) + " is dense under a sparse level, which runs in a result only (stored at a prefix of a sparse factor's pattern)";
  if (d.name == pattern.name || f == pattern.format) return std::nullopt;
  bool isPrefix = prefix < f.rank() && prefix <= pattern.format.rank();
  for (int l = 0; isPrefix && l < prefix; ++l) isPrefix = f.level(l) == pattern.format.level(l);
  if (isPrefix) return std::nullopt;
  const char* role = d.role == TensorRole::Output ? "result" : d.role == TensorRole::Input ? "input" : "temporary";
  return std::string(role) + " '" + d.name + "' is declared " + f.str() + " but is stored at the positions of '" +
         pattern.name + "', which is " + pattern.format.str() + ": declare it " + pattern.format.str() + ", or dense";
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
