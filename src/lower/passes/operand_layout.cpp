// A dense operand read down its columns in an innermost loop (OpenMP) or across a warp's lanes
// (Kokkos), read from a transposed copy made when the kernel is bound (once for every run; at
// every run for a kernel bound to views).
//
// Why: SDDMM as the benchmark defines it (`A = S * (B @ C)`, C row-major K x N) reads C(k,j) over
// k for every stored entry: on a CPU one cache line per multiply-add, and no vector loads; on a
// GPU whose lanes run along k (dense-lanes), one sector per lane instead of one per four lanes.
// The copy costs one pass over C; the reads it saves are repeated, since a loop outside the one
// along k does not move the access (every stored entry of a column j reads the same K values). An
// access read once per element (a column sum) stays as it is: there the copy would only add traffic.
//
// On Kokkos only lane loops count: a loop one lane runs reads along whatever index its lanes
// follow, and a read contiguous across the lanes (C(k,j) with the lanes on j) must stay so.
#include "lower/ir/analysis.hpp"
#include "lower/ir/mutator.hpp"
#include "lower/levels.hpp"
#include "lower/passes/passes.hpp"

#include <algorithm>

namespace react::passes {

using namespace ir;
using ir::Expr;
using ir::ExprNode;

namespace {

Expr extentOf(const LoopProgram& p, const std::string& index) { return indexExtent(index, p.indexSizes, p.runtimeSizes); }

// A transposed copy of an input: its tensor and value type.
struct TransposedCopy {
  std::string name;
  Type type;
};

struct OperandLayout : Mutator {
  OperandLayout(const LoopProgram& p, Target target) : p(p), target(target) {}
  const LoopProgram& p;
  Target target;
  std::vector<std::string> enclosing;           // the indices of the loops around where we are
  std::map<std::string, TransposedCopy> copies;  // input -> its transposed copy

  // Is `e` a read of a dense input matrix along its rows' stride, in an innermost loop over
  // `index` that a loop around it repeats?
  bool strided(const ExprNode& e, const std::string& index) const {
    if (e.kind != ExprKind::Access || e.indices.size() != 2) return false;
    const TensorDecl& d = p.tensors.at(e.tensor).decl;
    if (d.role != TensorRole::Input || d.format != Format::dense(2)) return false;
    if (e.indices[0] != index || e.indices[1] == index) return false;
    for (const std::string& outer : enclosing)
      if (outer != index && std::find(e.indices.begin(), e.indices.end(), outer) == e.indices.end()) return true;
    return false;
  }

  // The copy's name: the input's with "_t" and, where a tensor has that name, a number.
  const TransposedCopy& copyOf(const ExprNode& read) {
    auto it = copies.find(read.tensor);
    if (it != copies.end()) return it->second;
    auto taken = [&](const std::string& name) {
      if (p.tensors.count(name)) return true;
      for (const auto& [input, c] : copies)
        if (c.name == name) return true;
      return false;
    };
    return copies[read.tensor] = TransposedCopy{freeTensorName(read.tensor + "_t", taken), read.type};
  }

  // Does the loop read along its index: the innermost loop of a CPU thread, the lanes of a GPU's?
  bool readsAlong(const StmtNode& loop) const {
    if (!isDenseLoop(loop)) return false;
    if (target == Target::OpenMP) return isInnermost(loop);
    return loop.schedule == Schedule::Vector || loop.schedule == Schedule::LaneReduce;
  }

  Stmt visit(const Stmt& s) override {
    if (s->kind == StmtKind::EntryLanes) {
      // Entry lanes run over their entries' rows and coordinates, as the loops over the rows and
      // over each row's entries they replace did.
      enclosing.push_back(s->rowCounter.text);
      enclosing.push_back(s->body.at(0)->name.text);
      Stmt out = mutateChildren(s);
      enclosing.resize(enclosing.size() - 2);
      return out;
    }
    if (s->kind != StmtKind::For) return mutateChildren(s);
    enclosing.push_back(loopIndex(*s));
    Stmt out = readsAlong(*s) ? transposeReads(s) : mutateChildren(s);
    enclosing.pop_back();
    return out;
  }

  // The innermost loop with its strided reads redirected to the transposed copies (only inputs
  // qualify, so no write is redirected).
  Stmt transposeReads(const Stmt& loop) {
    struct Redirect : Mutator {
      OperandLayout* self;
      std::string index;
      Expr visit(const Expr& e) override {
        if (!self->strided(*e, index)) return mutateChildren(e);
        return access(self->copyOf(*e).name, {e->indices[1], e->indices[0]}, e->type);
      }
    } redirect;
    redirect.self = this;
    redirect.index = loopIndex(*loop);
    return redirect.mutate(loop);
  }
};

// Columns of the input per block of the copy: a block's reads are rows of 64 values, its writes
// 64 rows of the copy that stay in the first-level cache until their lines are full.
constexpr int64_t kTransposeBlock = 64;

// The loops that fill the copy, copy(b, a) = input(a, b). OpenMP: in blocks of columns (the
// parallel loop), each read row by row; column by column, every read would take its own cache line
// (and page). Kokkos: a row of the copy per team thread, its elements independent, so that lane
// mapping puts them on the lanes: the writes are contiguous across the lanes, and the reads of
// neighbouring team threads share their sectors.
Stmt fillCopy(const LoopProgram& p, Target target, const std::string& input, const TransposedCopy& c) {
  const std::vector<std::string>& dims = p.dimIndices.at(input);
  Stmt store = assign(access(c.name, {dims[1], dims[0]}, c.type), access(input, dims, c.type));
  const Expr columns = extentOf(p, dims[1]);
  if (target == Target::Kokkos) {
    auto along = copy(forLoop(Name{Role::Index, dims[0]}, intImm(0), extentOf(p, dims[0]), {store}));
    along->iterations = Iterations::Independent;
    auto rows = copy(forLoop(Name{Role::Index, dims[1]}, intImm(0), columns, {along}, Schedule::Parallel));
    rows->iterations = Iterations::Independent;
    return rows;
  }
  const Name blockCounter{Role::Generated, "react_block"};
  const Expr block = intImm(kTransposeBlock);
  const Expr first = binary(BinOp::Mul, var(blockCounter, Type::Int64), block);
  const Expr end = binary(BinOp::Add, first, block);
  const Expr last = call(Callee::Select, {binary(BinOp::Lt, end, columns), end, columns}, Type::Int64);
  Stmt blockColumns = forLoop(Name{Role::Index, dims[1]}, first, last, {store});
  Stmt rows = forLoop(Name{Role::Index, dims[0]}, intImm(0), extentOf(p, dims[0]), {blockColumns});
  Expr blocks = binary(BinOp::Div, binary(BinOp::Add, columns, intImm(kTransposeBlock - 1)), block);
  return forLoop(blockCounter, intImm(0), blocks, {rows}, Schedule::Parallel);
}

// The copy of `input` as a prepared argument: where the caller does not give it, storage and the
// nest that fills it.
std::vector<Stmt> transpose(const LoopProgram& p, Target target, const std::string& input, const TransposedCopy& c) {
  const std::vector<std::string>& dims = p.dimIndices.at(input);
  const Name size{Role::Size, c.name};
  return {let(size, Type::Int64, binary(BinOp::Mul, extentOf(p, dims[1]), extentOf(p, dims[0]))),
          prepare(c.name, c.type, var(size, Type::Int64),
                  {nest(c.name, {comment("nest " + c.name + ": " + input + " transposed"), fillCopy(p, target, input, c)})})};
}

}  // namespace

LoopProgram transposeStridedOperands(const LoopProgram& p, Target target) {
  OperandLayout layout(p, target);
  LoopProgram out = layout.mutate(p);
  std::vector<Stmt> setup;
  for (const auto& [input, c] : layout.copies) {
    const TensorStorage& s = p.tensors.at(input);
    TensorDecl d = s.decl;
    d.name = c.name;
    d.role = TensorRole::Temporary;
    std::swap(d.shape[0], d.shape[1]);
    out.tensors[c.name] = TensorStorage{d, s.kept};
    out.args.push_back(c.name);
    out.transposedInputs[c.name] = input;
    const std::vector<std::string>& dims = p.dimIndices.at(input);
    out.dimIndices[c.name] = {dims[1], dims[0]};
    for (Stmt& st : transpose(p, target, input, c)) setup.push_back(st);
  }
  // Before the first nest: the inputs are never written, so any place before their reads will do.
  auto first = std::find_if(out.body.begin(), out.body.end(), [](const Stmt& s) { return s->kind == StmtKind::Nest; });
  out.body.insert(first, setup.begin(), setup.end());
  return out;
}

}  // namespace react::passes
