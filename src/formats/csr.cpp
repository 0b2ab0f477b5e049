// CSR invariants, the triplet -> CSR builder and the conversions between COO, CSR, dense and Eigen.
#include "formats/csr_build.hpp"
#include "formats/formats.hpp"
#include "formats/parallel.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace react {

namespace {

constexpr int64_t kMaxIndex32 = std::numeric_limits<int32_t>::max();

std::string dims(int64_t rows, int64_t cols) { return std::to_string(rows) + "x" + std::to_string(cols); }

void checkCols32(int64_t cols, const char* where) {
  if (cols > kMaxIndex32 + 1)
    throw UserError(std::string(where) + ": " + std::to_string(cols) +
                " columns do not fit 32-bit column coordinates (at most 2147483648)");
}

}  // namespace

// ---------------------------------------------------------------------------------------------
namespace {

// Whether the arrays are valid, in passes the compiler vectorizes: the Python module checks at
// every call, and the row-by-row search below for the broken invariant took 14.6 us on cora
// (10556 entries), this 3.1 us (5.4 us before the AVX2 clone and one unsigned comparison for the
// range; at 2 threads about half that from 2^20 entries on). Columns are sorted within rows when every descent (a column not above the one
// before it) is at the start of a row; they are within 0..cols-1 when each is as an unsigned
// number below cols. Each pass counts over a range of columns and of rows, so that threads can
// share them.
struct CsrTally {
  int64_t descents = 0;     // columns not above the one before them
  int64_t atRowStarts = 0;  // of those, the ones that start a row
  bool outside = false;     // a column outside 0..cols-1
  bool positions = false;   // a position below the one before it or outside 0..nnz
};

// x86-64 machines have AVX2 almost always, but react's own code is built for the baseline: the
// column pass, most of the check's time, also gets an AVX2 clone picked at load time (it halved
// the pass on bcsstk16's 290378 entries).
#if defined(__x86_64__) && defined(__GNUC__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define REACT_AVX2_CLONE __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef REACT_AVX2_CLONE
#define REACT_AVX2_CLONE
#endif

// Columns [begin, end): descents (begin >= 1) and any column outside 0..cols-1. As an unsigned
// number a column is below `limit` exactly when it is within the matrix, negative ones included.
template <typename Index>
REACT_AVX2_CLONE void tallyColumns(const Index* col, int64_t begin, int64_t end, std::make_unsigned_t<Index> limit,
                                   CsrTally* t) {
  using Unsigned = std::make_unsigned_t<Index>;
  Unsigned outside = 0;
  // Counted in Index-wide lanes (what lets the compiler vectorize), a block at a time so that
  // they do not overflow.
  constexpr int64_t kBlock = int64_t{1} << 30;
  for (int64_t b = begin; b < end; b += kBlock) {
    const int64_t e = std::min(end, b + kBlock);
    Unsigned descents = 0;
    for (int64_t k = b; k < e; ++k) {
      descents += col[k] <= col[k - 1];
      outside |= static_cast<Unsigned>(col[k]) >= limit;
    }
    t->descents += static_cast<int64_t>(descents);
  }
  t->outside |= outside != 0;
}

// Rows [begin, end): a position that decreases or leaves 0..nnz, and the descents at the rows'
// starts, read only when no position does (a start is then an entry).
template <typename Index>
void tallyRows(const int64_t* rowptr, const Index* col, int64_t nnz, int64_t begin, int64_t end, CsrTally* t) {
  bool broken = rowptr[begin] < 0 || rowptr[end] > nnz;
  for (int64_t r = begin; r < end; ++r) broken |= rowptr[r + 1] < rowptr[r];
  t->positions |= broken;
  if (broken) return;
  int64_t atRowStarts = 0;
  for (int64_t r = begin; r < end; ++r) {
    const int64_t start = rowptr[r];
    atRowStarts += start > 0 && start < rowptr[r + 1] && col[start] <= col[start - 1];
  }
  t->atRowStarts += atRowStarts;
}

// Threads share the check from this many rows and entries on: below, the one pass takes at most
// about 100 us (bcsstk16's 295262: 28 us), and a team that sleeps between parallel regions
// (OMP_WAIT_POLICY=passive) takes 32 us to wake here, as much as two threads would save.
constexpr int64_t kParallelCheck = int64_t{1} << 20;

template <typename Index>
bool validCsrArrays(int64_t rows, int64_t cols, const int64_t* rowptr, const Index* col, int64_t nnz) {
  if (rows < 0 || cols < 0 || rowptr[0] != 0 || rowptr[rows] != nnz) return false;
  using Unsigned = std::make_unsigned_t<Index>;
  const Unsigned limit = static_cast<uint64_t>(cols) > static_cast<uint64_t>(std::numeric_limits<Index>::max())
                             ? static_cast<Unsigned>(std::numeric_limits<Index>::max()) + 1
                             : static_cast<Unsigned>(cols);
  // Part `part` of `parts`: its share of the rows and of the columns.
  auto tally = [&](int64_t part, int64_t parts) {
    CsrTally t;
    tallyRows(rowptr, col, nnz, rows * part / parts, rows * (part + 1) / parts, &t);
    if (nnz > 0) {
      if (part == 0) t.outside |= static_cast<Unsigned>(col[0]) >= limit;
      tallyColumns(col, 1 + (nnz - 1) * part / parts, 1 + (nnz - 1) * (part + 1) / parts, limit, &t);
    }
    return t;
  };
  CsrTally total;
  if (rows + nnz < kParallelCheck) {
    total = tally(0, 1);
  } else {
    int64_t descents = 0, atRowStarts = 0;
    bool broken = false;
#pragma omp parallel reduction(+ : descents, atRowStarts) reduction(|| : broken)
    {
#ifdef _OPENMP
      const CsrTally t = tally(omp_get_thread_num(), omp_get_num_threads());
#else
      const CsrTally t = tally(0, 1);
#endif
      descents += t.descents;
      atRowStarts += t.atRowStarts;
      broken = broken || t.outside || t.positions;
    }
    total = {descents, atRowStarts, broken, false};
  }
  return !total.outside && !total.positions && total.descents == total.atRowStarts;
}

}  // namespace

template <typename Index>
void validateCsrArrays(int64_t rows, int64_t cols, const int64_t* rowptr, const Index* col, int64_t nnz) {
  if (validCsrArrays(rows, cols, rowptr, col, nnz)) return;
  auto fail = [](const std::string& what) { throw UserError("invalid CSR matrix: " + what); };
  if (rows < 0 || cols < 0) fail("negative size " + dims(rows, cols));
  if (rowptr[0] != 0) fail("rowptr[0] is " + std::to_string(rowptr[0]) + ", expected 0");
  if (rowptr[rows] != nnz)
    fail("rowptr[rows] is " + std::to_string(rowptr[rows]) + ", expected nnz = " + std::to_string(nnz));
  for (int64_t r = 0; r < rows; ++r)
    if (rowptr[r + 1] < rowptr[r])
      fail("rowptr decreases at row " + std::to_string(r) + " (" + std::to_string(rowptr[r]) + " > " +
           std::to_string(rowptr[r + 1]) + ")");
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t k = rowptr[r]; k < rowptr[r + 1]; ++k) {
      const int64_t c = col[k];
      if (c < 0 || c >= cols)
        fail("column " + std::to_string(c) + " in row " + std::to_string(r) + " is outside 0.." +
             std::to_string(cols - 1));
      if (k > rowptr[r] && col[k - 1] >= c)
        fail(std::string(col[k - 1] == c ? "duplicate" : "unsorted") + " column " + std::to_string(c) + " in row " +
             std::to_string(r) + " (after column " + std::to_string(col[k - 1]) + ")");
    }
  }
  internalError("validCsrArrays refused CSR arrays in which no invariant is broken");
}
template void validateCsrArrays(int64_t, int64_t, const int64_t*, const int32_t*, int64_t);
template void validateCsrArrays(int64_t, int64_t, const int64_t*, const int64_t*, int64_t);

template <typename Index>
void CsrMatrixT<Index>::validate() const {
  auto fail = [](const std::string& what) { throw UserError("invalid CSR matrix: " + what); };
  if (rows < 0 || cols < 0) fail("negative size " + dims(rows, cols));
  if (static_cast<int64_t>(rowptr.size()) != rows + 1)
    fail("rowptr has " + std::to_string(rowptr.size()) + " entries, expected rows+1 = " + std::to_string(rows + 1));
  if (val.size() != col.size())
    fail("val has " + std::to_string(val.size()) + " entries, col has " + std::to_string(col.size()));
  validateCsrArrays(rows, cols, rowptr.data(), col.data(), nnz());
  for (size_t k = 0; k < val.size(); ++k)
    if (roundTo(valueType, val[k]) != val[k] && !std::isnan(val[k]))
      fail("value " + std::to_string(k) + " (" + std::to_string(val[k]) + ") is not a " + toString(valueType) + " value");
}

template <typename Index>
void CsrMatrixT<Index>::setValueType(ValueType t) {
  valueType = t;
  for (double& v : val) v = roundTo(t, v);
}

template struct CsrMatrixT<int32_t>;
template struct CsrMatrixT<int64_t>;

CsrMatrix64 toCsr64(const CsrMatrix& a) {
  CsrMatrix64 b;
  b.rows = a.rows;
  b.cols = a.cols;
  b.rowptr = a.rowptr;
  b.col.assign(a.col.begin(), a.col.end());
  b.val = a.val;
  b.valueType = a.valueType;
  return b;
}

CsrMatrix toCsr32(const CsrMatrix64& a) {
  checkCols32(a.cols, "toCsr32");
  CsrMatrix b;
  b.rows = a.rows;
  b.cols = a.cols;
  b.rowptr = a.rowptr;
  b.col.resize(a.col.size());
  for (size_t k = 0; k < a.col.size(); ++k) {
    if (a.col[k] < 0 || a.col[k] > kMaxIndex32)
      throw UserError("toCsr32: column coordinate " + std::to_string(a.col[k]) + " (entry " + std::to_string(k) +
                  ") does not fit in 32 bits");
    b.col[k] = static_cast<int32_t>(a.col[k]);
  }
  b.val = a.val;
  b.valueType = a.valueType;
  return b;
}

// ---------------------------------------------------------------------------------------------
namespace detail {

namespace {

// Sorts one row's (col, val) run by column, stably, so duplicates keep their input order.
void sortRow(int32_t* col, double* val, int64_t n, std::vector<std::pair<int32_t, double>>& buf) {
  if (n <= 32) {  // insertion sort: short rows are the common case
    for (int64_t k = 1; k < n; ++k) {
      const int32_t c = col[k];
      const double v = val[k];
      int64_t m = k;
      for (; m > 0 && col[m - 1] > c; --m) {
        col[m] = col[m - 1];
        val[m] = val[m - 1];
      }
      col[m] = c;
      val[m] = v;
    }
    return;
  }
  buf.resize(n);
  for (int64_t k = 0; k < n; ++k) buf[k] = {col[k], val[k]};
  std::stable_sort(buf.begin(), buf.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (int64_t k = 0; k < n; ++k) {
    col[k] = buf[k].first;
    val[k] = buf[k].second;
  }
}

// Sorts the row if needed and sums duplicates in place; returns the new row length.
int64_t normalizeRow(int32_t* col, double* val, int64_t n, std::vector<std::pair<int32_t, double>>& buf) {
  bool sorted = true, unique = true;
  for (int64_t k = 1; k < n; ++k) {
    if (col[k - 1] > col[k]) sorted = false;
    if (col[k - 1] == col[k]) unique = false;
  }
  if (sorted && unique) return n;
  if (!sorted) sortRow(col, val, n, buf);
  int64_t w = 0;
  for (int64_t k = 0; k < n; ++k) {
    if (w > 0 && col[w - 1] == col[k]) {
      val[w - 1] += val[k];
    } else {
      col[w] = col[k];
      val[w] = val[k];
      ++w;
    }
  }
  return w;
}

}  // namespace

void allocateRowPositions(CsrMatrix& m, int64_t rows, const std::string& name) {
  const std::string what = name + ": the row position array of " + std::to_string(rows) + " rows";
  const int64_t n = checkedElementCount({rows}, sizeof(int64_t), what) + 1;  // fits: rows * 8 does
  allocateOrThrow(what, n * static_cast<int64_t>(sizeof(int64_t)), [&] { m.rowptr.assign(n, 0); });
}

void allocateEntries(CsrMatrix& m, int64_t entries, const std::string& name) {
  const std::string what = name + ": " + std::to_string(entries) + " stored entries";
  checkedElementCount({entries}, sizeof(int32_t) + sizeof(double), what);
  allocateOrThrow(what, entries * static_cast<int64_t>(sizeof(int32_t) + sizeof(double)), [&] {
    m.col.resize(entries);
    m.val.resize(entries);
  });
}

template <typename I>
CsrMatrix buildCsr(int64_t rows, int64_t cols, const std::vector<TripletSpan<I>>& spans, Mirror mirror,
                   const std::string& name) {
  const int64_t S = static_cast<int64_t>(spans.size());
  const bool mirrored = mirror != Mirror::None;
  const double sign = mirror == Mirror::Skew ? -1.0 : 1.0;
  int64_t entries = 0;
  for (const auto& s : spans) entries += s.n;
  const bool par = entries > 200000;
  CsrMatrix m;
  m.rows = rows;
  m.cols = cols;
  allocateRowPositions(m, rows, name);
  // Writes span s's entries, in order, at next[row]++ (and mirrored ones at next[col]++).
  auto scatter = [&](const TripletSpan<I>& t, int64_t* next) {
    for (int64_t k = 0; k < t.n; ++k) {
      const I r = t.row[k], c = t.col[k];
      const double v = t.val ? t.val[k] : 1.0;
      int64_t p = next[r]++;
      m.col[p] = static_cast<int32_t>(c);
      m.val[p] = v;
      if (mirrored && r != c) {
        p = next[c]++;
        m.col[p] = static_cast<int32_t>(r);
        m.val[p] = sign * v;
      }
    }
  };

  // 1-2. A stable counting sort on rows: span by span, each in input order. Counting per span in
  // parallel needs a row cursor per span (S * rows positions): only worth it when the entries
  // outnumber that; otherwise the spans are counted one after the other, with rowptr as the cursor,
  // so that a matrix of many rows and few entries needs no memory beyond its own.
  if (par && S > 1 && entries / S >= rows) {
    const std::string what = name + ": the row cursors of " + std::to_string(S) + " threads";
    checkedElementCount({S, rows}, sizeof(int64_t), what);
    std::vector<std::vector<int64_t>> offsets = allocateOrThrow(
        what, S * rows * static_cast<int64_t>(sizeof(int64_t)), [&] { return std::vector<std::vector<int64_t>>(S, std::vector<int64_t>(rows, 0)); });
#pragma omp parallel for schedule(static, 1)
    for (int64_t s = 0; s < S; ++s) {
      std::vector<int64_t>& cnt = offsets[s];
      const TripletSpan<I>& t = spans[s];
      for (int64_t k = 0; k < t.n; ++k) {
        ++cnt[t.row[k]];
        if (mirrored && t.row[k] != t.col[k]) ++cnt[t.col[k]];
      }
    }
    // offsets[s][r] becomes span s's first slot in row r.
    int64_t pos = 0;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t s = 0; s < S; ++s) {
        const int64_t c = offsets[s][r];
        offsets[s][r] = pos;
        pos += c;
      }
      m.rowptr[r + 1] = pos;
    }
    allocateEntries(m, pos, name);
#pragma omp parallel for schedule(static, 1)
    for (int64_t s = 0; s < S; ++s) scatter(spans[s], offsets[s].data());
  } else {
    for (const TripletSpan<I>& t : spans)
      for (int64_t k = 0; k < t.n; ++k) {
        ++m.rowptr[t.row[k] + 1];
        if (mirrored && t.row[k] != t.col[k]) ++m.rowptr[t.col[k] + 1];
      }
    for (int64_t r = 0; r < rows; ++r) m.rowptr[r + 1] += m.rowptr[r];
    allocateEntries(m, m.rowptr[rows], name);
    for (const TripletSpan<I>& t : spans) scatter(t, m.rowptr.data());
    // rowptr[r] is now where row r ends: shift it back to where it starts.
    std::copy_backward(m.rowptr.begin(), m.rowptr.end() - 1, m.rowptr.end());
    m.rowptr[0] = 0;
  }

  // 3. Sort the rows that need it and sum duplicates; the (few) rows that shrank are recorded and
  // the entries compacted afterwards, so no per-row array is needed.
  std::vector<std::pair<int64_t, int64_t>> shrunk;  // (row, new length)
  RegionExceptions exceptions;
#pragma omp parallel if (par)
  {
    std::vector<std::pair<int32_t, double>> buf;
    std::vector<std::pair<int64_t, int64_t>> mine;
#pragma omp for schedule(dynamic, 4096) nowait
    for (int64_t r = 0; r < rows; ++r)
      exceptions.run([&] {
        const int64_t b = m.rowptr[r], n = m.rowptr[r + 1] - b;
        const int64_t len = normalizeRow(m.col.data() + b, m.val.data() + b, n, buf);
        if (len != n) mine.emplace_back(r, len);
      });
#pragma omp critical(react_build_csr_shrunk)
    exceptions.run([&] { shrunk.insert(shrunk.end(), mine.begin(), mine.end()); });
  }
  exceptions.rethrow();
  if (!shrunk.empty()) {
    std::sort(shrunk.begin(), shrunk.end());
    int64_t write = 0, oldBegin = 0;
    size_t next = 0;
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t oldEnd = m.rowptr[r + 1];
      const int64_t len = next < shrunk.size() && shrunk[next].first == r ? shrunk[next++].second : oldEnd - oldBegin;
      if (write != oldBegin) {  // moves towards the front: the source is never overwritten first
        std::copy_n(m.col.begin() + oldBegin, len, m.col.begin() + write);
        std::copy_n(m.val.begin() + oldBegin, len, m.val.begin() + write);
      }
      write += len;
      m.rowptr[r + 1] = write;
      oldBegin = oldEnd;
    }
    m.col.resize(write);
    m.val.resize(write);
  }
  return m;
}

template CsrMatrix buildCsr<int32_t>(int64_t, int64_t, const std::vector<TripletSpan<int32_t>>&, Mirror,
                                     const std::string&);
template CsrMatrix buildCsr<int64_t>(int64_t, int64_t, const std::vector<TripletSpan<int64_t>>&, Mirror,
                                     const std::string&);

}  // namespace detail

// ---------------------------------------------------------------------------------------------
CsrMatrix cooToCsr(const CooMatrix& coo) {
  if (coo.rows < 0 || coo.cols < 0) throw UserError("cooToCsr: negative size " + dims(coo.rows, coo.cols));
  checkCols32(coo.cols, "cooToCsr");
  const int64_t n = coo.entries();
  if (static_cast<int64_t>(coo.col.size()) != n || static_cast<int64_t>(coo.val.size()) != n)
    throw UserError("cooToCsr: row, col and val have different lengths (" + std::to_string(n) + ", " +
                std::to_string(coo.col.size()) + ", " + std::to_string(coo.val.size()) + ")");
  for (int64_t k = 0; k < n; ++k)
    if (coo.row[k] < 0 || coo.row[k] >= coo.rows || coo.col[k] < 0 || coo.col[k] >= coo.cols)
      throw UserError("cooToCsr: entry " + std::to_string(k) + " at (" + std::to_string(coo.row[k]) + ", " +
                  std::to_string(coo.col[k]) + ") is outside the " + dims(coo.rows, coo.cols) + " matrix");
  detail::TripletSpan<int64_t> span{coo.row.data(), coo.col.data(), coo.val.data(), n};
  return detail::buildCsr<int64_t>(coo.rows, coo.cols, {span}, detail::Mirror::None, "cooToCsr");
}

CooMatrix csrToCoo(const CsrMatrix& csr) {
  CooMatrix coo;
  coo.rows = csr.rows;
  coo.cols = csr.cols;
  coo.row.resize(csr.nnz());
  for (int64_t r = 0; r < csr.rows; ++r)
    std::fill(coo.row.begin() + csr.rowptr[r], coo.row.begin() + csr.rowptr[r + 1], r);
  coo.col.assign(csr.col.begin(), csr.col.end());
  coo.val = csr.val;
  return coo;
}

DenseTensor csrToDense(const CsrMatrix& csr) {
  DenseTensor d({csr.rows, csr.cols});
  d.valueType = csr.valueType;
  for (int64_t r = 0; r < csr.rows; ++r)
    for (int64_t k = csr.rowptr[r]; k < csr.rowptr[r + 1]; ++k) d.data[r * csr.cols + csr.col[k]] = csr.val[k];
  return d;
}

CsrMatrix denseToCsr(const DenseTensor& dense) {
  if (dense.rank() != 2) throw UserError("denseToCsr: expected a rank-2 tensor, got rank " + std::to_string(dense.rank()));
  checkCols32(dense.shape[1], "denseToCsr");
  CsrMatrix m;
  m.rows = dense.shape[0];
  m.cols = dense.shape[1];
  m.valueType = dense.valueType;
  m.rowptr.assign(m.rows + 1, 0);
  for (int64_t r = 0; r < m.rows; ++r) {
    for (int64_t c = 0; c < m.cols; ++c) {
      const double v = dense.data[r * m.cols + c];
      if (v != 0.0) {
        m.col.push_back(static_cast<int32_t>(c));
        m.val.push_back(v);
      }
    }
    m.rowptr[r + 1] = m.nnz();
  }
  return m;
}

EigenCsr toEigen(const CsrMatrix& csr) {
  EigenCsr m(csr.rows, csr.cols);
  m.resizeNonZeros(csr.nnz());
  std::copy(csr.rowptr.begin(), csr.rowptr.end(), m.outerIndexPtr());
  std::copy(csr.col.begin(), csr.col.end(), m.innerIndexPtr());
  std::copy(csr.val.begin(), csr.val.end(), m.valuePtr());
  return m;
}

CsrMatrix fromEigen(const EigenCsr& m) {
  checkCols32(m.cols(), "fromEigen");
  CsrMatrix c;
  c.rows = m.rows();
  c.cols = m.cols();
  c.rowptr.assign(c.rows + 1, 0);
  c.col.reserve(m.nonZeros());
  c.val.reserve(m.nonZeros());
  bool sorted = true;
  for (int64_t r = 0; r < c.rows; ++r) {
    for (EigenCsr::InnerIterator it(m, r); it; ++it) {
      if (c.nnz() > c.rowptr[r] && c.col.back() >= it.col()) sorted = false;
      c.col.push_back(static_cast<int32_t>(it.col()));
      c.val.push_back(it.value());
    }
    c.rowptr[r + 1] = c.nnz();
  }
  if (sorted) return c;
  return cooToCsr(csrToCoo(c));  // csrToCoo keeps the order; cooToCsr sorts and sums duplicates
}

}  // namespace react
