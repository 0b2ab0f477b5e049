// Iterating and addressing storage levels.
#include "lower/levels.hpp"

namespace react {

using ir::Name;
using ir::Role;
using ir::Type;
using ir::BinOp;
using ir::var;
using ir::load;
using ir::intImm;
using ir::binary;

bool iteratesPositions(const IndexLoop& loop) { return loop.kind == LoopKind::Sparse; }

bool storesPositions(const TensorStorage& s) { return s.decl.format.isSparse(); }

LevelIteration iterateLevel(const IndexLoop& loop, const ExtentOf& extent) {
  LevelIteration it;
  if (!iteratesPositions(loop)) {
    it.counter = Name{Role::Index, loop.index};
    it.lo = intImm(0);
    it.hi = extent(loop.index);
    return it;
  }
  // A compressed level: the entries of parent row r sit at positions [pos[r], pos[r + 1]).
  Name positions{Role::Positions, loop.pattern};
  ir::Expr parent = var(Name{Role::Index, loop.parentIndex}, Type::Int64);
  it.counter = Name{Role::Position, loop.index};
  it.lo = load(positions, parent, Type::Int64);
  it.hi = load(positions, binary(BinOp::Add, parent, intImm(1)), Type::Int64);
  it.bind = {ir::let(Name{Role::Index, loop.index}, Type::Int64,
                 load(Name{Role::Coordinates, loop.pattern}, var(it.counter, Type::Int64), Type::Int32))};
  return it;
}

ir::Expr valueOffset(const TensorStorage& s, const std::vector<std::string>& indices, const ExtentOf& extent) {
  // A sparse tensor's values sit at the position of the loop over its compressed level.
  if (storesPositions(s) && !s.shrunk()) return var(Name{Role::Position, indices.back()}, Type::Int64);
  ir::Expr offset;
  for (size_t d = 0; d < indices.size(); ++d) {
    if (!s.kept[d]) continue;
    ir::Expr coordinate = var(Name{Role::Index, indices[d]}, Type::Int64);
    offset = offset ? binary(BinOp::Add, binary(BinOp::Mul, offset, extent(indices[d])), coordinate) : coordinate;
  }
  return offset ? offset : intImm(0);
}

}  // namespace react
