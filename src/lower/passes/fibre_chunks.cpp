// Kokkos: the fibres of a csf tensor (the positions of the level under the rows), or the stored
// entries of a csr matrix's rows, not the rows, split evenly over the team threads, the updates of
// a row that several team threads share atomic.
//
// Why: MTTKRP's outer parallel loop runs over B's slices, one slice per team thread. On a
// power-law tensor one slice holds a large part of the entries, and the whole kernel waits for
// the one team thread that runs it (on an H100, 137 ms against 8.8 ms for 16 CPU cores). SpMM's
// rows are the same on a power-law graph: with a row of the 500,000-row, 4M-entry power-law
// matrix on one team thread, `A(i,j) += S(i,m) * T(m,j)` at 16 columns took 97 ms on an H100,
// where cuSPARSE takes under 1 ms. Handed out in chunks of kFibresPerChunk fibres (entries)
// regardless of rows, as dense-lanes hands out SDDMM's entries, a heavy row is split over many
// team threads; each chunk finds its first and last rows by a binary search over the positions
// (RowOf).
//
// What it costs: a row split over chunks is updated by several team threads, so every update
// of memory they share (A(i,j) +=) becomes an atomic addition. Lanes then run along the dense
// loop under each fibre, as lane mapping places them for a row: where the row is a chain of loops
// down to a dense loop (SpMM's `A(i,j) += S(i,m) * T(m,j)`, maximal fusion's MTTKRP
// `A(i,j) += B * C(k,j) * D(l,j)`), the chain is one lane's and interchange puts the lane loop
// outermost on a device, so register-accumulation holds each row's part in a register and adds it
// atomically once per (row, chunk, j); otherwise (react's per-fibre row T0 and its reset, three
// loops under the fibre) the rows and fibres run on every lane and each statement of a fibre goes
// to the lanes by lane mapping's rule, an atomic addition per (fibre, j). (Before this pass that
// case ran a slice on one lane.)
//
// Decided at compile time: the atomics add one per (row, chunk) and lane of a chunked row to the
// row-per-thread form's one store per (row, lane), and a chunk's two binary searches cost a few
// dozen cached loads against kFibresPerChunk fibres' work, so a balanced input loses little; a
// skewed one, known only at run time, gains the most. Atomics reassociate the sums: under the
// written order the rows keep one team thread each.
//
// What it requires of the row: its one statement is the loop over its fibres (entries), each of
// which holds a loop over a sparse level below (work of its own under each fibre, which can be
// skewed) or a chain of loops down to a dense loop of independent iterations (the lanes' work:
// without one, as in SpMV, a row's entries would be one lane's); every update of shared memory
// there adds, and nothing there reads what is added into (a row's partial sum would be read half
// made); a private temporary is reset by the last statement of the fibre that writes it (a chunk
// may hold the fibres of several rows, and keeps its privates between them); no locals, no
// co-iteration.
#include "lower/ir/analysis.hpp"
#include "lower/ir/mutator.hpp"
#include "lower/passes/passes.hpp"

#include <algorithm>

namespace react::passes {

using namespace ir;
using ir::Expr;

namespace {

// Fibres per team thread: a fibre of a power-law tensor holds a few entries, and a csr entry a
// dense loop's work, so 32 of them are enough to pay for the chunk's two binary searches over the
// fibre positions. Where the fibres are a csr matrix's stored entries (SpMM), the host picks the
// length from their count instead (react_fibre_chunk_length): 32 where the chunks are more than the
// device runs at once, shorter down to 4 where they are fewer. A team thread walks its chunk's
// entries one after another, each a coordinate's read and then a gather of the row it names, so
// on a small matrix, whose chunks the device runs in one wave, the longest chunk is the kernel's
// time: on an H200 SpMM-MM on cora took 0.0176 ms in chunks of 4 against 0.0270 in chunks of 32
// (docs/benchmarks-device.md, "Shorter chunks for SpMM on small matrices").
constexpr int64_t kFibresPerChunk = 32;

// The tensors written by assignments in `body`, other than privates.
std::set<std::string> sharedWrites(const std::vector<Stmt>& body, const std::set<std::string>& privates, bool& allAdd) {
  std::set<std::string> written;
  allAdd = true;
  forEachStmt(body, [&](const Stmt& s) {
    if (s->kind != StmtKind::Assign || s->target->kind != ExprKind::Access || privates.count(s->target->tensor)) return;
    written.insert(s->target->tensor);
    allAdd = allAdd && s->update == Update::Add;
  });
  return written;
}

// Is every assignment to `tensor` in `s` a reset to `init`?
bool resets(const Stmt& s, const std::string& tensor, double init) {
  bool only = true;
  forEachStmt(s, [&](const Stmt& st) {
    if (st->kind == StmtKind::Assign && writtenTensor(*st) == tensor)
      only = only && st->update == Update::Set && st->value->kind == ExprKind::FloatImm && st->value->floatValue == init;
  });
  return only;
}

struct FibreChunks : Mutator {
  explicit FibreChunks(const LoopProgram& p) : p(p) {}
  const LoopProgram& p;

  // The row loop's loop over its fibres when it qualifies (the file's comment says what for).
  const StmtNode* fibreLoop(const StmtNode& row) const {
    if (row.schedule != Schedule::Parallel || row.laneTrips) return nullptr;
    const StmtNode* fibres = onlyStatement(row);
    if (!fibres || fibres->kind != StmtKind::For || !rowPositions(*fibres, row.counter) || declaresLocals(*fibres)) return nullptr;
    bool nestedSparse = false, other = false;
    forEachStmt(fibres->body, [&](const Stmt& s) {
      nestedSparse |= s->kind == StmtKind::For && !isDenseLoop(*s);
      other |= s->kind == StmtKind::Merge || (s->kind == StmtKind::Let && s->isMutable) ||
               (s->kind == StmtKind::For && s->schedule != Schedule::Serial);
    });
    if ((!nestedSparse && !laneLoop(*fibres, p.tensors)) || other) return nullptr;
    std::set<std::string> privates;
    for (const PrivateBuffer& b : row.privates) privates.insert(b.tensor);
    bool allAdd = true;
    const std::set<std::string> shared = sharedWrites(fibres->body, privates, allAdd);
    if (!allAdd) return nullptr;
    bool readsShared = false;
    forEachStmt(fibres->body, [&](const Stmt& s) {
      auto check = [&](const Expr& e) { readsShared |= e->kind == ExprKind::Access && shared.count(e->tensor); };
      forEachExpr(s->value, check);
      if (s->target)
        for (const Expr& a : s->target->args) forEachExpr(a, check);
    });
    if (readsShared) return nullptr;
    for (const PrivateBuffer& b : row.privates) {
      const Stmt* last = nullptr;
      for (const Stmt& s : fibres->body)
        if (writesTensor(s, b.tensor)) last = &s;
      if (last && !resets(*last, b.tensor, b.init)) return nullptr;
    }
    return fibres;
  }

  // Every update of memory the team threads share, atomic.
  static std::vector<Stmt> atomically(const std::vector<Stmt>& body, const std::set<std::string>& privates) {
    struct Atomics : Mutator {
      const std::set<std::string>* privates;
      Stmt visit(const Stmt& s) override {
        if (s->kind != StmtKind::Assign || s->target->kind != ExprKind::Access || privates->count(s->target->tensor))
          return mutateChildren(s);
        return atomicAdd(s->target, s->value);
      }
    } atomics;
    atomics.privates = &privates;
    return atomics.mutate(body);
  }

  Stmt visit(const Stmt& s) override {
    if (s->kind != StmtKind::For) return mutateChildren(s);
    const StmtNode* fibres = fibreLoop(*s);
    if (!fibres) return s;
    std::set<std::string> privates;
    for (const PrivateBuffer& b : s->privates) privates.insert(b.tensor);
    std::vector<Stmt> fibreBody = atomically(fibres->body, privates);
    // The number of fibres: the fibre positions' entry past the last row. Where the fibres are the
    // pattern's stored entries (its last level: SpMM's csr rows), that is the stored entries the
    // kernel is given, which the host knows: the launch then reads nothing from the device, whose
    // read waited for every kernel queued before it (the fills and cuBLAS's product in SpMM-MM).
    const Name& positions = fibres->lo->name;
    const bool storedEntries = positions.level == p.tensors.at(positions.text).decl.format.rank() - 1 &&
                               std::count(p.patternArgs.begin(), p.patternArgs.end(), positions.text) > 0;
    const Expr count = storedEntries ? var(Name{Role::StoredEntries, positions.text}, Type::Int64)
                                     : load(positions, s->hi, Type::Int64);
    const bool chain = laneLoop(*fibres, p.tensors) != nullptr;
    LanePlacement lanes;
    if (!chain) {
      // The fibre's statements by lane mapping's rule; the rows and fibres above them on every lane.
      for (Stmt& b : fibreBody)
        if (b->kind == StmtKind::For) b = withIterations(b, p.tensors);
      lanes = placeOnLanes(fibreBody, p, true);
      fibreBody = std::move(lanes.body);
    }
    // A chunk's length where the fibres are the stored entries: chosen on the host from their count
    // (react_fibre_chunk_length), bound before the launch.
    const Name chunkLength{Role::Generated, "react_entries_per_chunk"};
    const Expr chunk = storedEntries ? var(chunkLength, Type::Int64) : intImm(kFibresPerChunk);
    auto chunks = chunkPositions(s, *fibres, std::move(fibreBody), count, chunk);
    if (chain) {
      // One lane runs a row's fibres down to their dense loop (interchange gives that loop the lanes).
      auto rows = copy(chunks->body.back());
      for (Stmt& b : rows->body)
        if (b->kind == StmtKind::For) {
          auto serial = copy(b);
          serial->iterations = Iterations::Dependent;
          b = serial;
        }
      lanes = placeOnLanes(rows->body, p, true);
      rows->body = std::move(lanes.body);
      chunks->body.back() = rows;
    }
    chunks->laneTrips = lanes.trips;
    if (!storedEntries) return chunks;
    // The count of chunks too, so that no thread divides by a length the compiler does not know.
    const Name chunkCount{Role::Generated, "react_chunks"};
    Stmt countLet = let(chunkCount, Type::Int64, chunks->hi);
    chunks->hi = var(chunkCount, Type::Int64);
    return block({let(chunkLength, Type::Int64, call(Callee::ChunkLength, {count, lanes.trips}, Type::Int64)), countLet, chunks});
  }
};

}  // namespace

LoopProgram chunkFibres(const LoopProgram& p) { return FibreChunks(p).mutate(p); }

}  // namespace react::passes
