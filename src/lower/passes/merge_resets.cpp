// A temporary's reset merged into the loop before it that reads it at the same element.
//
// Why: fusion leaves a loop that consumes a temporary row (MTTKRP's `A(i,j) += T0(j) * C(k,j)` per
// fibre) followed by a loop that zeroes it for the next fibre. As its own loop the reset is a
// second pass over the row, which GCC turns into a `memset` call per fibre; it also makes the
// compiler store the row back to memory between the two. Zeroing each element right after its
// last read keeps the row in registers through both (measured in docs/benchmarks-tensors.md).
//
// Legal when both loops run the same counter over the same bounds, the reset sets (under loops of
// one statement each) an element of T that moves with that counter and with those loops', and the
// reader reads T only at that element and does not write it: then iteration j reads T(..j..)
// before the reset of iteration j sets it, and no other iteration reads that element. A nested
// reset (`for l { for j { T(l,j) = 0 } }`) joins the reader's l loop, then its j loop where that
// is legal too.
#include "lower/ir/analysis.hpp"
#include "lower/ir/mutator.hpp"
#include "lower/passes/passes.hpp"

#include <algorithm>

namespace react::passes {

using namespace ir;
using ir::Expr;

namespace {

// The assignment a reset loop makes (an element of a tensor set to a constant, under a chain of
// loops of one statement each, the element moving with every one of them), or null.
const StmtNode* resetOf(const StmtNode& loop) {
  std::vector<std::string> counters;
  const StmtNode* n = &loop;
  for (; n->kind == StmtKind::For && n->body.size() == 1; n = n->body[0].get()) counters.push_back(loopIndex(*n));
  if (counters.empty() || n->kind != StmtKind::Assign || n->update != Update::Set || n->target->kind != ExprKind::Access ||
      n->value->kind != ExprKind::FloatImm)
    return nullptr;
  const std::vector<std::string>& indices = n->target->indices;
  for (const std::string& c : counters)
    if (std::find(indices.begin(), indices.end(), c) == indices.end()) return nullptr;
  return n;
}

bool sameIterations(const StmtNode& a, const StmtNode& b) {
  return a.kind == StmtKind::For && a.counter == b.counter && a.schedule == b.schedule && equal(a.lo, b.lo) &&
         equal(a.hi, b.hi);
}

// Does `reader` read the reset element only where it stands, and never write the tensor?
bool readsOnlyAt(const Stmt& reader, const Expr& element) {
  bool only = true;
  forEachStmt(reader, [&](const Stmt& s) {
    if (s->kind == StmtKind::Assign && writtenTensor(*s) == element->tensor) only = false;
  });
  forEachExpr(reader, [&](const Expr& e) {
    if (e->kind == ExprKind::Access && e->tensor == element->tensor && !equal(e, element)) only = false;
  });
  return only;
}

// Each reset joined with the loop before it where legal; the joined loop's body ends with the
// reset's inner loop (if any) after the reader's, which are joined in turn.
std::vector<Stmt> joinResets(const std::vector<Stmt>& body) {
  std::vector<Stmt> out;
  for (const Stmt& s : body) {
    const StmtNode* reset = resetOf(*s);
    if (reset && !out.empty() && sameIterations(*out.back(), *s) && readsOnlyAt(out.back(), reset->target)) {
      auto joined = copy(out.back());
      joined->body.push_back(s->body[0]);
      joined->body = joinResets(joined->body);
      out.back() = joined;
      continue;
    }
    out.push_back(s);
  }
  return out;
}

struct MergeResets : Mutator {
  std::vector<Stmt> visitBody(const std::vector<Stmt>& body) override { return joinResets(Mutator::visitBody(body)); }
};

}  // namespace

LoopProgram mergeResets(const LoopProgram& p) { return MergeResets().mutate(p); }

}  // namespace react::passes
