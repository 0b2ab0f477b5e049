// OpenMP, reassociated order: a loop of independent iterations (a row's stored entries) whose one
// loop is a dense reduction on the vector lanes (SDDMM's dot product of B's row i with C's row j,
// one per stored entry (i,j)) runs four iterations at once, their four reductions in one lane loop
// with four accumulators; the iterations left over (fewer than four) run as before.
//
// Why: each entry's dot product is a chain of dependent vector adds, and it loads B's row again
// for every entry. Jammed, the four chains are independent, and each element of B's row is loaded
// once for four entries. A hand-written test on the GPU machine's Xeon (1 thread) ran SDDMM
// 0.9-1.2x at K=64 and 1.0-1.9x at K=256 this way over six matrices (docs/benchmarks.md).
//
// Legal because the iterations are independent: the copies' statements before the reduction run
// for all four before any of their statements after it, which only the order of independent
// iterations allows. Matched after lower-accesses, where a copy's loads name its position
// explicitly: the loop's body holds straight-line statements and one lane-reduce loop (directly,
// or in a scoped block of straight-line statements around it) whose body has no loops and whose
// bounds do not depend on the iteration. A copy's locals take Generated names "jam<u>_<name>",
// disjoint from user names (their role prefixes) and from other generated ones (the prefix).
#include "lower/ir/analysis.hpp"
#include "lower/ir/mutator.hpp"
#include "lower/ir/names.hpp"
#include "lower/passes/passes.hpp"

#include <map>
#include <set>

namespace react::passes {

using namespace ir;
using ir::Expr;

namespace {

constexpr int kJammed = 4;

bool straightLine(const Stmt& s) {
  bool loops = false;
  forEachStmt(s, [&](const Stmt& c) {
    loops |= (c->kind != StmtKind::Let && c->kind != StmtKind::Assign && c->kind != StmtKind::Comment) || c->atomic;
  });
  return !loops;
}

// Where the lane-reduce loop sits in the loop's body: body[outer] is the loop itself, or a scoped
// block whose body[inner] is.
struct Shape {
  size_t outer = 0;
  std::optional<size_t> inner;
  const StmtNode* reduction = nullptr;
};

bool isLaneReduce(const Stmt& s) { return s->kind == StmtKind::For && s->schedule == Schedule::LaneReduce; }

std::optional<size_t> onlyReduction(const std::vector<Stmt>& body) {
  std::optional<size_t> found;
  for (size_t k = 0; k < body.size(); ++k) {
    if (isLaneReduce(body[k])) {
      if (found) return std::nullopt;
      found = k;
    } else if (!straightLine(body[k])) {
      return std::nullopt;
    }
  }
  return found;
}

std::optional<Shape> shapeOf(const StmtNode& loop) {
  if (loop.kind != StmtKind::For || loop.schedule != Schedule::Serial || loop.iterations != Iterations::Independent)
    return std::nullopt;
  Shape shape;
  bool found = false;
  for (size_t k = 0; k < loop.body.size(); ++k) {
    const Stmt& s = loop.body[k];
    if (isLaneReduce(s) || (s->kind == StmtKind::Block && s->scoped && onlyReduction(s->body))) {
      if (found) return std::nullopt;
      found = true;
      shape.outer = k;
      if (!isLaneReduce(s)) shape.inner = onlyReduction(s->body);
    } else if (!straightLine(s)) {
      return std::nullopt;
    }
  }
  if (!found) return std::nullopt;
  const Stmt& r = shape.inner ? loop.body[shape.outer]->body[*shape.inner] : loop.body[shape.outer];
  if (!r->jointReduceVars.empty()) return std::nullopt;
  for (const Stmt& s : r->body)
    if (!straightLine(s)) return std::nullopt;
  shape.reduction = r.get();
  return shape;
}

// The names a loop's iteration binds: its counter and every Let inside it (not the reduction's
// counter, which the copies share).
std::set<Name> iterationNames(const StmtNode& loop) {
  std::set<Name> names{loop.counter};
  forEachStmt(loop.body, [&](const Stmt& s) {
    if (s->kind == StmtKind::Let) names.insert(s->name);
  });
  return names;
}

bool mentions(const Expr& e, const std::set<Name>& names) {
  bool found = false;
  forEachExpr(e, [&](const Expr& x) { found |= x->kind == ExprKind::Var && names.count(x->name); });
  return found;
}

// Copy u of an iteration's statements: its names renamed, its counter a Let bound before it.
struct Rename : Mutator {
  std::map<Name, Name> names;
  Expr visit(const Expr& e) override {
    if (e->kind == ExprKind::Var)
      if (auto n = names.find(e->name); n != names.end()) return var(n->second, e->type);
    return mutateChildren(e);
  }
  Stmt visit(const Stmt& s) override {
    Stmt c = mutateChildren(s);
    auto rename = [&](const Name& n) {
      auto found = names.find(n);
      return found == names.end() ? n : found->second;
    };
    if ((c->kind == StmtKind::Let && names.count(c->name)) || (c->kind == StmtKind::For && names.count(c->reduceVar))) {
      auto r = copy(c);
      r->name = rename(r->name);
      r->reduceVar = rename(r->reduceVar);
      return r;
    }
    return c;
  }
};

Rename renameFor(int u, const std::set<Name>& names) {
  Rename r;
  for (const Name& n : names) r.names[n] = Name{Role::Generated, "jam" + std::to_string(u) + "_" + mangle(n)};
  return r;
}

std::vector<Stmt> jam(const Stmt& loop, const Shape& shape) {
  const std::set<Name> names = iterationNames(*loop);
  const Name blockCounter{Role::Generated, "jam_block"};
  const Expr first = loop->lo, count = binary(BinOp::Sub, loop->hi, loop->lo);
  const Expr blocks = binary(BinOp::Div, count, intImm(kJammed));
  std::vector<Rename> copies;
  for (int u = 0; u < kJammed; ++u) copies.push_back(renameFor(u, names));

  // Statements [from, to) of `body`, each copy's in turn.
  auto copied = [&](const std::vector<Stmt>& body, size_t from, size_t to, std::vector<Stmt>& out) {
    for (Rename& r : copies)
      for (size_t k = from; k < to; ++k) out.push_back(r.mutate(body[k]));
  };
  std::vector<Stmt> iteration;
  for (int u = 0; u < kJammed; ++u) {
    Expr position = binary(BinOp::Add, first, binary(BinOp::Add, binary(BinOp::Mul, var(blockCounter, Type::Int64), intImm(kJammed)), intImm(u)));
    iteration.push_back(let(copies[u].names.at(loop->counter), Type::Int64, position));
  }
  // The one lane loop: every copy's body, each into its own accumulator.
  auto reduction = std::make_shared<StmtNode>(*shape.reduction);
  reduction->body.clear();
  for (Rename& r : copies) {
    for (const Stmt& s : shape.reduction->body) reduction->body.push_back(r.mutate(s));
    const Name acc = r.names.count(shape.reduction->reduceVar) ? r.names.at(shape.reduction->reduceVar) : shape.reduction->reduceVar;
    if (&r == &copies.front()) reduction->reduceVar = acc;
    else reduction->jointReduceVars.push_back(acc);
  }
  const std::vector<Stmt>& body = loop->body;
  copied(body, 0, shape.outer, iteration);
  if (shape.inner) {
    const std::vector<Stmt>& inner = body[shape.outer]->body;
    std::vector<Stmt> scoped;
    copied(inner, 0, *shape.inner, scoped);
    scoped.push_back(reduction);
    copied(inner, *shape.inner + 1, inner.size(), scoped);
    iteration.push_back(block(std::move(scoped), true));
  } else {
    iteration.push_back(reduction);
  }
  copied(body, shape.outer + 1, body.size(), iteration);

  Stmt jammed = forLoop(blockCounter, intImm(0), blocks, std::move(iteration));
  auto rest = copy(loop);
  rest->lo = binary(BinOp::Add, first, binary(BinOp::Mul, blocks, intImm(kJammed)));
  return {jammed, rest};
}

struct JamEntries : Mutator {
  std::vector<Stmt> visitBody(const std::vector<Stmt>& body) override {
    std::vector<Stmt> out;
    for (const Stmt& s : body) {
      std::optional<Shape> shape = shapeOf(*s);
      // The reduction's trip count must be the same for every copy, and the accumulator one the
      // iteration binds (each copy its own).
      if (shape && !mentions(shape->reduction->lo, iterationNames(*s)) && !mentions(shape->reduction->hi, iterationNames(*s)) &&
          iterationNames(*s).count(shape->reduction->reduceVar)) {
        for (const Stmt& j : jam(s, *shape)) out.push_back(j);
      } else {
        out.push_back(mutate(s));
      }
    }
    return out;
  }
};

}  // namespace

LoopProgram jamEntries(const LoopProgram& p) {
  LoopProgram out = p;
  out.body = JamEntries().mutate(out.body);
  return out;
}

}  // namespace react::passes
