// A reduction into one scalar through a local accumulator: on vector lanes, what lane mapping
// (Kokkos) and reduction vectorization (OpenMP) both do with such a loop, or in one register.
#include "lower/ir/mutator.hpp"
#include "lower/passes/passes.hpp"

namespace react::passes {

using namespace ir;
using ir::Expr;

namespace {

// { var <acc> = identity; the loop updating <acc> instead; combine(reduced op= <acc>) }
Stmt reduceThroughLocal(const Stmt& loop, const Expr& reduced, ReduceOp op, const Name& acc, Schedule schedule,
                        const std::function<Stmt(Stmt)>& combine) {
  Expr target;
  forEachStmt(loop, [&](const Stmt& s) {
    if (writesReduced(*s, *reduced)) target = s->target;
  });
  REACT_ASSERT(target, "a reduction whose loop never writes what it reduces into");
  Expr accVar = var(acc, target->type);
  auto local = copy(loop);
  local->body = retargetWrites(loop->body, reduced, accVar);
  local->schedule = schedule;
  if (schedule == Schedule::LaneReduce) {
    local->reduceVar = acc;
    local->reduceOp = op;
    local->reduceType = target->type;
  } else if (local->iterations == Iterations::ReduceScalar) {
    local->reduceTarget = accVar;
  }
  Update u = op == ReduceOp::Sum ? Update::Add : Update::Max;
  return block({let(acc, target->type, floatImm(reduceIdentity(op), target->type), true), local,
                combine(assign(target, accVar, u))},
               true);
}

}  // namespace

Stmt reduceOnLanes(const Stmt& loop, const Expr& reduced, ReduceOp op, const std::function<Stmt(Stmt)>& combine) {
  return reduceThroughLocal(loop, reduced, op, Name{Role::Generated, "lane_acc"}, Schedule::LaneReduce, combine);
}

Stmt reduceInRegister(const Stmt& loop, const Expr& reduced, ReduceOp op) {
  return reduceThroughLocal(loop, reduced, op, Name{Role::Generated, "row_acc"}, loop->schedule, [](Stmt s) { return s; });
}

}  // namespace react::passes
