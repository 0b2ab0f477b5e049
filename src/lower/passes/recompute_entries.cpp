// Kokkos: a temporary at the stored entries of a row loop's pattern that one statement of the
// row's loop over its entries sets from the entry's input values alone (softmax's
// T0(i,j) = exp(S(i,j))) is not kept: each read of it, in the row's loops over the same entries,
// computes the value again, and the statement and the temporary's storage go.
//
// Why: on a GPU an exp costs a few instructions of a unit the memory-bound row kernels leave idle,
// while the temporary costs a store and a load of a value per entry, and a fill before the nest.
// On an H100, sparse softmax on the 2.4M-entry power-law graph took 0.070-0.073 ms against
// 0.100-0.105 in float64 and 0.051-0.055 against 0.077-0.081 in float32, side by side in two
// leases (docs/benchmarks-device.md). The value is the same function of the same inputs at every
// read, so the results do not change, in either floating-point order. (On a host Kokkos exp is
// dearer than the memory it saves; the CPU's target is OpenMP, which keeps the temporary and
// computes it in one vector loop, flatten_entries.cpp.)
//
// What it requires: the temporary is written by that one statement in the whole kernel, and read
// only after it, within the same row loop, in loops over the same row's entries at the same indices
// (where the inputs it reads are at the same entry); its value reads only inputs stored at those
// entries (no local, no other temporary). A definition that meets all but the last (the stable
// softmax's exp(S(i,j) - T0(i)), which reads the row's maximum) stays, but it sets every element
// before any read, so its storage is allocated unfilled: the fill was a launch and a store of a
// value per entry at every call.
#include "lower/ir/analysis.hpp"
#include "lower/ir/mutator.hpp"
#include "lower/passes/passes.hpp"

namespace react::passes {

using namespace ir;
using ir::Expr;

namespace {

// Every access of `tensor` in `s`, targets of assignments included.
int accessesOf(const Stmt& s, const std::string& tensor) {
  int n = 0;
  forEachExpr(s, [&](const Expr& e) { n += e->kind == ExprKind::Access && e->tensor == tensor; });
  return n;
}
using Statements = std::vector<Stmt>::const_iterator;
int accessesOf(Statements first, Statements last, const std::string& tensor) {
  int n = 0;
  for (; first != last; ++first) n += accessesOf(*first, tensor);
  return n;
}

// `value` reads only inputs stored at the pattern's entries, through accesses, and literals.
bool readsInputsAtEntry(const LoopProgram& p, const Expr& value, const std::string& pattern) {
  bool ok = true;
  forEachExpr(value, [&](const Expr& e) {
    if (e->kind == ExprKind::Var || e->kind == ExprKind::Load) ok = false;
    if (e->kind == ExprKind::Access) {
      const TensorStorage& t = p.tensors.at(e->tensor);
      ok = ok && t.decl.role == TensorRole::Input && t.storedAtEntriesOf(pattern);
    }
  });
  return ok;
}

// A definition the row's later loops can compute again instead of reading.
struct Definition {
  const StmtNode* statement = nullptr;
  Expr target, value;
};

// Is every access of the temporary in the row's children from `first` on inside a loop over the
// pattern's entries of this row, at the definition's indices?
bool readOnlyAtEntries(const LoopProgram& p, const StmtNode& row, size_t first, const Definition& d,
                       const std::string& pattern) {
  const std::string& t = d.target->tensor;
  for (size_t k = first; k < row.body.size(); ++k) {
    const Stmt& child = row.body[k];
    const bool entries = child->kind == StmtKind::For && rowEntriesPattern(*child, row.counter, p.tensors) == pattern;
    bool ok = true;
    forEachExpr(child, [&](const Expr& e) {
      if (e->kind == ExprKind::Access && e->tensor == t) ok = ok && entries && e->indices == d.target->indices;
    });
    if (!ok) return false;
  }
  return true;
}

// The row's definitions of temporaries at its entries that every access reads afterwards at the
// same entry, in order; with `inputsOnly`, those whose value reads only inputs there (which can be
// computed again).
std::vector<Definition> definitionsIn(const LoopProgram& p, const StmtNode& row, bool inputsOnly) {
  std::vector<Definition> found;
  for (size_t k = 0; k < row.body.size(); ++k) {
    const Stmt& child = row.body[k];
    if (child->kind != StmtKind::For) continue;
    const std::string pattern = rowEntriesPattern(*child, row.counter, p.tensors);
    if (pattern.empty()) continue;
    for (size_t n = 0; n < child->body.size(); ++n) {
      const StmtNode& s = *child->body[n];
      if (s.kind != StmtKind::Assign || s.update != Update::Set || s.target->kind != ExprKind::Access || s.atomic) continue;
      const std::string& t = s.target->tensor;
      const TensorStorage& storage = p.tensors.at(t);
      if (storage.decl.role != TensorRole::Temporary || !storage.storedAtEntriesOf(pattern) ||
          (inputsOnly && !readsInputsAtEntry(p, s.value, pattern)))
        continue;
      // Written here alone, and read only after, in this row.
      bool written = false;
      forEachStmt(p.body, [&](const Stmt& w) { written |= w.get() != &s && w->kind == StmtKind::Assign && writtenTensor(*w) == t; });
      const int inRow = accessesOf(row.body.begin(), row.body.end(), t);
      const int before = accessesOf(row.body.begin(), row.body.begin() + static_cast<std::ptrdiff_t>(k), t) +
                         accessesOf(child->body.begin(), child->body.begin() + static_cast<std::ptrdiff_t>(n), t);
      const Definition d{&s, s.target, s.value};
      if (written || before || accessesOf(p.body.begin(), p.body.end(), t) != inRow || !readOnlyAtEntries(p, row, k, d, pattern))
        continue;
      found.push_back(d);
    }
  }
  return found;
}

// The row with the definition dropped and every read of its temporary computing its value.
Stmt recomputed(const Stmt& row, const Definition& d, const LoopProgram& p) {
  struct Recompute : Mutator {
    const Definition* d;
    std::vector<Stmt> visitBody(const std::vector<Stmt>& body) override {
      std::vector<Stmt> out;
      for (const Stmt& s : body)
        if (s.get() != d->statement) out.push_back(mutate(s));
      return out;
    }
    Expr visit(const Expr& e) override {
      return e->kind == ExprKind::Access && e->tensor == d->target->tensor ? d->value : mutateChildren(e);
    }
  } recompute;
  recompute.d = &d;
  auto out = copy(recompute.mutate(row));
  // The entry loops' iterations were analysed with the definition in them.
  for (Stmt& child : out->body)
    if (child->kind == StmtKind::For && !rowEntriesPattern(*child, row->counter, p.tensors).empty())
      child = withIterations(child, p.tensors);
  return out;
}

}  // namespace

LoopProgram recomputeEntrywise(const LoopProgram& p) {
  LoopProgram out = p;
  std::set<std::string> gone;
  // One definition at a time, each found in the kernel as the ones before left it.
  for (bool changed = true; changed;) {
    changed = false;
    for (Stmt& n : out.body) {
      if (n->kind != StmtKind::Nest) continue;
      for (size_t r = 0; r < n->body.size() && !changed; ++r) {
        const Stmt row = n->body[r];
        if (row->kind != StmtKind::For) continue;
        const std::vector<Definition> d = definitionsIn(out, *row, true);
        if (!d.empty()) {
          auto nest = copy(n);
          nest->body[r] = recomputed(row, d.front(), out);
          gone.insert(d.front().target->tensor);
          n = nest;
          changed = true;
        }
      }
      if (changed) break;
    }
  }
  // A definition that reads more than inputs (the stable softmax's exp(S(i,j) - T0(i))) stays, and
  // sets every element of its temporary before any read: the storage needs no fill.
  std::set<std::string> setFirst;
  for (const Stmt& n : out.body)
    if (n->kind == StmtKind::Nest)
      for (const Stmt& row : n->body)
        if (row->kind == StmtKind::For)
          for (const Definition& d : definitionsIn(out, *row, false)) setFirst.insert(d.target->tensor);
  // The recomputed temporaries' storage, and the sizes that only it used.
  std::vector<Stmt> body;
  for (const Stmt& s : out.body) {
    const bool storage = (s->kind == StmtKind::Allocate || (s->kind == StmtKind::Let && s->name.role == Role::Size)) &&
                         gone.count(s->name.text);
    if (storage) continue;
    if (s->kind == StmtKind::Allocate && setFirst.count(s->name.text)) {
      auto unfilled = copy(s);
      unfilled->uninitialized = true;
      body.push_back(unfilled);
    } else {
      body.push_back(s);
    }
  }
  out.body = std::move(body);
  return out;
}

}  // namespace react::passes
