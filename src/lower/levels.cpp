// Iterating and addressing storage levels.
#include "lower/levels.hpp"

#include <algorithm>

namespace react {

using ir::Name;
using ir::Role;
using ir::Type;
using ir::BinOp;
using ir::var;
using ir::load;
using ir::intImm;
using ir::binary;

ir::Expr indexExtent(const std::string& index, const std::map<std::string, int64_t>& indexSizes,
                     const std::vector<std::string>& runtimeSizes) {
  if (std::find(runtimeSizes.begin(), runtimeSizes.end(), index) != runtimeSizes.end())
    return var(Name{Role::Extent, index}, Type::Int64);
  return intImm(indexSizes.at(index));
}

bool iteratesPositions(const IndexLoop& loop) { return loop.kind == LoopKind::Sparse; }

bool storesPositions(const TensorStorage& s) { return s.decl.format.hasSparseLevel(); }

namespace {

// The position of the parent of `level` for a loop nested under the loop of `parentIndex`: the
// root's position 0 above level 0, the position bound by the loop over a parent level iterated by
// position, and the coordinate of a dense parent that is the first level (csr's row). A dense
// level under another needs every index above it, which the loop does not record.
ir::Expr parentPosition(const Format& f, int level, const std::string& parentIndex) {
  if (level == 0) return intImm(0);
  const Level& parent = f.level(level - 1);
  if (parent.iteratedByPosition()) return var(Name{Role::Position, parentIndex}, Type::Int64);
  REACT_ASSERT(level - 1 == 0, "lowering: a dense level under another level above a sparse one (" + f.str() + ")");
  return var(Name{Role::Index, parentIndex}, Type::Int64);
}

}  // namespace

LevelIteration iterateLevel(const IndexLoop& loop, const Format& pattern, const ExtentOf& extent) {
  LevelIteration it;
  if (!iteratesPositions(loop)) {
    it.counter = Name{Role::Index, loop.index};
    it.lo = intImm(0);
    it.hi = extent(loop.index);
    return it;
  }
  const Level& level = pattern.level(loop.level);
  ir::Expr parent = parentPosition(pattern, loop.level, loop.parentIndex);
  it.counter = Name{Role::Position, loop.index};
  switch (level.kind) {
    case LevelKind::Compressed: {
      // The children of parent position p sit at positions [pos[p], pos[p + 1]). A first level's
      // start from 0 (SparseTensor::validate): its loop is a range from 0, as a dense loop's is.
      Name positions{Role::Positions, loop.pattern, loop.level};
      const bool first = loop.level == 0;
      it.lo = first ? intImm(0) : load(positions, parent, Type::Int64);
      it.hi = load(positions, first ? intImm(1) : binary(BinOp::Add, parent, intImm(1)), Type::Int64);
      break;
    }
    case LevelKind::Singleton:
      // One child, at the parent's own position.
      it.lo = parent;
      it.hi = binary(BinOp::Add, parent, intImm(1));
      break;
    case LevelKind::Dense: internalError("lowering: a Sparse loop over a dense level of '" + loop.pattern + "'");
  }
  it.bind = {ir::let(Name{Role::Index, loop.index}, Type::Int64,
                     load(Name{Role::Coordinates, loop.pattern, loop.level}, var(it.counter, Type::Int64), Type::Int32))};
  return it;
}

ir::Expr valueOffset(const TensorStorage& s, const std::vector<std::string>& indices, const ExtentOf& extent,
                     const PositionOf& position) {
  const Format& f = s.decl.format;
  ir::Expr offset;
  auto locate = [&](size_t d) {
    ir::Expr coordinate = var(Name{Role::Index, indices[d]}, Type::Int64);
    offset = offset ? binary(BinOp::Add, binary(BinOp::Mul, offset, extent(indices[d])), coordinate) : coordinate;
  };
  if (storesPositions(s) && !s.shrunk()) {
    for (int l = 0; l < f.rank(); ++l) {
      size_t d = static_cast<size_t>(f.dimension(l));
      if (f.level(l).locatable()) locate(d);
      else offset = var(position ? position(indices[d], s.decl.pattern, l) : Name{Role::Position, indices[d]}, Type::Int64);
    }
    return offset;
  }
  for (size_t d = 0; d < indices.size(); ++d)
    if (s.kept[d]) locate(d);
  return offset ? offset : intImm(0);
}

}  // namespace react
