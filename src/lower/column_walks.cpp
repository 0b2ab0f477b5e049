// Which walk of a csr matrix a kernel with a column walk takes (LoopProgram::columnWalks).
//
// Entry lanes gather a dense row at every stored entry: walking by rows, the row at the entry's
// column; by columns, the row at the entry's row. A gather finds its row in the L2 cache where an
// entry shortly before gathered the same one, which is likelier the more the entries crowd into a
// few coordinates: the chance that two entries share a row is the sum of the rows' squared lengths
// over nnz², and likewise for the columns. The walk that gathers along the more crowded side wins:
// by columns where the rows are the more crowded. On the power-law graphs of
// docs/benchmarks-device.md (rows to 300,000 entries, columns to 23) the rows' sum is 3,600-4,700
// times the columns' and the walk by columns took 0.57-0.76x the time; a symmetric matrix's sums
// are equal, and of the fourteen shared matrices only wiki-Vote's differ by more than 10% (1.64):
// none reaches kColumnWalkSkew, so they keep the rows' walk and need no copy.
#include "lower/lower.hpp"

#include <limits>

namespace react {

namespace {
// How much more crowded the rows must be: a margin over 1, where the two walks gather alike and
// the copy (20 bytes an entry) would buy nothing.
constexpr double kColumnWalkSkew = 2.0;
}  // namespace

bool walksByColumns(const CsrMatrix& m) {
  // The walk keeps a position per column: never more of them than entries (a matrix of 2^31
  // columns and a few entries would otherwise cost gigabytes here and in the walk).
  if (m.nnz() == 0 || m.cols > m.nnz()) return false;
  // Its coordinates are the rows, 32-bit as every level's.
  if (m.rows > std::numeric_limits<int32_t>::max()) return false;
  std::vector<double> columns(static_cast<size_t>(m.cols), 0.0);
  for (int32_t c : m.col) ++columns[static_cast<size_t>(c)];
  double rowSquares = 0, columnSquares = 0;
  for (int64_t r = 0; r < m.rows; ++r) {
    const double length = static_cast<double>(m.rowptr[static_cast<size_t>(r) + 1] - m.rowptr[static_cast<size_t>(r)]);
    rowSquares += length * length;
  }
  for (double c : columns) columnSquares += c * c;
  return rowSquares >= kColumnWalkSkew * columnSquares;
}

}  // namespace react
