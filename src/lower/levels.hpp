// How lowering walks and addresses a tensor's storage, level by level, in the manner of TACO's
// mode formats (formats/levels.hpp): the loop over a level asks the level for its bounds and for
// the coordinate at a position; an access asks each level of the tensor's format for its position
// under the parent's (internal to src/lower).
#pragma once

#include "lower/ir/ir.hpp"

#include <functional>

namespace react {

using ExtentOf = std::function<ir::Expr(const std::string& index)>;

// An index's extent in a kernel: a constant, or the size passed at run time (a sparse dimension's).
ir::Expr indexExtent(const std::string& index, const std::map<std::string, int64_t>& indexSizes,
                     const std::vector<std::string>& runtimeSizes);

// A loop over one level: its counter and bounds, and the statements that bind the coordinate the
// loop's index names (none for a level iterated by coordinate, whose counter is the coordinate).
struct LevelIteration {
  ir::Name counter;
  ir::Expr lo, hi;
  std::vector<ir::Stmt> bind;
};
// `pattern` is the format of the tensor whose level a Sparse loop iterates (unused for a Dense
// loop): the loop reads that level's pos and crd (the ABI passes them per level), under the
// position its parent level's loop binds.
LevelIteration iterateLevel(const IndexLoop& loop, const Format& pattern, const ExtentOf& extent);

// Does the loop visit a level by position (a compressed level), not by coordinate?
bool iteratesPositions(const IndexLoop& loop);
// Are the tensor's values stored at the positions of its pattern's last level, one per stored
// entry, rather than one per coordinate?
bool storesPositions(const TensorStorage& s);

// The offset of an element in a tensor's values, for an access at these indices: walking the
// levels in storage order, a locatable level's position is computed from its parent's, a level
// iterated by position takes the position its loop binds. A shrunk tensor is stored densely over
// the dimensions it keeps.
// `position` names the position a loop binds for (index, pattern, level): a position loop's is
// its index's (the default), a merge's is the finger's of that pattern (ir::mergePosition).
using PositionOf = std::function<ir::Name(const std::string& index, const std::string& pattern, int level)>;
ir::Expr valueOffset(const TensorStorage& s, const std::vector<std::string>& indices, const ExtentOf& extent,
                     const PositionOf& position = {});

}  // namespace react
