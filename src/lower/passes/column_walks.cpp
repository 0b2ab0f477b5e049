// Kokkos: entry lanes over a csr input also walk its stored entries by columns, where the kernel
// is given them so (a column walk: the matrix in csc and each entry's csr position); the results
// stay at the csr positions.
//
// Why: entry lanes gather, for every stored entry, the dense row at its coordinate: walking by
// rows, C's row at the entry's column, at random. On a power-law graph whose rows are skewed and
// columns even, those gathers miss the L2; walking by columns they fetch B's rows at the entries'
// rows instead, and the long rows' few are fetched again and again from the L2. On an H200 SDDMM
// on S in csc took 0.57-0.76x the time of S in csr on two power-law graphs
// (docs/benchmarks-device.md, "SDDMM on S in csc"); most users hold S in csr, as cuSPARSE takes it.
//
// The walk is chosen per matrix when a kernel is bound (walksByColumns: the rows' skew against the
// columns'), not here: a symmetric matrix gains nothing from the other walk and keeps its memory.
// Both forms are in the kernel (IfColumnWalk) and the rows' form runs where none is given (a
// kernel bound to views). The walk's values are S's as bound, copied with its pattern, as C's
// transposed copy is (operand-layout); each entry's store goes to its csr position.
#include "lower/ir/analysis.hpp"
#include "lower/ir/mutator.hpp"
#include "lower/passes/passes.hpp"

namespace react::passes {

using namespace ir;
using ir::Expr;

namespace {

struct ColumnWalks : Mutator {
  explicit ColumnWalks(const LoopProgram& p) : p(p) {}
  const LoopProgram& p;
  std::map<std::string, std::string> walks;  // csr input -> its column walk

  const std::string& walkOf(const std::string& matrix) {
    auto it = walks.find(matrix);
    if (it != walks.end()) return it->second;
    auto taken = [&](const std::string& name) {
      if (p.tensors.count(name)) return true;
      for (const auto& [m, w] : walks)
        if (w == name) return true;
      return false;
    };
    return walks[matrix] = freeTensorName(matrix + "_cols", taken);
  }

  // Do the uses read no sparse tensor but the matrix and those stored at its entries (which the
  // walk finds at the entry's csr position)?
  bool usesReadEntries(const StmtNode& lanes, const std::string& matrix) const {
    bool entries = true;
    for (size_t k = 2; k < lanes.body.size(); ++k)
      forEachExpr(lanes.body[k]->value, [&](const Expr& e) {
        if (e->kind != ExprKind::Access) return;
        const TensorStorage& t = p.tensors.at(e->tensor);
        if (t.decl.format.hasSparseLevel() && e->tensor != matrix && !t.storedAtEntriesOf(matrix)) entries = false;
      });
    return entries;
  }

  Stmt visit(const Stmt& s) override {
    if (s->kind != StmtKind::EntryLanes) return mutateChildren(s);
    const std::string& matrix = s->name.text;
    const TensorDecl& d = p.tensors.at(matrix).decl;
    if (d.role != TensorRole::Input || d.format != Format::csr() || !usesReadEntries(*s, matrix)) return s;
    const std::string walk = walkOf(matrix);
    // The rows' form's row i and coordinate j: the walk's coordinate i and column j.
    const Name row{Role::Index, s->body[0]->name.text}, entry{Role::Position, s->rowCounter.text};
    const Expr at = var(entry, Type::Int64);
    Stmt coordinate = let(Name{Role::Index, s->rowCounter.text}, Type::Int64, load(Name{Role::Coordinates, walk, 1}, at, Type::Int32));
    // The entry's csr position, where the rows' form has it: the results' stores (and reads of
    // tensors stored at S's entries) find it there; S's own reads go to the walk's values.
    std::vector<Stmt> uses{let(s->counter, Type::Int64, load(Name{Role::EntrySources, walk}, at, Type::Int64))};
    struct ToWalk : Mutator {
      std::string matrix, walk;
      Expr visit(const Expr& e) override {
        return e->kind == ExprKind::Access && e->tensor == matrix ? access(walk, e->indices, e->type) : mutateChildren(e);
      }
    } toWalk;
    toWalk.matrix = matrix;
    toWalk.walk = walk;
    for (size_t k = 2; k < s->body.size(); ++k) uses.push_back(toWalk.mutate(s->body[k]));
    Stmt columns = entryLanes(entry, row, Name{Role::Positions, walk, 1}, indexExtent(row.text, p.indexSizes, p.runtimeSizes),
                              var(Name{Role::StoredEntries, walk}, Type::Int64), coordinate, s->body[1], uses, s->reduceVar,
                              s->reduceType);
    return ifColumnWalk(Name{Role::StoredEntries, walk}, columns, s);
  }
};

}  // namespace

LoopProgram walkColumns(const LoopProgram& p) {
  ColumnWalks walks(p);
  LoopProgram out = walks.mutate(p);
  for (const auto& [matrix, walk] : walks.walks) {
    const TensorStorage& m = p.tensors.at(matrix);
    TensorDecl d = m.decl;
    d.name = d.pattern = walk;
    d.format = Format::csc();
    d.role = TensorRole::Temporary;
    out.tensors[walk] = TensorStorage{d, m.kept};
    out.args.push_back(walk);
    out.patternArgs.push_back(walk);
    out.dimIndices[walk] = p.dimIndices.at(matrix);
    out.columnWalks[walk] = matrix;
  }
  return out;
}

}  // namespace react::passes
