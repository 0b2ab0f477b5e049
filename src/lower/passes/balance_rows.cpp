// OpenMP: the rows of a parallel loop over a sparse matrix's rows, split into one contiguous share
// of equal work per thread, or, where each stored entry runs a dense loop, handed out in chunks.
//
// Why shares: handed out dynamically, 16 rows at a time, a thread takes a shared counter every few
// dozen stored entries on most graphs, and its rows are scattered over the matrix; a
// row-normalisation or softmax pass streams memory and loses a share of its bandwidth to both.
// Split by row count (schedule static), a power-law graph's heavy rows leave one thread with most
// of the work. A share of equal work is contiguous, costs one binary search per thread, and weighs
// a row by what it runs: the statements under the loop over its stored entries once per entry, the
// others once per row, each times the trip counts of the dense loops around it.
//
// Why chunks: where each stored entry runs a dense loop of at least kChunkedEntryWork iterations
// (SDDMM's dot product, SpMM's row of C or of C @ D; a loop of unknown length counts as 16), an
// entry reads a dense row at its coordinate, and how long a thread takes for its share depends
// on where those rows are (L1 to memory) and on its core, which the weights cannot know: the team
// waits for its slowest share. Chunks of up to 256 rows (react_row_chunk), handed out in order as
// threads finish (`monotonic: dynamic`), even that out and keep the threads' rows close together.
// On the GPU machine's 16 Xeon cores (4M-entry power-law and banded graphs, two alternating
// processes each) chunks of 256 ran SDDMM 1.15-1.35x and SpMM-MM 1.05-1.25x faster than shares
// as a rewrite of react's source, chunks of 64 less so, and row normalisation and softmax
// 0.91-1.13x: their shares stay; as built, SDDMM 1.29-1.43x and SpMM-MM 1.08-1.31x
// (docs/benchmarks.md). Not for a loop that reduces into a scalar (ParallelReduce): shares keep
// its sum the same from run to run at a thread count. Not for a csf tensor's slices, whose
// entries (fibres) hold loops of their own: MTTKRP measured 1.03-1.17x slower in chunks, within
// the spread between processes, so left as it was.
#include "lower/ir/analysis.hpp"
#include "lower/ir/mutator.hpp"
#include "lower/passes/passes.hpp"

namespace react::passes {

using namespace ir;
using ir::Expr;

namespace {

// The dense iterations under a stored entry from which its rows go in chunks: one vector of doubles.
constexpr int64_t kChunkedEntryWork = 8;

// A dense loop's trip count where its bounds are constants; otherwise a guess, which only weighs
// the rows' work against one another.
int64_t tripCount(const StmtNode& loop) {
  if (loop.lo->kind == ExprKind::IntImm && loop.hi->kind == ExprKind::IntImm) return std::max<int64_t>(1, loop.hi->intValue - loop.lo->intValue);
  return 16;
}

struct RowWork {
  const Name& row;
  Name positions;
  int64_t perEntry = 0, perRow = 0;
  // The most dense iterations one statement under the entry loop runs per entry (the product of
  // the dense trip counts around it), and whether a sparse loop sits under the entry loop (the
  // entries are a csf tensor's fibres, each with entries of its own).
  int64_t entryDenseTrips = 0;
  bool entriesHoldSparseLoops = false;

  void add(const Stmt& s, int64_t times, bool perStoredEntry) {
    if (s->kind == StmtKind::Assign) {
      (perStoredEntry ? perEntry : perRow) += times;
      if (perStoredEntry) entryDenseTrips = std::max(entryDenseTrips, times);
    }
    if (s->kind != StmtKind::For) {
      for (const Stmt& b : s->body) add(b, times, perStoredEntry);
      return;
    }
    const Name* entries = rowPositions(*s, row);
    if (entries && positions.text.empty()) positions = *entries;
    bool overEntries = entries && *entries == positions;
    if (perStoredEntry && !isDenseLoop(*s)) entriesHoldSparseLoops = true;
    int64_t inner = overEntries || !isDenseLoop(*s) ? times : times * tripCount(*s);
    for (const Stmt& b : s->body) add(b, inner, perStoredEntry || overEntries);
  }

  // Each stored entry runs a dense loop of at least kChunkedEntryWork iterations and no sparse loop.
  bool entriesGatherRows() const { return entryDenseTrips >= kChunkedEntryWork && !entriesHoldSparseLoops; }
};

}  // namespace

LoopProgram balanceRows(const LoopProgram& p) {
  struct Balance : Mutator {
    Stmt visit(const Stmt& s) override {
      if (s->kind != StmtKind::For) return mutateChildren(s);
      if (s->schedule != Schedule::Parallel && s->schedule != Schedule::ParallelReduce) return s;
      RowWork work{s->counter, {}};
      for (const Stmt& b : s->body) work.add(b, 1, false);
      if (work.positions.text.empty()) return s;
      if (s->schedule == Schedule::Parallel && work.entriesGatherRows()) {
        auto chunked = copy(s);
        chunked->rowChunks = true;
        return chunked;
      }
      auto balanced = copy(s);
      balanced->balancePositions = work.positions;
      balanced->entryWork = std::max<int64_t>(1, work.perEntry);
      balanced->rowWork = std::max<int64_t>(1, work.perRow);
      return balanced;
    }
  } balance;
  return balance.mutate(p);
}

}  // namespace react::passes
