// The loop IR's text form: what golden tests compare and `react-gen -print-loops` shows.
#include "formats/errors.hpp"
#include "lower/ir/names.hpp"

#include <sstream>

namespace react::ir {

namespace {

const char* opText(BinOp op) {
  static const char* const text[] = {"+", "-", "*", "/", "<", "<=", ">", ">=", "==", "!="};
  return text[static_cast<int>(op)];
}

// A cast is spelt as the type it converts to: f64(x), f32(x).
const char* calleeText(const ExprNode& call) {
  static const char* const text[] = {"exp", "sqrt", "log", "max", "min", "where", "checked", "select", "row_of", "find", "chunk_length"};
  if (call.callee == Callee::Cast) return toString(call.type);
  return text[static_cast<int>(call.callee)];
}

// What holds values of type `t` shows it after its name, unless it is f64: the default is left
// out, so that the text of a float64 program reads as before value types existed. (Let always
// shows its type.)
std::string typeSuffix(Type t) { return t == Type::Float64 ? "" : std::string(": ") + toString(t); }

const char* updateText(Update u) { return u == Update::Set ? "=" : u == Update::Add ? "+=" : "max="; }

// A reduction's target: its tensor, or its variable.
std::string reducedName(const ExprNode& target) { return target.kind == ExprKind::Var ? mangle(target.name) : target.tensor; }

class TextPrinter {
 public:
  std::string str() const { return out_.str(); }

  void stmt(const Stmt& s) {
    switch (s->kind) {
      case StmtKind::Block:
        if (!s->scoped) return body(s->body);
        open("{");
        body(s->body);
        close();
        return;
      case StmtKind::Comment: return line("// " + commentText(s->text));
      case StmtKind::Let:
        return line(std::string(s->isMutable ? "var " : "let ") + mangle(s->name) + ": " + toString(s->type) + " = " +
                    print(s->value));
      case StmtKind::Assign:
        return line(std::string(s->atomic ? "atomic " : "") + print(s->target) + " " + updateText(s->update) + " " +
                    print(s->value));
      case StmtKind::For: {
        std::string head = "for " + mangle(s->counter) + " in [" + print(s->lo) + ", " + print(s->hi) + ") " +
                           toString(s->schedule);
        if (s->schedule == Schedule::ParallelReduce || s->schedule == Schedule::LaneReduce) {
          head += " into " + mangle(s->reduceVar);
          for (const Name& a : s->jointReduceVars) head += ", " + mangle(a);
          head += s->reduceOp == ReduceOp::Sum ? " (+)" : " (max)";
        }
        if (s->maskedBlocks)
          head += " masked-blocks" + (s->schedule == Schedule::LaneReduce || s->reduceVar.text.empty()
                                          ? std::string()
                                          : " into " + mangle(s->reduceVar) + (s->reduceOp == ReduceOp::Sum ? " (+)" : " (max)"));
        if (s->iterations == Iterations::Independent) head += " independent";
        if (s->iterations == Iterations::ReduceScalar)
          head += " reduces " + reducedName(*s->reduceTarget) + (s->reduceOp == ReduceOp::Sum ? " (+)" : " (max)");
        for (const PrivateBuffer& b : s->privates)
          head += " private(" + b.tensor + typeSuffix(b.type) + " = " + literalText(b.init, b.type) + ")";
        if (s->laneTrips) head += " lanes~" + print(s->laneTrips);
        if (!s->balancePositions.text.empty())
          head += " balanced(" + mangle(s->balancePositions) + ": " + std::to_string(s->entryWork) + " per entry, " +
                  std::to_string(s->rowWork) + " per row)";
        if (s->rowChunks) head += " row-chunks";
        open(head + " {");
        body(s->body);
        close();
        return;
      }
      case StmtKind::Allocate:
        return line("allocate " + mangle(s->name) + typeSuffix(s->type) + "[" + print(s->value) + "]" +
                    (s->uninitialized ? " (set before read)" : " = " + literalText(s->init, s->type)) +
                    (s->alternating ? " (alternating halves)"
                                    : s->parallelInit ? (s->uninitialized ? " (shared by every thread)" : " (filled by every thread)") : ""));
      case StmtKind::Fill:
        return line("fill " + mangle(s->name) + typeSuffix(s->type) + " = " + literalText(s->init, s->type));
      case StmtKind::Single:
        open("single {");
        body(s->body);
        close();
        return;
      case StmtKind::IfDevice: return branches(s->forcedOrder ? "if device (forced) {" : "if device {", *s);
      case StmtKind::IfLongRows:
        return branches("if longest_row(" + mangle(s->name) + ", " + print(s->value) + ") > " + std::to_string(s->longRow) + " {", *s);
      case StmtKind::IfColumnWalk: return branches("if column walk given (" + mangle(s->name) + " > 0) {", *s);
      case StmtKind::EntryRuns: {
        std::string head = "for " + mangle(s->counter) + " in [0, " + print(s->hi) + ") in runs of " + std::to_string(s->runLength) +
                           ", " + mangle(s->rowCounter) + " its row of " + mangle(s->name) + "[0.." + print(s->value) + "]";
        if (s->target)
          head += ", rows' parts of " + mangle(s->reduceVar) + typeSuffix(s->reduceType) + " into " + print(s->target) +
                  (s->reduceOp == ReduceOp::Max ? " (max)" : "");
        if (!s->runRows.text.empty())
          head += (s->recordsRunRows ? ", first rows into " : ", first rows from ") + mangle(s->runRows) + " (runs of " + std::to_string(s->runRowsEvery) + ")";
        open(head + " {");
        body(s->body);
        close();
        return;
      }
      case StmtKind::EntryLanes:
        open("for " + mangle(s->counter) + " in [0, " + print(s->hi) + ") on lanes in chunks of 32, " + mangle(s->rowCounter) +
             " its row of " + mangle(s->name) + "[0.." + print(s->value) + "], sum " + mangle(s->reduceVar) + typeSuffix(s->reduceType) + " {");
        body(s->body);
        close();
        return;
      case StmtKind::Prepare:
        open("prepare " + mangle(s->name) + typeSuffix(s->type) + "[" + print(s->value) + "] unless given {");
        body(s->body);
        close();
        return;
      case StmtKind::Nest: {
        std::string head = "nest " + s->text;
        if (const auto& d = s->product)
          head += " product(" + d->out + (d->overwrites ? " = " : " += ") + d->a + " @ " + d->b + ", m " + print(d->m) + ", n " + print(d->n) + ", k " +
                  print(d->k) + ")";
        open(head + " {");
        body(s->body);
        close();
        return;
      }
      case StmtKind::Merge: return merge(*s);
    }
  }

  // "merge ix_j over p1_S in [lo, hi) | p1_T in [lo, hi) appending p1_A from lo {" (and "where
  // stored before hi" above the assembled pattern's last level), then a
  // "when p1_S, p1_T {" block per case.
  void merge(const StmtNode& m) {
    std::string head = "merge " + mangle(m.counter) + " over ";
    for (size_t f = 0; f < m.fingers.size(); ++f)
      head += (f ? (m.unite ? " | " : " & ") : "") + mangle(mergePosition(m.fingers[f].pattern, m.fingers[f].level)) + " in [" +
              print(m.fingers[f].lo) + ", " + print(m.fingers[f].hi) + ")";
    if (m.appended) head += " appending " + mangle(mergePosition(m.appended->pattern, m.appended->level)) + " from " + print(m.appended->lo);
    if (m.appended && m.appended->hi) head += " where stored before " + print(m.appended->hi);
    open(head + " {");
    for (size_t c = 0; c < m.body.size(); ++c) {
      std::string holding;
      for (size_t f = 0; f < m.fingers.size(); ++f)
        if (m.caseMasks[c] & (1u << f)) holding += (holding.empty() ? "" : ", ") + mangle(mergePosition(m.fingers[f].pattern, m.fingers[f].level));
      open("when " + holding + " {");
      stmt(m.body[c]);
      close();
    }
    close();
  }

 private:
  void body(const std::vector<Stmt>& b) {
    for (const Stmt& s : b) stmt(s);
  }
  // A statement of two branches (IfDevice, IfLongRows, IfColumnWalk) under the line `head`.
  void branches(const std::string& head, const StmtNode& s) {
    open(head);
    stmt(s.body[0]);
    --depth_;
    line("} else {");
    ++depth_;
    stmt(s.body[1]);
    close();
  }
  void line(const std::string& s) { out_ << std::string(static_cast<size_t>(2 * depth_), ' ') << s << "\n"; }
  void open(const std::string& s) {
    line(s);
    ++depth_;
  }
  void close() {
    --depth_;
    line("}");
  }
  std::ostringstream out_;
  int depth_ = 0;
};

}  // namespace

std::string print(const Expr& e) {
  if (!e) return "<null>";
  auto a = [&](size_t k) { return print(e->args[k]); };
  switch (e->kind) {
    case ExprKind::IntImm: return std::to_string(e->intValue);
    case ExprKind::FloatImm: return literalText(e->floatValue, e->type);
    case ExprKind::StringImm: return stringLiteral(e->text);
    case ExprKind::Var: return mangle(e->name);
    case ExprKind::Access: {
      std::string s = e->tensor + "(";
      for (size_t d = 0; d < e->indices.size(); ++d) s += (d ? "," : "") + e->indices[d];
      return s + ")";
    }
    case ExprKind::Load: return mangle(e->name) + "[" + subscript(e->args[0], a(0)) + "]";
    case ExprKind::Neg: return "(-" + a(0) + ")";
    case ExprKind::Binary: return "(" + a(0) + " " + opText(e->op) + " " + a(1) + ")";
    case ExprKind::Call: {
      std::string s = std::string(calleeText(*e)) + "(";
      for (size_t k = 0; k < e->args.size(); ++k) s += (k ? ", " : "") + a(k);
      return s + ")";
    }
  }
  internalError("a value outside its enumeration");
}

std::string print(const Stmt& s) {
  TextPrinter p;
  p.stmt(s);
  return p.str();
}

std::string print(const KernelIR& k) {
  std::string s = "kernel(";
  for (size_t a = 0; a < k.args.size(); ++a)
    s += (a ? ", " : "") + k.args[a] + typeSuffix(valueTypeOf(k.tensors.at(k.args[a])));
  s += ")";
  if (!k.runtimeSizes.empty()) {
    s += " sizes(";
    for (size_t a = 0; a < k.runtimeSizes.size(); ++a) s += (a ? ", " : "") + k.runtimeSizes[a];
    s += ")";
  }
  s += "\n";
  for (const Stmt& b : k.body) s += print(b);
  return s;
}

}  // namespace react::ir
