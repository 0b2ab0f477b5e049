// C++ both targets print alike: the kernel's header, prologue, expressions, assignments and
// serial loops.
#include "lower/emit/cpp_printer.hpp"
#include "lower/abi_text.hpp"
#include "lower/ir/names.hpp"

#include <algorithm>
#include <limits>

namespace react {

Target parseTarget(const std::string& s) {
  if (s == "kokkos") return Target::Kokkos;
  if (s == "openmp") return Target::OpenMP;
  throw UserError("unknown target '" + s + "' (expected kokkos or openmp)");
}

std::string toString(Target t) { return t == Target::Kokkos ? "kokkos" : "openmp"; }

std::string printSource(const LoopProgram& scheduled, Target target, const EmitOptions& options) {
  return target == Target::Kokkos ? emit::printKokkos(scheduled, options) : emit::printOpenMP(scheduled, options);
}

namespace emit {

using namespace ir;
using ir::Expr;

void CppPrinter::line(const std::string& s) { out_ << std::string(static_cast<size_t>(2 * depth_), ' ') << s << "\n"; }

std::string CppPrinter::typeName(Type t) {
  switch (t) {
    case Type::Bool: return "bool";
    case Type::Int32: return "int32_t";
    case Type::Int64: return "int64_t";
    case Type::Float32: return "float";
    case Type::Float64: return "double";
  }
  internalError("a value outside its enumeration");
}

std::string CppPrinter::load(const ir::ExprNode& e, const std::string& offset) const { return mangle(e.name) + "[" + offset + "]"; }

std::string CppPrinter::expr(const Expr& e) const {
  auto a = [&](size_t k) { return expr(e->args[k]); };
  switch (e->kind) {
    case ExprKind::IntImm: return std::to_string(e->intValue);
    case ExprKind::FloatImm: return literalText(e->floatValue, e->type);
    case ExprKind::StringImm: return stringLiteral(e->text);
    case ExprKind::Var: return mangle(e->name);
    case ExprKind::Load: return load(*e, subscript(e->args[0], a(0)));
    case ExprKind::Neg: {  // "(- -1.0)": without the space a negative literal would read as "--" (decrement)
      std::string x = a(0);
      return (x[0] == '-' ? "(- " : "(-") + x + ")";
    }
    case ExprKind::Binary: {
      static const char* const ops[] = {" + ", " - ", " * ", " / ", " < ", " <= ", " > ", " >= ", " == ", " != "};
      std::string s = "(" + a(0) + ops[static_cast<int>(e->op)] + a(1);
      if (!isComparison(e->op) || e->type == Type::Bool) return s + ")";
      return s + " ? " + literalText(1.0, e->type) + " : " + literalText(0.0, e->type) + ")";  // a value: 1 or 0
    }
    case ExprKind::Call:
      switch (e->callee) {
        case Callee::Exp: return "exp(" + a(0) + ")";
        case Callee::Sqrt: return "sqrt(" + a(0) + ")";
        case Callee::Log: return "log(" + a(0) + ")";
        case Callee::Max: return "react_max(" + a(0) + ", " + a(1) + ")";
        case Callee::Min: return "react_min(" + a(0) + ", " + a(1) + ")";
        // A call, not "c ? a : b": both operands are then read unconditionally. GCC 12.2 (Debian 12)
        // at -O3 with AVX2 turns a conditional read into masked loads and may use one vector's mask
        // for the next ones (fuzz/regressions/gcc12-masked-load-where.txt).
        case Callee::Where: return "react_where(" + a(0) + ", " + a(1) + ", " + a(2) + ")";
        case Callee::Checked: return "react_checked(" + a(0) + ", " + a(1) + ", " + a(2) + ")";
        case Callee::Select: return "(" + a(0) + " ? " + a(1) + " : " + a(2) + ")";
        case Callee::RowOf:
          if (e->args.size() == 4) return "react_row_from(" + a(0) + ", " + a(1) + ", " + a(3) + ", " + a(2) + ")";
          return "react_row_of(" + a(0) + ", " + a(1) + ", " + a(2) + ")";
        case Callee::Find: return "react_find(" + a(0) + ", " + a(1) + ", " + a(2) + ", " + a(3) + ")";
        case Callee::ChunkLength: return "react_fibre_chunk_length(" + a(0) + ", " + a(1) + ")";
        case Callee::Cast: return "static_cast<" + typeName(e->type) + ">(" + a(0) + ")";
      }
      break;
    case ExprKind::Access: break;
  }
  internalError("the printer met " + ir::print(e) + " (accesses are lowered before printing)");
}

void CppPrinter::body(const std::vector<Stmt>& b) {
  for (const Stmt& s : b) stmt(s);
}

void CppPrinter::serialLoop(const StmtNode& l) {
  std::string c = mangle(l.counter);
  open("for (int64_t " + c + " = " + expr(l.lo) + "; " + c + " < " + expr(l.hi) + "; ++" + c + ") {");
  body(l.body);
  close();
}

void CppPrinter::maskedBlocks(const StmtNode&) { internalError("the printer met masked blocks outside an OpenMP kernel"); }

void CppPrinter::privatesOf(const StmtNode& l) {
  for (const PrivateBuffer& b : l.privates)
    allocate(*ir::allocate(b.tensor, b.type, var(Name{Role::Size, b.tensor}, Type::Int64), b.init, false));
}

int64_t CppPrinter::constantElements(const StmtNode& a) const {
  if (a.value->kind == ExprKind::IntImm) return a.value->intValue;
  if (a.value->kind != ExprKind::Var || a.value->name.role != Role::Size) return 0;
  auto known = constantSizes_.find(a.value->name.text);
  return known == constantSizes_.end() ? 0 : known->second;
}

void CppPrinter::stmt(const Stmt& s) {
  switch (s->kind) {
    case StmtKind::Block:
      if (!s->scoped) return body(s->body);
      open("{");
      body(s->body);
      return close();
    case StmtKind::Comment: return line("// " + commentText(s->text));
    case StmtKind::Let:
      if (s->name.role == Role::Size && s->value->kind == ExprKind::IntImm) constantSizes_[s->name.text] = s->value->intValue;
      return line(std::string(s->isMutable ? "" : "const ") + typeName(s->type) + " " + mangle(s->name) + " = " +
                  expr(s->value) + ";");
    case StmtKind::Assign: {
      std::string t = expr(s->target), v = expr(s->value);
      if (s->atomic) return atomicAdd(t, v);
      if (s->update == Update::Set) return line(t + " = " + v + ";");
      if (s->update == Update::Add) return line(t + " += " + v + ";");
      return line(t + " = react_max(" + t + ", " + v + ");");
    }
    case StmtKind::For:
      if (s->maskedBlocks) return maskedBlocks(*s);
      if (s->schedule != Schedule::Serial) return scheduledLoop(*s);
      privatesOf(*s);
      return serialLoop(*s);
    case StmtKind::Allocate: return allocate(*s);
    case StmtKind::Fill: return fill(*s);
    case StmtKind::Single: return single(*s);
    case StmtKind::IfDevice: return ifDevice(*s);
    case StmtKind::IfLongRows: internalError("the printer met a choice of row forms outside a Kokkos nest");
    case StmtKind::IfColumnWalk: internalError("the printer met a choice of walks outside a Kokkos nest");
    case StmtKind::EntryRuns: internalError("the printer met entry runs outside a Kokkos nest");
    case StmtKind::EntryLanes: internalError("the printer met entry lanes outside a Kokkos nest");
    case StmtKind::Nest: return productOrNest(*s);
    case StmtKind::Prepare: return prepare(*s);
    case StmtKind::Merge: return merge(*s);
  }
}

std::optional<double> CppPrinter::startValue(const StmtNode& a) const {
  if (!a.uninitialized) return a.init;
  if (o_.boundsCheck && isFloat(a.type)) return std::numeric_limits<double>::quiet_NaN();
  return std::nullopt;
}

// A nest that is a plain dense product (passes/dense_product.cpp): the call to the target's
// tuned product where the kernel's prelude defines one (REACT_DENSE_PRODUCT), else the nest.
void CppPrinter::productOrNest(const StmtNode& n) {
  const auto& d = n.product;
  if (!d) return nest(n);
  auto values = [](const std::string& t) { return mangle(Name{Role::Values, t}); };
  line("#if defined(REACT_DENSE_PRODUCT)");
  line("react_dense_product(" + values(d->a) + ", " + values(d->b) + ", " + values(d->out) + ", " + expr(d->m) + ", " +
       expr(d->n) + ", " + expr(d->k) + ", " + (d->overwrites ? "false" : "true") + ");");
  line("#else");
  if (d->overwrites) fill(*ir::fill(d->out, valueTypeOf(p_.tensors.at(d->out)), 0));
  nest(n);
  line("#endif");
}

// Each finger's position runs from its lo while it is below its hi; the loop lasts while any
// finger (union) or every finger (intersection) has positions left. A finger past its end reads
// the coordinate INT64_MAX, above every coordinate. The counter is the least coordinate; the
// fingers holding it advance after the case of exactly those fingers has run (and with it the
// appended position; above the assembled pattern's last level, only where it holds the counter).
void CppPrinter::merge(const StmtNode& m) {
  struct Finger {
    std::string position, coordinate, coordinates, hi;
  };
  std::vector<Finger> fingers;
  open("{");
  for (const MergeFinger& f : m.fingers) {
    Finger g{mangle(mergePosition(f.pattern, f.level)), mangle(mergeCoordinate(f.pattern, f.level)),
             mangle(Name{Role::Coordinates, f.pattern, f.level}), expr(f.hi)};
    line("int64_t " + g.position + " = " + expr(f.lo) + ";");
    fingers.push_back(g);
  }
  const std::string appended = m.appended ? mangle(mergePosition(m.appended->pattern, m.appended->level)) : "";
  if (m.appended) line("int64_t " + appended + " = " + expr(m.appended->lo) + ";");
  std::string running, least;
  for (const Finger& f : fingers) {
    running += (running.empty() ? "" : m.unite ? " || " : " && ") + f.position + " < " + f.hi;
    least = least.empty() ? f.coordinate : "react_min(" + least + ", " + f.coordinate + ")";
  }
  const std::string counter = mangle(m.counter);
  open("while (" + running + ") {");
  for (const Finger& f : fingers) {
    const std::string read = "static_cast<int64_t>(" + f.coordinates + "[" + f.position + "])";
    line("const int64_t " + f.coordinate + " = " + (m.unite ? f.position + " < " + f.hi + " ? " + read + " : INT64_MAX" : read) + ";");
  }
  line("const int64_t " + counter + " = " + least + ";");
  for (size_t c = 0; c < m.body.size(); ++c) {
    std::string holding;
    for (size_t f = 0; f < fingers.size(); ++f)
      holding += (f ? " && " : "") + fingers[f].coordinate + ((m.caseMasks[c] >> f) & 1u ? " == " : " != ") + counter;
    open((c ? "} else if (" : "if (") + holding + ") {");
    if (m.appended && m.appended->hi)
      open("if (" + appended + " < " + expr(m.appended->hi) + " && " + mangle(Name{Role::Coordinates, m.appended->pattern, m.appended->level}) +
           "[" + appended + "] == " + counter + ") {");
    stmt(m.body[c]);
    if (m.appended) line("++" + appended + ";");
    if (m.appended && m.appended->hi) close();
    --depth_;
  }
  if (!m.body.empty()) line("}");
  for (const Finger& f : fingers) line(f.position + " += " + f.coordinate + " == " + counter + " ? 1 : 0;");
  close();
  close();
}

std::string CppPrinter::print() {
  out_ << "// Generated by react. Index tree:\n";
  std::istringstream tree(p_.treeText);
  for (std::string l; std::getline(tree, l);) out_ << "//   " << commentText(l) << "\n";
  // Guarded, so that several kernels can share one translation unit.
  // The ABI first: the Kokkos prelude defines the runtime functions it declares.
  out_ << "#ifndef REACT_KERNEL_PRELUDE\n#define REACT_KERNEL_PRELUDE\n" << lower::kAbiHeaderText << includes() << "\n";
  // The float overloads of <cmath> for float values (exp(x) of a float x is expf).
  out_ << "using std::exp; using std::sqrt; using std::log;\n";
  // Templates, for float and double alike: operands of two types (which the IR never mixes
  // without a cast) fail to deduce rather than convert.
  std::string q = functionQualifier(), t = "template <class T> " + q;
  out_ << t << " T react_max(T a, T b) { return a > b ? a : b; }\n";
  out_ << t << " T react_min(T a, T b) { return a < b ? a : b; }\n";
  out_ << t << " T react_where(T c, T a, T b) { return c != T(0) ? a : b; }\n";
  out_ << q << " int64_t react_checked(int64_t i, int64_t n, const char* what) {\n"
       << "  if (i < 0 || i >= n) { REACT_REPORT(\"react bounds check: %s at offset %lld outside [0, %lld)\\n\", what, (long long)i, (long long)n); REACT_ABORT(); }\n"
       << "  return i;\n}\n";
  // Callee::RowOf: invariant positions[lo] <= p < positions[hi] (positions[0] = 0 <= p < nnz).
  out_ << q << " int64_t react_row_of(const int64_t* positions, int64_t rows, int64_t p) {\n"
       << "  int64_t lo = 0, hi = rows;\n"
       << "  while (hi - lo > 1) { const int64_t mid = lo + (hi - lo) / 2; if (positions[mid] <= p) lo = mid; else hi = mid; }\n"
       << "  return lo;\n}\n"
       // The same from a row `from` at or before p's (positions[from] <= p): the bracket grows by
       // doubling steps until positions[hi] > p (positions[rows] = nnz > p ends it), then halves.
       << q << " int64_t react_row_from(const int64_t* positions, int64_t rows, int64_t from, int64_t p) {\n"
       << "  int64_t lo = from, hi = from + 1, step = 1;\n"
       << "  while (hi < rows && positions[hi] <= p) { lo = hi; step *= 2; hi = lo + step; }\n"
       << "  if (hi > rows) hi = rows;\n"
       << "  while (hi - lo > 1) { const int64_t mid = lo + (hi - lo) / 2; if (positions[mid] <= p) lo = mid; else hi = mid; }\n"
       << "  return lo;\n}\n"
       // Callee::Find: coordinates[lo, hi) increase.
       << q << " int64_t react_find(const int32_t* coordinates, int64_t lo, int64_t hi, int64_t c) {\n"
       << "  const int64_t end = hi;\n"
       << "  while (lo < hi) { const int64_t mid = lo + (hi - lo) / 2; if (coordinates[mid] < c) lo = mid + 1; else hi = mid; }\n"
       << "  return lo < end && coordinates[lo] == c ? lo : -1;\n}\n#endif\n";
  out_ << denseProductPrelude();
  // The statements' function where the target wraps them: in a namespace of its own, so that no
  // kernel's name (each library's exported functions) can be it.
  const std::string bodyName = "react_bodies::" + o_.functionName;
  const bool wrapped = wrapsCalls();
  if (wrapped) out_ << "\nnamespace react_bodies {\nstatic void " << o_.functionName << "(const ReactTensor* t, const int64_t* sizes) {\n";
  else out_ << "\nextern \"C\" " << kernelAttributes() << "void " << o_.functionName << "(const ReactTensor* t, const int64_t* sizes) {\n";
  for (size_t k = 0; k < p_.runtimeSizes.size(); ++k)
    line("const int64_t " + mangle(Name{Role::Extent, p_.runtimeSizes[k]}) + " = sizes[" + std::to_string(k) + "];");
  if (p_.runtimeSizes.empty()) line("(void)sizes;");
  for (size_t k = 0; k < p_.args.size(); ++k) {
    const std::string& name = p_.args[k];
    std::string a = "t[" + std::to_string(k) + "]", size = mangle(Name{Role::Size, name});
    const std::string type = typeName(valueTypeOf(p_.tensors.at(name)));  // the ABI's values are untyped
    // A prepared argument's pointer is set where the kernel makes it; its size is the Let's there.
    const bool prepared = p_.transposedInputs.count(name) > 0;
    line(type + (prepared ? "* " : "* const ") + mangle(Name{Role::Values, name}) + " = static_cast<" + type + "*>(" + a + ".vals);");
    if (prepared) continue;
    if (std::find(p_.patternArgs.begin(), p_.patternArgs.end(), name) != p_.patternArgs.end()) {
      // The arrays of each of the pattern's levels that keeps them, and its stored entries.
      const Format& f = p_.tensors.at(name).decl.format;
      std::string arrays;
      for (int l = 0; l < f.rank(); ++l) {
        const std::string level = "[" + std::to_string(l) + "]";
        if (f.level(l).storesPositions())
          arrays += "const int64_t* const " + mangle(Name{Role::Positions, name, l}) + " = " + a + ".pos" + level + "; ";
        if (f.level(l).storesCoordinates())
          arrays += "const int32_t* const " + mangle(Name{Role::Coordinates, name, l}) + " = " + a + ".crd" + level + "; ";
      }
      if (p_.columnWalks.count(name)) arrays += "const int64_t* const " + mangle(Name{Role::EntrySources, name}) + " = " + a + ".source; ";
      line(arrays + "const int64_t " + mangle(Name{Role::StoredEntries, name}) + " = " + a + ".nnz;");
    }
    line("const int64_t " + size + " = " + a + ".nnz; (void)" + size + ";");
  }
  body(p_.body);
  out_ << "}\n";
  if (wrapped) out_ << "}  // namespace react_bodies\n" << callWrapper(bodyName);
  return out_.str();
}

}  // namespace emit
}  // namespace react
