// SparseTensor's invariants: validate, and the order check and position names it shares with the
// builder (sparse_build.hpp).
#include "formats/formats.hpp"
#include "formats/sparse_build.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace react {

namespace detail {

namespace {

// The coordinate at `position` of level l and the position of its parent in the level above.
std::pair<int64_t, int64_t> coordinateAndParent(const SparseTensor& t, int l, int64_t position) {
  const LevelArrays& a = t.levels[l];
  switch (t.format.level(l).kind) {
    case LevelKind::Dense: {
      const int64_t n = t.shape[t.format.dimension(l)];
      return {position % n, position / n};
    }
    case LevelKind::Compressed: {
      // The last parent whose children start at or before the position (pos never decreases).
      const int64_t parent = std::upper_bound(a.pos.begin(), a.pos.end(), position) - a.pos.begin() - 1;
      return {a.crd[position], parent};
    }
    case LevelKind::Singleton: return {a.crd[position], position};
  }
  return {0, 0};
}

}  // namespace

std::string positionText(const SparseTensor& t, int level, int64_t position) {
  std::vector<std::string> logical(static_cast<size_t>(t.rank()), "*");
  for (int l = level; l >= 0; --l) {
    const auto [c, parent] = coordinateAndParent(t, l, position);
    logical[t.format.dimension(l)] = std::to_string(c);
    position = parent;
  }
  std::string s;
  for (const std::string& c : logical) s += (s.empty() ? "(" : ", ") + c;
  return s + ")";
}

OrderViolation firstOrderViolation(const SparseTensor& t) {
  // group[q]: which distinct coordinates of the levels so far position q has (equal for equal
  // coordinates, increasing with the position). While every level so far is unique, positions
  // are their own groups and no array is kept: two positions of a unique level under different
  // parents differ in the coordinates above.
  std::vector<int64_t> above, here;
  bool grouped = false;
  int64_t parents = 1;
  for (int l = 0; l < t.rank(); ++l) {
    const Level& level = t.format.level(l);
    const LevelArrays& a = t.levels[l];
    const int64_t n = t.shape[t.format.dimension(l)];
    const int64_t count = level.kind == LevelKind::Dense        ? parents * n
                          : level.kind == LevelKind::Compressed ? a.pos[parents]
                                                                : parents;
    const bool grouping = grouped || !level.unique;
    here.assign(grouping ? count : 0, 0);
    int64_t previous = -1, previousCoordinate = 0, previousGroup = -1;
    for (int64_t p = 0; p < parents; ++p) {
      const int64_t group = grouped ? above[p] : p;
      const int64_t begin = level.kind == LevelKind::Dense        ? p * n
                            : level.kind == LevelKind::Compressed ? a.pos[p]
                                                                  : p;
      const int64_t end = level.kind == LevelKind::Dense        ? begin + n
                          : level.kind == LevelKind::Compressed ? a.pos[p + 1]
                                                                : p + 1;
      for (int64_t q = begin; q < end; ++q) {
        const int64_t c = level.kind == LevelKind::Dense ? q - begin : a.crd[q];
        const bool sameAbove = previous >= 0 && previousGroup == group;
        if (sameAbove && (c < previousCoordinate || (c == previousCoordinate && level.unique)))
          return {l, q, previous};
        if (grouping) here[q] = previous < 0 ? 0 : here[previous] + (sameAbove && c == previousCoordinate ? 0 : 1);
        previous = q, previousCoordinate = c, previousGroup = group;
      }
    }
    above.swap(here);
    grouped = grouping;
    parents = count;
  }
  return {};
}

}  // namespace detail

void SparseTensor::validate() const {
  auto fail = [](const std::string& what) { throw UserError("invalid sparse tensor: " + what); };
  const int L = rank();
  if (L == 0) fail("its format has no levels (a sparse tensor has rank 1 or more)");
  if (static_cast<int>(shape.size()) != L)
    fail("format " + format.str() + " has " + std::to_string(L) + " levels, the shape " + std::to_string(shape.size()) +
         " dimensions");
  if (static_cast<int>(levels.size()) != L)
    fail(std::to_string(levels.size()) + " level arrays for the " + std::to_string(L) + " levels of format " +
         format.str());
  for (int d = 0; d < L; ++d)
    if (shape[d] < 0) fail("dimension " + std::to_string(d) + " has negative size " + std::to_string(shape[d]));

  int64_t parents = 1;  // positions of the level above (the root: one)
  for (int l = 0; l < L; ++l) {
    const Level& level = format.level(l);
    const LevelArrays& a = levels[l];
    const int64_t n = shape[format.dimension(l)];
    const std::string name = "level " + std::to_string(l) + " (" + level.str() + ")";
    const std::string above =
        l == 0 ? std::string("the root's 1 position")
               : "level " + std::to_string(l - 1) + "'s " + std::to_string(parents) + " positions";
    if (!level.storesPositions() && !a.pos.empty()) fail(name + " keeps a pos array; only a compressed level does");
    if (!level.storesCoordinates() && !a.crd.empty()) fail(name + " keeps a crd array; a dense level keeps none");
    int64_t count = parents;
    if (level.kind == LevelKind::Dense) {
      count = checkedElementCount({parents, n}, sizeof(double),
                                  "invalid sparse tensor: " + name + " of " + extentsText({parents, n}, "positions"));
    } else if (level.kind == LevelKind::Compressed) {
      if (static_cast<int64_t>(a.pos.size()) != parents + 1)
        fail(name + ": pos has " + std::to_string(a.pos.size()) + " entries, expected " + std::to_string(parents + 1) +
             " (one more than " + above + ")");
      if (a.pos[0] != 0) fail(name + ": pos[0] is " + std::to_string(a.pos[0]) + ", expected 0");
      for (int64_t p = 0; p < parents; ++p)
        if (a.pos[p + 1] < a.pos[p])
          fail(name + ": pos decreases at parent position " + std::to_string(p) + " (" + std::to_string(a.pos[p]) +
               " > " + std::to_string(a.pos[p + 1]) + ")");
      count = a.pos[parents];
      if (static_cast<int64_t>(a.crd.size()) != count)
        fail(name + ": crd has " + std::to_string(a.crd.size()) + " entries, expected pos[" + std::to_string(parents) +
             "] = " + std::to_string(count));
    } else if (static_cast<int64_t>(a.crd.size()) != count) {
      fail(name + ": crd has " + std::to_string(a.crd.size()) + " entries, expected one per position of " +
           (l == 0 ? std::string("the root, 1") : "level " + std::to_string(l - 1) + ", " + std::to_string(parents)));
    }
    for (size_t q = 0; q < a.crd.size(); ++q)
      if (a.crd[q] < 0 || a.crd[q] >= n)
        fail(name + ": coordinate " + std::to_string(a.crd[q]) + " at position " + std::to_string(q) +
             " is outside 0.." + std::to_string(n - 1) + " (dimension " + std::to_string(format.dimension(l)) + ")");
    parents = count;
  }
  if (nnz() != parents)
    fail("val has " + std::to_string(nnz()) + " entries, expected " + std::to_string(parents) +
         " (one per position of level " + std::to_string(L - 1) + ")");

  const detail::OrderViolation v = detail::firstOrderViolation(*this);
  if (v.level >= 0) {
    const int l = v.level;
    const int64_t n = shape[format.dimension(l)];
    auto coordinate = [&](int64_t q) -> int64_t {
      return format.level(l).kind == LevelKind::Dense ? q % n : levels[l].crd[q];
    };
    const int64_t c = coordinate(v.position), before = coordinate(v.previous);
    const std::string name = "level " + std::to_string(l) + " (" + format.level(l).str() + "): ";
    const std::string at = detail::positionText(*this, l, v.position);
    if (c == before)
      fail(name + "coordinate " + std::to_string(c) + " repeats at " + at + " (positions " +
           std::to_string(v.previous) + " and " + std::to_string(v.position) + "), and the level is unique");
    fail(name + "coordinates out of order at " + at + ": " + std::to_string(c) + " at position " +
         std::to_string(v.position) + " follows " + std::to_string(before) + " at position " +
         std::to_string(v.previous) + " under the same coordinates of the levels above");
  }
  for (size_t k = 0; k < val.size(); ++k)
    if (roundTo(valueType, val[k]) != val[k] && !std::isnan(val[k]))
      fail("value " + std::to_string(k) + " (" + std::to_string(val[k]) + ") is not a " + toString(valueType) +
           " value");
}

void SparseTensor::setValueType(ValueType t) {
  valueType = t;
  for (double& v : val) v = roundTo(t, v);
}

}  // namespace react
