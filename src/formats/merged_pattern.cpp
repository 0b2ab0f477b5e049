// The pattern a co-iteration assembles from two of one format (docs/semantics.md, "Two sparse
// patterns"): merged level by level, as the merge loops of the interpreter and of the kernels
// visit them.
#include "formats/formats.hpp"

#include <string>

namespace react {

namespace {

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string s;
  for (int64_t d : shape) s += (s.empty() ? "" : " x ") + std::to_string(d);
  return s;
}

// An operand's levels as the merge reads them, where they are stored (csr's arrays, a
// SparseTensor's levels): no copy.
struct LevelsView {
  Format format;
  std::vector<int64_t> shape;
  std::vector<const int64_t*> pos;  // per level; null for a dense level
  std::vector<const int32_t*> crd;
};

LevelsView levelsOf(const CsrMatrix& m) {
  return LevelsView{Format::csr(), {m.rows, m.cols}, {nullptr, m.rowptr.data()}, {nullptr, m.col.data()}};
}

LevelsView levelsOf(const SparseTensor& t) {
  LevelsView v{t.format, t.shape, {}, {}};
  for (const LevelArrays& l : t.levels) {
    v.pos.push_back(l.pos.data());
    v.crd.push_back(l.crd.data());
  }
  return v;
}

class LevelMerge {
 public:
  LevelMerge(const LevelsView& a, const LevelsView& b, bool unite) : a_(a), b_(b), unite_(unite) {
    m_.format = a.format;
    m_.shape = a.shape;
    m_.levels.resize(static_cast<size_t>(a.format.rank()));
    for (int l = 0; l < a.format.rank(); ++l)
      if (a.format.level(l).kind == LevelKind::Compressed) m_.levels[static_cast<size_t>(l)].pos.push_back(0);
  }

  // The merged levels; their values are zero.
  SparseTensor run() && {
    children(0, 0, 0);
    m_.val.assign(m_.levels.back().crd.size(), 0.0);
    return std::move(m_);
  }

 private:
  // Appends the entries of level l under one parent entry of the merged pattern, whose positions
  // in a and b are pa and pb (-1: that operand does not hold it); whether there are any. An entry
  // above the last level with none under it is not kept.
  bool children(int l, int64_t pa, int64_t pb) {
    const size_t level = static_cast<size_t>(l);
    const int rank = a_.format.rank();
    if (a_.format.level(l).kind == LevelKind::Dense) {  // the first level only (formats the front end admits)
      const int64_t extent = a_.shape[static_cast<size_t>(a_.format.dimension(l))];
      for (int64_t c = 0; c < extent; ++c) children(l + 1, c, c);
      return true;
    }
    auto range = [&](const LevelsView& t, int64_t p) {
      return p < 0 ? std::pair<int64_t, int64_t>{0, 0} : std::pair<int64_t, int64_t>{t.pos[level][p], t.pos[level][p + 1]};
    };
    auto [ia, ea] = range(a_, pa);
    auto [ib, eb] = range(b_, pb);
    const int32_t* ca = a_.crd[level];
    const int32_t* cb = b_.crd[level];
    LevelArrays& out = m_.levels[level];
    while (ia < ea || ib < eb) {
      const bool inA = ia < ea, inB = ib < eb;
      if (!unite_ && !(inA && inB)) break;  // the intersection is over
      const int32_t c = !inB || (inA && ca[ia] < cb[ib]) ? ca[ia] : cb[ib];
      const bool holdsA = inA && ca[ia] == c, holdsB = inB && cb[ib] == c;
      if (unite_ || (holdsA && holdsB)) {
        out.crd.push_back(c);
        if (l + 1 < rank && !children(l + 1, holdsA ? ia : -1, holdsB ? ib : -1)) {
          out.crd.pop_back();  // and the end of its (no) children
          m_.levels[level + 1].pos.pop_back();
        }
      }
      ia += holdsA;
      ib += holdsB;
    }
    const bool any = static_cast<int64_t>(out.crd.size()) > out.pos.back();
    out.pos.push_back(static_cast<int64_t>(out.crd.size()));
    return any;
  }

  const LevelsView& a_;
  const LevelsView& b_;
  const bool unite_;
  SparseTensor m_;
};

}  // namespace

TensorData mergedPattern(const TensorData& a, const TensorData& b, bool unite) {
  const CsrMatrix* ca = std::get_if<CsrMatrix>(&a);
  const CsrMatrix* cb = std::get_if<CsrMatrix>(&b);
  if (ca && cb) {
    if (ca->rows != cb->rows || ca->cols != cb->cols)
      throw UserError("merging the patterns of " + shapeText({ca->rows, ca->cols}) + " and " + shapeText({cb->rows, cb->cols}) +
                      " matrices");
    for (const CsrMatrix* m : {ca, cb}) {  // the structure the merge reads (not the values)
      if (static_cast<int64_t>(m->rowptr.size()) != m->rows + 1)
        throw UserError("invalid CSR matrix: rowptr has " + std::to_string(m->rowptr.size()) + " entries, expected rows+1 = " +
                        std::to_string(m->rows + 1));
      validateCsrArrays(m->rows, m->cols, m->rowptr.data(), m->col.data(), m->nnz());
    }
    SparseTensor merged = LevelMerge(levelsOf(*ca), levelsOf(*cb), unite).run();
    CsrMatrix m;  // csr's levels, moved
    m.rows = ca->rows;
    m.cols = ca->cols;
    m.rowptr = std::move(merged.levels[1].pos);
    m.col = std::move(merged.levels[1].crd);
    m.val = std::move(merged.val);
    m.valueType = ca->valueType;
    return m;
  }
  const SparseTensor* sa = std::get_if<SparseTensor>(&a);
  const SparseTensor* sb = std::get_if<SparseTensor>(&b);
  if (!sa || !sb || sa->format != sb->format)
    throw UserError("merging the patterns of tensors of formats " + formatOf(a).str() + " and " + formatOf(b).str());
  if (sa->shape != sb->shape)
    throw UserError("merging the patterns of " + shapeText(sa->shape) + " and " + shapeText(sb->shape) + " tensors");
  for (int l = 0; l < sa->rank(); ++l) {
    const Level& level = sa->format.level(l);
    if (level.kind == LevelKind::Dense ? l > 0 : level.kind != LevelKind::Compressed || !level.unique)
      throw UserError("merging the patterns of " + sa->format.str() + " tensors: level " + std::to_string(l) + " is " +
                      level.str() + " (a dense first level, then compressed unique ones, are merged)");
  }
  sa->validate();
  sb->validate();
  SparseTensor merged = LevelMerge(levelsOf(*sa), levelsOf(*sb), unite).run();
  merged.valueType = sa->valueType;
  return merged;
}

}  // namespace react
