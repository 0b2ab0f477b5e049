// Shared parts of the emitters: the kernel's prologue, accesses, expressions, statements, loops.
#include "lower/emitter.hpp"
#include "lower/abi_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace react {

Target parseTarget(const std::string& s) {
  if (s == "kokkos") return Target::Kokkos;
  if (s == "openmp") return Target::OpenMP;
  throw Error("unknown target '" + s + "' (expected kokkos or openmp)");
}

std::string toString(Target t) { return t == Target::Kokkos ? "kokkos" : "openmp"; }

std::string emitSource(const LoopProgram& p, Target target, const EmitOptions& options) {
  return target == Target::Kokkos ? lower::emitKokkos(p, options) : lower::emitOpenMP(p, options);
}

namespace lower {

namespace {
bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}
}  // namespace

// Prefixes no header a kernel includes (libc, libstdc++, OpenMP, Kokkos) defines a macro with:
// glibc's st_, si_, sa_, va_ and d_ (st_mtime, va_arg, d_fileno) are among those left out.
std::string mangle(Role role, const std::string& name) {
  static const char* const prefixes[] = {"val_", "ptr_", "crd_", "nnz_", "len_", "buf_",
                                         "blk_", "loc_", "ext_", "ix_",  "p_"};
  std::string id = prefixes[static_cast<int>(role)];
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

void Emitter::line(const std::string& s) { out_ << std::string(static_cast<size_t>(2 * depth_), ' ') << s << "\n"; }

std::string Emitter::extent(const std::string& index) const {
  if (contains(p_.runtimeSizes, index)) return mangle(Role::Extent, index);
  return std::to_string(p_.indexSizes.at(index));
}

std::string Emitter::literalText(double v) const {
  if (std::isinf(v)) return v < 0 ? "(-INFINITY)" : "INFINITY";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

// What each tensor's last writer says of it, found in one walk (looking it up per tensor walked
// the whole program each time: quadratic in the statements).
Emitter::Emitter(const LoopProgram& p, const EmitOptions& o) : p_(p), o_(o) {
  std::function<void(const LoopNode&)> walk = [&](const LoopNode& l) {
    if (l.kind == LoopNode::Kind::Compute && !l.reset) {
      Producer& producer = producers_[l.stmt.lhs];
      producer.indices = l.stmt.lhsIndices;
      if (l.accumulate) producer.identity = reduceIdentity(l.stmt.reduce);
    }
    for (const LoopNode& c : l.body) walk(c);
  };
  for (const LoopNest& n : p_.nests) walk(n.top);
}

double Emitter::identityOf(const std::string& name) const {
  auto it = producers_.find(name);
  return it == producers_.end() ? 0.0 : it->second.identity;
}

std::string Emitter::storedSize(const std::string& name) const {
  const TensorStorage& s = p_.tensors.at(name);
  if (s.decl.format.isSparse()) return s.shrunk() ? "1" : mangle(Role::StoredEntries, s.decl.pattern);
  static const std::vector<std::string> unwritten;
  auto producer = producers_.find(name);
  const std::vector<std::string>& idx = producer == producers_.end() ? unwritten : producer->second.indices;
  std::string size = "1";
  for (size_t d = 0; d < idx.size(); ++d)
    if (s.kept[d]) size += " * " + extent(idx[d]);
  return size;
}

void Emitter::declareSize(const std::string& name) {
  std::string size = mangle(Role::Size, name);
  line("const int64_t " + size + " = " + storedSize(name) + "; (void)" + size + ";");
}

std::string Emitter::access(const std::string& name, const std::vector<std::string>& idx) const {
  if (scalars_.count(name)) return mangle(Role::Scalar, name);
  const TensorStorage& s = p_.tensors.at(name);
  std::string offset;
  if (s.decl.format.isSparse() && !s.shrunk()) {
    offset = mangle(Role::Position, idx[1]);  // the position of the sparse loop over the column index
  } else {
    for (size_t d = 0; d < idx.size(); ++d) {
      if (!s.kept[d]) continue;
      std::string coordinate = mangle(Role::Index, idx[d]);
      offset = offset.empty() ? coordinate : "(" + offset + ") * " + extent(idx[d]) + " + " + coordinate;
    }
    if (offset.empty()) offset = "0";
  }
  std::string values = mangle(Role::Values, name);
  if (!o_.boundsCheck) return values + "[" + offset + "]";
  std::string what = name + "(";
  for (size_t d = 0; d < idx.size(); ++d) what += (d ? "," : "") + idx[d];
  what += ")";
  return values + "[react_checked(" + offset + ", " + mangle(Role::Size, name) + ", " + stringLiteral(what) + ")]";
}

std::string Emitter::expr(const Expr& e) const {
  auto a = [&](size_t k) { return expr(e->args[k]); };
  switch (e->op) {
    case Op::Access: {
      std::string text = access(e->tensor, e->indices);
      auto h = hoisted_.find(text);
      return h == hoisted_.end() ? text : h->second;
    }
    case Op::Literal: return literalText(e->value);
    case Op::Neg: {  // "(- -1.0)": without the space a negative literal would read as "--" (decrement)
      std::string x = a(0);
      return (x[0] == '-' ? "(- " : "(-") + x + ")";
    }
    case Op::Exp: return "exp(" + a(0) + ")";
    case Op::Sqrt: return "sqrt(" + a(0) + ")";
    case Op::Log: return "log(" + a(0) + ")";
    case Op::Add: return "(" + a(0) + " + " + a(1) + ")";
    case Op::Sub: return "(" + a(0) + " - " + a(1) + ")";
    case Op::Mul: return "(" + a(0) + " * " + a(1) + ")";
    case Op::Div: return "(" + a(0) + " / " + a(1) + ")";
    case Op::Max: return "react_max(" + a(0) + ", " + a(1) + ")";
    case Op::Min: return "react_min(" + a(0) + ", " + a(1) + ")";
    case Op::Lt: return "(" + a(0) + " < " + a(1) + " ? 1.0 : 0.0)";
    case Op::Le: return "(" + a(0) + " <= " + a(1) + " ? 1.0 : 0.0)";
    case Op::Gt: return "(" + a(0) + " > " + a(1) + " ? 1.0 : 0.0)";
    case Op::Ge: return "(" + a(0) + " >= " + a(1) + " ? 1.0 : 0.0)";
    case Op::Eq: return "(" + a(0) + " == " + a(1) + " ? 1.0 : 0.0)";
    case Op::Ne: return "(" + a(0) + " != " + a(1) + " ? 1.0 : 0.0)";
    // A call, not "c ? a : b": both operands are then read unconditionally. GCC 12.2 (Debian 12)
    // at -O3 with AVX2 turns a conditional read into masked loads and may use one vector's mask
    // for the next ones (fuzz/regressions/gcc12-masked-load-where.txt).
    case Op::Where: return "react_where(" + a(0) + ", " + a(1) + ", " + a(2) + ")";
    default: throw Error("emitter: unexpected operator '" + std::string(opName(e->op)) + "'");
  }
}

void Emitter::compute(const LoopNode& c, const std::string& reduceInto, const std::string& acc) {
  std::string lhs = (!reduceInto.empty() && c.stmt.lhs == reduceInto) ? acc : access(c.stmt.lhs, c.stmt.lhsIndices);
  std::string rhs = expr(c.stmt.rhs);
  if (!c.accumulate) line(lhs + " = " + rhs + ";");
  else if (c.stmt.reduce == ReduceOp::Sum) line(lhs + " += " + rhs + ";");
  else line(lhs + " = react_max(" + lhs + ", " + rhs + ");");
}

void Emitter::loopBounds(const IndexLoop& l, std::string& lo, std::string& hi) const {
  if (l.kind == LoopKind::Dense) {
    lo = "0";
    hi = extent(l.index);
    return;
  }
  std::string positions = mangle(Role::Positions, l.pattern), row = mangle(Role::Index, l.parentIndex);
  lo = positions + "[" + row + "]";
  hi = positions + "[" + row + " + 1]";
}

std::string Emitter::loopCounter(const IndexLoop& l) const {
  return mangle(l.kind == LoopKind::Dense ? Role::Index : Role::Position, l.index);
}

void Emitter::bindCoordinate(const IndexLoop& l, const std::string& counter) {
  std::string coordinate = mangle(Role::Index, l.index);
  if (l.kind == LoopKind::Dense) {
    if (counter != coordinate) line("const int64_t " + coordinate + " = " + counter + ";");
    return;
  }
  std::string position = mangle(Role::Position, l.index);
  if (counter != position) line("const int64_t " + position + " = " + counter + ";");
  line("const int64_t " + coordinate + " = " + mangle(Role::Coordinates, l.pattern) + "[" + position + "];");
}

void Emitter::serialLoopOpen(const IndexLoop& l) {
  std::string lo, hi;
  loopBounds(l, lo, hi);
  std::string counter = loopCounter(l);
  line("for (int64_t " + counter + " = " + lo + "; " + counter + " < " + hi + "; ++" + counter + ") {");
  ++depth_;
  bindCoordinate(l, counter);
}

void Emitter::declareLocals(const LoopNode& n) {
  for (const std::string& l : n.locals) {
    line("double " + mangle(Role::Scalar, l) + " = " + literalText(identityOf(l)) + ";");
    scalars_.insert(l);
  }
}

// Does the offset of this access change with `index` (so iterations over it touch different
// elements)? Csr values are addressed by a sparse loop's position, never by a dense index.
bool Emitter::offsetVaries(const std::string& name, const std::vector<std::string>& idx, const std::string& index) const {
  if (scalars_.count(name)) return false;
  const TensorStorage& s = p_.tensors.at(name);
  if (s.decl.format.isSparse() && !s.shrunk()) return false;
  for (size_t d = 0; d < idx.size(); ++d)
    if (s.kept[d] && idx[d] == index) return true;
  return false;
}

// Can the iterations of dense loop `l` run on separate lanes (vector lanes, GPU lanes)? Yes when every tensor written
// in it is written at elements that differ per iteration and is read there only at the
// element written (so no iteration reads what another writes).
bool Emitter::iterationsIndependent(const LoopNode& l) const {
  if (l.loop.kind != LoopKind::Dense) return false;
  std::map<std::string, std::string> written;  // tensor -> the access it is written with
  bool ok = true;
  std::function<void(const LoopNode&)> writes = [&](const LoopNode& n) {
    if (n.kind == LoopNode::Kind::Compute) {
      const Statement& st = n.stmt;
      std::string a = access(st.lhs, st.lhsIndices);
      auto [it, fresh] = written.emplace(st.lhs, a);
      ok = ok && offsetVaries(st.lhs, st.lhsIndices, l.loop.index) && (fresh || it->second == a);
    }
    for (const std::string& local : n.locals) written.erase(local);
    for (const LoopNode& c : n.body) writes(c);
  };
  writes(l);
  std::function<void(const Expr&)> reads = [&](const Expr& e) {
    if (e->op == Op::Access) {
      auto it = written.find(e->tensor);
      if (it != written.end() && it->second != access(e->tensor, e->indices)) ok = false;
    }
    for (const Expr& a : e->args) reads(a);
  };
  std::function<void(const LoopNode&)> visit = [&](const LoopNode& n) {
    if (n.kind == LoopNode::Kind::Compute) reads(n.stmt.rhs);
    for (const LoopNode& c : n.body) visit(c);
  };
  visit(l);
  return ok;
}

// Why: tensors are distinct arrays, which the compiler cannot know: in `A[i*16 + j] += C[k*256 +
// h] * D[h*16 + j]` over j it must assume the store to A may change C[k*256 + h], reloads it on
// every iteration and leaves the loop scalar (GCC 12 and 13: 16 scalar FMAs where two vector
// ones do). A constant read once before the loop makes it an axpy the compiler vectorizes.
void Emitter::hoistInvariantReads(const LoopNode& loop, const std::string& reduceInto) {
  std::set<std::string> written{reduceInto};
  written.insert(loop.locals.begin(), loop.locals.end());
  for (const LoopNode& c : loop.body) written.insert(c.stmt.lhs);
  std::function<void(const Expr&)> visit = [&](const Expr& e) {
    if (e->op == Op::Access && !scalars_.count(e->tensor) && !written.count(e->tensor) && !contains(e->indices, loop.loop.index)) {
      std::string text = access(e->tensor, e->indices);
      if (hoisted_.count(text)) return;
      std::string name = "hoisted" + std::to_string(hoistedCount_++);
      line("const double " + name + " = " + text + ";");
      hoisted_[text] = name;
      return;
    }
    for (const Expr& a : e->args) visit(a);
  };
  for (const LoopNode& c : loop.body) visit(c.stmt.rhs);
}

void Emitter::serialNode(const LoopNode& n, const std::string& reduceInto, const std::string& acc) {
  if (n.kind == LoopNode::Kind::Compute) return compute(n, reduceInto, acc);
  std::map<std::string, std::string> outer = hoisted_;
  bool innermost = std::all_of(n.body.begin(), n.body.end(), [](const LoopNode& c) { return c.kind == LoopNode::Kind::Compute; });
  // Not before a nest's outermost loop: an OpenMP pragma stands right above it.
  if (loopDepth_ > 0 && innermost) {
    hoistInvariantReads(n, reduceInto);
    // One whose iterations are independent is a vector loop: without the pragma GCC unrolls a
    // short one (16 iterations) completely and leaves it scalar, since it cannot tell the arrays
    // apart (`A[k*16 + j] += hoisted0 * D[h*16 + j]`: 16 scalar FMAs, with it two vector ones).
    if (!simdPragma().empty() && iterationsIndependent(n)) line(simdPragma());
  }
  serialLoopOpen(n.loop);
  declareLocals(n);
  ++loopDepth_;
  for (const LoopNode& c : n.body) serialNode(c, reduceInto, acc);
  --loopDepth_;
  for (const std::string& l : n.locals) scalars_.erase(l);
  --depth_;
  line("}");
  hoisted_ = std::move(outer);
}

std::string Emitter::nestComment(const LoopNest& nest) const {
  std::string s = "nest " + nest.name + ": ";
  std::function<void(const LoopNode&)> collect = [&](const LoopNode& l) {
    if (l.kind == LoopNode::Kind::Compute && !l.reset) s += l.stmt.str() + "; ";
    for (const LoopNode& c : l.body) collect(c);
  };
  collect(nest.top);
  return "// " + commentText(s);
}

std::string Emitter::emit() {
  out_ << "// Generated by react. Index tree:\n";
  std::istringstream tree(p_.treeText);
  for (std::string l; std::getline(tree, l);) out_ << "//   " << commentText(l) << "\n";
  // Guarded, so that several kernels can share one translation unit.
  // The ABI first: the Kokkos prelude defines the runtime functions it declares.
  out_ << "#ifndef REACT_KERNEL_PRELUDE\n#define REACT_KERNEL_PRELUDE\n" << kAbiHeaderText << includes() << "\n";
  std::string q = functionQualifier();
  out_ << q << " double react_max(double a, double b) { return a > b ? a : b; }\n";
  out_ << q << " double react_min(double a, double b) { return a < b ? a : b; }\n";
  out_ << q << " double react_where(double c, double a, double b) { return c != 0.0 ? a : b; }\n";
  out_ << q << " int64_t react_checked(int64_t i, int64_t n, const char* what) {\n"
       << "  if (i < 0 || i >= n) { REACT_REPORT(\"react bounds check: %s at offset %lld outside [0, %lld)\\n\", what, (long long)i, (long long)n); REACT_ABORT(); }\n"
       << "  return i;\n}\n#endif\n";
  out_ << "\nextern \"C\" void " << o_.functionName << "(const ReactTensor* t, const int64_t* sizes) {\n";
  for (size_t k = 0; k < p_.runtimeSizes.size(); ++k)
    line("const int64_t " + mangle(Role::Extent, p_.runtimeSizes[k]) + " = sizes[" + std::to_string(k) + "];");
  if (p_.runtimeSizes.empty()) line("(void)sizes;");
  for (size_t k = 0; k < p_.args.size(); ++k) {
    const std::string& name = p_.args[k];
    const TensorStorage& s = p_.tensors.at(name);
    std::string a = "t[" + std::to_string(k) + "]", size = mangle(Role::Size, name);
    line("double* const " + mangle(Role::Values, name) + " = " + a + ".vals;");
    if (s.decl.format.isSparse() && s.decl.pattern == name)
      line("const int64_t* const " + mangle(Role::Positions, name) + " = " + a + ".pos; const int32_t* const " +
           mangle(Role::Coordinates, name) + " = " + a + ".crd; const int64_t " + mangle(Role::StoredEntries, name) +
           " = " + a + ".nnz;");
    line("const int64_t " + size + " = " + a + ".nnz; (void)" + size + ";");
  }
  // Outputs that are accumulated, or written only at a pattern's stored entries, start from the
  // reduction's identity.
  for (const std::string& name : p_.args) {
    const TensorStorage& s = p_.tensors.at(name);
    if (s.decl.role != TensorRole::Output) continue;
    bool accumulated = false, sparseWritten = false;
    for (const LoopNest& n : p_.nests) {
      std::function<void(const LoopNode&, bool)> find = [&](const LoopNode& l, bool inSparse) {
        if (l.kind == LoopNode::Kind::Compute && l.stmt.lhs == name) {
          accumulated |= l.accumulate;
          sparseWritten |= inSparse;
        }
        for (const LoopNode& c : l.body) find(c, inSparse || (l.kind == LoopNode::Kind::Loop && l.loop.kind == LoopKind::Sparse));
      };
      find(n.top, false);
    }
    if (accumulated || (sparseWritten && !s.decl.format.isSparse())) fill(name, identityOf(name));
  }
  for (const std::string& name : p_.fullTemporaries) {
    declareSize(name);
    allocateShared(name, identityOf(name));
  }
  for (const LoopNest& nest : p_.nests) {
    line(nestComment(nest));
    emitNest(nest);
  }
  if (!epilogue().empty()) line(epilogue());
  out_ << "}\n";
  return out_.str();
}

}  // namespace lower
}  // namespace react
