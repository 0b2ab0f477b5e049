// react/formats internal: the one routine that turns triplets into CSR, shared by cooToCsr and the
// Matrix Market reader. Not part of the public API.
#pragma once

#include "formats/formats.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace react::detail {

// A run of 0-based triplets in input order (one per parsing thread, or one for a whole COO).
// val == nullptr means every value is 1.0 (Matrix Market 'pattern').
template <typename I>
struct TripletSpan {
  const I* row = nullptr;
  const I* col = nullptr;
  const double* val = nullptr;
  int64_t n = 0;
};

// How off-diagonal entries are mirrored: not at all, (c,r,v) or (c,r,-v).
enum class Mirror { None, Symmetric, Skew };

// Builds a CSR matrix by a stable counting sort on rows (no global sort), then sorts only the rows
// that are not already sorted and sums duplicates in input order, keeping explicit zeros. The
// result does not depend on how the input is split into spans or on the thread count.
// Preconditions (checked by the callers): coordinates in range, cols <= INT32_MAX. `name` (a file
// name, or the caller) starts the error when the matrix does not fit in memory.
template <typename I>
CsrMatrix buildCsr(int64_t rows, int64_t cols, const std::vector<TripletSpan<I>>& spans, Mirror mirror,
                   const std::string& name);

// m.rowptr = rows+1 zeros; m.col and m.val of `entries` each. `name` starts the error when they do
// not fit in memory ("m.mtx: the row position array of 2147483647 rows needs 16 GiB: cannot allocate").
void allocateRowPositions(CsrMatrix& m, int64_t rows, const std::string& name);
void allocateEntries(CsrMatrix& m, int64_t entries, const std::string& name);

}  // namespace react::detail
