// react/formats internal: building a SparseTensor from coordinates and walking its stored
// positions, shared by the conversions, the readers and the generators. Not part of the public API.
#pragma once

#include "formats/formats.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace react::detail {

// n value-initialized elements, through checkedElementCount and allocateOrThrow: `what` names the
// array in the error when it does not fit.
template <typename T>
std::vector<T> allocateArray(int64_t n, const std::string& what) {
  checkedElementCount({n}, sizeof(T), what);
  return allocateOrThrow(what, n * static_cast<int64_t>(sizeof(T)),
                         [&] { return std::vector<T>(static_cast<size_t>(n)); });
}

// Stores entries in `format`, as cooToSparse documents: crd[d] holds the 0-based coordinates of
// logical dimension d, one per value. Preconditions (checked by the callers): format.rank() ==
// shape.size() == crd.size() >= 1, every list as long as val, every coordinate within its
// dimension, every dimension at most 2^31. The arrays are consumed. `name` (a file name, or the
// caller) starts the errors.
SparseTensor buildSparse(const Format& format, std::vector<int64_t> shape, std::vector<std::vector<int32_t>> crd,
                         std::vector<double> val, ValueType type, const std::string& name);

// convertFormat and denseToSparse, with `name` (a file name) starting their errors.
SparseTensor convertFormat(const SparseTensor& t, const Format& format, const std::string& name);
SparseTensor denseToSparse(const DenseTensor& dense, const Format& format, const std::string& name);
// react::UserError "name: dimension d of size N does not fit 32-bit coordinates" for a dimension
// beyond 2^31 (buildSparse's precondition).
void checkCoordinateBits(const std::vector<int64_t>& shape, const std::string& name);

// The first position, in storage order, whose coordinate is out of order: below the previous
// position's under the same coordinates of the levels above, or equal to it where the level is
// unique. level == -1: none. Needs the arrays' sizes and coordinates valid (validate's first
// checks).
struct OrderViolation {
  int level = -1;
  int64_t position = 0, previous = 0;
};
OrderViolation firstOrderViolation(const SparseTensor& t);

// "(0, 2, *)": the coordinates of `position` of `level` (its own and those of the levels above),
// in logical order, '*' for the dimensions stored below it. Needs levels 0..level valid.
std::string positionText(const SparseTensor& t, int level, int64_t position);

// Calls visit(coords, value) for every position of the last level, in storage order, where
// coords[l] is the coordinate at level l (storage order: logical dimension format.dimension(l)).
// Needs a valid tensor.
template <typename Visit>
void forEachStored(const SparseTensor& t, Visit&& visit) {
  const int L = t.rank();
  std::vector<int64_t> coords(L), q(L), begin(L), end(L);
  // Children of position p of the level above (the root: 0) at level l: [begin[l], end[l]).
  auto enter = [&](int l, int64_t p) {
    const LevelArrays& a = t.levels[l];
    const int64_t n = t.shape[t.format.dimension(l)];
    switch (t.format.level(l).kind) {
      case LevelKind::Dense: begin[l] = p * n, end[l] = begin[l] + n; break;
      case LevelKind::Compressed: begin[l] = a.pos[p], end[l] = a.pos[p + 1]; break;
      case LevelKind::Singleton: begin[l] = p, end[l] = p + 1; break;
    }
    q[l] = begin[l];
  };
  enter(0, 0);
  for (int l = 0; l >= 0;) {
    if (q[l] == end[l]) {
      if (--l >= 0) ++q[l];
      continue;
    }
    coords[l] = t.format.level(l).kind == LevelKind::Dense ? q[l] - begin[l] : t.levels[l].crd[q[l]];
    if (l + 1 == L) {
      visit(static_cast<const int64_t*>(coords.data()), t.val[q[l]]);
      ++q[l];
    } else {
      enter(l + 1, q[l]);
      ++l;
    }
  }
}

}  // namespace react::detail
