// Matrix Market reader and writer.
//
// The reader takes the whole text at once, parses the header serially, then splits the entry
// section at line boundaries into one chunk per thread (OpenMP). Each chunk is parsed with a
// hand-written integer parser and std::from_chars for doubles into its own triplet arrays, which
// the shared counting-sort builder (csr_build.hpp) turns into CSR without a global sort. Errors
// inside a chunk are recorded as (position, what was expected) and reported in file order after
// the parallel part, so the message is the same for any thread count: "name:line: expected X, got Y".
#include "formats/csr_build.hpp"
#include "formats/formats.hpp"
#include "formats/parallel.hpp"
#include "formats/sparse_build.hpp"
#include "formats/text.hpp"

#include <algorithm>
#include <exception>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace react {

namespace {

using detail::describe;
using detail::fail;
using detail::nextLine;
using detail::parseUnsigned;
using detail::skipBlanks;
using detail::Source;

enum class Field { Real, Integer, Pattern };
enum class Symmetry { General, Symmetric, Skew };

constexpr const char* kBanner =
    "the banner '%%MatrixMarket matrix coordinate|array real|integer|pattern general|symmetric|skew-symmetric'";

struct Header {
  bool coordinate = true;
  Field field = Field::Real;
  Symmetry symmetry = Symmetry::General;
  int64_t rows = 0, cols = 0;
  int64_t entries = 0;  // values stored in the file (coordinate: from the size line; array: implied)
  const char* data = nullptr;  // first byte after the size line
  ValueType type = ValueType::Float64;  // what the values are read as (not in the file)
};

std::string lower(const char* b, const char* e) {
  std::string s(b, e);
  for (char& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return s;
}

// The dense tensor an array file holds, named as DenseTensor names it when it does not fit.
std::string arrayWhat(const Source& src, const Header& h) {
  return "tensor '" + src.name + "' (" + extentsText({h.rows, h.cols}, "doubles") + ")";
}

// ---------------------------------------------------------------------------------------------
// Header: banner, comments and blank lines, size line.
Header parseHeader(const Source& src) {
  const char* e = src.end;
  const char* p = src.begin;
  const char* le = nextLine(p, e);
  const char* lineEnd = (le > p && le[-1] == '\n') ? le - 1 : le;
  std::vector<std::pair<const char*, const char*>> words;
  for (const char* q = skipBlanks(p, lineEnd); q < lineEnd; q = skipBlanks(q, lineEnd)) {
    const char* w = q;
    while (q < lineEnd && !detail::isBlank(*q)) ++q;
    words.emplace_back(w, q);
  }
  if (words.empty() || lower(words[0].first, words[0].second) != "%%matrixmarket")
    fail(src, words.empty() ? p : words[0].first, kBanner);
  auto word = [&](size_t i) { return lower(words[i].first, words[i].second); };
  if (words.size() < 5) fail(src, lineEnd, std::string(kBanner) + " with 5 words");
  if (words.size() > 5) fail(src, words[5].first, "end of line after the 5 words of the banner");
  if (word(1) != "matrix") fail(src, words[1].first, "object 'matrix' in the banner");
  Header h;
  const std::string format = word(2), field = word(3), symmetry = word(4);
  if (format == "coordinate") h.coordinate = true;
  else if (format == "array") h.coordinate = false;
  else fail(src, words[2].first, "format 'coordinate' or 'array' in the banner");
  if (field == "real") h.field = Field::Real;
  else if (field == "integer") h.field = Field::Integer;
  else if (field == "pattern" && h.coordinate) h.field = Field::Pattern;
  else if (field == "pattern") fail(src, words[3].first, "field 'real' or 'integer' for an array matrix");
  else fail(src, words[3].first, "field 'real', 'integer' or 'pattern' (complex is not supported)");
  if (symmetry == "general") h.symmetry = Symmetry::General;
  else if (symmetry == "symmetric") h.symmetry = Symmetry::Symmetric;
  else if (symmetry == "skew-symmetric" && h.field != Field::Pattern) h.symmetry = Symmetry::Skew;
  else if (symmetry == "skew-symmetric") fail(src, words[4].first, "symmetry 'general' or 'symmetric' for a pattern matrix");
  else fail(src, words[4].first, "symmetry 'general', 'symmetric' or 'skew-symmetric' (hermitian is not supported)");

  // Comments and blank lines up to the size line.
  p = le;
  while (p < e) {
    const char* q = skipBlanks(p, e);
    if (q < e && *q != '%' && *q != '\n') break;
    p = nextLine(q, e);
  }
  const char* sizeLine = p;
  const std::string sizeForm = h.coordinate ? "'rows cols entries'" : "'rows cols'";
  auto readSize = [&](const char* what) -> int64_t {
    p = skipBlanks(p, e);
    const char* tok = p;
    uint64_t v = 0;
    if (!parseUnsigned(p, e, v))
      fail(src, tok, std::string("the number of ") + what + " (a non-negative integer) on the size line " + sizeForm);
    if (std::string(what) != "entries" && v > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
      fail(src, tok, std::string("at most 2147483647 ") + what);
    return static_cast<int64_t>(v);
  };
  if (p == e) fail(src, p, "the size line " + sizeForm);
  h.rows = readSize("rows");
  h.cols = readSize("columns");
  if (h.coordinate) h.entries = readSize("entries");
  p = skipBlanks(p, e);
  if (p < e && *p != '\n') fail(src, p, "end of the size line " + sizeForm);
  if (h.symmetry != Symmetry::General && h.rows != h.cols)
    fail(src, sizeLine, "a square matrix for a symmetric or skew-symmetric file",
         std::to_string(h.rows) + " rows and " + std::to_string(h.cols) + " columns");
  if (!h.coordinate) {
    const int64_t n = h.rows;
    const int64_t all = checkedElementCount({h.rows, h.cols}, sizeof(double), arrayWhat(src, h));
    h.entries = h.symmetry == Symmetry::General     ? all
                : h.symmetry == Symmetry::Symmetric ? n * (n + 1) / 2
                                                    : n * (n - 1) / 2;
  }
  h.data = p < e ? p + 1 : e;
  return h;
}

// ---------------------------------------------------------------------------------------------
// Entry section: one chunk per thread.
struct Chunk {
  const char* begin = nullptr;
  const char* end = nullptr;
  std::vector<int32_t> row, col;  // 0-based (coordinate only)
  std::vector<double> val;        // empty for pattern
  int64_t count = 0;              // entries parsed before an error
  detail::ParseError error;       // the first one, if any
  std::exception_ptr exception;   // e.g. std::bad_alloc, rethrown outside the parallel region
};

// Parses the entries of [c.begin, c.end) until the first error; stores at most `limit` entries
// (one more is the "too many entries" error for a file that declares `declared`).
void parseChunk(const Header& h, const char* srcEnd, Chunk& c, int64_t limit, int64_t declared) {
  const char* p = c.begin;
  const char* const e = c.end;
  auto error = [&](const char* at, std::string expected, std::string got = {}) {
    c.error = {at, std::move(expected), got.empty() ? describe(at, srcEnd) : std::move(got)};
  };
  const bool coord = h.coordinate;
  const bool values = h.field != Field::Pattern;
  const char* fields = !coord ? "value" : values ? "row, column and value" : "row and column";
  while (p < e) {
    const char* line = p;
    p = skipBlanks(p, e);
    if (p == e) break;
    if (*p == '\n' || *p == '%') {
      p = nextLine(p, e);
      continue;
    }
    if (c.count == limit)
      return error(line, std::to_string(declared) + " entries (as the size line says)", "more");
    uint64_t r = 0, col = 0;
    if (coord) {
      const char* tok = p;
      if (!parseUnsigned(p, e, r)) return error(tok, "a row index (a positive integer)");
      if (r < 1 || r > static_cast<uint64_t>(h.rows)) return error(tok, "a row index in 1.." + std::to_string(h.rows));
      p = skipBlanks(p, e);
      tok = p;
      if (!parseUnsigned(p, e, col)) return error(tok, "a column index (a positive integer)");
      if (col < 1 || col > static_cast<uint64_t>(h.cols))
        return error(tok, "a column index in 1.." + std::to_string(h.cols));
      p = skipBlanks(p, e);
    }
    double v = 1.0;
    if (values) {
      const char* tok = p;
      if (h.field == Field::Integer) {
        const bool neg = p < e && *p == '-';
        if (p < e && (*p == '-' || *p == '+')) ++p;
        uint64_t u = 0;
        if (!parseUnsigned(p, e, u)) return error(tok, "an integer value");
        v = neg ? -static_cast<double>(u) : static_cast<double>(u);
        if (const char* expected = detail::roundChecked(h.type, v)) return error(tok, expected);
      } else if (const char* expected = detail::parseReal(p, e, h.type, v)) {
        return error(tok, expected);
      }
      if (coord && h.symmetry == Symmetry::Skew && r == col && v != 0.0)
        return error(tok, "zero on the diagonal of a skew-symmetric matrix");
    }
    p = skipBlanks(p, e);
    if (p < e && *p != '\n') return error(p, std::string("end of line after the ") + fields);
    if (p < e) ++p;
    if (coord) {
      c.row.push_back(static_cast<int32_t>(r - 1));
      c.col.push_back(static_cast<int32_t>(col - 1));
    }
    if (values) c.val.push_back(v);
    ++c.count;
  }
}

std::vector<Chunk> parseEntries(const Source& src, const Header& h) {
  const int64_t bytes = src.end - h.data;
  const auto pieces = detail::lineChunks(h.data, src.end);
  const int64_t T = static_cast<int64_t>(pieces.size());
  std::vector<Chunk> chunks(T);
  for (int64_t t = 0; t < T; ++t) std::tie(chunks[t].begin, chunks[t].end) = pieces[t];
#pragma omp parallel for schedule(static, 1) num_threads(T) if (T > 1)
  for (int64_t t = 0; t < T; ++t) {
    Chunk& c = chunks[t];
    try {
      // Reserve for the share of entries this chunk probably holds (at least 2 bytes per entry).
      const int64_t cb = c.end - c.begin;
      const double expect = static_cast<double>(h.entries) * static_cast<double>(cb) / std::max<int64_t>(bytes, 1);
      const int64_t share = std::min<int64_t>(cb / 2 + 1, static_cast<int64_t>(expect * 1.05) + 64);
      if (h.coordinate) {
        c.row.reserve(share);
        c.col.reserve(share);
      }
      if (h.field != Field::Pattern) c.val.reserve(share);
      parseChunk(h, src.end, c, h.entries, h.entries);
    } catch (...) {
      c.exception = std::current_exception();
    }
  }
  // Report the first problem in file order, whichever thread met it.
  int64_t before = 0;
  for (Chunk& c : chunks) {
    if (c.exception) std::rethrow_exception(c.exception);
    if (before + c.count > h.entries) {  // this chunk holds entry number entries+1: find it
      Chunk again;
      again.begin = c.begin;
      again.end = c.end;
      parseChunk(h, src.end, again, h.entries - before, h.entries);
      fail(src, again.error.at, again.error.expected, again.error.got);
    }
    if (c.error.at) fail(src, c.error.at, c.error.expected, c.error.got);
    before += c.count;
  }
  if (before < h.entries)
    fail(src, src.end, std::to_string(h.entries) + " entries (as the size line says)",
         "end of file after " + std::to_string(before));
  return chunks;
}

DenseTensor assembleArray(const std::string& name, const Header& h, const std::vector<Chunk>& chunks) {
  DenseTensor t({h.rows, h.cols}, 0.0, name);
  t.valueType = h.type;  // every value was rounded as it was read
  const int64_t n = h.rows, m = h.cols;
  int64_t i = 0, j = 0;  // column-major walk over the stored part
  if (h.symmetry == Symmetry::Skew) i = 1;
  for (const Chunk& c : chunks) {
    for (double v : c.val) {
      while (i >= n) {  // next column (stored part: all rows, from the diagonal, or below it)
        ++j;
        i = h.symmetry == Symmetry::General ? 0 : h.symmetry == Symmetry::Symmetric ? j : j + 1;
      }
      t.data[i * m + j] = v;
      if (h.symmetry == Symmetry::Symmetric) t.data[j * m + i] = v;
      if (h.symmetry == Symmetry::Skew) t.data[j * m + i] = -v;
      ++i;
    }
  }
  return t;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
MarketData parseMatrixMarket(const std::string& text, const std::string& name, ValueType type) {
  const Source src{text.data(), text.data() + text.size(), name};
  Header h = parseHeader(src);
  h.type = type;
  std::vector<Chunk> chunks = parseEntries(src, h);
  if (!h.coordinate) return assembleArray(name, h, chunks);
  std::vector<detail::TripletSpan<int32_t>> spans;
  for (const Chunk& c : chunks)
    spans.push_back({c.row.data(), c.col.data(), h.field == Field::Pattern ? nullptr : c.val.data(), c.count});
  const detail::Mirror mirror = h.symmetry == Symmetry::Symmetric ? detail::Mirror::Symmetric
                                : h.symmetry == Symmetry::Skew    ? detail::Mirror::Skew
                                                                  : detail::Mirror::None;
  CsrMatrix m = detail::buildCsr(h.rows, h.cols, spans, mirror, name);
  m.setValueType(type);  // the sums of duplicates
  return m;
}

MarketData readMatrixMarket(const std::string& path, ValueType type) {
  return parseMatrixMarket(detail::readFile(path), path, type);
}

CsrMatrix readMatrixMarketCsr(const std::string& path, ValueType type) {
  MarketData d = readMatrixMarket(path, type);
  if (auto* m = std::get_if<CsrMatrix>(&d)) return std::move(*m);
  throw UserError(path + ":1: expected a 'coordinate' (sparse) matrix, got an 'array' (dense) one");
}

SparseTensor parseMatrixMarketSparse(const std::string& text, const std::string& name, const Format& format,
                                     ValueType type) {
  if (format.rank() != 2)
    throw UserError(name + ": a Matrix Market file holds a matrix, and format " + format.str() + " is of rank " +
                    std::to_string(format.rank()));
  MarketData d = parseMatrixMarket(text, name, type);
  if (CsrMatrix* m = std::get_if<CsrMatrix>(&d)) {
    SparseTensor csr = csrToSparse(std::move(*m));
    return format == csr.format ? csr : detail::convertFormat(csr, format, name);
  }
  return detail::denseToSparse(std::get<DenseTensor>(d), format, name);
}

SparseTensor readMatrixMarketSparse(const std::string& path, const Format& format, ValueType type) {
  return parseMatrixMarketSparse(detail::readFile(path), path, format, type);
}

void writeMatrixMarket(const std::string& path, const SparseTensor& t) {
  if (t.rank() != 2)
    throw UserError(path + ": Matrix Market holds matrices (rank 2), got a tensor of rank " + std::to_string(t.rank()));
  writeMatrixMarket(path, sparseToCsr(t));
}

void writeMatrixMarket(const std::string& path, const CsrMatrix& m) {
  std::string out = "%%MatrixMarket matrix coordinate real general\n";
  detail::appendNumber(out, m.rows);
  out += ' ';
  detail::appendNumber(out, m.cols);
  out += ' ';
  detail::appendNumber(out, m.nnz());
  out += '\n';
  // Rows are formatted in parallel blocks, then concatenated in order.
  const int64_t T = std::max<int64_t>(1, std::min<int64_t>(detail::maxThreads(), m.nnz() / 100000));
  std::vector<std::string> parts(T);
  detail::RegionExceptions exceptions;  // the text may not fit in memory
#pragma omp parallel for schedule(static, 1) num_threads(T) if (T > 1)
  for (int64_t t = 0; t < T; ++t)
    exceptions.run([&] {
      const int64_t r0 = m.rows * t / T, r1 = m.rows * (t + 1) / T;
      std::string& s = parts[t];
      s.reserve((m.rowptr[r1] - m.rowptr[r0]) * 32);
      for (int64_t r = r0; r < r1; ++r) {
        for (int64_t k = m.rowptr[r]; k < m.rowptr[r + 1]; ++k) {
          detail::appendNumber(s, r + 1);
          s += ' ';
          detail::appendNumber(s, static_cast<int64_t>(m.col[k]) + 1);
          s += ' ';
          detail::appendNumber(s, m.val[k], m.valueType);
          s += '\n';
        }
      }
    });
  exceptions.rethrow();
  for (const std::string& s : parts) out += s;
  writeFileAtomically(path, out);
}

void writeMatrixMarket(const std::string& path, const DenseTensor& t) {
  if (t.rank() > 2)
    throw UserError(path + ": Matrix Market holds tensors of rank 2 at most, got rank " + std::to_string(t.rank()));
  const int64_t rows = t.rank() >= 1 ? t.shape[0] : 1;
  const int64_t cols = t.rank() == 2 ? t.shape[1] : 1;
  std::string out = "%%MatrixMarket matrix array real general\n";
  detail::appendNumber(out, rows);
  out += ' ';
  detail::appendNumber(out, cols);
  out += '\n';
  for (int64_t j = 0; j < cols; ++j) {
    for (int64_t i = 0; i < rows; ++i) {
      detail::appendNumber(out, t.data[i * cols + j], t.valueType);
      out += '\n';
    }
  }
  writeFileAtomically(path, out);
}

}  // namespace react
