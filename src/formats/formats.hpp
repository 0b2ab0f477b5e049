// react/formats: the tensor storage every other stage reads and writes.
//
// Value types (float32, float64), dense tensors (row-major, any rank), CSR matrices (64-bit row positions, 32- or 64-bit
// column coordinates, sorted unique columns per row), sparse tensors of any rank in any level
// format (levels.hpp describes the formats), COO as the interchange form, Matrix Market and FROSTT
// I/O and seeded synthetic generators. Nothing here knows about expressions or kernels.
#pragma once

#include "formats/errors.hpp"
#include "formats/levels.hpp"

#include <Eigen/SparseCore>

#include <cstdint>
#include <new>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace react {

// ---------------------------------------------------------------------------------------------
// Sizes. Every element count computed from user input (a shape, a file's size line, index extents)
// goes through checkedElementCount, and every allocation sized by user input through
// allocateOrThrow, so that an impossible size is a react::UserError that names what needed the memory
// and how much, never a wrapped-around size, a crash or an uncaught std::bad_alloc.

// The number of elements of an array with these extents (each >= 0), checked so that it and its
// size in bytes (elementBytes each) fit int64_t; otherwise throws react::UserError
// "<what> needs more than 2^63 bytes".
int64_t checkedElementCount(const std::vector<int64_t>& extents, int64_t elementBytes, const std::string& what);
// "4294967296 x 4294967296 doubles": extents and element kind, for `what` above.
std::string extentsText(const std::vector<int64_t>& extents, const std::string& elements);
// A byte count for messages: "745 GiB", "1.5 MiB", "24 bytes".
std::string bytesText(int64_t bytes);
// Returns allocate()'s result; a std::bad_alloc it throws becomes react::UserError
// "<what> needs <bytes>: cannot allocate".
template <typename Allocate>
auto allocateOrThrow(const std::string& what, int64_t bytes, Allocate&& allocate) -> decltype(allocate()) {
  try {
    return allocate();
  } catch (const std::bad_alloc&) {
    throw UserError(what + " needs " + bytesText(bytes) + ": cannot allocate");
  }
}

// ---------------------------------------------------------------------------------------------
// Value types. Host containers hold every value as a double and record the type the values have:
// a float32 tensor's values are float32 values (exactly representable as float), so its host copy
// converts to a float array and back without loss (the kernel binding does, lower.hpp).
enum class ValueType { Float32, Float64 };
std::string toString(ValueType t);  // "float32" / "float64"
// "float32" or "float64"; anything else is react::UserError
// "<argument>: unknown value type 'x' (expected float32 or float64)".
ValueType parseValueType(const std::string& text, const std::string& argument);
int64_t valueBytes(ValueType t);  // 4 or 8
// v as a value of type t: rounded to the nearest float32 (+-inf beyond its range), or v itself.
double roundTo(ValueType t, double v);
ValueType widest(ValueType a, ValueType b);  // float64 if either is

// ---------------------------------------------------------------------------------------------
// Dense
struct DenseTensor {
  std::vector<int64_t> shape;  // empty = scalar
  std::vector<double> data;    // row-major, size = product(shape)
  ValueType valueType = ValueType::Float64;  // the values are of this type (see "Value types")

  DenseTensor() : data(1, 0.0) {}
  // `name` is for the error when the tensor does not fit ("tensor 'B' (...) needs 745 GiB").
  explicit DenseTensor(std::vector<int64_t> shape, double fill = 0.0, const std::string& name = "");
  int rank() const { return static_cast<int>(shape.size()); }
  int64_t size() const { return static_cast<int64_t>(data.size()); }
  double& at(std::initializer_list<int64_t> idx);
  double at(std::initializer_list<int64_t> idx) const;
  // Records t and rounds every value to it.
  void setValueType(ValueType t);
};

// ---------------------------------------------------------------------------------------------
// CSR. Index is the coordinate type (int32_t or int64_t); positions are always 64-bit.
template <typename Index>
struct CsrMatrixT {
  int64_t rows = 0, cols = 0;
  std::vector<int64_t> rowptr{0};  // size rows+1
  std::vector<Index> col;          // size nnz, sorted and unique within each row
  std::vector<double> val;         // size nnz (explicit zeros are kept)
  ValueType valueType = ValueType::Float64;  // the values are of this type (see "Value types")

  int64_t nnz() const { return static_cast<int64_t>(col.size()); }
  // Throws react::UserError naming the first broken invariant (a value that is not of valueType too).
  void validate() const;
  // Records t and rounds every value to it.
  void setValueType(ValueType t);
  bool operator==(const CsrMatrixT& o) const {
    return rows == o.rows && cols == o.cols && rowptr == o.rowptr && col == o.col && val == o.val &&
           valueType == o.valueType;
  }
};
using CsrMatrix = CsrMatrixT<int32_t>;
using CsrMatrix64 = CsrMatrixT<int64_t>;

// The structural invariants of CSR arrays held anywhere (CsrMatrixT::validate's, on raw arrays):
// rows+1 positions from 0 to nnz, never decreasing; columns in [0, cols), sorted and unique within
// each row. Throws react::UserError "invalid CSR matrix: ..." naming the first one broken. Code
// that reads csr arrays unchecked (a kernel) needs them.
template <typename Index>
void validateCsrArrays(int64_t rows, int64_t cols, const int64_t* rowptr, const Index* col, int64_t nnz);

CsrMatrix64 toCsr64(const CsrMatrix& a);
CsrMatrix toCsr32(const CsrMatrix64& a);  // throws react::UserError if a coordinate does not fit

// ---------------------------------------------------------------------------------------------
// COO: unsorted triplets, duplicates allowed (summed on conversion to CSR).
struct CooMatrix {
  int64_t rows = 0, cols = 0;
  std::vector<int64_t> row, col;
  std::vector<double> val;
  int64_t entries() const { return static_cast<int64_t>(row.size()); }
};

CsrMatrix cooToCsr(const CooMatrix& coo);  // sorts, sums duplicates, keeps explicit zeros; float64
CooMatrix csrToCoo(const CsrMatrix& csr);
DenseTensor csrToDense(const CsrMatrix& csr);    // keeps the value type
CsrMatrix denseToCsr(const DenseTensor& dense);  // rank 2; stores the nonzeros only; keeps the value type

using EigenCsr = Eigen::SparseMatrix<double, Eigen::RowMajor, int64_t>;
EigenCsr toEigen(const CsrMatrix& csr);
CsrMatrix fromEigen(const EigenCsr& m);

// ---------------------------------------------------------------------------------------------
// Sparse tensors of any rank, stored as a Format describes (levels.hpp, docs/formats.md): csr,
// csc, dcsr and coo matrices, csf and coo 3-tensors, any level configuration in any mode order.
// Positions are 64-bit and coordinates 32-bit, as in CsrMatrix: a tensor built here has every
// dimension at most 2^31, so that a coordinate fits, and csr is CsrMatrix's arrays exactly.

// The arrays one level keeps: pos (compressed: one more than the positions of the level above,
// children of parent position p at pos[p] .. pos[p+1]-1) and crd (compressed and singleton: the
// coordinate at each position). A dense level keeps neither: its extent is the dimension's size.
struct LevelArrays {
  std::vector<int64_t> pos;
  std::vector<int32_t> crd;
  bool operator==(const LevelArrays& o) const { return pos == o.pos && crd == o.crd; }
};

struct SparseTensor {
  Format format;                     // rank >= 1 levels
  std::vector<int64_t> shape;        // shape[d]: the size of logical dimension d (not of level d)
  std::vector<LevelArrays> levels;   // levels[l]: level l's arrays, outermost first
  std::vector<double> val;           // one per position of the last level (explicit zeros are kept)
  ValueType valueType = ValueType::Float64;  // the values are of this type (see "Value types")

  int rank() const { return format.rank(); }
  int64_t nnz() const { return static_cast<int64_t>(val.size()); }  // stored values
  // Throws react::UserError "invalid sparse tensor: ..." naming the first broken invariant: the
  // shape and the arrays each level keeps (sizes, positions from 0 never decreasing, coordinates
  // within the dimension), the entries in order (under the same coordinates of the levels above,
  // a level's coordinates increase: strictly where the level is unique), one value per position
  // of the last level, each of valueType.
  void validate() const;
  // Records t and rounds every value to it.
  void setValueType(ValueType t);
  bool operator==(const SparseTensor& o) const {
    return format == o.format && shape == o.shape && levels == o.levels && val == o.val && valueType == o.valueType;
  }
};

// Coordinate lists of any rank, the interchange form (CooMatrix's, for tensors): entry k is at
// (crd[0][k], ..., crd[rank-1][k]), 0-based, in logical dimension order, with value val[k].
struct CooTensor {
  std::vector<int64_t> shape;
  std::vector<std::vector<int64_t>> crd;  // one list per dimension, each of entries()
  std::vector<double> val;
  ValueType valueType = ValueType::Float64;
  int rank() const { return static_cast<int>(shape.size()); }
  int64_t entries() const { return static_cast<int64_t>(val.size()); }
};

// The functions below that read a SparseTensor validate it first (an invalid one is
// react::UserError), so that no array is read out of bounds.

// Stores the entries in `format` (of coo's rank): sorted in the format's storage order, duplicates
// summed in input order, explicit zeros kept, then the values rounded to coo.valueType. Positions
// of dense levels no entry reaches hold 0. An entry outside the shape, a dimension beyond 2^31, or
// entries the format cannot store (a singleton level needs exactly one entry under each position
// of the level above; a unique level below a non-unique one cannot repeat a coordinate) are
// react::UserError.
SparseTensor cooToSparse(const CooTensor& coo, const Format& format);
// Every stored position as an entry, in storage order: explicit zeros, and the zeros of dense
// levels too (a dense format lists every element).
CooTensor sparseToCoo(const SparseTensor& t);
// The same stored entries in another format (sparseToCoo, then cooToSparse).
SparseTensor convertFormat(const SparseTensor& t, const Format& format);

SparseTensor csrToSparse(CsrMatrix csr);         // format csr, CsrMatrix's arrays exactly
CsrMatrix sparseToCsr(const SparseTensor& t);    // any format of rank 2; csr's arrays exactly
// A csr matrix's stored entries walked by columns: its csc form (the same shape, values and value
// type; within a column the rows increase) and, for each of its stored entries, that entry's
// position in the csr arrays. A kernel that walks a csr matrix by columns reads this and stores
// its results at the csr positions.
struct ColumnOrder {
  SparseTensor byColumns;
  std::vector<int64_t> source;
};
ColumnOrder csrByColumns(const CsrMatrix& m);
// The values at their coordinates (rank 0 tensors are not sparse tensors); entries a format with
// a non-unique last level repeats are summed.
DenseTensor sparseToDense(const SparseTensor& t);
// The nonzeros of `dense` in `format` (a dense format: every value, exactly).
SparseTensor denseToSparse(const DenseTensor& dense, const Format& format);

// ---------------------------------------------------------------------------------------------
// Matrix Market. coordinate -> CSR, array -> dense; real/integer/pattern;
// general/symmetric/skew-symmetric. Errors name file:line and what was expected.
// Read as `type`: as float32, every value is rounded to float32 as it is read (a finite value
// beyond float32's range is an error at its line); duplicate entries are summed, then rounded.
using MarketData = std::variant<CsrMatrix, DenseTensor>;
MarketData readMatrixMarket(const std::string& path, ValueType type = ValueType::Float64);
CsrMatrix readMatrixMarketCsr(const std::string& path, ValueType type = ValueType::Float64);  // error if 'array'
// Parses text already in memory; `name` is used in error messages in place of a file name.
MarketData parseMatrixMarket(const std::string& text, const std::string& name, ValueType type = ValueType::Float64);
// Values as the shortest text that reads back as the same value of the tensor's value type.
void writeMatrixMarket(const std::string& path, const CsrMatrix& m);    // coordinate real general
void writeMatrixMarket(const std::string& path, const DenseTensor& t);  // array real general, rank<=2
// Into any format of rank 2 (csr, csc, dcsr, coo, dense levels, any ordering): a coordinate file
// as readMatrixMarketCsr reads it (symmetric ones expanded, duplicates summed, explicit zeros
// kept), an array file's nonzeros (every value for a dense format). `format` of another rank is
// react::UserError.
SparseTensor readMatrixMarketSparse(const std::string& path, const Format& format,
                                    ValueType type = ValueType::Float64);
SparseTensor parseMatrixMarketSparse(const std::string& text, const std::string& name, const Format& format,
                                     ValueType type = ValueType::Float64);
// A tensor of rank 2 in any format as coordinate real general: every stored position, row by row.
void writeMatrixMarket(const std::string& path, const SparseTensor& t);
ValueType valueTypeOf(const MarketData& v);
void setValueType(MarketData& v, ValueType t);  // the tensor's setValueType

// ---------------------------------------------------------------------------------------------
// A tensor's data in the form its format has: a csr matrix as CsrMatrix (csr's arrays, which the
// csr paths read as they are), a dense (row-major) tensor as DenseTensor, a tensor of any other
// format as SparseTensor. A program's inputs and results (TensorValues) are of this kind.
using TensorData = std::variant<CsrMatrix, DenseTensor, SparseTensor>;
TensorData toTensorData(MarketData m);  // the same tensor
// A tensor stored at a prefix of `pattern`'s levels: of `format` and `shape`, its first
// format.patternLevels() levels `pattern`'s (the same kinds; their arrays copied), dense levels
// after them, every value 0 (positions of the last pattern level times the dense levels' sizes).
// `pattern` is a SparseTensor or a CsrMatrix. TTM's ssd result at its csf input's (i,j) fibres.
SparseTensor patternPrefix(const TensorData& pattern, const Format& format, const std::vector<int64_t>& shape);
// The stored entries of two tensors of one format and shape merged level by level, values all 0
// (the pattern a co-iteration assembles, docs/semantics.md "Two sparse patterns"): at each
// compressed level, under an entry of the level above, the coordinates either stores (`unite`)
// or both store, an operand without that entry storing none there; an entry above the last
// level is kept where entries are kept under it. So its entries are the union or the
// intersection of the operands' stored entries, and nothing else. csr as a CsrMatrix,
// other formats (a dense first level, then compressed unique levels) as SparseTensor. Throws
// react::UserError when the formats or shapes differ, or a level is of another kind.
TensorData mergedPattern(const TensorData& a, const TensorData& b, bool unite);
// Its number of values, checked (checkedElementCount) without building it.
int64_t patternPrefixValues(const TensorData& pattern, const Format& format, const std::vector<int64_t>& shape);
ValueType valueTypeOf(const TensorData& v);
void setValueType(TensorData& v, ValueType t);  // the tensor's setValueType
// csr, dense of the tensor's rank, or the SparseTensor's format; and the shape.
Format formatOf(const TensorData& v);
std::vector<int64_t> shapeOf(const TensorData& v);
// The stored values: csr's and a SparseTensor's one per stored position, a dense tensor's all.
const std::vector<double>& valuesOf(const TensorData& v);
std::vector<double>& valuesOf(TensorData& v);
// Why `v` cannot be the data of a tensor declared with `format`, or nothing: another format
// ("declared csf but given csr"), or the format's data in another form ("declared csr but given
// a SparseTensor: csr data is a CsrMatrix").
std::optional<std::string> dataFormMismatch(const TensorData& v, const Format& format);
// The same form, format, shape and stored positions and coordinates: the values of one sit at
// the positions of the other's (results to compare value by value).
bool sameStructure(const TensorData& a, const TensorData& b);

// ---------------------------------------------------------------------------------------------
// FROSTT .tns files (docs/formats.md): one entry a line, its N 1-based coordinates and a value,
// separated by blanks; '#' starts a comment line; blank lines are skipped. The rank is the
// shape's, if given, else the format's, else the first entry's (every line must agree). The
// dimensions are `shape` when given (coordinates beyond it are errors), else the largest
// coordinate in each mode. A format without levels, Format(), means coo of the file's rank.
// Entries are stored as cooToSparse stores them (duplicates summed, explicit zeros kept); values
// are read as `type` as readMatrixMarket reads them. Errors name file:line and what was expected.
SparseTensor readFrostt(const std::string& path, const Format& format, ValueType type = ValueType::Float64,
                        const std::vector<int64_t>& shape = {});
// Parses text already in memory; `name` is used in error messages in place of a file name.
SparseTensor parseFrostt(const std::string& text, const std::string& name, const Format& format,
                         ValueType type = ValueType::Float64, const std::vector<int64_t>& shape = {});
// Every stored position (sparseToCoo's) as a line, after a comment naming the shape; values as
// the shortest text that reads back as the same value of the tensor's value type.
void writeFrostt(const std::string& path, const SparseTensor& t);

// Writes `text` to a temporary beside `path`, then renames it over `path`: a failed write (a full
// disk, a missing directory) leaves the old file as it was and no temporary behind.
void writeFileAtomically(const std::string& path, const std::string& text);

// ---------------------------------------------------------------------------------------------
// Seeded synthetic matrices (deterministic for a given seed on every platform and thread count;
// formats/random.hpp has the generator). Values are uniform in [0,1); columns are sorted and unique.
// As float32, the same draws truncated to multiples of 2^-24 (so they stay below 1).
//  - uniformRandom: row lengths Poisson(avgNnzPerRow) (capped at cols), columns uniform.
//  - powerLaw: row lengths proportional to Pareto weights with P(w) ~ w^-exponent, scaled so the
//    average is avgNnzPerRow (rows capped at n): a few hub rows, many short or empty rows.
//  - banded: every column within halfBandwidth of the diagonal (2*halfBandwidth+1 per inner row).
CsrMatrix uniformRandom(int64_t rows, int64_t cols, double avgNnzPerRow, uint64_t seed,
                        ValueType type = ValueType::Float64);
CsrMatrix powerLaw(int64_t n, double avgNnzPerRow, uint64_t seed, double exponent = 2.0,
                   ValueType type = ValueType::Float64);
CsrMatrix banded(int64_t n, int64_t halfBandwidth, uint64_t seed, ValueType type = ValueType::Float64);
DenseTensor randomDense(std::vector<int64_t> shape, uint64_t seed, const std::string& name = "",
                        ValueType type = ValueType::Float64);  // uniform [0,1)
// A sparse tensor of rank >= 2 in coo (sorted, unique coordinates) with power-law slices and
// fibres, as real tensors (FROSTT's) have. Every mode d has Pareto weights w_d[i] with
// P(w) ~ w^-exponent (w >= 1). Slice i of mode 0 gets about s * w_0[i] entries (rounded at random,
// capped at the slice's size), s chosen so that the expected total is `entries` (at most every
// element). A slice's entries are distinct tuples of the other modes, each drawn with probability
// proportional to the product of their weights (a few popular indices in every mode); a drawn
// tuple already in the slice is drawn again, for up to 16 rounds, after which the tuples still
// missing are drawn uniformly; a slice of more than a third of its size draws all its tuples
// uniformly (selection sampling). Values are uniform in [0, 1) (float32: as randomDense). The
// product of the dimensions after the first must be below 2^63.
SparseTensor powerLawTensor(const std::vector<int64_t>& shape, int64_t entries, uint64_t seed,
                            double exponent = 2.0, ValueType type = ValueType::Float64);

}  // namespace react
