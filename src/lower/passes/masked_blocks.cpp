// OpenMP, reassociated order, after lower-accesses: a loop over one row's stored entries whose body
// only loads and stores values at the entry's position and adds into one variable or takes a
// maximum into it (a row's sum or maximum, row normalisation's and softmax's division) runs in
// blocks of one vector's lanes, the lanes past the row's end masked off (StmtNode::maskedBlocks),
// where the kernel's compiler targets AVX-512; elsewhere the loop stays as it was.
//
// Why: the rows of graphs hold a few entries each (4.5 on pubmed), fewer than a vector's lanes, so
// `omp simd` ran them in its scalar remainder, a row's sum was a scalar loop, and each row's loops
// exit after a different count. As masked blocks a row of up to 8 doubles is one vector load, one
// sum and one store. On the GPU machine's Xeon at one thread (react-bench, five alternating
// processes with and without the form on a pinned core, seven matrices): row normalisation 1.48x
// faster in float64 and 1.97x in float32 (geomean), softmax 1.33x and 1.68x; cora (0.94x in
// float64, a 0.02 ms kernel) and bcsstk16 (rows of 60) gain least. Hand-written blocks in plain C++
// whose `if (l < left)` the compiler masks were no faster than the scalar rows, hence the
// intrinsics (docs/benchmarks.md). AVX2's masked stores are slow on AMD cores (a hand-written row
// normalisation of them ran 2x slower there), hence AVX-512 only.
//
// Only under reassociation: the row's sum is added in lanes. A store-only loop would keep its
// results, but it runs where the sum does. A loop reading anything at another position (a gather
// through a coordinate, SDDMM's dense rows) is left alone: its coordinate is a live Let.
#include "lower/ir/analysis.hpp"
#include "lower/ir/mutator.hpp"
#include "lower/passes/passes.hpp"

namespace react::passes {

using namespace ir;
using ir::Expr;

namespace {

// The statements without the Lets no later statement reads (a coordinate bound and unused).
std::vector<Stmt> withoutDeadLets(const std::vector<Stmt>& body) {
  std::vector<Stmt> live;
  for (size_t k = 0; k < body.size(); ++k) {
    if (body[k]->kind == StmtKind::Let) {
      bool read = false;
      for (size_t r = k + 1; r < body.size(); ++r)
        forEachExpr(body[r], [&](const Expr& e) { read |= e->kind == ExprKind::Var && e->name == body[k]->name; });
      if (!read) continue;
    }
    live.push_back(body[k]);
  }
  return live;
}

}  // namespace

LoopProgram maskBlocks(const LoopProgram& p) {
  return rewriteNestedInnermost(p, [&](const Stmt& loop) -> Stmt {
    const bool lanes = loop->schedule == Schedule::LaneReduce;
    if (loop->maskedBlocks || !overRowPositions(*loop) ||
        (loop->schedule != Schedule::Serial && loop->schedule != Schedule::Vector && !lanes) ||
        (lanes && !loop->jointReduceVars.empty()))
      return loop;
    auto masked = copy(loop);
    masked->body = withoutDeadLets(loop->body);
    const std::optional<MaskedLanes> m = maskedLanes(*masked);
    if (!m || (lanes && m->reduced != loop->reduceVar)) return loop;
    masked->maskedBlocks = true;
    if (!m->reduced.text.empty()) {
      masked->reduceVar = m->reduced;
      masked->reduceType = m->type;
      masked->reduceOp = m->op;
    }
    return masked;
  });
}

}  // namespace react::passes
