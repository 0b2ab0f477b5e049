// Kokkos, reassociated order: a nest that is a plain dense product, `X(i,j) += A(i,k) * B(k,j)`
// over row-major matrices and nothing else, records what it computes (StmtNode::product), so a
// kernel library that has a tuned product calls it instead of launching the nest; the nest stays,
// scheduled by the later passes, for a library that has none (a host Kokkos: the tests run it).
//
// Why: the right association of SpMM-MM, `S @ (C @ D)`, starts with C @ D, a product of a tall
// matrix by a small one. The nest react generates gives a row of X to a team thread and its
// columns to the lanes, each lane reading the row of A one value at a time: on an H100 it reads
// C (500,000 x 256 doubles) at 0.9 TB/s, a third of the memory's rate, where cuBLAS, which
// stages tiles of A and B in shared memory and holds a block of X in registers, runs at the
// memory's rate. That is the part of SpMM-MM that cuSPARSE's pipeline hands to cuBLAS too.
//
// Where the product's X holds the zeros of its allocation (a temporary's) or of the kernel's fill
// (a result's) and nothing between reads or writes it, the product writes X without reading it
// (DenseProduct::overwrites) and the zeros go: cuBLAS runs with beta 0; the OpenMP helper's
// narrow loop stores its sums, and its Eigen path zeroes X on the threads and adds. A fill is a
// kernel launch and a pass over X: SpMM-MM's C @ D on a 500,000-row graph writes 64 MB of zeros
// first.
//
// Only under reassociation: a library sums k in an order of its own. Matched on the IR as
// lowering gives it (before any pass has scheduled it): three dense loops from 0 over i, j and k
// in any order, each the one statement of the loop around it, holding the one update; X, A and
// B three distinct dense matrices, none shrunk, of one value type.
#include "lower/ir/analysis.hpp"
#include "lower/ir/mutator.hpp"
#include "lower/passes/passes.hpp"

#include <map>
#include <optional>

namespace react::passes {

using namespace ir;
using ir::Expr;

namespace {

bool rowMajorMatrix(const LoopProgram& p, const std::string& tensor, Type type) {
  const TensorStorage& t = p.tensors.at(tensor);
  return t.decl.format == Format::dense(2) && !t.shrunk() && valueTypeOf(t) == type;
}

bool isAccess(const Expr& e, const std::string& first, const std::string& second) {
  return e->kind == ExprKind::Access && e->indices == std::vector<std::string>{first, second};
}

// The one statement of a dense loop from 0, else null.
const StmtNode* denseLoopHolding(const StmtNode* loop) {
  if (!loop || loop->kind != StmtKind::For || !isDenseLoop(*loop) || loop->lo->kind != ExprKind::IntImm || loop->lo->intValue != 0)
    return nullptr;
  return onlyStatement(*loop);
}

std::optional<DenseProduct> denseProduct(const LoopProgram& p, const StmtNode& nest) {
  const StmtNode* outer = nullptr;
  for (const Stmt& s : nest.body) {
    if (s->kind == StmtKind::Comment) continue;
    if (outer) return std::nullopt;
    outer = s.get();
  }
  if (!outer || outer->kind != StmtKind::For || !outer->privates.empty()) return std::nullopt;
  // Three dense loops, one inside the other, around the one update, in any order.
  std::map<std::string, Expr> extents;
  const StmtNode* update = outer;
  for (int depth = 0; depth < 3; ++depth) {
    const StmtNode* loop = update;
    update = denseLoopHolding(loop);
    if (!update) return std::nullopt;
    extents[loopIndex(*loop)] = loop->hi;
  }
  if (update->kind != StmtKind::Assign || update->update != Update::Add || update->atomic || extents.size() != 3) return std::nullopt;
  const Expr& x = update->target;
  const Expr& v = update->value;
  if (x->kind != ExprKind::Access || x->indices.size() != 2 || v->kind != ExprKind::Binary || v->op != BinOp::Mul)
    return std::nullopt;
  const std::string &i = x->indices[0], &j = x->indices[1];
  if (i == j || !extents.count(i) || !extents.count(j)) return std::nullopt;
  std::string k;
  for (const auto& [index, extent] : extents)
    if (index != i && index != j) k = index;
  for (const auto& [a, b] : {std::pair{v->args[0], v->args[1]}, std::pair{v->args[1], v->args[0]}}) {
    if (!isAccess(a, i, k) || !isAccess(b, k, j)) continue;
    if (x->tensor == a->tensor || x->tensor == b->tensor) return std::nullopt;
    const Type type = valueTypeOf(p.tensors.at(x->tensor));
    if (!rowMajorMatrix(p, x->tensor, type) || !rowMajorMatrix(p, a->tensor, type) || !rowMajorMatrix(p, b->tensor, type))
      return std::nullopt;
    return DenseProduct{x->tensor, a->tensor, b->tensor, extents.at(i), extents.at(j), extents.at(k)};
  }
  return std::nullopt;
}

// Does the statement, or one inside it, read, write, allocate or fill the values of `tensor`?
bool mentions(const Stmt& s, const std::string& tensor) {
  bool found = false;
  forEachStmt(s, [&](const Stmt& t) {
    found |= (t->kind == StmtKind::Allocate || t->kind == StmtKind::Fill || t->kind == StmtKind::Prepare) && t->name.text == tensor;
    for (const PrivateBuffer& b : t->privates) found |= b.tensor == tensor;
    forEachOwnExpr(t, [&](const Expr& e) {
      found |= (e->kind == ExprKind::Access && e->tensor == tensor) ||
               (e->kind == ExprKind::Load && e->name.role == Role::Values && e->name.text == tensor);
    });
  });
  return found;
}

// The statement before `body[at]` that gives the product's X its zeros (X's allocation, or the
// kernel's fill of it), with nothing between that mentions X; else the end of `body`.
std::vector<Stmt>::iterator zerosFor(std::vector<Stmt>& body, size_t at, const std::string& x) {
  for (size_t k = at; k-- > 0;) {
    const Stmt& s = body[k];
    if ((s->kind == StmtKind::Allocate || s->kind == StmtKind::Fill) && s->name.role == Role::Values && s->name.text == x)
      return s->init == 0 && !s->uninitialized ? body.begin() + static_cast<std::ptrdiff_t>(k) : body.end();
    if (mentions(s, x)) return body.end();
  }
  return body.end();
}

}  // namespace

LoopProgram markDenseProducts(const LoopProgram& p) {
  LoopProgram out = p;
  for (size_t n = 0; n < out.body.size(); ++n) {
    if (out.body[n]->kind != StmtKind::Nest || out.body[n]->product) continue;
    std::optional<DenseProduct> d = denseProduct(p, *out.body[n]);
    if (!d) continue;
    auto zeros = zerosFor(out.body, n, d->out);
    if (zeros != out.body.end()) {
      d->overwrites = true;
      if ((*zeros)->kind == StmtKind::Fill) {
        out.body.erase(zeros);
        --n;
      } else {
        auto storage = copy(*zeros);
        storage->uninitialized = true;
        *zeros = storage;
      }
    }
    auto marked = copy(out.body[n]);
    marked->product = std::move(d);
    out.body[n] = marked;
  }
  return out;
}

}  // namespace react::passes
