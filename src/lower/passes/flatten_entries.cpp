// OpenMP: exp or log of every stored entry, computed in one loop over all stored entries before
// the loop over rows (parallel, or serial where rows scatter: a csc matrix's columns), rather
// than row by row.
//
// Why: a row's loop over its stored entries is short on most graphs (4 to 10 entries), shorter
// than one vector of 8 doubles, so the vector math library's exp runs only in the loops' scalar
// remainders: sparse softmax spent 5 ns per entry on rows of 4 and 1.5 ns on rows of 64. Over all
// entries at once every call is a full vector. What moves out is a statement that reads and writes
// only at the loop's position, tensors of the row loop's pattern: its result does not depend on
// the row, and the row's later statements read it where the nest would have read it anyway.
#include "lower/ir/analysis.hpp"
#include "lower/ir/mutator.hpp"
#include "lower/passes/passes.hpp"

#include <algorithm>

namespace react::passes {

using namespace ir;
using ir::Expr;

namespace {

// Stored entries per block of the flat loop: threads take blocks; each block is one vector loop.
constexpr int64_t kEntriesPerBlock = 4096;

// Reads and writes of one statement of the row's entry loop.
struct EntryStatement {
  const LoopProgram& p;
  std::string pattern;
  std::map<std::string, int> writes;  // assignments to each tensor in the row loop

  // `value` read at the entry's position only: literals, operations and accesses of inputs (or
  // tensors already flattened) stored at the pattern's positions.
  bool readsEntryOnly(const Expr& value, const std::set<std::string>& flattened) const {
    bool ok = true;
    forEachExpr(value, [&](const Expr& e) {
      if (e->kind == ExprKind::Var || e->kind == ExprKind::Load) ok = false;
      if (e->kind == ExprKind::Access)
        ok = ok && p.tensors.at(e->tensor).storedAtEntriesOf(pattern) && (!writes.count(e->tensor) || flattened.count(e->tensor));
    });
    return ok;
  }

  static bool callsVectorMathIn(const Expr& value) {
    bool calls = false;
    forEachExpr(value, [&](const Expr& e) {
      calls |= e->kind == ExprKind::Call && (e->callee == Callee::Exp || e->callee == Callee::Log);
    });
    return calls;
  }

  // `s` sets a temporary of the pattern at the entry, from the entry's values, calling exp or log.
  bool movable(const StmtNode& s, const std::set<std::string>& flattened) const {
    if (s.kind != StmtKind::Assign || s.update != Update::Set || s.target->kind != ExprKind::Access) return false;
    const std::string& target = s.target->tensor;
    return p.tensors.at(target).decl.role == TensorRole::Temporary && p.tensors.at(target).storedAtEntriesOf(pattern) &&
           writes.at(target) == 1 && callsVectorMathIn(s.value) && readsEntryOnly(s.value, flattened);
  }
};

// Accesses as loads at the flat loop's position (the values of a tensor of the pattern).
Expr atPosition(const Expr& e, const Expr& position) {
  if (!e) return e;
  if (e->kind == ExprKind::Access) return load(Name{Role::Values, e->tensor}, position, e->type);
  auto n = std::make_shared<ir::ExprNode>(*e);
  for (Expr& a : n->args) a = atPosition(a, position);
  return n;
}

// The tensors a statement reads: accesses in values, and the target of an update (+=, max=).
std::set<std::string> readTensors(const Stmt& s) {
  std::set<std::string> read;
  forEachStmt(s, [&](const Stmt& t) {
    forEachOwnExpr(t, [&](const Expr& e) {
      if (e->kind == ExprKind::Access && e != t->target) read.insert(e->tensor);
    });
    if (t->kind == StmtKind::Assign && t->update != Update::Set && t->target->kind == ExprKind::Access)
      read.insert(t->target->tensor);
  });
  return read;
}

// How many assignments write each tensor.
std::map<std::string, int> writeCounts(const Stmt& s) {
  std::map<std::string, int> writes;
  forEachStmt(s, [&](const Stmt& t) {
    if (t->kind == StmtKind::Assign && t->target->kind == ExprKind::Access) ++writes[t->target->tensor];
  });
  return writes;
}

// The flat loop: blocks of stored entries over the threads, each block a vector loop.
Stmt flatLoop(const std::string& pattern, const std::string& index, std::vector<Stmt> body) {
  const Name block{Role::Generated, "react_entries"};
  const Expr entries = var(Name{Role::StoredEntries, pattern}, Type::Int64), size = intImm(kEntriesPerBlock);
  const Expr first = binary(BinOp::Mul, var(block, Type::Int64), size), end = binary(BinOp::Add, first, size);
  const Expr last = call(Callee::Select, {binary(BinOp::Lt, end, entries), end, entries}, Type::Int64);
  auto entryLoop = copy(forLoop(Name{Role::Position, index}, first, last, std::move(body), Schedule::Vector));
  entryLoop->iterations = Iterations::Independent;
  Expr blocks = binary(BinOp::Div, binary(BinOp::Add, entries, intImm(kEntriesPerBlock - 1)), size);
  return forLoop(block, intImm(0), blocks, {entryLoop}, Schedule::Parallel);
}

// A nest's parallel row loop with the movable statements of its entry loops taken out, and the
// flat loop that computes them (null when nothing moves).
struct Flattened {
  Stmt rows, flat;
  std::set<std::string> targets;  // the temporaries the flat loop sets
};

Flattened flattenRows(const LoopProgram& p, const Stmt& rows) {
  const std::map<std::string, int> writes = writeCounts(rows);
  auto out = copy(rows);
  out->body.clear();
  std::vector<Stmt> moved;
  std::set<std::string> flattened, readBefore;
  std::string pattern, index;
  for (const Stmt& child : rows->body) {
    const std::string rowOf = child->kind == StmtKind::For ? rowEntriesPattern(*child, rows->counter, p.tensors) : "";
    if (!rowOf.empty() && (pattern.empty() || pattern == rowOf)) {
      EntryStatement entry{p, rowOf, writes};
      auto loop = copy(child);
      loop->body.clear();
      for (const Stmt& s : child->body) {
        const bool reads = s->kind == StmtKind::Assign && readBefore.count(s->target->tensor);
        if (!reads && entry.movable(*s, flattened)) {
          pattern = rowOf;
          index = loopIndex(*child);
          flattened.insert(s->target->tensor);
          moved.push_back(assign(atPosition(s->target, var(Name{Role::Position, index}, Type::Int64)),
                                 atPosition(s->value, var(Name{Role::Position, index}, Type::Int64))));
          continue;
        }
        loop->body.push_back(s);
        for (const std::string& t : readTensors(s)) readBefore.insert(t);
      }
      // A loop left with its coordinate's binding alone does nothing.
      if (std::any_of(loop->body.begin(), loop->body.end(), [](const Stmt& s) { return s->kind != StmtKind::Let; }))
        out->body.push_back(loop);
      continue;
    }
    out->body.push_back(child);
    for (const std::string& t : readTensors(child)) readBefore.insert(t);
  }
  if (moved.empty()) return {rows, nullptr, {}};
  // The entry loops' iterations were analysed with the moved statements in them.
  for (Stmt& child : out->body) {
    if (child->kind != StmtKind::For || rowEntriesPattern(*child, rows->counter, p.tensors) != pattern) continue;
    auto loop = copy(child);
    IterationFacts facts = analyzeIterations(*loop, p.tensors, {});
    loop->iterations = facts.kind;
    loop->reduceTarget = facts.reduceTarget;
    loop->reduceOp = facts.op;
    child = loop;
  }
  return {out, flatLoop(pattern, index, std::move(moved)), flattened};
}

}  // namespace

LoopProgram flattenEntrywise(const LoopProgram& p) {
  LoopProgram out = p;
  std::set<std::string> setEverywhere;  // temporaries a flat loop sets at every stored entry
  for (Stmt& n : out.body) {
    if (n->kind != StmtKind::Nest) continue;
    auto nest = copy(n);
    nest->body.clear();
    for (const Stmt& s : n->body) {
      // A serial outer loop too: a csc matrix's columns, which scatter into rows of the result.
      if (s->kind != StmtKind::For || (s->schedule != Schedule::Parallel && s->schedule != Schedule::Serial)) {
        nest->body.push_back(s);
        continue;
      }
      Flattened f = flattenRows(p, s);
      if (f.flat) nest->body.push_back(f.flat);
      nest->body.push_back(f.rows);
      setEverywhere.insert(f.targets.begin(), f.targets.end());
    }
    n = nest;
  }
  // Their storage needs no initial value: nothing reads an entry before the flat loop sets it.
  for (Stmt& s : out.body) {
    if (s->kind != StmtKind::Allocate || !setEverywhere.count(s->name.text)) continue;
    auto storage = copy(s);
    storage->uninitialized = true;
    s = storage;
  }
  return out;
}

}  // namespace react::passes
