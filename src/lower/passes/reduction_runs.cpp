// Kokkos: a row that sums over its stored entries and then uses the sum at each of them (row
// normalisation, softmax) gets a second form, chosen at run time where a row holds more than
// kLongRow stored entries: two loops over the stored entries in runs of a few consecutive
// entries, one run per lane whatever their rows (ir::StmtKind::EntryRuns); the first adds each
// run's part of a row's sum into an array of the rows, the second, launched after it, reads the
// finished sums.
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
// Why the using runs start from recorded rows: their binary search per run of 4, 19 dependent
// reads of the positions on the 4M-entry graph, was most of the second loop's time once its
// stores went out whole (the printer stages a run's results through the team's scratch, since
// lanes 4 entries apart leave each store instruction a quarter of its sectors). The summing runs
// find their first rows anyway and store them, one per run of 8; a using run starts from the row
// of the summing run that holds its first entry. Measured with hand-written kernels of the same
// shape on an H200 (docs/benchmarks-device.md), the second loop on the 4M-entry graph took 0.053
// ms as before, 0.051 with its stores staged, 0.045 with recorded rows, and 0.028 with both.
//
// What it costs: the row sums go to memory, a binary search per run, a second launch and a fill.
// On matrices whose rows are all short the row form is faster (on an H100, bcsstk16 0.015 against
// 0.027 ms; pubmed 0.019 against 0.027), on email-Enron (longest row 1,383) slower (0.036 against
// 0.028). Hence the choice at run time (ir::StmtKind::IfLongRows): the longest row, measured once
// per matrix, picks the form; up to kLongRow entries a row keeps its team thread.
//
// What it requires of the row: a dense row loop (csr's rows) with one private temporary, a sum
// over the row (its row index alone: T(i)), and nothing in the row but a loop over the row's
// stored entries that sums into it (and may set entry temporaries, as softmax's exp), a loop
// over the same entries of independent iterations that reads it, and the temporary's reset; no
// locals, no co-iteration, nothing else scheduled. In the runs form the temporary is an array of
// the rows under a name of its own (the row form keeps the private), set to zero before the first
// loop, without the reset (each row's element is written by every run of the row, and read by
// every run of the second loop). Atomic additions reassociate the sum: under the written order the
// row keeps its team thread.
#include "lower/ir/analysis.hpp"
#include "lower/ir/mutator.hpp"
#include "lower/passes/passes.hpp"

namespace react::passes {

using namespace ir;
using ir::Expr;

namespace {

// Stored entries per run, of the loop that sums and of the loop that uses the sums. Measured with
// hand-written kernels of the same shape on an H100 on the 2.4M-entry power-law graph (ms, both
// loops): sums in runs of 4, 8 and 16 with uses in runs of 4, 0.075, 0.071 and 0.076; uses in
// runs of 8 and 16 after sums in runs of 8, 0.077 and 0.105 (a lane's stores 16 entries apart
// leave a warp's stores scattered).
constexpr int64_t kSumRun = 8;
constexpr int64_t kUseRun = 4;
// The longest row a team thread runs: on an H100 the runs form was slower on the shared matrices
// whose longest rows are under 1,000 entries and faster on email-Enron's 1,383 (see above).
constexpr int64_t kLongRow = 1024;

// A row loop of the shape the file's comment admits, taken apart.
struct RowReduction {
  const StmtNode* sum = nullptr;  // the loop that sums into the temporary
  const StmtNode* use = nullptr;  // the loop that reads it
  PrivateBuffer temporary;
};

bool isReset(const StmtNode& s, const PrivateBuffer& b) {
  return s.kind == StmtKind::Assign && s.update == Update::Set && s.target->kind == ExprKind::Access &&
         s.target->tensor == b.tensor && s.value->kind == ExprKind::FloatImm && s.value->floatValue == b.init;
}

bool plainLoop(const StmtNode& loop) {
  if (declaresLocals(loop)) return false;
  bool plain = true;
  forEachStmt(loop.body, [&](const Stmt& s) {
    plain = plain && s->kind != StmtKind::Merge && !(s->kind == StmtKind::Let && s->isMutable) &&
            !(s->kind == StmtKind::For && s->schedule != Schedule::Serial);
  });
  return plain;
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
  if (row.schedule != Schedule::Parallel || row.laneTrips || !isDenseLoop(row) || row.privates.size() != 1) return std::nullopt;
  const PrivateBuffer& t = row.privates[0];
  if (t.init != 0) return std::nullopt;  // a run stores a row inside it as its sum from zero
  auto dims = p.dimIndices.find(t.tensor);
  if (dims == p.dimIndices.end() || dims->second != std::vector<std::string>{loopIndex(row)}) return std::nullopt;
  RowReduction r{nullptr, nullptr, t};
  const Name* positions = nullptr;
  for (const Stmt& s : row.body) {
    if (isReset(*s, t) && r.use) continue;
    if (s->kind != StmtKind::For || r.use || !plainLoop(*s)) return std::nullopt;
    const Name* entries = rowPositions(*s, row.counter);
    if (!entries || (positions && *entries != *positions)) return std::nullopt;
    positions = entries;
    if (!r.sum) {
      if (s->iterations != Iterations::ReduceScalar || s->reduceOp != ReduceOp::Sum || s->reduceTarget->kind != ExprKind::Access ||
          s->reduceTarget->tensor != t.tensor)
        return std::nullopt;
      r.sum = s.get();
    } else {
      if (s->iterations != Iterations::Independent || writesTensor(s, t.tensor) || !reads(s, t.tensor))
        return std::nullopt;
      r.use = s.get();
    }
  }
  if (!r.use) return std::nullopt;
  return r;
}

// A loop of the row with every access of the row's temporary `from` one of `to`.
Stmt renamed(const StmtNode& loop, const std::string& from, const std::string& to) {
  struct Rename : Mutator {
    const std::string *from, *to;
    Expr visit(const Expr& e) override {
      if (e->kind != ExprKind::Access || e->tensor != *from) return mutateChildren(e);
      return access(*to, e->indices, e->type);
    }
  } rename;
  rename.from = &from;
  rename.to = &to;
  return rename.mutate(std::make_shared<StmtNode>(loop));
}

// One loop of the row, over the row's entries in runs whatever their rows: with `sums`, the
// loop that sums, its additions into the row's element made into the run's accumulator.
Stmt inRuns(const StmtNode& row, const Stmt& entries, const std::string& sums, Type type, int64_t runLength) {
  const Name& positions = *rowPositions(*entries, row.counter);
  const Expr count = var(Name{Role::StoredEntries, positions.text}, Type::Int64);
  if (sums.empty()) return entryRuns(entries->counter, row.counter, positions, row.hi, count, runLength, entries->body);
  const Expr target = access(sums, {loopIndex(row)}, type);
  const Name accumulator{Role::Generated, "react_row_part"};
  return entryRuns(entries->counter, row.counter, positions, row.hi, count, runLength,
                   retargetWrites(entries->body, target, var(accumulator, type)), target, accumulator, type);
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
      // The sums, an array of the rows under a name of their own: the row form keeps the private.
      const std::string& t = r->temporary.tensor;
      const std::string sums = freshName(t, out);
      TensorStorage storage = p.tensors.at(t);
      storage.kept.assign(storage.kept.size(), true);
      out.tensors.emplace(sums, storage);
      out.dimIndices[sums] = p.dimIndices.at(t);
      const Name size{Role::Size, sums};
      // The summing runs record their first rows; the using runs start from them.
      const Name runRows{Role::Generated, "react_run_rows" + (reductions ? std::to_string(reductions) : "")};
      ++reductions;
      const Expr entries = var(Name{Role::StoredEntries, rowPositions(*r->sum, row->counter)->text}, Type::Int64);
      const Expr sumRuns = binary(BinOp::Div, binary(BinOp::Add, entries, intImm(kSumRun - 1)), intImm(kSumRun));
      auto recording = [&](Stmt runs) {
        auto r = copy(runs);
        r->runRows = runRows;
        r->runRowsEvery = kSumRun;
        return Stmt(r);
      };
      Stmt longForm = block({let(size, Type::Int64, row->hi),
                             allocate(sums, r->temporary.type, var(size, Type::Int64), r->temporary.init, true),
                             allocateIndices(runRows, sumRuns),
                             recording(inRuns(*row, renamed(*r->sum, t, sums), sums, r->temporary.type, kSumRun)),
                             recording(inRuns(*row, renamed(*r->use, t, sums), "", r->temporary.type, kUseRun))});
      nest->body[k] = ifLongRows(*rowPositions(*r->sum, row->counter), row->hi, kLongRow, longForm, row);
    }
    if (nest) s = nest;
  }
  return out;
}

}  // namespace react::passes
