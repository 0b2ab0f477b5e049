// react/formats: level formats, the structure of a tensor's storage, one level per dimension.
//
// After TACO's mode formats (Chou, Kjolstad, Amarasinghe, "Format Abstraction for Sparse Tensor
// Algebra Compilers", OOPSLA 2018). A tensor is stored as a tree of levels: every position of
// level l-1 (the root is the single position 0 above level 0) is the parent of a run of positions
// of level l, each holding one coordinate of the dimension that level stores; the values sit at
// the positions of the last level. A level kind says how the children of one parent are found,
// so that CSR, CSC, DCSR, COO and CSF are configurations of levels, not cases of their own.
// docs/formats.md describes them and what runs today.
#pragma once

#include <string>
#include <vector>

namespace react {

enum class LevelKind {
  // Every coordinate 0..N-1 under each parent position p, at position p * N + coordinate: no
  // array is stored.
  Dense,
  // The children of parent position p are the positions pos[p] .. pos[p+1]-1, and crd[q] is the
  // coordinate at position q (CSR's column level: pos = rowptr, crd = col).
  Compressed,
  // Exactly one child per parent position, at the parent's own position; crd[q] is its
  // coordinate (COO's levels after the first).
  Singleton,
};

// One level: its kind and TACO's properties that vary by configuration. Every level react
// describes is ordered (coordinates increase under one parent, as csr's columns do) and compact
// (positions without gaps); those properties get a field with the first format that breaks them.
struct Level {
  LevelKind kind = LevelKind::Dense;
  // No two entries with the same coordinates in the levels above have the same coordinate here.
  // Every level of COO but the last is not unique: a row repeats once per entry of the row.
  bool unique = true;

  static Level dense() { return Level{LevelKind::Dense, true}; }
  static Level compressed(bool unique = true) { return Level{LevelKind::Compressed, unique}; }
  static Level singleton(bool unique = true) { return Level{LevelKind::Singleton, unique}; }

  // Every coordinate of the dimension is present under each parent position (dense). A tensor
  // with a level that is not full stores only some entries: its values are a pattern's.
  bool full() const { return kind == LevelKind::Dense; }
  // A loop over the level runs over positions, from bounds that need the parent level's position
  // bound first, and reads the coordinate stored at each position (compressed, singleton). The
  // index tree gives such a level a Sparse loop nested under the loop of its parent level.
  bool iteratedByPosition() const { return kind != LevelKind::Dense; }
  // The position of a given coordinate is computed, without a search (dense): a loop over the
  // level is a plain range loop over the dimension's extent.
  bool locatable() const { return kind == LevelKind::Dense; }
  // The arrays the level keeps: pos (compressed) and crd (compressed, singleton).
  bool storesPositions() const { return kind == LevelKind::Compressed; }
  bool storesCoordinates() const { return kind != LevelKind::Dense; }

  // TACO's letter: 'd' dense, 's' compressed, 'u' compressed, not unique, 'q' singleton,
  // 'c' singleton, not unique.
  char letter() const;
  std::string str() const;  // "dense", "compressed", "compressed-nonunique", "singleton", ...
  bool operator==(const Level& o) const { return kind == o.kind && unique == o.unique; }
  bool operator!=(const Level& o) const { return !(*this == o); }
};

// A tensor's format: its levels in storage order and the mode ordering, which dimension each
// level stores (TACO writes `-f=B:sss:1,0,2`). CSC is csr's levels over the dimensions (1, 0).
// The constructor keeps the ordering a permutation of the levels.
class Format {
 public:
  // No levels: a scalar, or (for a tensor of higher rank) a format not given, which the front end
  // infers.
  Format() = default;
  // `levels` one per dimension, outermost first; `ordering` empty means the identity. Throws
  // react::UserError when it is not a permutation of 0..levels.size()-1.
  explicit Format(std::vector<Level> levels, std::vector<int> ordering = {});

  // The named configurations.
  static Format dense(int rank);  // d...d: row-major
  static Format csr();            // ds
  static Format csc();            // ds:1,0
  static Format dcsr();           // ss
  static Format coo(int rank);    // u c...c q (rank 1: s): a compressed-nonunique level, then singletons
  static Format csf(int rank);    // s...s

  const std::vector<Level>& levels() const { return levels_; }
  const std::vector<int>& ordering() const { return ordering_; }  // TACO's mode ordering
  int rank() const { return static_cast<int>(levels_.size()); }
  const Level& level(int l) const { return levels_.at(static_cast<size_t>(l)); }
  int dimension(int level) const { return ordering_.at(static_cast<size_t>(level)); }  // stored at `level`
  int levelOf(int dimension) const;  // the storage level of a logical dimension
  // Some level is not full: the tensor's values are the stored entries of a pattern, as many as
  // the positions of its last level, rather than one per coordinate.
  bool hasSparseLevel() const;
  // The levels that hold a pattern: all but the dense levels below the last level that is not
  // dense (ssd: 2, csr: 2, csf: 3; dense: 0). A format with levels past them keeps a block of
  // dense values under each position of its last pattern level (TTM's ssd: a row of l per (i,j)
  // fibre).
  int patternLevels() const;
  // Dense levels under a sparse one (ssd, dsd): a block of values per position of the last
  // pattern level, not one value per stored entry.
  bool storesPatternPrefix() const;
  // The format kernels iterate for this one: each compressed-nonunique and singleton level a
  // compressed (unique) level, the mode ordering kept (coo: dcsr for a matrix, csf for a 3-tensor).
  // It stores the same entries (repeated coordinates summed, as the sum a repeat means), and a
  // loop over it visits each coordinate once, where a loop over a repeating level would compute a
  // whole row per repeat. Every other format is its own.
  Format iterated() const;

  // The configuration's name ("csr", "dense", "coo", ...; "dense" also for no levels), or the
  // level letters with the ordering when it is not the identity ("sd", "dd:1,0").
  std::string str() const;
  bool operator==(const Format& o) const { return levels_ == o.levels_ && ordering_ == o.ordering_; }
  bool operator!=(const Format& o) const { return !(*this == o); }

 private:
  std::vector<Level> levels_;
  std::vector<int> ordering_;  // ordering_[l] = the logical dimension stored at level l
};

// Reads a format as react-gen's -f= option spells it: a name (dense, csr, csc, dcsr, coo, csf)
// or TACO's level letters (d, s, u, q, c; "ds", "sss", "uq") with an optional mode ordering
// after ':' ("sss:1,0,2"). `rank` is the tensor's, for the names of any rank (dense, coo, csf).
// parseFormat(f.str(), f.rank()) == f. Throws react::UserError "unknown format 'x' (expected ...)"
// and the like; the caller names the argument.
Format parseFormat(const std::string& text, int rank);

}  // namespace react
