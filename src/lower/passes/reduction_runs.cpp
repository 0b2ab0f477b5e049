// Kokkos: a row that reduces over its stored entries and then uses the result at each of them
// (row normalisation, softmax; the stable softmax reduces twice, a maximum then a sum) gets a
// second form, chosen at run time where a row holds more than kLongRow stored entries: a loop
// over the stored entries per reduction and one for the use, in runs of a few consecutive
// entries, one run per lane whatever their rows (ir::StmtKind::EntryRuns); each reducing loop
// adds (or takes the maximum of) each run's part of a row into an array of the rows, the loops
// after it, launched after it, read the finished arrays.
//
// Why: fused, the row's sum is a scalar private to the row's team thread, and the row's use of it
// must wait for the whole sum, so a row is one team thread's work. On a power-law graph one row
// holds 300,000 of 4M entries and the whole kernel waits for the team thread that runs it: row
// normalisation took 10.8 ms on an H100 where cuSPARSE's row sums and scaling take 0.14 ms
// (docs/benchmarks-device.md). In runs, a long row is split over as many lanes as it has runs; the
// sum crosses runs through memory, so it can no longer stay in a register.
//
// Why runs, one per lane: every lane reads its own few consecutive entries whatever their rows,
// finding its first row by one binary search and the next by the positions, so no lane idles on
// a short row and no row's entries wait for one another. A row inside a run is the run's alone
// and stored; the run's last row adds atomically; its first row, where a long row spans many
// runs, is summed over the warp's lanes that share it before one atomic addition (atomics into one
// element queue: one per run of 8 took 0.12 ms on the 4M-entry graph's longest row alone). Before,
// in chunks of entries whose rows a team thread walked one after another, a lane reduction and
// an atomic addition each, the form took 0.195 ms on that graph (cuSPARSE 0.15), and 0.108 ms in
// runs.
//
// Why the using runs start from recorded rows: their binary search per run (then of 4 entries),
// 19 dependent reads of the positions on the 4M-entry graph, was most of the second loop's time
// once its stores went out whole (the printer stages a run's results through the team's scratch,
// since lanes 4 entries apart leave each store instruction a quarter of its sectors). The summing runs
// find their first rows anyway and store them, one per run of 8; a using run starts from the row
// of the summing run that holds its first entry. Measured with hand-written kernels of the same
// shape on an H200 (docs/benchmarks-device.md), the second loop on the 4M-entry graph took 0.053
// ms as before, 0.051 with its stores staged, 0.045 with recorded rows, and 0.028 with both.
//
// What it costs: the row sums go to memory, a search for each run's first row in the first loop
// (on a GPU the warp's lanes search for its first run's together, react_run_row), and a launch
// per loop. The searches took a third of the summing kernel's instructions and two fifths of its
// waits on an H200 (ncu's source counters), so the first loop keeps the rows it records between
// calls and searches only where the positions refute the row an earlier call recorded
// (react_run_row_recorded): row normalisation and softmax took 0.81-0.93x the time on the
// power-law graphs. The sums' arrays alternate between two halves from call to call, the runs
// that add into one half setting the other back to the identity for the next call, where a fill
// per reduction launched before (ir::StmtNode::alternating). One launch instead (items of
// entries per warp, a row across items finished from the parts the earlier items publish) was
// built and checked, and took 1.9-2.7x as long on the power-law graphs: its kernel held 74-84
// registers a thread (docs/benchmarks-device.md, "One launch for row normalisation and softmax").
// A warp's 32 runs read as one tile, lane l at entries l + 32t, the rows starting inside the tile
// marked in the team's scratch (ed4db2a), coalesced every load and store and read the same DRAM
// bytes, and took 1.2-1.45x as long on the power-law graphs (docs/benchmarks-device.md, "Entry
// runs as tiles"): the marks, ballots and staged terms lengthened each warp's chain of reads.
// On matrices whose rows are all short the row form is faster (on an H100, bcsstk16 0.015 against
// 0.027 ms; pubmed 0.019 against 0.027), on email-Enron (longest row 1,383) slower (0.036 against
// 0.028). Hence the choice at run time (ir::StmtKind::IfLongRows): the longest row, measured once
// per matrix, picks the form; up to kLongRow entries a row keeps its team thread.
//
// What it requires of the row: a dense row loop (csr's rows) with private temporaries, each the
// reduction over the row of one loop over the row's stored entries (its row index alone: T(i)), a
// sum from 0 or a maximum from -inf, and nothing in the row but those loops, in order (a later one
// may read the earlier temporaries, and may set entry temporaries and locals, as softmax's exp),
// a loop over the same entries of independent iterations that reads them, and the temporaries'
// resets: row normalisation and softmax (one sum), the stable softmax (a maximum, then a sum of
// exponentials). No co-iteration, nothing else scheduled. In the runs form each temporary is an
// array of the rows under a name of its own (the row form keeps the private), holding the
// identity where its reducing loop starts (alternating halves, see above), without the reset
// (each row's element is updated by every run of the row, and read by every later run). The
// first reducing loop records the runs' first rows; the later ones start from them. Atomic
// updates reassociate a sum: under the written order the row keeps its team thread.
//
// The stable softmax, written softmax(S, axis=1), ran only in the row form before: 30 ms on the
// 2.4M-entry power-law graph on an H200, where the unstable exp(S) / sum(exp(S)) took 0.055 ms.
#include <cmath>

#include "lower/ir/analysis.hpp"
#include "lower/ir/mutator.hpp"
#include "lower/passes/passes.hpp"

namespace react::passes {

using namespace ir;
using ir::Expr;

namespace {

// Stored entries per run of the loop that sums. Measured with hand-written kernels of the same
// shape on an H100 on the 2.4M-entry power-law graph (ms, both loops): sums in runs of 4, 8 and
// 16 with uses in runs of 4, 0.075, 0.071 and 0.076; and on an H200 with the kernels as built,
// sums in runs of 16 took 1.04-1.34x the time of runs of 8 but for float32 on the 4.0M graph.
constexpr int64_t kSumRun = 8;
// The bytes of the values a lane's run of the using loop stores: one 32-byte sector, 4 doubles or
// 8 floats. On an H200 (docs/benchmarks-device.md, "The runs' lengths on the H200"), runs of 8
// against 4 took 0.93-0.955x the time in float32 on the power-law graphs and 0.98-1.09x in
// float64; with its stores staged through the team's scratch a longer run no longer scatters a
// warp's stores, as it did on the H100 (uses in runs of 8 and 16 after sums of 8, 0.077 and
// 0.105 ms).
constexpr int64_t kUseRunBytes = 32;
// The longest row a team thread runs: on an H100 the runs form was slower on the shared matrices
// whose longest rows are under 1,000 entries and faster on email-Enron's 1,383 (see above).
constexpr int64_t kLongRow = 1024;

// A row loop of the shape the file's comment admits, taken apart.
struct RowReduction {
  std::vector<const StmtNode*> reductions;  // in order, each reducing into its own temporary
  std::vector<PrivateBuffer> temporaries;   // reductions[k]'s
  const StmtNode* use = nullptr;            // the loop that reads them
};

bool isReset(const StmtNode& s, const PrivateBuffer& b) {
  return s.kind == StmtKind::Assign && s.update == Update::Set && s.target->kind == ExprKind::Access &&
         s.target->tensor == b.tensor && s.value->kind == ExprKind::FloatImm && s.value->floatValue == b.init;
}

bool plainLoop(const StmtNode& loop) {
  bool plain = true;
  forEachStmt(loop.body, [&](const Stmt& s) {
    plain = plain && s->kind != StmtKind::Merge && !(s->kind == StmtKind::For && s->schedule != Schedule::Serial);
  });
  return plain;
}

// The private a loop reduces into with a sum from 0 or a maximum from -inf: a run stores a row
// inside it as its reduction from the identity.
const PrivateBuffer* reducedPrivate(const StmtNode& loop, const StmtNode& row) {
  if (loop.iterations != Iterations::ReduceScalar || loop.reduceTarget->kind != ExprKind::Access) return nullptr;
  for (const PrivateBuffer& b : row.privates) {
    if (b.tensor != loop.reduceTarget->tensor) continue;
    if (loop.reduceOp == ReduceOp::Sum && b.init == 0) return &b;
    if (loop.reduceOp == ReduceOp::Max && b.init == -HUGE_VAL) return &b;
  }
  return nullptr;
}

// Does an assignment in the loop read `tensor`?
bool reads(const Stmt& loop, const std::string& tensor) {
  bool found = false;
  forEachStmt(loop, [&](const Stmt& s) {
    if (s->kind == StmtKind::Assign)
      forEachExpr(s->value, [&](const Expr& e) { found |= e->kind == ExprKind::Access && e->tensor == tensor; });
  });
  return found;
}

std::optional<RowReduction> rowReduction(const StmtNode& row, const LoopProgram& p) {
  if (row.schedule != Schedule::Parallel || row.laneTrips || !isDenseLoop(row) || row.privates.empty()) return std::nullopt;
  for (const PrivateBuffer& t : row.privates) {
    auto dims = p.dimIndices.find(t.tensor);
    if (dims == p.dimIndices.end() || dims->second != std::vector<std::string>{loopIndex(row)}) return std::nullopt;
  }
  RowReduction r;
  const Name* positions = nullptr;
  size_t resets = 0;
  for (const Stmt& s : row.body) {
    if (r.use && resets < r.temporaries.size() && isReset(*s, r.temporaries[resets])) {
      ++resets;
      continue;
    }
    if (s->kind != StmtKind::For || r.use || !plainLoop(*s)) return std::nullopt;
    const Name* entries = rowPositions(*s, row.counter);
    if (!entries || (positions && *entries != *positions)) return std::nullopt;
    positions = entries;
    if (s->iterations == Iterations::ReduceScalar) {
      const PrivateBuffer* t = reducedPrivate(*s, row);
      if (!t) return std::nullopt;
      for (const PrivateBuffer& done : r.temporaries)
        if (done.tensor == t->tensor) return std::nullopt;
      r.reductions.push_back(s.get());
      r.temporaries.push_back(*t);
      continue;
    }
    if (r.reductions.size() != row.privates.size() || s->iterations != Iterations::Independent) return std::nullopt;
    bool readsOne = false;
    for (const PrivateBuffer& t : r.temporaries) {
      if (writesTensor(s, t.tensor)) return std::nullopt;
      readsOne |= reads(s, t.tensor);
    }
    if (!readsOne) return std::nullopt;
    r.use = s.get();
  }
  if (!r.use || resets != r.temporaries.size()) return std::nullopt;
  return r;
}

// A loop of the row with every access of a row temporary `from[k]` one of `to[k]`.
Stmt renamed(const StmtNode& loop, const std::vector<PrivateBuffer>& from, const std::vector<std::string>& to) {
  struct Rename : Mutator {
    const std::vector<PrivateBuffer>* from;
    const std::vector<std::string>* to;
    Expr visit(const Expr& e) override {
      if (e->kind != ExprKind::Access) return mutateChildren(e);
      for (size_t k = 0; k < from->size(); ++k)
        if (e->tensor == (*from)[k].tensor) return access((*to)[k], e->indices, e->type);
      return e;
    }
  } rename;
  rename.from = &from;
  rename.to = &to;
  return rename.mutate(std::make_shared<StmtNode>(loop));
}

// One loop of the row, over the row's entries in runs whatever their rows: with `reduced`, the
// loop that reduces into it, its updates of the row's element made into the run's accumulator.
Stmt inRuns(const StmtNode& row, const Stmt& entries, const PrivateBuffer* reduced, const std::string& into, int64_t runLength) {
  const Name& positions = *rowPositions(*entries, row.counter);
  const Expr count = var(Name{Role::StoredEntries, positions.text}, Type::Int64);
  if (!reduced) return entryRuns(entries->counter, row.counter, positions, row.hi, count, runLength, entries->body);
  const Expr target = access(into, {loopIndex(row)}, reduced->type);
  const Name accumulator{Role::Generated, "react_row_part"};
  auto runs = copy(entryRuns(entries->counter, row.counter, positions, row.hi, count, runLength,
                             retargetWrites(entries->body, target, var(accumulator, reduced->type)), target, accumulator,
                             reduced->type));
  runs->reduceOp = entries->reduceOp;
  return runs;
}

// Stored entries per run of the using loop: a sector of the widest value it stores.
int64_t useRunLength(const StmtNode& use) {
  int64_t widest = 4;
  forEachStmt(use.body, [&](const Stmt& s) {
    if (s->kind == StmtKind::Assign && s->target->type == Type::Float64) widest = 8;
  });
  return kUseRunBytes / widest;
}

// A name for the row sums that no tensor of the kernel has.
std::string freshName(const std::string& base, const LoopProgram& p) {
  std::string name = base + "_sums";
  for (int n = 2; p.tensors.count(name); ++n) name = base + "_sums" + std::to_string(n);
  return name;
}

}  // namespace

LoopProgram runRowReductions(const LoopProgram& p) {
  LoopProgram out = p;
  int reductions = 0;  // numbers the runs' first rows apart
  for (Stmt& s : out.body) {
    if (s->kind != StmtKind::Nest) continue;
    std::shared_ptr<StmtNode> nest;
    for (size_t k = 0; k < s->body.size(); ++k) {
      std::optional<RowReduction> r;
      const Stmt& row = s->body[k];
      if (row->kind != StmtKind::For || !(r = rowReduction(*row, p))) continue;
      if (!nest) nest = copy(s);
      // Each reduction into an array of the rows under a name of its own: the row form keeps the privates.
      std::vector<std::string> arrays;
      std::vector<Stmt> longForm;
      for (const PrivateBuffer& t : r->temporaries) {
        arrays.push_back(freshName(t.tensor, out));
        TensorStorage storage = p.tensors.at(t.tensor);
        storage.kept.assign(storage.kept.size(), true);
        out.tensors.emplace(arrays.back(), storage);
        out.dimIndices[arrays.back()] = p.dimIndices.at(t.tensor);
        const Name size{Role::Size, arrays.back()};
        longForm.push_back(let(size, Type::Int64, row->hi));
        auto sums = copy(allocate(arrays.back(), t.type, var(size, Type::Int64), t.init, false));
        sums->alternating = true;  // its runs restore the other half for the next call: no fill
        longForm.push_back(sums);
      }
      // The first reducing runs record their first rows; the others start from them.
      const Name& positions = *rowPositions(*r->use, row->counter);
      const Name runRows{Role::Generated, "react_run_rows" + (reductions ? std::to_string(reductions) : "")};
      ++reductions;
      const Expr entries = var(Name{Role::StoredEntries, positions.text}, Type::Int64);
      longForm.push_back(allocateIndices(runRows, binary(BinOp::Div, binary(BinOp::Add, entries, intImm(kSumRun - 1)), intImm(kSumRun))));
      auto recording = [&](Stmt runs, bool records) {
        auto n = copy(runs);
        n->runRows = runRows;
        n->runRowsEvery = kSumRun;
        n->recordsRunRows = records;
        return Stmt(n);
      };
      for (size_t q = 0; q < r->reductions.size(); ++q)
        longForm.push_back(recording(inRuns(*row, renamed(*r->reductions[q], r->temporaries, arrays), &r->temporaries[q], arrays[q], kSumRun), q == 0));
      longForm.push_back(recording(inRuns(*row, renamed(*r->use, r->temporaries, arrays), nullptr, "", useRunLength(*r->use)), false));
      nest->body[k] = ifLongRows(positions, row->hi, kLongRow, block(std::move(longForm)), row);
    }
    if (nest) s = nest;
  }
  return out;
}

}  // namespace react::passes
