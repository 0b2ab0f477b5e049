// The scheduling passes over the loop IR, one decision each (internal to src/lower; each has a
// golden test in test/golden/passes/). scheduleLoops (schedule.cpp) runs them in order per target.
#pragma once

#include "lower/levels.hpp"
#include "lower/lower.hpp"

#include <functional>

namespace react::passes {

// OpenMP: a loop that sets a temporary's elements to a constant (the reset fusion leaves after its
// last reader) joins the loop just before it when that loop runs the same iterations and reads the
// temporary only at the element the reset sets: `for j { A += T(j) * C }; for j { T(j) = 0 }` is
// `for j { A += T(j) * C; T(j) = 0 }`. (Not on Kokkos: there the reset is a lane loop of its own,
// and the reader's loop, given a second statement, would no longer map its dense loop to lanes.)
LoopProgram mergeResets(const LoopProgram& p);

// Kokkos: a temporary at a row's stored entries that one statement of the row's entry loop sets
// from that entry's inputs alone (softmax's T0(i,j) = exp(S(i,j))), read only by the row's later
// loops over the same entries, is computed again at each read instead of stored; the statement
// and the temporary's storage go (recompute_entries.cpp says when, and why on a GPU).
LoopProgram recomputeEntrywise(const LoopProgram& p);

// Kokkos, reassociated order: a nest that is a plain dense product of row-major matrices,
// X(i,j) += A(i,k) * B(k,j), records it (StmtNode::product): a kernel library with a tuned product
// (cuBLAS) calls that instead, and the nest, scheduled by the later passes, runs elsewhere.
LoopProgram markDenseProducts(const LoopProgram& p);

// Kokkos: a row's merge of two last levels into the pattern the kernel assembled (A = S + T of csr,
// csc or dcsr matrices) is a loop over the assembled entries of the row, each operand's position found by a
// search and its reads 0 where it holds none: independent iterations, for the lanes, where the
// merge ran on one (search_merged_entries.cpp says where it applies).
LoopProgram searchMergedEntries(const LoopProgram& p);
// Kokkos: the loops of a parallel row go to the row's vector lanes. A loop of independent
// iterations becomes a Vector loop; one whose iterations reduce into a scalar a LaneReduce into
// a lane accumulator, combined into the scalar by one lane; everything else runs on one lane
// (Single). The row loop learns the trip count its lanes will see (laneTrips), from which the
// launch picks lanes per row at run time. Without reassociate (the written floating-point order)
// a reduction runs on one lane.
LoopProgram mapLanes(const LoopProgram& p, bool reassociate = true);
// Lane mapping's rule for the statements of one row (or of one fibre, under fibre-chunks), by
// the iterations recorded on each loop: the statements on the lanes, and the lanes' trip count.
struct LanePlacement {
  std::vector<ir::Stmt> body;
  ir::Expr trips;
};
LanePlacement placeOnLanes(const std::vector<ir::Stmt>& body, const LoopProgram& p, bool reassociate);

// Kokkos: a Single whose statement is a chain of loops down to a dense loop of independent
// iterations runs that loop on the lanes. On a device the lane loop becomes the outermost and each
// lane runs the loops above it for its own iterations, so an accumulation over them stays in one
// lane with no synchronisation per step (legal: its iterations are independent and its bounds do
// not depend on the loops above, being dense); on the host the order stays, since it reads memory
// in the order the data is laid out. `forced`: the device's order on the host too (tests).
LoopProgram interchangeLaneLoops(const LoopProgram& p, bool forced);

// A Vector loop whose body is a chain of loops ending in one accumulation into an element those
// loops do not move (A(i,j) += T(i,h) * D(h,j), h inside j) accumulates in a register and stores
// once: a chain of dependent loads and stores to memory is what made it slow. An atomic update
// (fibre-chunks) adds the register's sum to the element.
LoopProgram accumulateInRegisters(const LoopProgram& p);

// Kokkos: a parallel row loop whose one statement is a loop over the row's stored entries whose
// work is a dense reduction of at least a warp's width of iterations (SDDMM's dot product over k)
// runs that reduction on the lanes (LaneReduce), the entries serial, handed out to the team threads
// in chunks of equal length regardless of rows (a chunk's rows found by RowOf). The loop it gives
// has its laneTrips set, and lane mapping leaves it as it is. Where the entry's work is one such
// sum and stores at the entry (SDDMM), the row loop becomes EntryLanes instead: an entry per lane,
// then the lanes along the sum for several entries at once.
LoopProgram mapLanesToDenseReductions(const LoopProgram& p);
// A warp's width: the reduction's extent from which every lane has an iteration of its own, and
// dense-lanes applies (auto's model reads it too: MachineModel::splitRowsFrom).
constexpr int64_t kDenseLanesFrom = 32;

// Kokkos: entry lanes over a csr input run over the input's entries by columns instead where the
// kernel is given them so (a column walk, LoopProgram::columnWalks; column_walks.cpp says when
// and why), each entry's results stored at its csr position (IfColumnWalk: both forms).
LoopProgram walkColumns(const LoopProgram& p);

// The rows of a Parallel loop `row` whose statement `entries` runs over the row's stored positions
// (positions[r] .. positions[r + 1]; `count` of them in all), handed to the workers in chunks of
// `chunkLength` positions (an expression of the host's) regardless of rows: a Parallel loop over the chunks (react_chunk) that
// binds the chunk's positions [react_first, react_last) and runs the rows they belong to (from
// react_rows_begin, RowOf(react_first), to react_rows_end, searched from there; the loop's last
// statement), each with `entries` clipped to
// the chunk and running `entryBody`. The row's privates become the chunk loop's.
std::shared_ptr<ir::StmtNode> chunkPositions(const ir::Stmt& row, const ir::StmtNode& entries, std::vector<ir::Stmt> entryBody,
                                             const ir::Expr& count, const ir::Expr& chunkLength);

// Kokkos, reassociated order: a parallel row loop (a csf tensor's slices, a csr matrix's rows)
// whose one statement is the loop over its fibres (the positions of the level below), each holding
// a loop over a sparse level of its own or a chain down to a dense loop (SpMM's columns), runs over
// the fibres in chunks of equal length regardless of rows (chunkPositions), every update of shared
// memory under it atomic, the lanes placed along the dense loop under each fibre. The loop it gives
// has its laneTrips set, and lane mapping leaves it as it is.
LoopProgram chunkFibres(const LoopProgram& p);

// Kokkos, reassociated order: a csr row loop that sums over the row's stored entries into a
// private T(i) and then reads T(i) at each of them (row normalisation, softmax) gets a second
// form, run where the matrix has a row of more than 1,024 entries (IfLongRows): two loops over
// the stored entries in runs of a few entries, one run per lane regardless of rows (EntryRuns);
// the first adds each run's part of a row's sum into an array of the rows, the second, launched
// after it, reads the finished sums. A long row is then no longer one team thread's.
LoopProgram runRowReductions(const LoopProgram& p);

// A dense input matrix read along its stride (C(k,j) over k) by a loop that reads along its index
// (OpenMP: an innermost loop; Kokkos: a lane loop), which a loop around it repeats, is read from a
// transposed copy (C_t(j,k), contiguous in k), a prepared argument made before the first nest.
LoopProgram transposeStridedOperands(const LoopProgram& p, Target target);

// OpenMP: a statement of a row's loop over its stored entries that sets a temporary of the row
// loop's pattern from values at the same entry, calling exp or log, runs in a loop of its own over
// all stored entries before the row loop, on full vectors (rows are shorter than a vector).
LoopProgram flattenEntrywise(const LoopProgram& p);
// Before an innermost loop nested in another: reads the loop does not move through (no index of
// the loop, a tensor the loop does not write) into constants.
LoopProgram hoistInvariantReads(const LoopProgram& p);

// OpenMP, reassociated order: in an innermost loop nested in another, x / d for a variable d the
// loop does not change is x * r, with r = 1 / d computed before the loop.
LoopProgram multiplyByReciprocals(const LoopProgram& p);
// OpenMP: an innermost loop nested in another whose iterations are independent runs on the vector
// unit (`omp simd`) where that is worth it (worthVectorizing).
LoopProgram vectorizeInnermost(const LoopProgram& p, bool vectorMath = true);

// FloatOrder::Written: a nest's parallel reduction (partial sums per thread, combined) runs its
// rows on one thread, in order.
LoopProgram runReductionsInOrder(const LoopProgram& p);

// OpenMP: an innermost loop nested in another whose iterations reduce into one scalar runs on the
// vector unit where that is worth it (worthVectorizing), each lane accumulating its own part (reduceOnLanes; `omp simd reduction`).
LoopProgram vectorizeReductions(const LoopProgram& p);

// OpenMP: a parallel loop over the rows of a sparse matrix gives each thread one contiguous share
// of the rows of equal work (For::balancePositions, entryWork, rowWork), or, where each stored
// entry runs a dense loop (no reduction into a scalar, no sparse loop under the entries), hands
// the rows out in chunks (For::rowChunks).
LoopProgram balanceRows(const LoopProgram& p);

// A loop that reduces into `reduced` (a scalar access or a variable, with `op`) as a LaneReduce
// into a fresh accumulator, combined into the target by one statement that `combine` wraps
// (Kokkos: one lane of the row runs it), in a scope of its own (a row may hold several):
//   { var lane_acc = identity; for ... lane-reduce into lane_acc { ... }; combine(T op= lane_acc) }
ir::Stmt reduceOnLanes(const ir::Stmt& loop, const ir::Expr& reduced, ReduceOp op,
                       const std::function<ir::Stmt(ir::Stmt)>& combine);

// The same reduction in a local of its own, the loop's schedule kept:
//   { var row_acc = identity; for ... { ... row_acc op= ... }; T op= row_acc }
ir::Stmt reduceInRegister(const ir::Stmt& loop, const ir::Expr& reduced, ReduceOp op);
// OpenMP: an innermost loop nested in another whose iterations reduce into a tensor's element and
// that stays scalar accumulates in a local and stores once (register-reductions).
LoopProgram reduceInRegisters(const LoopProgram& p);
// Is a loop worth the vector unit's set-up and combine: a dense loop, or one whose body calls a
// function of the vector math library (exp over a row's stored entries)? Without vectorMath (the
// written floating-point order), no loop that calls one: its scalar exp rounds otherwise.
bool worthVectorizing(const ir::StmtNode& loop, bool vectorMath = true);

// Every innermost loop nested in another loop, replaced by what `rewrite` makes of it (the loop
// itself where nothing applies): the vectorization passes' walk.
LoopProgram rewriteNestedInnermost(const LoopProgram& p, const std::function<ir::Stmt(const ir::Stmt& loop)>& rewrite);
// The same walk, where a rewrite may also put statements before the loop: `rewrite(loop, out)`
// appends them to `out`, then the loop (as it is, or rewritten). A nest's own loops count from 0.
LoopProgram rewriteNestedInnermostInPlace(const LoopProgram& p,
                                          const std::function<void(const ir::Stmt& loop, std::vector<ir::Stmt>& out)>& rewrite);

// Accesses become loads and stores at the offsets the tensors' levels compute (levels.hpp).
LoopProgram lowerAccesses(const LoopProgram& p);
// What lower-accesses makes of `access` (a tensor read at its indices): the load of its value, at
// the positions `position` names for its sparse levels.
ir::Expr loadAt(const LoopProgram& p, const ir::ExprNode& access, const PositionOf& position);
// OpenMP, reassociated order, after lower-accesses: four independent iterations whose one loop is
// a lane reduction (SDDMM's stored entries) at once, their reductions in one lane loop.
LoopProgram jamEntries(const LoopProgram& p);

// OpenMP, reassociated order, after lower-accesses: a loop over one row's stored entries that
// loads and stores values only at the entry and reduces (+, max) into at most one variable runs
// in masked blocks of a vector's lanes where the kernel's compiler targets AVX-512
// (StmtNode::maskedBlocks).
LoopProgram maskBlocks(const LoopProgram& p);

// Every load and store of a tensor's values checks its offset against the tensor's size, and a
// violation aborts naming the access (EmitOptions::boundsCheck).
LoopProgram checkBounds(const LoopProgram& p);

// A target's passes in the order scheduleLoops runs them (the loop IR verifier after each).
struct Pass {
  std::string name;  // as golden tests name it: "lane-mapping", "hoist-reads", ...
  std::function<LoopProgram(const LoopProgram&)> run;
};
std::vector<Pass> pipeline(Target target, const EmitOptions& options);

}  // namespace react::passes
