// Kokkos: the lanes of a team thread along the dense reduction under each stored entry (SDDMM's
// dot product over k), and the stored entries, not the rows, split evenly over the team threads.
//
// Why: lane mapping puts a row's lanes on its stored entries, each lane running a whole dot
// product. A row of 4,000 entries is then one team thread's, serial in steps of 32, and at each
// step of k the 32 lanes read C(k,j) of 32 unrelated columns j: a 32-byte sector per value, K x 32
// bytes per stored entry. With the lanes along k, consecutive lanes read consecutive values of B's
// row i and of row j of C's transposed copy (operand-layout makes it: it sees a lane loop read
// C(k,j) along its stride) and a shuffle reduction combines them. One team thread then runs its
// entries one after another, so they are handed out in chunks of kEntriesPerChunk stored entries
// regardless of rows: a row longer than a chunk is split over several team threads, each finding
// its chunk's first and last rows by a binary search over the positions (RowOf), and every team
// thread has the same work on a power-law graph.
//
// Decided at compile time: the reduction's extent is a constant of the kernel (dense extents are
// compiled in), and it decides which mapping keeps a warp's lanes busy; the row lengths, known only
// at run time, no longer matter once entries are split evenly. From kDenseLanesFrom iterations, every
// lane of a warp has a product of its own. Below that, lanes on the entries keep more lanes busy,
// and the strided reads cost little (a few values per entry): such rows keep lane mapping's form.
// What the compile-time choice cannot see is where a row's columns lie: on an H100
// (docs/benchmarks-device.md), at K = 64 banded and mesh matrices, whose rows are runs of
// consecutive columns, ran faster with the lanes on the entries (their reads of C(k, j..j+31) are
// coalesced, and the next rows read the same sectors), while graphs ran 1.5x to 8x faster this way.
//
// Entry lanes: where an entry's work is exactly SDDMM's (its coordinate, one such sum from 0 of a
// term read from dense tensors at the row, the coordinate and the sum's index, stores at the
// entry), the chunk is 32 entries, one per lane (ir::StmtKind::EntryLanes, react_entry_lanes in the
// Kokkos prelude): each lane finds its entry's row and coordinate at once, then the lanes run along
// k for several entries together, their rows of C in flight at the same time, and each sum ends on
// its entry's lane, which stores it, the chunk's stores one coalesced store. In the form above a
// team thread waited for each entry's coordinate, then its rows, then its sum, one entry after
// another: on an H200 entry lanes took 0.42-0.83x its time on the eight matrices of
// docs/benchmarks-device.md ("Entry lanes"), and a hand-written kernel of the same shape had shown
// the way ("SDDMM against what it must gather"). Any other entry work (two sums, a sum read by a
// row's statement) keeps the chunks above.
//
// The same forms run on the host (lanes one wide), so tests on a host Kokkos run the device's loops.
// Reductions split over lanes reassociate: under the written order rows keep lane mapping's form.
#include "lower/ir/analysis.hpp"
#include "lower/ir/mutator.hpp"
#include "lower/passes/passes.hpp"

#include <optional>
#include <set>

namespace react::passes {

using namespace ir;
using ir::Expr;

namespace {

// Stored entries per team thread: enough to pay for its two binary searches over the positions
// (a few dozen dependent cached loads, against one dot product of K values per entry), few enough
// that a graph of 10,000 entries still spreads over 600 team threads.
constexpr int64_t kEntriesPerChunk = 16;

// The extent of a dense loop with constant bounds, else 0.
int64_t constantTrips(const StmtNode& loop) {
  return loop.lo->kind == ExprKind::IntImm && loop.hi->kind == ExprKind::IntImm ? loop.hi->intValue - loop.lo->intValue : 0;
}

// Does a loop of an entry's body read a local variable the body declares mutable (what it only
// accumulates into aside)? Such a variable is updated by one lane (Single), so a lane loop must
// not read it.
bool readsLocal(const Stmt& loop, const std::set<Name>& locals) {
  bool reads = false;
  auto check = [&](const Expr& e) { reads |= e->kind == ExprKind::Var && locals.count(e->name); };
  forEachExpr(loop->lo, check);
  forEachExpr(loop->hi, check);
  forEachStmt(loop->body, [&](const Stmt& st) {
    forEachExpr(st->value, check);
    if (st->target)
      for (const Expr& a : st->target->args) forEachExpr(a, check);
  });
  return reads;
}

struct DenseLanes : Mutator {
  explicit DenseLanes(const LoopProgram& p) : p(p) {}
  const LoopProgram& p;

  // The row loop's loop over its stored entries when it qualifies: the row's one statement, of
  // independent iterations, whose body holds only bindings, assignments and at least one wide
  // dense reduction (an innermost loop of at least kDenseLanesFrom iterations reducing into a scalar)
  // that reads no local the body updates.
  const StmtNode* entryLoop(const StmtNode& row) const {
    if (row.schedule != Schedule::Parallel || !row.privates.empty() || !isDenseLoop(row) || row.laneTrips) return nullptr;
    const StmtNode* entries = onlyStatement(row);
    if (!entries || entries->kind != StmtKind::For || entries->iterations != Iterations::Independent ||
        !rowPositions(*entries, row.counter))
      return nullptr;
    std::set<Name> locals;
    bool wide = false;
    for (const Stmt& s : entries->body) {
      if (s->kind == StmtKind::Let) {
        if (s->isMutable) locals.insert(s->name);
        continue;
      }
      if (s->kind == StmtKind::Assign) continue;
      if (s->kind != StmtKind::For || !isDenseLoop(*s) || !isInnermost(*s) || constantTrips(*s) < kDenseLanesFrom ||
          analyzeIterations(*s, p.tensors).kind != Iterations::ReduceScalar || readsLocal(s, locals))
        return nullptr;
      wide = true;
    }
    return wide ? entries : nullptr;
  }

  // An entry's statements on the team thread's lanes: bindings on every lane (they read the same
  // values), each reduction on the lanes combined by one lane, every other statement on that lane.
  std::vector<Stmt> onLanes(const std::vector<Stmt>& body) const {
    std::vector<Stmt> out;
    for (const Stmt& s : body) {
      if (s->kind == StmtKind::Let) {
        out.push_back(s);
      } else if (s->kind == StmtKind::For) {
        IterationFacts f = analyzeIterations(*s, p.tensors);
        out.push_back(reduceOnLanes(s, f.reduceTarget, f.op, [](Stmt combine) { return single({combine}); }));
      } else {
        out.push_back(single({s}));
      }
    }
    return out;
  }

  // An entry body of entry lanes' form, taken apart: the coordinate's binding, an accumulator set
  // to 0, a wide dense sum into it of one term that reads dense tensors at the row, the coordinate
  // and the sum's index alone, stores at the entry (the row and the coordinate), and the
  // accumulator's reset last (each entry lane's sum starts from 0 anyway).
  struct EntryDot {
    Stmt coordinate;
    Name accumulator;
    Type type;
    Stmt dot;
    std::vector<Stmt> uses;
  };
  // `entries` is what entryLoop gave for `row`.
  std::optional<EntryDot> entryDot(const StmtNode& row, const StmtNode& entries) const {
    const std::vector<Stmt>& b = entries.body;
    if (b.size() < 4 || b[0]->kind != StmtKind::Let || b[0]->isMutable || b[0]->type != Type::Int64 || b[0]->name.role != Role::Index ||
        b[1]->kind != StmtKind::Let || !b[1]->isMutable || b[1]->value->kind != ExprKind::FloatImm || b[1]->value->floatValue != 0)
      return std::nullopt;
    EntryDot d{b[0], b[1]->name, b[1]->type, nullptr, {}};
    // A loop here is a wide dense reduction into a scalar (entryLoop checked each): of those, a sum
    // from 0 into the accumulator by one statement.
    const StmtNode& loop = *b[2];
    if (loop.kind != StmtKind::For || loop.lo->kind != ExprKind::IntImm || loop.lo->intValue != 0 || loop.body.size() != 1 ||
        loop.body[0]->kind != StmtKind::Assign || loop.body[0]->update != Update::Add)
      return std::nullopt;
    const IterationFacts f = analyzeIterations(loop, p.tensors);
    if (f.op != ReduceOp::Sum || f.reduceTarget->kind != ExprKind::Var || f.reduceTarget->name != d.accumulator) return std::nullopt;
    const std::set<std::string> shared{row.counter.text, d.coordinate->name.text, loop.counter.text};
    bool sharedOnly = true;
    forEachExpr(loop.body[0]->value, [&](const Expr& e) {
      if (e->kind == ExprKind::Var) sharedOnly = false;
      if (e->kind != ExprKind::Access) return;
      const Format& format = p.tensors.at(e->tensor).decl.format;
      for (int l = 0; l < format.rank(); ++l) sharedOnly &= format.level(l).kind == LevelKind::Dense;
      for (const std::string& index : e->indices) sharedOnly &= shared.count(index) > 0;
    });
    if (!sharedOnly) return std::nullopt;
    auto dot = copy(b[2]);
    dot->schedule = Schedule::LaneReduce;
    dot->reduceVar = d.accumulator;
    dot->reduceType = d.type;
    d.dot = dot;
    for (size_t k = 3; k < b.size(); ++k) {
      const StmtNode& s = *b[k];
      const bool reset = k + 1 == b.size() && s.kind == StmtKind::Assign && s.target->kind == ExprKind::Var &&
                         s.target->name == d.accumulator && s.update == Update::Set && s.value->kind == ExprKind::FloatImm &&
                         s.value->floatValue == 0;
      if (reset) break;
      if (s.kind != StmtKind::Assign || s.update != Update::Set || s.atomic || s.target->kind != ExprKind::Access ||
          !atStoredEntry(*s.target, row.counter.text, d.coordinate->name.text, p.tensors))
        return std::nullopt;
      d.uses.push_back(b[k]);
    }
    if (d.uses.empty()) return std::nullopt;
    return d;
  }

  Stmt visit(const Stmt& s) override {
    if (s->kind != StmtKind::For) return mutateChildren(s);
    const StmtNode* entries = entryLoop(*s);
    if (!entries) return s;
    const Name& positions = *rowPositions(*entries, s->counter);
    if (std::optional<EntryDot> d = entryDot(*s, *entries))
      return entryLanes(entries->counter, s->counter, positions, s->hi, var(Name{Role::StoredEntries, positions.text}, Type::Int64),
                        d->coordinate, d->dot, d->uses, d->accumulator, d->type);
    Expr lanes = floatImm(1.0);
    for (const Stmt& b : entries->body)
      if (b->kind == StmtKind::For) lanes = call(Callee::Max, {lanes, call(Callee::Cast, {b->hi}, Type::Float64)}, Type::Float64);
    auto chunks = chunkPositions(s, *entries, onLanes(entries->body), var(Name{Role::StoredEntries, positions.text}, Type::Int64),
                                 intImm(kEntriesPerChunk));
    chunks->laneTrips = lanes;
    return chunks;
  }
};

}  // namespace

LoopProgram mapLanesToDenseReductions(const LoopProgram& p) { return DenseLanes(p).mutate(p); }

}  // namespace react::passes
