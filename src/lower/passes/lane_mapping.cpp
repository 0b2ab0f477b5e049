// Kokkos: a parallel row's loops onto the row's vector lanes.
#include "lower/ir/analysis.hpp"
#include "lower/ir/mutator.hpp"
#include "lower/passes/passes.hpp"

namespace react::passes {

using namespace ir;
using ir::Expr;

namespace {

// The lanes' trip count of a loop for this input: a dense loop's extent, a first level's
// positions, a nested position loop's stored entries per parent coordinate (the rows' average).
Expr trips(const StmtNode& loop) {
  if (isDenseLoop(loop) || loop.lo->kind != ExprKind::Load) return call(Callee::Cast, {loop.hi}, Type::Float64);
  const Expr& positions = loop.lo;  // positions[parent]
  Expr entries = var(Name{Role::StoredEntries, positions->name.text}, Type::Int64);
  Expr parents = var(Name{Role::Extent, positions->args[0]->name.text}, Type::Int64);
  Expr atLeastOne = call(Callee::Select, {binary(BinOp::Gt, parents, intImm(0)), parents, intImm(1)}, Type::Int64);
  return binary(BinOp::Div, call(Callee::Cast, {entries}, Type::Float64), call(Callee::Cast, {atLeastOne}, Type::Float64));
}

struct LaneMapping : Mutator {
  LaneMapping(const LoopProgram& p, bool reassociate) : p(p), reassociate(reassociate) {}
  const LoopProgram& p;
  bool reassociate;  // a reduction may run on the lanes (partial sums, combined)

  Stmt visit(const Stmt& s) override {
    if (s->kind != StmtKind::For || s->schedule != Schedule::Parallel) return mutateChildren(s);
    if (s->laneTrips) return s;  // its lanes are placed already (dense-lanes, fibre-chunks)
    LanePlacement lanes = placeOnLanes(s->body, p, reassociate);
    auto row = copy(s);
    row->body = std::move(lanes.body);
    row->laneTrips = lanes.trips;
    return row;
  }
};

}  // namespace

LanePlacement placeOnLanes(const std::vector<Stmt>& body, const LoopProgram& p, bool reassociate) {
  LanePlacement out;
  out.trips = floatImm(1.0);
  for (const Stmt& c : body) {
    // The row's bindings (its coordinate; the merge positions a merge of first levels finds)
    // are every lane's.
    if (c->kind == StmtKind::Let && !c->isMutable && (c->name.role == Role::Index || c->name.role == Role::Position)) {
      out.body.push_back(c);
      continue;
    }
    const StmtNode* lanes = nullptr;
    if (c->kind == StmtKind::For && c->iterations == Iterations::Independent) {
      auto v = copy(c);
      v->schedule = Schedule::Vector;
      out.body.push_back(v);
      lanes = c.get();
    } else if (c->kind == StmtKind::For && c->iterations == Iterations::ReduceScalar && reassociate) {
      out.body.push_back(reduceOnLanes(c, c->reduceTarget, c->reduceOp, [](Stmt combine) { return single({combine}); }));
      lanes = c.get();
    } else {
      out.body.push_back(single({c}));
      lanes = laneLoop(*c, p.tensors);
    }
    if (lanes) out.trips = call(Callee::Max, {out.trips, trips(*lanes)}, Type::Float64);
  }
  return out;
}

LoopProgram mapLanes(const LoopProgram& p, bool reassociate) { return LaneMapping(p, reassociate).mutate(p); }

}  // namespace react::passes
