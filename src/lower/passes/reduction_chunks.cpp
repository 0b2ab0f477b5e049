// Kokkos: a row that sums over its stored entries and then uses the sum at each of them (row
// normalisation, softmax) gets a second form, chosen at run time where a row holds more than
// kLongRow stored entries: two loops over the stored entries in chunks of equal length, whatever
// their rows; the first adds each chunk's part of a row's sum into an array of the rows,
// atomically; the second, launched after it, reads the finished sums.
//
// Why: fused, the row's sum is a scalar private to the row's team thread, and the row's use of it
// must wait for the whole sum, so a row is one team thread's work. On a power-law graph one row
// holds 300,000 of 4M entries and the whole kernel waits for the team thread that runs it: row
// normalisation took 10.8 ms on an H100 where cuSPARSE's row sums and scaling take 0.14 ms
// (docs/benchmarks-device.md). In chunks, a long row is split over as many team threads as it
// has chunks; the sum crosses chunks through memory, so it can no longer stay in a register.
//
// What it costs: the row sums go to memory (written once per row and chunk, read once per
// entry's chunk), a chunk's two binary searches for its first and last rows (RowOf), a chunk's
// rows one after another on its team thread, and a second launch and a fill. On an H100 that was
// 0.09 ms on cora and 0.12 ms on email-Enron (longest row 1,383; chunks of 64), against 0.023 and
// 0.037 for a team thread per row; on the 4M-entry power-law graph (longest row 303,615) it is
// 0.19 ms against 10.8 (cuSPARSE 0.15: the chunks' rows are still walked one after another,
// latency-bound). Hence the choice at run time (ir::StmtKind::IfLongRows): the longest row, measured
// once per matrix, picks the form; up to kLongRow entries (the longest rows of the real graphs
// measured so far are under 4,000) a row keeps its team thread.
//
// What it requires of the row: a dense row loop (csr's rows) with one private temporary, a sum
// over the row (its row index alone: T(i)), and nothing in the row but a loop over the row's
// stored entries that sums into it (and may set entry temporaries, as softmax's exp), a loop
// over the same entries of independent iterations that reads it, and the temporary's reset; no
// locals, no co-iteration, nothing else scheduled. In the chunked form the temporary is an
// array of the rows under a name of its own (the row form keeps the private), set to zero
// before the first loop, without the reset (each row's element is written by every chunk of the
// row, and read by every chunk of the second loop). Atomic additions reassociate the sum: under
// the written order the row keeps its team thread.
#include "lower/ir/analysis.hpp"
#include "lower/ir/mutator.hpp"
#include "lower/passes/passes.hpp"

namespace react::passes {

using namespace ir;
using ir::Expr;

namespace {

// Stored entries per chunk, and per lane of a chunk. Measured on an H100 on the 4M-entry
// power-law graph (row normalisation, ms; docs/benchmarks-device.md): 64 entries on the 8 lanes
// of the graph's average row 0.24, 8 entries per lane 0.19 to 0.24 from 16 to 64 entries per
// chunk (best at 16 and 32), one lane 0.24 at 8 and 16 entries and 0.27 at 32. A shorter chunk
// splits a long row further but adds binary searches, and atomic additions into one row's sum,
// which queue behind one another.
constexpr int64_t kEntriesPerChunk = 32;
constexpr int64_t kEntriesPerLane = 8;
// The longest row from which the chunks run instead of a team thread per row.
constexpr int64_t kLongRow = 4096;

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
  auto out = copy(rename.mutate(std::make_shared<StmtNode>(loop)));
  out->reduceTarget = rename.mutate(loop.reduceTarget);
  return out;
}

// One loop of the row, over the row's entries in chunks, on the lanes by lane mapping's rule;
// every write of the row sums atomic.
Stmt inChunks(const StmtNode& row, const Stmt& entries, const std::string& sums, const LoopProgram& p) {
  auto part = std::make_shared<StmtNode>(row);
  part->body = {entries};
  part->privates.clear();
  const Name& positions = *rowPositions(*entries, row.counter);
  auto chunks = chunkPositions(part, *entries, entries->body, var(Name{Role::StoredEntries, positions.text}, Type::Int64),
                               kEntriesPerChunk);
  auto rows = copy(chunks->body.back());
  LanePlacement lanes = placeOnLanes(rows->body, p, true);
  struct AtomicSums : Mutator {
    const std::string* sums;
    Stmt visit(const Stmt& s) override {
      if (s->kind == StmtKind::Assign && writtenTensor(*s) == *sums) return atomicAdd(s->target, s->value);
      return mutateChildren(s);
    }
  } atomics;
  atomics.sums = &sums;
  rows->body = atomics.mutate(lanes.body);
  chunks->body.back() = rows;
  chunks->laneTrips = cast(intImm(kEntriesPerChunk / kEntriesPerLane), Type::Float64);
  return chunks;
}

// A name for the row sums that no tensor of the kernel has.
std::string freshName(const std::string& base, const LoopProgram& p) {
  std::string name = base + "_sums";
  for (int n = 2; p.tensors.count(name); ++n) name = base + "_sums" + std::to_string(n);
  return name;
}

}  // namespace

LoopProgram chunkRowReductions(const LoopProgram& p) {
  LoopProgram out = p;
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
      Stmt longForm = block({let(size, Type::Int64, row->hi),
                             allocate(sums, r->temporary.type, var(size, Type::Int64), r->temporary.init, true),
                             inChunks(*row, renamed(*r->sum, t, sums), sums, p), inChunks(*row, renamed(*r->use, t, sums), sums, p)});
      nest->body[k] = ifLongRows(*rowPositions(*r->sum, row->counter), row->hi, kLongRow, longForm, row);
    }
    if (nest) s = nest;
  }
  return out;
}

}  // namespace react::passes
