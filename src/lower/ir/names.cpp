// Spelling names, string literals, comments and numbers for generated code.
#include "lower/ir/names.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace react::ir {

// Prefixes no header a kernel includes (libc, libstdc++, OpenMP, Kokkos) defines a macro with:
// glibc's st_, si_, sa_, va_ and d_ (st_mtime, va_arg, d_fileno) are among those left out.
std::string mangle(const Name& n) {
  static const char* const prefixes[] = {"val_", "ptr_", "crd_", "nnz_", "len_", "buf_",
                                         "blk_", "loc_", "ext_", "ix_",  "p_",   "src_"};
  if (n.role == Role::Generated) return n.text;
  const std::string& name = n.text;
  std::string id = prefixes[static_cast<int>(n.role)];
  if (n.level >= 0) id.insert(id.size() - 1, std::to_string(n.level));
  // The grammar's names are [A-Za-z_][A-Za-z0-9_]*. One that starts with '_' or holds "__" would
  // put "__" into the identifier, which C++ reserves; it is spelt after a '0' (no name starts
  // with a digit), each '_' as "_u" (so no "__" and no two names alike).
  if (name[0] != '_' && name.find("__") == std::string::npos) return id + name;
  id += '0';
  for (char c : name) id += c == '_' ? std::string("_u") : std::string(1, c);
  return id;
}

std::string stringLiteral(const std::string& text) {
  std::string literal = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      literal += '\\';
      literal += static_cast<char>(c);
    } else if (c < 0x20 || c > 0x7e) {
      char octal[5];
      std::snprintf(octal, sizeof octal, "\\%03o", c);
      literal += octal;
    } else {
      literal += static_cast<char>(c);
    }
  }
  return literal + "\"";
}

// A // comment ends at a line break, unless a backslash stands before it.
std::string commentText(const std::string& text) {
  std::string safe = text;
  std::replace_if(safe.begin(), safe.end(), [](char c) { return c == '\\' || c == '\n' || c == '\r'; }, ' ');
  return safe;
}

// Infinities and NaN have no literal: the macros of <cmath> of each type (INFINITY and NAN are
// float; HUGE_VAL is a double infinity), so that a call like react_max(x, -inf) finds the overload
// of x's type. %.17g and %.9g digits read back as the same double and float.
std::string literalText(double v, Type t) {
  const bool single = valueTypeOf(t) == ValueType::Float32;
  v = roundTo(valueTypeOf(t), v);
  if (std::isnan(v)) return single ? "NAN" : "static_cast<double>(NAN)";
  if (std::isinf(v)) return std::string(v < 0 ? "(-" : "") + (single ? "HUGE_VALF" : "HUGE_VAL") + (v < 0 ? ")" : "");
  char buf[40];
  std::snprintf(buf, sizeof buf, single ? "%.9g" : "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return single ? s + "f" : s;
}

std::string subscript(const Expr& offset, const std::string& text) {
  bool arithmetic = offset->kind == ExprKind::Binary && !isComparison(offset->op);
  return arithmetic ? text.substr(1, text.size() - 2) : text;
}

}  // namespace react::ir
