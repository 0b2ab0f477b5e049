// Dependence questions on the loop IR: one analysis for every loop (a nest's outer loop, a row's
// loops, an innermost loop a vector unit could run).
#include "lower/ir/analysis.hpp"
#include "lower/ir/mutator.hpp"

#include <algorithm>
#include <functional>

namespace react::ir {

bool varies(const ExprNode& access, const std::string& index, const std::map<std::string, TensorStorage>& tensors) {
  const TensorStorage& s = tensors.at(access.tensor);
  for (size_t d = 0; d < access.indices.size() && d < s.kept.size(); ++d)
    if (s.kept[d] && access.indices[d] == index) return true;
  return false;
}

const std::string& loopIndex(const StmtNode& loop) { return loop.counter.text; }
bool isDenseLoop(const StmtNode& loop) { return loop.counter.role == Role::Index; }

bool callsVectorMath(const StmtNode& loop) {
  bool calls = false;
  for (const Stmt& s : loop.body)
    forEachExpr(s, [&](const Expr& e) {
      calls |= e->kind == ExprKind::Call && (e->callee == Callee::Exp || e->callee == Callee::Log);
    });
  return calls;
}

bool isInnermost(const StmtNode& loop) {
  bool inner = true;
  for (const Stmt& s : loop.body)
    forEachStmt(s, [&](const Stmt& t) { inner = inner && t->kind != StmtKind::For; });
  return inner;
}

std::string tensorOf(const ExprNode& e) {
  if (e.kind == ExprKind::Access) return e.tensor;
  return e.kind == ExprKind::Load && e.name.role == Role::Values ? e.name.text : "";
}

std::string writtenTensor(const StmtNode& assign) { return tensorOf(*assign.target); }

std::string freeTensorName(const std::string& base, const std::function<bool(const std::string&)>& taken) {
  std::string name = base;
  for (int n = 1; taken(name); ++n) name = base + std::to_string(n);
  return name;
}

bool writesMemory(const StmtNode& s) { return s.kind == StmtKind::Assign || (s.kind == StmtKind::EntryRuns && s.target); }

bool writesTensor(const Stmt& s, const std::string& tensor) {
  bool w = false;
  forEachStmt(s, [&](const Stmt& st) { w |= writesMemory(*st) && writtenTensor(*st) == tensor; });
  return w;
}

const StmtNode* onlyStatement(const StmtNode& loop) {
  const StmtNode* only = nullptr;
  for (const Stmt& s : loop.body) {
    if (s->kind == StmtKind::Let && s->name.role == Role::Index) continue;
    if (only) return nullptr;
    only = s.get();
  }
  return only;
}

const Name* rowPositions(const StmtNode& loop, const Name& row) {
  const Expr& lo = loop.lo;
  // The whole row, its end included: passes that hand the row's entries out (or rely on each being
  // visited, recompute-entries' unfilled storage) take it for all of them.
  if (!overRowPositions(loop)) return nullptr;
  const Expr& offset = lo->args.at(0);
  return offset->kind == ExprKind::Var && offset->name == row ? &lo->name : nullptr;
}

std::string rowEntriesPattern(const StmtNode& loop, const Name& row, const std::map<std::string, TensorStorage>& tensors) {
  const Name* positions = rowPositions(loop, row);
  if (!positions || positions->level != tensors.at(positions->text).decl.format.rank() - 1) return "";
  return positions->text;
}

bool atStoredEntry(const ExprNode& access, const std::string& row, const std::string& coordinate,
                   const std::map<std::string, TensorStorage>& tensors) {
  if (access.kind != ExprKind::Access || access.indices.size() != 2) return false;
  const Format& format = tensors.at(access.tensor).decl.format;
  if (format.rank() != 2) return false;
  return access.indices[static_cast<size_t>(format.dimension(0))] == row &&
         access.indices[static_cast<size_t>(format.dimension(1))] == coordinate;
}

bool overRowPositions(const StmtNode& loop) {
  const Expr &lo = loop.lo, &hi = loop.hi;
  if (lo->kind != ExprKind::Load || lo->name.role != Role::Positions || hi->kind != ExprKind::Load || hi->name != lo->name)
    return false;
  const Expr& next = hi->args.at(0);
  return next->kind == ExprKind::Binary && next->op == BinOp::Add && equal(next->args[0], lo->args.at(0)) &&
         next->args[1]->kind == ExprKind::IntImm && next->args[1]->intValue == 1;
}

std::optional<MaskedLanes> maskedLanes(const StmtNode& loop) {
  std::optional<Type> lanes;
  auto sameLanes = [&](Type t) {
    if (!lanes) lanes = t;
    return isFloat(t) && *lanes == t;
  };
  auto atCounter = [&](const ExprNode& e) {
    const Expr& offset = e.args.at(0);
    return e.name.role == Role::Values && offset->kind == ExprKind::Var && offset->name == loop.counter;
  };
  std::set<Name> read, locals;
  std::function<bool(const Expr&)> value = [&](const Expr& e) {
    if (!sameLanes(e->type)) return false;
    switch (e->kind) {
      case ExprKind::FloatImm: return true;
      case ExprKind::Var: return read.insert(e->name), true;
      case ExprKind::Load: return atCounter(*e);
      case ExprKind::Neg: return value(e->args[0]);
      case ExprKind::Binary: return !isComparison(e->op) && value(e->args[0]) && value(e->args[1]);
      case ExprKind::Call: {
        static const std::set<Callee> lanewise{Callee::Exp, Callee::Log, Callee::Sqrt, Callee::Max, Callee::Min};
        return lanewise.count(e->callee) && std::all_of(e->args.begin(), e->args.end(), value);
      }
      default: return false;
    }
  };
  MaskedLanes m;
  for (const Stmt& s : loop.body) {
    if (s->kind == StmtKind::Let) {
      if (!sameLanes(s->type) || !value(s->value)) return std::nullopt;
      locals.insert(s->name);
      continue;
    }
    if (s->kind != StmtKind::Assign || s->atomic || !sameLanes(s->target->type) || !value(s->value)) return std::nullopt;
    const ExprNode& t = *s->target;
    const ReduceOp op = s->update == Update::Max ? ReduceOp::Max : ReduceOp::Sum;
    const bool local = t.kind == ExprKind::Var && locals.count(t.name) && s->update != Update::Max;
    const bool stores = t.kind == ExprKind::Load && s->update == Update::Set && atCounter(t);
    const bool reduces = t.kind == ExprKind::Var && !locals.count(t.name) && s->update != Update::Set &&
                         (m.reduced.text.empty() || (m.reduced == t.name && m.op == op));
    if (!local && !stores && !reduces) return std::nullopt;
    if (reduces) m.reduced = t.name, m.op = op;
  }
  if (loop.body.empty() || read.count(m.reduced)) return std::nullopt;
  m.type = *lanes;
  return m;
}

bool declaresLocals(const StmtNode& loop) {
  for (const Stmt& s : loop.body)
    if (s->kind == StmtKind::Let && s->isMutable) return true;
  return false;
}

const StmtNode* laneLoop(const StmtNode& s, const std::map<std::string, TensorStorage>& tensors) {
  const StmtNode* n = &s;
  while (n && n->kind == StmtKind::For && !declaresLocals(*n)) {
    if (isDenseLoop(*n) && analyzeIterations(*n, tensors).kind == Iterations::Independent) return n;
    n = onlyStatement(*n);
  }
  return nullptr;
}

namespace {

bool isScalar(const ExprNode& access, const std::map<std::string, TensorStorage>& tensors) {
  const TensorStorage& s = tensors.at(access.tensor);
  for (size_t d = 0; d < access.indices.size() && d < s.kept.size(); ++d)
    if (s.kept[d]) return false;
  return true;
}

}  // namespace

IterationFacts analyzeIterations(const StmtNode& loop, const std::map<std::string, TensorStorage>& tensors,
                                 const std::set<std::string>& privates) {
  IterationFacts r;
  const std::string& index = loopIndex(loop);
  bool independent = true, reducible = true, reduces = false;
  std::map<std::string, Expr> written;  // tensor -> the access it is written at
  std::set<Name> locals;                // variables declared inside the loop
  std::function<void(const Stmt&)> writes = [&](const Stmt& s) {
    if (s->kind == StmtKind::Let) locals.insert(s->name);
    if (s->kind == StmtKind::Assign) {
      const Expr& t = s->target;
      const ReduceOp op = s->update == Update::Add ? ReduceOp::Sum : ReduceOp::Max;
      // One more accumulation, with the reduction's operator, into what it writes (the first
      // starts the reduction).
      auto reduceInto = [&]() {
        if (s->update == Update::Set || (reduces && !(writesReduced(*s, *r.reduceTarget) && r.op == op))) return false;
        independent = false;
        reduces = true;
        r.reduceTarget = t;
        r.op = op;
        return true;
      };
      if (t->kind == ExprKind::Var) {
        if (!locals.count(t->name) && !reduceInto()) independent = reducible = false;
      } else if (!privates.count(t->tensor)) {
        auto [it, fresh] = written.emplace(t->tensor, t);
        if (varies(*t, index, tensors) && (fresh || equal(it->second, t))) {
          // an independent write
        } else if (!isScalar(*t, tensors) || !reduceInto()) {
          independent = reducible = false;
        }
      }
    }
    for (const Stmt& c : s->body) writes(c);
  };
  for (const Stmt& s : loop.body) writes(s);
  // Reads of what the loop writes: only at the element written; the reduced scalar not at all.
  for (const Stmt& s : loop.body)
    forEachStmt(s, [&](const Stmt& st) {
      auto check = [&](const Expr& e) {
        if (reduces && namesReduced(*e, *r.reduceTarget)) reducible = false;
        if (e->kind != ExprKind::Access) return;
        auto w = written.find(e->tensor);
        if (w != written.end() && !equal(w->second, e)) independent = false;
      };
      forEachExpr(st->value, check);
      if (st->target)
        for (const Expr& a : st->target->args) forEachExpr(a, check);
    });
  if (independent) r.kind = Iterations::Independent;
  else if (reduces && reducible) r.kind = Iterations::ReduceScalar;
  return r;
}

Stmt withIterations(const Stmt& loop, const std::map<std::string, TensorStorage>& tensors) {
  IterationFacts facts = analyzeIterations(*loop, tensors);
  auto annotated = copy(loop);
  annotated->iterations = facts.kind;
  annotated->reduceTarget = facts.reduceTarget;
  annotated->reduceOp = facts.op;
  return annotated;
}

}  // namespace react::ir
