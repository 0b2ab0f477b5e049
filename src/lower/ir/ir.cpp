// Node construction and structural equality of the loop IR.
#include "lower/ir/ir.hpp"
#include "formats/errors.hpp"

namespace react::ir {

const char* toString(Type t) {
  switch (t) {
    case Type::Bool: return "bool";
    case Type::Int32: return "i32";
    case Type::Int64: return "i64";
    case Type::Float32: return "f32";
    case Type::Float64: return "f64";
  }
  internalError("a value outside its enumeration");
}

bool isFloat(Type t) { return t == Type::Float32 || t == Type::Float64; }

Type typeOf(ValueType v) { return v == ValueType::Float32 ? Type::Float32 : Type::Float64; }

ValueType valueTypeOf(Type t) {
  REACT_ASSERT(isFloat(t), std::string("a value type asked of type ") + toString(t));
  return t == Type::Float32 ? ValueType::Float32 : ValueType::Float64;
}

Type valueTypeOf(const TensorStorage& s) { return typeOf(s.decl.valueType); }

const char* toString(Schedule s) {
  switch (s) {
    case Schedule::Serial: return "serial";
    case Schedule::Parallel: return "parallel";
    case Schedule::ParallelReduce: return "parallel-reduce";
    case Schedule::Vector: return "vector";
    case Schedule::LaneReduce: return "lane-reduce";
  }
  internalError("a value outside its enumeration");
}

namespace {
Expr make(ExprNode n) { return std::make_shared<const ExprNode>(std::move(n)); }
Stmt make(StmtNode n) { return std::make_shared<const StmtNode>(std::move(n)); }
}  // namespace

Expr intImm(int64_t v) {
  ExprNode n;
  n.kind = ExprKind::IntImm;
  n.intValue = v;
  return make(std::move(n));
}

Expr floatImm(double v, Type t) {
  ExprNode n;
  n.kind = ExprKind::FloatImm;
  n.type = t;
  n.floatValue = roundTo(valueTypeOf(t), v);
  return make(std::move(n));
}

Expr stringImm(const std::string& text) {
  ExprNode n;
  n.kind = ExprKind::StringImm;
  n.text = text;
  return make(std::move(n));
}

Expr var(Name name, Type t) {
  ExprNode n;
  n.kind = ExprKind::Var;
  n.type = t;
  n.name = std::move(name);
  return make(std::move(n));
}

Expr access(const std::string& tensor, std::vector<std::string> indices, Type t) {
  ExprNode n;
  n.kind = ExprKind::Access;
  n.type = t;
  n.tensor = tensor;
  n.indices = std::move(indices);
  return make(std::move(n));
}

Expr load(Name array, Expr offset, Type t) {
  ExprNode n;
  n.kind = ExprKind::Load;
  n.type = t;
  n.name = std::move(array);
  n.args = {std::move(offset)};
  return make(std::move(n));
}

Expr neg(Expr a) {
  ExprNode n;
  n.kind = ExprKind::Neg;
  n.type = a->type;
  n.args = {std::move(a)};
  return make(std::move(n));
}

bool isComparison(BinOp op) { return op >= BinOp::Lt; }

Expr binary(BinOp op, Expr a, Expr b) {
  ExprNode n;
  n.kind = ExprKind::Binary;
  n.op = op;
  n.type = isComparison(op) && !isFloat(a->type) ? Type::Bool : a->type;
  n.args = {std::move(a), std::move(b)};
  return make(std::move(n));
}

Expr call(Callee c, std::vector<Expr> args, Type t) {
  ExprNode n;
  n.kind = ExprKind::Call;
  n.callee = c;
  n.type = t;
  n.args = std::move(args);
  return make(std::move(n));
}

Expr cast(Expr a, Type t) {
  if (a->type == t) return a;
  return call(Callee::Cast, {std::move(a)}, t);
}

bool equal(const Expr& a, const Expr& b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind || a->type != b->type || a->args.size() != b->args.size()) return false;
  if (a->intValue != b->intValue || a->floatValue != b->floatValue || a->text != b->text || a->name != b->name ||
      a->tensor != b->tensor || a->indices != b->indices || a->op != b->op || a->callee != b->callee)
    return false;
  for (size_t k = 0; k < a->args.size(); ++k)
    if (!equal(a->args[k], b->args[k])) return false;
  return true;
}

Stmt block(std::vector<Stmt> body, bool scoped) {
  StmtNode n;
  n.kind = StmtKind::Block;
  n.body = std::move(body);
  n.scoped = scoped;
  return make(std::move(n));
}

Stmt comment(const std::string& text) {
  StmtNode n;
  n.kind = StmtKind::Comment;
  n.text = text;
  return make(std::move(n));
}

Stmt let(Name name, Type t, Expr value, bool isMutable) {
  StmtNode n;
  n.kind = StmtKind::Let;
  n.name = std::move(name);
  n.type = t;
  n.value = std::move(value);
  n.isMutable = isMutable;
  return make(std::move(n));
}

Stmt assign(Expr target, Expr value, Update u) {
  StmtNode n;
  n.kind = StmtKind::Assign;
  n.target = std::move(target);
  n.value = std::move(value);
  n.update = u;
  return make(std::move(n));
}

Stmt atomicAdd(Expr target, Expr value) {
  auto n = copy(assign(std::move(target), std::move(value), Update::Add));
  n->atomic = true;
  return n;
}

Stmt forLoop(Name counter, Expr lo, Expr hi, std::vector<Stmt> body, Schedule s) {
  StmtNode n;
  n.kind = StmtKind::For;
  n.counter = std::move(counter);
  n.lo = std::move(lo);
  n.hi = std::move(hi);
  n.body = std::move(body);
  n.schedule = s;
  return make(std::move(n));
}

Stmt allocate(const std::string& tensor, Type t, Expr size, double init, bool parallelInit) {
  StmtNode n;
  n.kind = StmtKind::Allocate;
  n.name = Name{Role::Values, tensor};
  n.type = t;
  n.value = std::move(size);
  n.init = init;
  n.parallelInit = parallelInit;
  return make(std::move(n));
}

Stmt allocateIndices(Name name, Expr size) {
  StmtNode n;
  n.kind = StmtKind::Allocate;
  n.name = std::move(name);
  n.type = Type::Int64;
  n.value = std::move(size);
  n.uninitialized = true;
  return make(std::move(n));
}

Stmt fill(const std::string& tensor, Type t, double init) {
  StmtNode n;
  n.kind = StmtKind::Fill;
  n.name = Name{Role::Values, tensor};
  n.type = t;
  n.init = init;
  return make(std::move(n));
}

Stmt single(std::vector<Stmt> body) {
  StmtNode n;
  n.kind = StmtKind::Single;
  n.body = std::move(body);
  return make(std::move(n));
}

Stmt ifDevice(Stmt onDevice, Stmt onHost, bool forced) {
  StmtNode n;
  n.kind = StmtKind::IfDevice;
  n.body = {std::move(onDevice), std::move(onHost)};
  n.forcedOrder = forced;
  return make(std::move(n));
}

Stmt ifLongRows(Name positions, Expr rows, int64_t longRow, Stmt longForm, Stmt rowForm) {
  StmtNode n;
  n.kind = StmtKind::IfLongRows;
  n.name = std::move(positions);
  n.value = std::move(rows);
  n.longRow = longRow;
  n.body = {std::move(longForm), std::move(rowForm)};
  return make(std::move(n));
}

Stmt ifColumnWalk(Name storedEntries, Stmt columnForm, Stmt rowForm) {
  StmtNode n;
  n.kind = StmtKind::IfColumnWalk;
  n.name = std::move(storedEntries);
  n.body = {std::move(columnForm), std::move(rowForm)};
  return make(std::move(n));
}

namespace {
// What entry runs and entry lanes share: the entries [0, entries) of the rows [0, rows) a level's
// positions delimit, their counters, and the accumulator each declares.
StmtNode overStoredEntries(StmtKind kind, Name entry, Name row, Name positions, Expr rows, Expr entries, Name accumulator,
                           Type accumulatorType) {
  StmtNode n;
  n.kind = kind;
  n.counter = std::move(entry);
  n.rowCounter = std::move(row);
  n.name = std::move(positions);
  n.value = std::move(rows);
  n.hi = std::move(entries);
  n.reduceVar = std::move(accumulator);
  n.reduceType = accumulatorType;
  return n;
}
}  // namespace

Stmt entryRuns(Name entry, Name row, Name positions, Expr rows, Expr entries, int64_t runLength, std::vector<Stmt> body,
               Expr target, Name accumulator, Type accumulatorType) {
  StmtNode n = overStoredEntries(StmtKind::EntryRuns, std::move(entry), std::move(row), std::move(positions), std::move(rows),
                                 std::move(entries), std::move(accumulator), accumulatorType);
  n.runLength = runLength;
  n.body = std::move(body);
  n.target = std::move(target);
  return make(std::move(n));
}

Stmt entryLanes(Name entry, Name row, Name positions, Expr rows, Expr entries, Stmt coordinate, Stmt dot, std::vector<Stmt> uses,
                Name accumulator, Type accumulatorType) {
  StmtNode n = overStoredEntries(StmtKind::EntryLanes, std::move(entry), std::move(row), std::move(positions), std::move(rows),
                                 std::move(entries), std::move(accumulator), accumulatorType);
  n.body = {std::move(coordinate), std::move(dot)};
  n.body.insert(n.body.end(), uses.begin(), uses.end());
  return make(std::move(n));
}

Stmt nest(const std::string& name, std::vector<Stmt> body) {
  StmtNode n;
  n.kind = StmtKind::Nest;
  n.text = name;
  n.body = std::move(body);
  return make(std::move(n));
}

Stmt prepare(const std::string& tensor, Type t, Expr size, std::vector<Stmt> body) {
  StmtNode n;
  n.kind = StmtKind::Prepare;
  n.name = Name{Role::Values, tensor};
  n.type = t;
  n.value = std::move(size);
  n.body = std::move(body);
  return make(std::move(n));
}

Name mergePosition(const std::string& pattern, int level) { return Name{Role::Position, pattern, level}; }
Name mergeCoordinate(const std::string& pattern, int level) { return Name{Role::Index, pattern, level}; }

Stmt merge(Name counter, std::vector<MergeFinger> fingers, bool unite, std::optional<MergeFinger> appended,
           std::vector<unsigned> caseMasks, std::vector<Stmt> cases) {
  REACT_ASSERT(caseMasks.size() == cases.size(), "a merge with " + std::to_string(cases.size()) + " cases and " +
                                                     std::to_string(caseMasks.size()) + " masks");
  StmtNode n;
  n.kind = StmtKind::Merge;
  n.counter = std::move(counter);
  n.fingers = std::move(fingers);
  n.unite = unite;
  n.appended = std::move(appended);
  n.caseMasks = std::move(caseMasks);
  n.body = std::move(cases);
  return make(std::move(n));
}

std::shared_ptr<StmtNode> copy(const Stmt& s) { return std::make_shared<StmtNode>(*s); }

}  // namespace react::ir
