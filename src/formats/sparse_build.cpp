// Coordinates -> SparseTensor: the builder every conversion, reader and generator goes through.
//
// The entries are sorted in the format's storage order (lexicographically by the coordinates of
// level 0, 1, ...) and their duplicates summed; then the levels are built from the top. Each
// position of a level is the root of a run of the sorted entries (its "node"), all with the same
// coordinates at the levels so far: the root holds every entry; a unique level splits its parent's
// run by coordinate (a dense level into one run per coordinate, empty ones included), a non-unique
// compressed level into one run per entry, and a singleton level keeps its parent's run, which must
// be one entry. The last level's runs are single entries or empty (a dense position no entry reaches).
#include "formats/formats.hpp"
#include "formats/sparse_build.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace react {

namespace detail {

namespace {

// Sorts the entries in storage order (stably: duplicates stay in input order) and sums the
// duplicates in that order, keeping explicit zeros. Entries already sorted and unique (generators,
// most files) are left as they are after one pass.
void sortAndSum(std::vector<std::vector<int32_t>>& c, std::vector<double>& val, const std::string& name) {
  const int64_t n = static_cast<int64_t>(val.size());
  const int L = static_cast<int>(c.size());
  // -1, 0, 1 as entry a's coordinates are below, equal to or above entry b's.
  auto compare = [&](int64_t a, int64_t b) {
    for (int l = 0; l < L; ++l)
      if (c[l][a] != c[l][b]) return c[l][a] < c[l][b] ? -1 : 1;
    return 0;
  };
  bool sorted = true, unique = true;
  for (int64_t k = 1; k < n && sorted; ++k) {
    const int order = compare(k - 1, k);
    sorted = order <= 0;
    unique = unique && order < 0;
  }
  if (sorted && unique) return;
  if (!sorted) {
    const std::string what = name + ": sorting " + std::to_string(n) + " entries";
    std::vector<int64_t> perm = allocateArray<int64_t>(n, what);
    std::iota(perm.begin(), perm.end(), int64_t{0});
    std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) { return compare(a, b) < 0; });
    std::vector<int32_t> crd = allocateArray<int32_t>(n, what);
    for (int l = 0; l < L; ++l) {
      for (int64_t k = 0; k < n; ++k) crd[k] = c[l][perm[k]];
      c[l].swap(crd);
    }
    std::vector<double> v = allocateArray<double>(n, what);
    for (int64_t k = 0; k < n; ++k) v[k] = val[perm[k]];
    val.swap(v);
  }
  int64_t w = 0;
  for (int64_t k = 0; k < n; ++k) {
    if (w > 0 && compare(w - 1, k) == 0) {
      val[w - 1] += val[k];
      continue;
    }
    for (int l = 0; l < L; ++l) c[l][w] = c[l][k];
    val[w++] = val[k];
  }
  for (auto& crd : c) crd.resize(static_cast<size_t>(w));
  val.resize(static_cast<size_t>(w));
}

// node[p] .. node[p+1]-1 are the entries under position p; `count` positions, then node[count] = n.
std::vector<int64_t> nodeStarts(int64_t count, const std::string& what) {
  return allocateArray<int64_t>(count + 1, what);
}

// The positions of every level, counted before anything is allocated, so that a dense level of
// more positions than fit is an error at once: a dense level has its parents times its extent; a
// compressed one, one per entry below a non-unique compressed level (which splits the entries
// into one run each) or at one, else one per distinct coordinates of the levels so far; a
// singleton one as many as its parents.
std::vector<int64_t> positionCounts(const Format& format, const std::vector<int64_t>& shape,
                                    const std::vector<std::vector<int32_t>>& c, const std::string& name) {
  const int L = format.rank();
  const int64_t n = c.empty() ? 0 : static_cast<int64_t>(c[0].size());
  std::vector<int64_t> distinct(static_cast<size_t>(L), 0);  // entries whose coordinates 0..l differ from the last's
  for (int64_t k = 0; k < n; ++k) {
    int first = 0;
    while (k > 0 && first < L && c[first][k] == c[first][k - 1]) ++first;
    for (int l = first; l < L; ++l) ++distinct[l];
  }
  std::vector<int64_t> count(static_cast<size_t>(L));
  int64_t parents = 1;
  bool split = false;
  for (int l = 0; l < L; ++l) {
    const Level& level = format.level(l);
    const int64_t extent = shape[format.dimension(l)];
    if (level.kind == LevelKind::Dense)
      count[l] = checkedElementCount({parents, extent}, sizeof(double),
                                     name + ": level " + std::to_string(l) + " (dense) of " +
                                         extentsText({parents, extent}, "positions"));
    else if (level.kind == LevelKind::Compressed)
      count[l] = split || !level.unique ? n : distinct[l];
    else
      count[l] = parents;
    split = split || (level.kind == LevelKind::Compressed && !level.unique);
    parents = count[l];
  }
  return count;
}

}  // namespace

SparseTensor buildSparse(const Format& format, std::vector<int64_t> shape, std::vector<std::vector<int32_t>> crd,
                         std::vector<double> val, ValueType type, const std::string& name) {
  const int L = format.rank();
  REACT_ASSERT(L >= 1 && static_cast<int>(shape.size()) == L && static_cast<int>(crd.size()) == L,
               "buildSparse: the format, shape and coordinates disagree on the rank");
  std::vector<std::vector<int32_t>> c(static_cast<size_t>(L));  // by storage level
  for (int l = 0; l < L; ++l) c[l] = std::move(crd[format.dimension(l)]);
  sortAndSum(c, val, name);
  const int64_t n = static_cast<int64_t>(val.size());
  const std::vector<int64_t> count = positionCounts(format, shape, c, name);

  SparseTensor t;
  t.format = format;
  t.shape = std::move(shape);
  t.levels.resize(static_cast<size_t>(L));
  // The values first: the largest array of a format with dense levels.
  t.val = allocateArray<double>(count[L - 1], name + ": " + extentsText({count[L - 1]}, "values"));
  std::vector<int64_t> node{0, n};  // the root holds every entry
  for (int l = 0; l < L; ++l) {
    const Level& level = format.level(l);
    LevelArrays& a = t.levels[l];
    const int64_t parents = static_cast<int64_t>(node.size()) - 1;
    const int64_t extent = t.shape[format.dimension(l)];
    const std::string what = name + ": the positions of level " + std::to_string(l) + " (" + level.str() + ")";
    const int32_t* cl = c[l].data();
    std::vector<int64_t> next;
    if (level.kind == LevelKind::Dense) {
      // Every coordinate under each parent: `extent` runs per parent, most of them empty.
      next = nodeStarts(count[l], what);
      for (int64_t p = 0; p < parents; ++p) {
        int64_t k = node[p];
        for (int64_t x = 0; x < extent; ++x) {
          next[p * extent + x] = k;
          while (k < node[p + 1] && cl[k] == x) ++k;
        }
      }
    } else if (level.kind == LevelKind::Compressed) {
      // A unique level has one position per coordinate under a parent, a non-unique one one per entry.
      a.pos = nodeStarts(parents, what);
      a.crd = allocateArray<int32_t>(count[l], what);
      next = nodeStarts(count[l], what);
      int64_t q = 0;
      for (int64_t p = 0; p < parents; ++p) {
        for (int64_t k = node[p]; k < node[p + 1]; ++k)
          if (!level.unique || k == node[p] || cl[k] != cl[k - 1]) a.crd[q] = cl[k], next[q++] = k;
        a.pos[p + 1] = q;
      }
      REACT_ASSERT(q == count[l], "buildSparse: the positions of a compressed level were miscounted");
    } else {
      a.crd = allocateArray<int32_t>(parents, what);
      for (int64_t p = 0; p < parents; ++p) {
        const int64_t under = node[p + 1] - node[p];
        if (under != 1)
          throw UserError(name + ": format " + format.str() + " cannot store these entries: its level " +
                          std::to_string(l) + " (" + level.str() + ") needs exactly one entry under each position " +
                          "of the level above, and " + positionText(t, l - 1, p) + " has " + std::to_string(under));
        a.crd[p] = cl[node[p]];
      }
      next = std::move(node);
    }
    next.back() = n;
    node = std::move(next);
    std::vector<int32_t>().swap(c[l]);  // level l's coordinates are stored
  }

  for (int64_t q = 0; q < count[L - 1]; ++q) {
    REACT_ASSERT(node[q + 1] - node[q] <= 1, "buildSparse: a position of the last level holds several entries");
    if (node[q + 1] > node[q]) t.val[q] = val[node[q]];
  }
  t.setValueType(type);

  // Below a non-unique level, a unique one cannot tell apart entries that differ only further down
  // (elsewhere the levels are in order as built).
  bool belowNonunique = false, check = false;
  for (const Level& level : format.levels()) {
    check = check || (belowNonunique && level.unique);
    belowNonunique = belowNonunique || !level.unique;
  }
  const OrderViolation v = check ? firstOrderViolation(t) : OrderViolation{};
  if (v.level >= 0)
    throw UserError(name + ": format " + format.str() + " cannot store these entries: its level " +
                    std::to_string(v.level) + " (" + format.level(v.level).str() + ") is unique, and " +
                    "the entries at " + positionText(t, v.level, v.position) + " would repeat its coordinate");
  return t;
}

}  // namespace detail

SparseTensor cooToSparse(const CooTensor& coo, const Format& format) {
  const int R = coo.rank();
  const int64_t n = coo.entries();
  auto fail = [](const std::string& what) { throw UserError("cooToSparse: " + what); };
  if (R == 0) fail("no dimensions (a sparse tensor has rank 1 or more)");
  if (format.rank() != R)
    fail("format " + format.str() + " has " + std::to_string(format.rank()) + " levels, the tensor " +
         std::to_string(R) + " dimensions");
  if (static_cast<int>(coo.crd.size()) != R)
    fail(std::to_string(coo.crd.size()) + " coordinate lists for " + std::to_string(R) + " dimensions");
  for (int d = 0; d < R; ++d) {
    if (static_cast<int64_t>(coo.crd[d].size()) != n)
      fail("dimension " + std::to_string(d) + " has " + std::to_string(coo.crd[d].size()) + " coordinates, val " +
           std::to_string(n) + " values");
    if (coo.shape[d] < 0) fail("dimension " + std::to_string(d) + " has negative size " + std::to_string(coo.shape[d]));
  }
  detail::checkCoordinateBits(coo.shape, "cooToSparse");
  std::vector<std::vector<int32_t>> crd(static_cast<size_t>(R));
  for (int d = 0; d < R; ++d) {
    crd[d].resize(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) {
      const int64_t x = coo.crd[d][k];
      if (x < 0 || x >= coo.shape[d]) {
        std::string at;
        for (int e = 0; e < R; ++e) at += (e ? ", " : "(") + std::to_string(coo.crd[e][k]);
        fail("entry " + std::to_string(k) + " at " + at + ") is outside the " + extentsText(coo.shape, "tensor"));
      }
      crd[d][k] = static_cast<int32_t>(x);
    }
  }
  return detail::buildSparse(format, coo.shape, std::move(crd), coo.val, coo.valueType, "cooToSparse");
}

}  // namespace react
