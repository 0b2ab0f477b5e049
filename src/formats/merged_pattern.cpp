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

class LevelMerge {
 public:
  LevelMerge(const SparseTensor& a, const SparseTensor& b, bool unite) : a_(a), b_(b), unite_(unite) {
    m_.format = a.format;
    m_.shape = a.shape;
    m_.valueType = a.valueType;
    m_.levels.resize(static_cast<size_t>(a.rank()));
    for (int l = 0; l < a.rank(); ++l)
      if (a.format.level(l).kind == LevelKind::Compressed) m_.levels[static_cast<size_t>(l)].pos.push_back(0);
  }

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
    if (a_.format.level(l).kind == LevelKind::Dense) {  // the first level only (formats the front end admits)
      const int64_t extent = a_.shape[static_cast<size_t>(a_.format.dimension(l))];
      for (int64_t c = 0; c < extent; ++c) children(l + 1, c, c);
      return true;
    }
    auto range = [&](const SparseTensor& t, int64_t p) {
      const std::vector<int64_t>& pos = t.levels[level].pos;
      return p < 0 ? std::pair<int64_t, int64_t>{0, 0} : std::pair<int64_t, int64_t>{pos[static_cast<size_t>(p)], pos[static_cast<size_t>(p) + 1]};
    };
    auto [ia, ea] = range(a_, pa);
    auto [ib, eb] = range(b_, pb);
    const std::vector<int32_t>& ca = a_.levels[level].crd;
    const std::vector<int32_t>& cb = b_.levels[level].crd;
    LevelArrays& out = m_.levels[level];
    while (ia < ea || ib < eb) {
      const bool inA = ia < ea, inB = ib < eb;
      const int32_t c = !inB || (inA && ca[static_cast<size_t>(ia)] < cb[static_cast<size_t>(ib)]) ? ca[static_cast<size_t>(ia)]
                                                                                                   : cb[static_cast<size_t>(ib)];
      const bool holdsA = inA && ca[static_cast<size_t>(ia)] == c, holdsB = inB && cb[static_cast<size_t>(ib)] == c;
      if (!unite_ && !(inA && inB)) break;  // the intersection is over
      if (unite_ || (holdsA && holdsB)) {
        out.crd.push_back(c);
        if (l + 1 < a_.rank() && !children(l + 1, holdsA ? ia : -1, holdsB ? ib : -1)) {
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

  const SparseTensor& a_;
  const SparseTensor& b_;
  const bool unite_;
  SparseTensor m_;
};

}  // namespace

TensorData mergedPattern(const TensorData& a, const TensorData& b, bool unite) {
  const CsrMatrix* ca = std::get_if<CsrMatrix>(&a);
  const CsrMatrix* cb = std::get_if<CsrMatrix>(&b);
  if (ca && cb)  // csr's levels as a SparseTensor's (a copy of the arrays, once per binding)
    return sparseToCsr(std::get<SparseTensor>(mergedPattern(TensorData(csrToSparse(*ca)), TensorData(csrToSparse(*cb)), unite)));
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
  return LevelMerge(*sa, *sb, unite).run();
}

}  // namespace react
