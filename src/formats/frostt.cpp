// FROSTT .tns reader and writer (formats.hpp, docs/formats.md).
//
// As the Matrix Market reader: the rank is found serially (the shape's, the format's, or the first
// entry's fields), then the text is split at line boundaries into one chunk per thread (OpenMP),
// each parsed into its own coordinate lists; the first error in file order is reported after the
// parallel part, so the message is the same for any thread count: "name:line: expected X, got Y".
#include "formats/formats.hpp"
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
using detail::isBlank;
using detail::nextLine;
using detail::parseUnsigned;
using detail::skipBlanks;
using detail::Source;

constexpr uint64_t kMaxCoordinate = std::numeric_limits<int32_t>::max();  // 1-based, as Matrix Market's

// What every line must hold, and why, for the message of a line that does not.
struct Layout {
  int rank = 0;
  std::string why;                // "as the first entry, line 2, has", "format csf is of rank 3", ...
  std::vector<uint64_t> limit;    // the largest coordinate allowed in each mode (1-based)
  ValueType type = ValueType::Float64;
};

struct Chunk {
  const char* begin = nullptr;
  const char* end = nullptr;
  std::vector<std::vector<int32_t>> crd;  // by mode, 0-based
  std::vector<double> val;
  std::vector<uint64_t> largest;          // the largest coordinate seen in each mode (1-based; 0: none)
  detail::ParseError error;
  std::exception_ptr exception;  // e.g. std::bad_alloc, rethrown outside the parallel region
};

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string s;
  for (int64_t n : shape) s += (s.empty() ? "" : " x ") + std::to_string(n);
  return s;
}

std::string plural(int64_t n, const std::string& word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

// The fields of the line that starts at `line`.
int64_t fieldsOf(const char* line, const char* e) {
  int64_t fields = 0;
  for (const char* p = skipBlanks(line, e); p < e && *p != '\n'; p = skipBlanks(p, e)) {
    ++fields;
    while (p < e && !isBlank(*p) && *p != '\n') ++p;
  }
  return fields;
}

std::string fieldsExpected(const Layout& layout) {
  return plural(layout.rank, "coordinate") + " and a value (" + layout.why + ")";
}

// "coordinate 2 of 3 in 1..40", or "... (a positive integer)" where the field is not a number.
std::string coordinateExpected(const Layout& layout, int d, bool number) {
  const std::string which = "coordinate " + std::to_string(d + 1) + " of " + std::to_string(layout.rank);
  if (!number) return which + " (a positive integer)";
  if (layout.limit[d] == 0) return which + " (none: mode " + std::to_string(d + 1) + " of the given shape is empty)";
  return which + " in 1.." + std::to_string(layout.limit[d]);
}

// The first line that is neither blank nor a comment, or e.
const char* firstEntry(const char* p, const char* e) {
  while (p < e) {
    const char* q = skipBlanks(p, e);
    if (q < e && *q != '\n' && *q != '#') return q;
    p = nextLine(q, e);
  }
  return e;
}

// Parses the entries of [c.begin, c.end) until the first error.
void parseChunk(const Layout& layout, const Source& src, Chunk& c) {
  const int R = layout.rank;
  const char* p = c.begin;
  const char* const e = c.end;
  const char* const srcEnd = src.end;
  c.crd.resize(static_cast<size_t>(R));
  c.largest.assign(static_cast<size_t>(R), 0);
  // Room for every entry the chunk can hold, so that nothing grows while parsing: one a line, and
  // an entry takes two bytes a field at least (memory in proportion to the text, whatever the rank).
  const int64_t bytes = e - c.begin;
  const int64_t most = std::min<int64_t>(std::count(c.begin, e, '\n') + 1, bytes / (2 * (int64_t{R} + 1)) + 1);
  allocateOrThrow(src.name + ": " + std::to_string(most) + " entries of rank " + std::to_string(R),
                  most * (R * int64_t{sizeof(int32_t)} + int64_t{sizeof(double)}), [&] {
                    for (auto& crd : c.crd) crd.reserve(static_cast<size_t>(most));
                    c.val.reserve(static_cast<size_t>(most));
                  });
  // A broken line with the wrong number of fields is reported as that; otherwise as its field.
  auto error = [&](const char* line, const char* at, std::string expected) {
    const int64_t fields = fieldsOf(line, e);
    if (fields != R + 1)
      c.error = {skipBlanks(line, e), fieldsExpected(layout), plural(fields, "field")};
    else
      c.error = {at, std::move(expected), describe(at, srcEnd)};
  };
  while (p < e) {
    const char* line = p;
    p = skipBlanks(p, e);
    if (p == e) break;
    if (*p == '\n' || *p == '#') {
      p = nextLine(p, e);
      continue;
    }
    for (int d = 0; d < R; ++d) {
      const char* tok = p;
      uint64_t x = 0;
      if (!parseUnsigned(p, e, x)) {
        // All digits: beyond what parseUnsigned reads, so beyond the range too.
        const char* q = tok;
        while (q < e && static_cast<unsigned>(*q - '0') < 10) ++q;
        return error(line, tok, coordinateExpected(layout, d, q > tok && detail::atFieldEnd(q, e)));
      }
      if (x < 1 || x > layout.limit[d]) return error(line, tok, coordinateExpected(layout, d, true));
      c.largest[d] = std::max(c.largest[d], x);
      c.crd[d].push_back(static_cast<int32_t>(x - 1));
      p = skipBlanks(p, e);
    }
    const char* tok = p;
    double v = 0.0;
    if (const char* expected = detail::parseReal(p, e, layout.type, v)) return error(line, tok, expected);
    p = skipBlanks(p, e);
    if (p < e && *p != '\n') return error(line, p, "end of line");  // reported as a wrong field count
    if (p < e) ++p;
    c.val.push_back(v);
  }
}

// The rank and the limits of the coordinates, from the shape, the format or the first entry.
Layout layoutOf(const Source& src, const Format& format, ValueType type, const std::vector<int64_t>& shape) {
  Layout layout;
  layout.type = type;
  if (!shape.empty()) {
    if (format.rank() != 0 && format.rank() != static_cast<int>(shape.size()))
      throw UserError(src.name + ": format " + format.str() + " is of rank " + std::to_string(format.rank()) +
                      ", the given shape " + shapeText(shape) + " of rank " + std::to_string(shape.size()));
    for (size_t d = 0; d < shape.size(); ++d)
      if (shape[d] < 0 || static_cast<uint64_t>(shape[d]) > kMaxCoordinate)
        throw UserError(src.name + ": mode " + std::to_string(d + 1) + " of the given shape " + shapeText(shape) +
                        " is " + std::to_string(shape[d]) + ", expected 0.." + std::to_string(kMaxCoordinate));
    layout.rank = static_cast<int>(shape.size());
    layout.why = "the given shape is " + shapeText(shape);
    layout.limit.assign(shape.begin(), shape.end());
    return layout;
  }
  if (format.rank() != 0) {
    layout.rank = format.rank();
    layout.why = "format " + format.str() + " is of rank " + std::to_string(format.rank());
  } else {
    const char* first = firstEntry(src.begin, src.end);
    if (first == src.end) fail(src, first, "an entry (1-based coordinates and a value)");
    const int64_t fields = fieldsOf(first, src.end);
    if (fields < 2) fail(src, first, "at least one coordinate and a value", plural(fields, "field"));
    if (fields > std::numeric_limits<int>::max()) fail(src, first, "fewer coordinates", plural(fields, "field"));
    layout.rank = static_cast<int>(fields - 1);
    layout.why = "as the first entry, line " + std::to_string(detail::lineOf(src, first)) + ", has";
  }
  layout.limit.assign(static_cast<size_t>(layout.rank), kMaxCoordinate);
  return layout;
}

}  // namespace

SparseTensor parseFrostt(const std::string& text, const std::string& name, const Format& format, ValueType type,
                         const std::vector<int64_t>& shape) {
  const Source src{text.data(), text.data() + text.size(), name};
  const Layout layout = layoutOf(src, format, type, shape);
  const int R = layout.rank;

  const auto pieces = detail::lineChunks(src.begin, src.end);
  const int64_t T = static_cast<int64_t>(pieces.size());
  std::vector<Chunk> chunks(static_cast<size_t>(T));
  for (int64_t t = 0; t < T; ++t) std::tie(chunks[t].begin, chunks[t].end) = pieces[t];
#pragma omp parallel for schedule(static, 1) num_threads(T) if (T > 1)
  for (int64_t t = 0; t < T; ++t) {
    try {
      parseChunk(layout, src, chunks[t]);
    } catch (...) {
      chunks[t].exception = std::current_exception();
    }
  }
  int64_t entries = 0;
  for (const Chunk& c : chunks) {  // the first problem in file order, whichever thread met it
    if (c.exception) std::rethrow_exception(c.exception);
    if (c.error.at) fail(src, c.error.at, c.error.expected, c.error.got);
    entries += static_cast<int64_t>(c.val.size());
  }

  // One list per mode, each chunk's part freed as soon as it is copied.
  std::vector<int64_t> dims = shape;
  if (dims.empty()) {
    dims.assign(static_cast<size_t>(R), 0);
    for (const Chunk& c : chunks)
      for (int d = 0; d < R; ++d) dims[d] = std::max<int64_t>(dims[d], static_cast<int64_t>(c.largest[d]));
  }
  const std::string what = name + ": " + std::to_string(entries) + " entries";
  checkedElementCount({entries, R + 2}, sizeof(int32_t), what);
  std::vector<std::vector<int32_t>> crd(static_cast<size_t>(R));
  std::vector<double> val;
  allocateOrThrow(what, entries * (R * int64_t{sizeof(int32_t)} + int64_t{sizeof(double)}), [&] {
    for (int d = 0; d < R; ++d) {
      crd[d].reserve(static_cast<size_t>(entries));
      for (Chunk& c : chunks) {
        crd[d].insert(crd[d].end(), c.crd[d].begin(), c.crd[d].end());
        std::vector<int32_t>().swap(c.crd[d]);
      }
    }
    val.reserve(static_cast<size_t>(entries));
    for (Chunk& c : chunks) {
      val.insert(val.end(), c.val.begin(), c.val.end());
      std::vector<double>().swap(c.val);
    }
  });
  const Format f = format.rank() != 0 ? format : Format::coo(R);
  return detail::buildSparse(f, std::move(dims), std::move(crd), std::move(val), type, name);
}

SparseTensor readFrostt(const std::string& path, const Format& format, ValueType type,
                        const std::vector<int64_t>& shape) {
  return parseFrostt(detail::readFile(path), path, format, type, shape);
}

void writeFrostt(const std::string& path, const SparseTensor& t) {
  t.validate();
  std::string out = "# " + shapeText(t.shape) + " tensor, " + plural(t.nnz(), "stored value") + "\n";
  std::vector<int64_t> logical(static_cast<size_t>(t.rank()));
  detail::forEachStored(t, [&](const int64_t* coords, double v) {
    for (int l = 0; l < t.rank(); ++l) logical[t.format.dimension(l)] = coords[l];
    for (int64_t x : logical) {
      detail::appendNumber(out, x + 1);
      out += ' ';
    }
    detail::appendNumber(out, v, t.valueType);
    out += '\n';
  });
  writeFileAtomically(path, out);
}

}  // namespace react
