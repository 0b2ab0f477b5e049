// Conversions between SparseTensor and the other forms: coordinates, another format, CSR, dense.
#include "formats/formats.hpp"
#include "formats/sparse_build.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace react {

namespace {

// Every stored position of t as an entry, for the builder: coordinates by logical dimension.
struct Entries {
  std::vector<std::vector<int32_t>> crd;
  std::vector<double> val;
};

Entries storedEntries(const SparseTensor& t) {
  Entries e;
  e.crd.resize(static_cast<size_t>(t.rank()));
  for (auto& c : e.crd) c.reserve(t.val.size());
  e.val.reserve(t.val.size());
  detail::forEachStored(t, [&](const int64_t* coords, double v) {
    for (int l = 0; l < t.rank(); ++l) e.crd[t.format.dimension(l)].push_back(static_cast<int32_t>(coords[l]));
    e.val.push_back(v);
  });
  return e;
}

void requireRank(const std::string& where, int rank, int expected, const std::string& what) {
  if (rank != expected)
    throw UserError(where + ": expected " + what + " of rank " + std::to_string(expected) + ", got rank " +
                    std::to_string(rank));
}

}  // namespace

CooTensor sparseToCoo(const SparseTensor& t) {
  t.validate();
  CooTensor coo;
  coo.shape = t.shape;
  coo.valueType = t.valueType;
  coo.crd.resize(static_cast<size_t>(t.rank()));
  for (auto& c : coo.crd) c.reserve(t.val.size());
  coo.val.reserve(t.val.size());
  detail::forEachStored(t, [&](const int64_t* coords, double v) {
    for (int l = 0; l < t.rank(); ++l) coo.crd[t.format.dimension(l)].push_back(coords[l]);
    coo.val.push_back(v);
  });
  return coo;
}

namespace detail {

SparseTensor convertFormat(const SparseTensor& t, const Format& format, const std::string& name) {
  t.validate();
  if (format == t.format) return t;
  requireRank(name, format.rank(), t.rank(), "a format");
  checkCoordinateBits(t.shape, name);
  Entries e = storedEntries(t);
  return buildSparse(format, t.shape, std::move(e.crd), std::move(e.val), t.valueType, name);
}

SparseTensor denseToSparse(const DenseTensor& dense, const Format& format, const std::string& name) {
  requireRank(name, dense.rank(), format.rank(), "a tensor");
  if (format.rank() == 0) throw UserError(name + ": a scalar is not a sparse tensor (rank 1 or more)");
  if (format == Format::dense(format.rank())) {  // row-major: the data as it is
    SparseTensor t;
    t.format = format;
    t.shape = dense.shape;
    t.levels.resize(static_cast<size_t>(format.rank()));
    t.val = dense.data;
    t.valueType = dense.valueType;
    return t;
  }
  const int R = dense.rank();
  checkCoordinateBits(dense.shape, name);
  std::vector<std::vector<int32_t>> crd(static_cast<size_t>(R));
  std::vector<double> val;
  std::vector<int64_t> at(static_cast<size_t>(R), 0);  // the coordinates of element i, row-major
  for (int64_t i = 0; i < dense.size(); ++i) {
    if (dense.data[i] != 0.0) {
      for (int d = 0; d < R; ++d) crd[d].push_back(static_cast<int32_t>(at[d]));
      val.push_back(dense.data[i]);
    }
    for (int d = R - 1; d >= 0 && ++at[d] == dense.shape[d]; --d) at[d] = 0;
  }
  return buildSparse(format, dense.shape, std::move(crd), std::move(val), dense.valueType, name);
}

void checkCoordinateBits(const std::vector<int64_t>& shape, const std::string& name) {
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] > int64_t{1} << 31)
      throw UserError(name + ": dimension " + std::to_string(d) + " of size " + std::to_string(shape[d]) +
                      " does not fit 32-bit coordinates (at most 2147483648)");
}

}  // namespace detail

SparseTensor convertFormat(const SparseTensor& t, const Format& format) {
  return detail::convertFormat(t, format, "convertFormat");
}

SparseTensor csrToSparse(CsrMatrix csr) {
  SparseTensor t;
  t.format = Format::csr();
  t.shape = {csr.rows, csr.cols};
  t.levels.resize(2);
  t.levels[1].pos = std::move(csr.rowptr);
  t.levels[1].crd = std::move(csr.col);
  t.val = std::move(csr.val);
  t.valueType = csr.valueType;
  return t;
}

CsrMatrix sparseToCsr(const SparseTensor& t) {
  requireRank("sparseToCsr", t.rank(), 2, "a tensor");
  CsrMatrix m;
  m.valueType = t.valueType;
  if (t.format == Format::csr()) {
    t.validate();
    m.rows = t.shape[0];
    m.cols = t.shape[1];
    m.rowptr = t.levels[1].pos;
    m.col = t.levels[1].crd;
    m.val = t.val;
    return m;
  }
  SparseTensor s = convertFormat(t, Format::csr());  // validates t
  m.rows = s.shape[0];
  m.cols = s.shape[1];
  m.rowptr = std::move(s.levels[1].pos);
  m.col = std::move(s.levels[1].crd);
  m.val = std::move(s.val);
  return m;
}

// A counting sort of the entries by column, rows in order within each: stable, so a column's rows
// increase as csc requires.
ColumnOrder csrByColumns(const CsrMatrix& m) {
  ColumnOrder o;
  SparseTensor& t = o.byColumns;
  t.format = Format::csc();
  t.shape = {m.rows, m.cols};
  detail::checkCoordinateBits(t.shape, "csrByColumns");  // the rows become coordinates
  t.valueType = m.valueType;
  t.levels.resize(2);
  std::vector<int64_t>& pos = t.levels[1].pos;
  std::vector<int32_t>& crd = t.levels[1].crd;
  const int64_t nnz = m.nnz();
  const std::string what = "a csr matrix by columns (" + std::to_string(nnz) + " entries)";
  // Per entry a row (4 bytes), a value and its csr position (8 each); a position per column.
  allocateOrThrow(what, checkedElementCount({nnz + m.cols + 1}, 20, what) * 20, [&] {
    pos.assign(static_cast<size_t>(m.cols) + 1, 0);
    crd.resize(static_cast<size_t>(nnz));
    t.val.resize(static_cast<size_t>(nnz));
    o.source.resize(static_cast<size_t>(nnz));
  });
  for (int32_t c : m.col) ++pos[static_cast<size_t>(c) + 1];
  for (size_t c = 0; c < static_cast<size_t>(m.cols); ++c) pos[c + 1] += pos[c];
  std::vector<int64_t> next(pos.begin(), pos.end() - 1);
  for (int64_t r = 0; r < m.rows; ++r)
    for (int64_t p = m.rowptr[static_cast<size_t>(r)]; p < m.rowptr[static_cast<size_t>(r) + 1]; ++p) {
      const size_t q = static_cast<size_t>(next[static_cast<size_t>(m.col[static_cast<size_t>(p)])]++);
      crd[q] = static_cast<int32_t>(r);
      t.val[q] = m.val[static_cast<size_t>(p)];
      o.source[q] = p;
    }
  return o;
}

DenseTensor sparseToDense(const SparseTensor& t) {
  t.validate();
  DenseTensor d(t.shape);
  d.valueType = t.valueType;
  // Only a non-unique last level can store one coordinate twice; its entries add up.
  const bool sum = !t.format.level(t.rank() - 1).unique;
  std::vector<int> levelOf(static_cast<size_t>(t.rank()));
  for (int l = 0; l < t.rank(); ++l) levelOf[t.format.dimension(l)] = l;
  detail::forEachStored(t, [&](const int64_t* coords, double v) {
    int64_t offset = 0;
    for (int dim = 0; dim < t.rank(); ++dim) offset = offset * t.shape[dim] + coords[levelOf[dim]];
    d.data[offset] = sum ? d.data[offset] + v : v;
  });
  return d;
}

SparseTensor denseToSparse(const DenseTensor& dense, const Format& format) {
  return detail::denseToSparse(dense, format, "denseToSparse");
}

namespace {

const SparseTensor& asSparse(const TensorData& pattern, std::optional<SparseTensor>& converted) {
  if (const CsrMatrix* m = std::get_if<CsrMatrix>(&pattern)) return *(converted = csrToSparse(*m));
  return std::get<SparseTensor>(pattern);
}

}  // namespace

int64_t patternPrefixValues(const TensorData& pattern, const Format& format, const std::vector<int64_t>& shape) {
  std::optional<SparseTensor> converted;
  const SparseTensor& from = asSparse(pattern, converted);
  const int prefix = format.patternLevels();
  REACT_ASSERT(prefix >= 1 && prefix <= from.rank() && static_cast<int>(shape.size()) == format.rank(),
               "patternPrefix: format " + format.str() + " is no prefix of " + from.format.str());
  std::vector<int64_t> extents{1};  // positions of the last pattern level, then the dense levels' extents
  for (int l = 0; l < prefix; ++l) {
    const Level& level = format.level(l);
    REACT_ASSERT(level == from.format.level(l), "patternPrefix: level " + std::to_string(l) + " differs");
    if (level.kind == LevelKind::Dense) extents[0] *= from.shape[static_cast<size_t>(from.format.dimension(l))];
    if (level.kind == LevelKind::Compressed) extents[0] = from.levels[static_cast<size_t>(l)].pos.back();
  }
  for (int l = prefix; l < format.rank(); ++l) extents.push_back(shape[static_cast<size_t>(format.dimension(l))]);
  return checkedElementCount(extents, static_cast<int64_t>(sizeof(double)), "a " + format.str() + " tensor (" + extentsText(extents, "values") + ")");
}

SparseTensor patternPrefix(const TensorData& pattern, const Format& format, const std::vector<int64_t>& shape) {
  const int64_t values = patternPrefixValues(pattern, format, shape);
  std::optional<SparseTensor> converted;
  const SparseTensor& from = asSparse(pattern, converted);
  SparseTensor t;
  t.format = format;
  t.shape = shape;
  t.valueType = from.valueType;
  for (int l = 0; l < format.rank(); ++l)
    t.levels.push_back(l < format.patternLevels() ? from.levels[static_cast<size_t>(l)] : LevelArrays{});
  t.val.assign(static_cast<size_t>(values), 0.0);
  return t;
}

}  // namespace react
