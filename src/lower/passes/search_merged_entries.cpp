// Kokkos: a row's merge of two last levels as a loop over the entries the kernel assembled, each
// operand's entry found by a search.
//
// The merge walks two sorted lists with one cursor each, so a row's merge runs on one lane: on a
// GPU a row of a thousand entries keeps one thread busy while the rest of its warp waits (A = S + T
// on email-Enron took 5x the time of S * T). But the kernel's binding has already assembled the
// result's pattern (Kernel::bind, mergedPattern): every coordinate the merge visits is an entry of
// it, in order, at the appended finger's positions. So the row's work is a loop over those
// positions, whose iterations are independent (each writes its own entry), and lane mapping spreads
// them over the row's lanes like any sparse loop's. Each iteration finds its coordinate in each
// operand's part of the row by a binary search (Find: -1 where the operand holds none), and runs the
// case of every operand holding it, which is the case of the merge with an absent operand's reads as
// 0 (lowering builds every case so: readAbsentAsZero): an operand's read becomes "its value where
// found, else 0", the same arithmetic as the case it replaces. It applies where the cases only set
// entries of the result (each iteration then writes its own).
//
// Applies where the parent of the row's positions is the row's own coordinate (csr's and csc's
// rows) or the position a merge of first levels binds to its loop's counter (dcsr's rows): lane
// mapping counts a row's lanes from the row loop's extent. A merge above the last level (csf's
// fibres) and one under it stay as they are.
#include "lower/ir/mutator.hpp"
#include "lower/levels.hpp"
#include "lower/passes/passes.hpp"

#include <map>

namespace react::passes {

using namespace ir;
using ir::Expr;

namespace {

// Does every case only set entries of tensors stored at `pattern` (the statement's result), as
// lowering builds a merge of last levels? Then each iteration writes its own entry.
bool setsEntriesOnly(const std::vector<Stmt>& cases, const LoopProgram& p, const std::string& pattern) {
  bool only = true;
  forEachStmt(cases, [&](const Stmt& s) {
    if (s->kind == StmtKind::Block) return;
    only = only && s->kind == StmtKind::Assign && s->update == Update::Set && s->target->kind == ExprKind::Access &&
           p.tensors.at(s->target->tensor).decl.pattern == pattern;
  });
  return only;
}

// An operand's read in the searched loop: its value at the position found, or 0 where it holds no
// entry there (the load is not evaluated then: a Select evaluates only the branch it takes).
// In an intersection every operand holds every entry of a pattern mergedPattern assembled; its
// reads are guarded all the same, so that no pattern given otherwise reads out of bounds.
struct ReadFound : Mutator {
  ReadFound(const LoopProgram& p, const std::vector<MergeFinger>& fingers, const std::string& index)
      : p(p), fingers(fingers), index(index) {}
  const LoopProgram& p;
  const std::vector<MergeFinger>& fingers;
  const std::string& index;

  Expr visit(const Expr& e) override {
    if (e->kind != ExprKind::Access) return mutateChildren(e);
    const TensorStorage& t = p.tensors.at(e->tensor);
    for (const MergeFinger& f : fingers) {
      if (!storesPositions(t) || t.shrunk() || t.decl.pattern != f.pattern) continue;
      const Name found = mergePosition(f.pattern, f.level);
      PositionOf position = [&](const std::string& i, const std::string&, int) { return i == index ? found : Name{Role::Position, i}; };
      Expr value = loadAt(p, *e, position);
      return call(Callee::Select, {binary(BinOp::Ge, var(found, Type::Int64), intImm(0)), value, floatImm(0.0, e->type)}, e->type);
    }
    return e;
  }
};

struct SearchMergedEntries : Mutator {
  explicit SearchMergedEntries(const LoopProgram& p) : p(p) {}
  const LoopProgram& p;
  // A merge position bound to a position loop's counter (the row loop of a merge of first levels
  // binds p0_A = p_i): the counter, which lane mapping counts rows by (ext_i), as for a dcsr loop.
  std::map<Name, Expr> counterOf;

  // The row the appended positions hang under, as lane mapping can count it: a row's coordinate
  // (csr's, csc's), or the counter a first-level merge position was bound to; null otherwise.
  Expr countedRow(const Expr& parent) const {
    if (parent->kind != ExprKind::Var) return nullptr;
    if (parent->name.role == Role::Index && parent->name.level < 0) return parent;
    auto bound = counterOf.find(parent->name);
    return bound == counterOf.end() ? nullptr : bound->second;
  }

  Stmt visit(const Stmt& s) override {
    if (s->kind == StmtKind::Let && s->name.role == Role::Position && s->name.level == 0 && s->value->kind == ExprKind::Var &&
        s->value->name.role == Role::Position && s->value->name.level < 0)
      counterOf[s->name] = s->value;
    if (s->kind != StmtKind::Merge || !s->appended || s->appended->hi || s->fingers.size() != 2 ||
        !setsEntriesOnly(s->body, p, s->appended->pattern))
      return mutateChildren(s);
    const MergeFinger& a = *s->appended;
    // The appended positions' start, positions[row], whose next entry ends them.
    if (a.lo->kind != ExprKind::Load || a.lo->name.role != Role::Positions) return s;
    const Expr row = countedRow(a.lo->args[0]);
    if (!row) return s;
    const Expr lo = load(a.lo->name, row, Type::Int64);
    const unsigned every = (1u << s->fingers.size()) - 1;
    auto all = std::find(s->caseMasks.begin(), s->caseMasks.end(), every);
    if (all == s->caseMasks.end()) return s;
    const Stmt& holdingBoth = s->body[static_cast<size_t>(all - s->caseMasks.begin())];
    const Expr hi = load(a.lo->name, binary(BinOp::Add, row, intImm(1)), Type::Int64);
    // The assembled pattern's position is the loop's counter, as a sparse loop's over it would be:
    // its tensors' accesses are lowered at it.
    const Name position{Role::Position, s->counter.text};
    const Expr coordinate = var(s->counter, Type::Int64);
    std::vector<Stmt> body{let(s->counter, Type::Int64,
                               load(Name{Role::Coordinates, a.pattern, a.level}, var(position, Type::Int64), Type::Int32))};
    for (const MergeFinger& f : s->fingers)
      body.push_back(let(mergePosition(f.pattern, f.level), Type::Int64,
                         call(Callee::Find, {var(Name{Role::Coordinates, f.pattern, f.level}, Type::Int32), f.lo, f.hi, coordinate},
                              Type::Int64)));
    body.push_back(ReadFound(p, s->fingers, s->counter.text).mutate(holdingBoth));
    auto loop = copy(forLoop(position, lo, hi, std::move(body)));
    loop->iterations = Iterations::Independent;  // each writes the entry at its own position
    return loop;
  }
};

}  // namespace

LoopProgram searchMergedEntries(const LoopProgram& p) { return SearchMergedEntries(p).mutate(p); }

}  // namespace react::passes
