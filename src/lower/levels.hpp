// How lowering walks and addresses a tensor's storage, level by level, in the manner of TACO's
// mode formats: a dense level is iterated by coordinate and addressed as parent position * extent
// + coordinate; a compressed level is iterated by position between its parent's positions, and
// its coordinate is read at the position (internal to src/lower).
#pragma once

#include "lower/ir/ir.hpp"

#include <functional>

namespace react {

using ExtentOf = std::function<ir::Expr(const std::string& index)>;

// A loop over one level: its counter and bounds, and the statements that bind the coordinate the
// loop's index names (none for a dense level, whose counter is the coordinate).
struct LevelIteration {
  ir::Name counter;
  ir::Expr lo, hi;
  std::vector<ir::Stmt> bind;
};
LevelIteration iterateLevel(const IndexLoop& loop, const ExtentOf& extent);

// Does the loop visit a level by position (a compressed level), not by coordinate?
bool iteratesPositions(const IndexLoop& loop);
// Are the tensor's values stored at the positions of a compressed level (a sparse tensor)?
bool storesPositions(const TensorStorage& s);

// The offset of an element in a tensor's values, for an access at these indices: the position of
// its last stored level, each dense level's position computed from its parent's.
ir::Expr valueOffset(const TensorStorage& s, const std::vector<std::string>& indices, const ExtentOf& extent);

}  // namespace react
