// A reduction into one scalar, run on vector lanes: what lane mapping (Kokkos) and reduction
// vectorization (OpenMP) both do with such a loop.
#include "lower/ir/mutator.hpp"
#include "lower/passes/passes.hpp"

namespace react::passes {

using namespace ir;
using ir::Expr;

Stmt reduceOnLanes(const Stmt& loop, const Expr& reduced, ReduceOp op, const std::function<Stmt(Stmt)>& combine) {
  Expr target;
  forEachStmt(loop, [&](const Stmt& s) {
    if (writesReduced(*s, *reduced)) target = s->target;
  });
  REACT_ASSERT(target, "a lane reduction whose loop never writes what it reduces into");
  Name acc{Role::Generated, "lane_acc"};
  Expr accVar = var(acc, target->type);
  auto lanes = copy(loop);
  lanes->body = retargetWrites(loop->body, reduced, accVar);
  lanes->schedule = Schedule::LaneReduce;
  lanes->reduceVar = acc;
  lanes->reduceOp = op;
  lanes->reduceType = target->type;
  Update u = op == ReduceOp::Sum ? Update::Add : Update::Max;
  return block({let(acc, target->type, floatImm(reduceIdentity(op), target->type), true), lanes,
                combine(assign(target, accVar, u))},
               true);
}

}  // namespace react::passes
