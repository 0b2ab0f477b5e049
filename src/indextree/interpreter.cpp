// The reference interpreter: walks any index tree and evaluates its statements one scalar at a
// time. Slow and exact; the golden model of every differential test. A statement computes in its
// left-hand side's value type: as float32, every operand, literal and operation result is rounded
// to float32 (docs/semantics.md, "Value types"), as float arithmetic in a kernel rounds it.
#include "indextree/internal.hpp"

#include <cmath>
#include <limits>
#include <set>

namespace react {

namespace {

// A tensor's values, at the positions of its last level: for a dense tensor (shrunk dimensions
// dropped) the row-major offset, for one stored at a pattern the position its loops bind.
struct Storage {
  std::vector<double> values;
  Format format;
  std::vector<int64_t> shape;
  std::vector<bool> kept;
};

// One level of a pattern's structure (TACO's pos and crd arrays), what a Sparse loop over it asks.
struct PatternLevel {
  Level level;
  int64_t extent = 0;
  std::vector<int64_t> pos;  // Compressed: the children of parent position p are pos[p] .. pos[p+1]-1
  std::vector<int64_t> crd;  // Compressed, Singleton: the coordinate at each position

  // The positions under parent position `parent`.
  std::pair<int64_t, int64_t> children(int64_t parent) const {
    switch (level.kind) {
      case LevelKind::Compressed: return {pos[static_cast<size_t>(parent)], pos[static_cast<size_t>(parent) + 1]};
      case LevelKind::Singleton: return {parent, parent + 1};
      case LevelKind::Dense: break;
    }
    throw UserError("interpreter: a dense level has no position loop");
  }
};

// An input stored at a pattern: the data as given (results stored at its positions share its
// structure: csr's rowptr and col, a SparseTensor's levels) and its structure level by level.
struct Pattern {
  TensorData data;
  std::vector<PatternLevel> levels;
};

Pattern patternOf(const TensorData& v) {
  Pattern p{v, {}};
  if (const CsrMatrix* m = std::get_if<CsrMatrix>(&v)) {
    p.levels.push_back(PatternLevel{Level::dense(), m->rows, {}, {}});
    p.levels.push_back(PatternLevel{Level::compressed(), m->cols, m->rowptr, std::vector<int64_t>(m->col.begin(), m->col.end())});
    return p;
  }
  const SparseTensor& t = std::get<SparseTensor>(v);
  for (int l = 0; l < t.rank(); ++l) {
    const LevelArrays& a = t.levels[static_cast<size_t>(l)];
    p.levels.push_back(PatternLevel{t.format.level(l), t.shape[static_cast<size_t>(t.format.dimension(l))], a.pos,
                                    std::vector<int64_t>(a.crd.begin(), a.crd.end())});
  }
  return p;
}

// Positions of the last level: the values a tensor stored at the pattern has (nnz for csr).
int64_t positionCount(const Pattern& p) {
  int64_t n = 1;
  for (const PatternLevel& l : p.levels) n = l.level.storesCoordinates() ? static_cast<int64_t>(l.crd.size()) : n * l.extent;
  return n;
}

class Interpreter {
 public:
  Interpreter(const IndexTree& t, const TensorValues& inputs) : t_(t) {
    for (const auto& [name, s] : t.tensors)
      if (s.decl.role == TensorRole::Input) bindInput(name, s, inputs);
    for (const auto& [name, s] : t.tensors)
      if (s.decl.role != TensorRole::Input) allocate(name, s, identityOf(name));
  }

  void run() { exec(t_.root); }

  TensorValues outputs() const {
    TensorValues out;
    for (const auto& [name, s] : t_.tensors) {
      if (s.decl.role != TensorRole::Output) continue;
      const Storage& st = store_.at(name);
      if (s.decl.format.hasSparseLevel()) {
        TensorData result = s.decl.format.storesPatternPrefix() ? TensorData(patternPrefix(dataOf(s.decl.pattern), s.decl.format, s.decl.shape))
                                               : dataOf(s.decl.pattern);
        valuesOf(result) = st.values;
        setValueType(result, s.decl.valueType);  // the values are of that type already
        out[name] = std::move(result);
      } else {
        DenseTensor d(s.decl.shape);
        d.data = st.values;
        d.valueType = s.decl.valueType;
        out[name] = d;
      }
    }
    return out;
  }

 private:
  // The structure of a pattern as data: an input's as given, an assembled one's as its loops left it.
  TensorData dataOf(const std::string& pattern) const {
    const Pattern& p = patterns_.at(pattern);
    if (!assembled_.count(pattern)) return p.data;
    if (const CsrMatrix* csr = std::get_if<CsrMatrix>(&p.data)) {
      CsrMatrix m = *csr;
      m.rowptr = p.levels.at(1).pos;
      m.col.assign(p.levels.at(1).crd.begin(), p.levels.at(1).crd.end());
      m.val.assign(m.col.size(), 0.0);
      return m;
    }
    SparseTensor t = std::get<SparseTensor>(p.data);
    for (size_t l = 0; l < p.levels.size(); ++l) {
      const PatternLevel& level = p.levels[l];
      if (level.level.kind == LevelKind::Dense) continue;
      t.levels[l].pos = level.pos;
      t.levels[l].crd.assign(level.crd.begin(), level.crd.end());
    }
    t.val.assign(p.levels.back().crd.size(), 0.0);
    return t;
  }

  double identityOf(const std::string& name) const {
    double id = 0.0;
    visitTree(t_.root, [&](const TreeNode& n, const std::vector<const TreeNode*>&) {
      if (n.kind == NodeKind::Compute && n.computeKind == ComputeKind::Compute && n.stmt.lhs == name)
        id = reduceIdentity(n.stmt.reduce);
    });
    return id;
  }

  void allocate(const std::string& name, const TensorStorage& s, double init) {
    int64_t size = 1;
    if (s.decl.format.hasSparseLevel() && s.decl.pattern == name) {
      assemblePattern(name, s);
      size = 0;  // a position per entry its merge loops append
    } else if (s.decl.format.hasSparseLevel() && !s.shrunk()) {
      auto it = patterns_.find(s.decl.pattern);
      if (it == patterns_.end()) throw UserError("interpreter: pattern '" + s.decl.pattern + "' is not an input");
      size = s.decl.format.storesPatternPrefix() ? patternPrefixValues(it->second.data, s.decl.format, s.decl.shape)
                                : positionCount(it->second);
    } else {
      for (size_t d = 0; d < s.kept.size(); ++d)
        if (s.kept[d]) size *= s.decl.shape[d];
    }
    store_[name] = Storage{std::vector<double>(static_cast<size_t>(size), init), s.decl.format, s.decl.shape, s.kept};
  }

  // A pattern merge loops assemble, in the operands' format (a dense first level, then
  // compressed ones: the front end admits no other), empty until the loops append its entries.
  // A compressed level's positions start as [0] (or one per row under a dense first level); an
  // entry appended above a compressed level opens its children there (appendEntry).
  void assemblePattern(const std::string& name, const TensorStorage& s) {
    const Format& f = s.decl.format;
    Pattern p;
    for (int l = 0; l < f.rank(); ++l) {
      const Level& level = f.level(l);
      const int64_t extent = s.decl.shape.at(static_cast<size_t>(f.dimension(l)));
      REACT_ASSERT(level.kind == LevelKind::Dense ? l == 0 : level.kind == LevelKind::Compressed && level.unique,
                   "interpreter: pattern '" + name + "' assembled in format " + f.str());
      // Positions: one more than the parent's entries (a first level's one parent; a dense
      // first level's rows; none yet under a compressed level).
      std::vector<int64_t> pos;
      if (level.kind == LevelKind::Compressed) {
        const PatternLevel* parent = l == 0 ? nullptr : &p.levels.back();
        const int64_t parents = !parent ? 1 : parent->level.kind == LevelKind::Dense ? parent->extent : 0;
        pos.assign(static_cast<size_t>(parents) + 1, 0);
      }
      p.levels.push_back(PatternLevel{level, extent, std::move(pos), {}});
    }
    if (f == Format::csr()) {
      CsrMatrix m;
      m.rows = s.decl.shape.at(0);
      m.cols = s.decl.shape.at(1);
      p.data = m;
    } else {
      SparseTensor t;
      t.format = f;
      t.shape = s.decl.shape;
      t.levels.resize(static_cast<size_t>(f.rank()));
      p.data = t;
    }
    patterns_[name] = std::move(p);
    assembled_.insert(name);
  }

  void bindInput(const std::string& name, const TensorStorage& s, const TensorValues& inputs) {
    auto it = inputs.find(name);
    if (it == inputs.end()) throw UserError("interpreter: no value given for input '" + name + "'");
    const TensorData& given = it->second;
    if (auto why = inputFormMismatch(given, s.decl)) throw UserError("interpreter: input '" + name + "' " + *why);
    if (shapeOf(given) != s.decl.shape) throw UserError("interpreter: input '" + name + "' has the wrong shape");
    if (const SparseTensor* t = std::get_if<SparseTensor>(&given)) {
      try {  // its arrays are read unchecked
        t->validate();
      } catch (const UserError& e) {
        throw UserError("interpreter: input '" + name + "': " + e.what());
      }
    }
    std::optional<TensorData> converted;
    const TensorData& v = iteratedInput(s.decl, given, converted);
    if (s.decl.format.hasSparseLevel()) patterns_[name] = patternOf(v);
    store_[name] = Storage{valuesOf(v), s.decl.format, s.decl.shape, s.kept};
    roundValues(store_.at(name).values, s.decl.valueType);
  }

  // An input is read as its declared type, whatever type its values were given in (as the kernel
  // binding converts them).
  static void roundValues(std::vector<double>& values, ValueType type) {
    for (double& v : values) v = roundTo(type, v);
  }

  // The position of the access in the last level, walking the levels in storage order: a dense
  // level locates its coordinate under the parent position, a level iterated by position takes
  // the position its loop binds (several loops may iterate one pattern, nested, under different
  // rows: the access's own index names the loop). Dropped dimensions of a shrunk tensor are skipped.
  double& slot(const std::string& name, const std::vector<std::string>& idx) {
    Storage& st = store_.at(name);
    int64_t position = 0;
    for (int l = 0; l < st.format.rank(); ++l) {
      size_t d = static_cast<size_t>(st.format.dimension(l));
      if (!st.kept[d]) continue;
      if (st.format.level(l).locatable()) {
        position = position * st.shape[d] + index_.at(idx[d]);
        continue;
      }
      auto merged = merged_.find(idx[d]);
      if (merged != merged_.end() && merged->second.count(t_.tensor(name).decl.pattern)) {
        position = merged->second.at(t_.tensor(name).decl.pattern);
        if (position < 0) return absent_ = 0.0;  // an operand without an entry at the coordinate reads 0
        continue;
      }
      auto it = position_.find(idx[d]);
      REACT_ASSERT(it != position_.end(), "interpreter: '" + name + "' read outside a loop over its pattern");
      position = it->second;
    }
    return st.values[static_cast<size_t>(position)];
  }

  // The position of the parent of the level a Sparse loop iterates: the root's for a first level,
  // the one its loop binds for a level iterated by position, the coordinate for a dense first
  // level (csr's row). A dense level under another needs the indices of every level above it,
  // which a loop does not record: no format that runs has one.
  int64_t parentPosition(const Pattern& p, const IndexLoop& loop) const {
    if (loop.level == 0) return 0;
    const PatternLevel& parent = p.levels.at(static_cast<size_t>(loop.level - 1));
    if (parent.level.iteratedByPosition()) return position_.at(loop.parentIndex);
    if (loop.level - 1 == 0) return index_.at(loop.parentIndex);
    throw UserError("interpreter: pattern '" + loop.pattern + "': a dense level under another level is not supported yet");
  }

  // `e` computed in `type`: every operand, literal and result rounded to it.
  double eval(const Expr& e, ValueType type) {
    switch (e->op) {
      case Op::Access: return roundTo(type, slot(e->tensor, e->indices));
      case Op::Literal: return roundTo(type, e->value);
      default: break;
    }
    std::vector<double> a;
    for (const Expr& x : e->args) a.push_back(eval(x, type));
    return roundTo(type, apply(e->op, a));
  }

  static double apply(Op op, const std::vector<double>& a) {
    switch (op) {
      case Op::Neg: return -a[0];
      case Op::Exp: return std::exp(a[0]);
      case Op::Sqrt: return std::sqrt(a[0]);
      case Op::Log: return std::log(a[0]);
      case Op::Add: return a[0] + a[1];
      case Op::Sub: return a[0] - a[1];
      case Op::Mul: return a[0] * a[1];
      case Op::Div: return a[0] / a[1];
      case Op::Max: return std::max(a[0], a[1]);
      case Op::Min: return std::min(a[0], a[1]);
      case Op::Lt: return a[0] < a[1];
      case Op::Le: return a[0] <= a[1];
      case Op::Gt: return a[0] > a[1];
      case Op::Ge: return a[0] >= a[1];
      case Op::Eq: return a[0] == a[1];
      case Op::Ne: return a[0] != a[1];
      case Op::Where: return a[0] != 0.0 ? a[1] : a[2];
      default: internalError("interpreter: unexpected operator '" + std::string(opName(op)) + "'");
    }
  }

  void exec(const TreeNode& n) {
    switch (n.kind) {
      case NodeKind::Root:
        for (const TreeNode& c : n.children) exec(c);
        return;
      case NodeKind::Compute: {
        const ValueType type = t_.tensor(n.stmt.lhs).decl.valueType;
        double v = eval(n.stmt.rhs, type);
        double& out = slot(n.stmt.lhs, n.stmt.lhsIndices);
        auto acc = accumulates_.find(&n);
        if (acc == accumulates_.end()) acc = accumulates_.emplace(&n, n.accumulates()).first;
        if (!acc->second) out = v;
        else if (n.stmt.reduce == ReduceOp::Sum) out = roundTo(type, out + v);
        else out = std::max(out, v);
        return;
      }
      case NodeKind::Index: break;
    }
    const IndexLoop& loop = n.loop;
    if (loop.kind == LoopKind::Dense) {
      int64_t size = t_.indexSizes.at(loop.index);
      for (int64_t v = 0; v < size; ++v) {
        index_[loop.index] = v;
        for (const TreeNode& c : n.children) exec(c);
      }
      index_.erase(loop.index);
      return;
    }
    if (loop.kind == LoopKind::Merge) return merge(n);
    const Pattern& p = patterns_.at(loop.pattern);
    const PatternLevel& level = p.levels.at(static_cast<size_t>(loop.level));
    auto [begin, end] = level.children(parentPosition(p, loop));
    for (int64_t q = begin; q < end; ++q) {
      index_[loop.index] = level.crd[static_cast<size_t>(q)];
      position_[loop.index] = q;
      for (const TreeNode& c : n.children) exec(c);
    }
    index_.erase(loop.index);
    position_.erase(loop.index);
  }

  // A Merge loop: the coordinates of the operands' level under their parent positions, visited
  // in increasing order, each one all operands store (intersection) or any stores (union); an
  // operand without it has no position there. The assembled pattern gets one entry per visit.
  void merge(const TreeNode& n) {
    const IndexLoop& loop = n.loop;
    std::map<std::string, std::pair<int64_t, int64_t>> range;  // operand -> [next position, end)
    for (const std::string& o : loop.operands) {
      const Pattern& p = patterns_.at(o);
      // Under a merge of the level above, an operand without the parent's coordinate has no
      // children here.
      const bool underMerge = loop.level > 0 && p.levels.at(static_cast<size_t>(loop.level - 1)).level.iteratedByPosition();
      const int64_t parent = underMerge ? merged_.at(loop.parentIndex).at(o) : parentPosition(p, loop);
      range[o] = parent < 0 ? std::pair<int64_t, int64_t>{0, 0} : p.levels.at(static_cast<size_t>(loop.level)).children(parent);
    }
    auto coordinate = [&](const std::string& o) {
      return patterns_.at(o).levels.at(static_cast<size_t>(loop.level)).crd[static_cast<size_t>(range.at(o).first)];
    };
    for (;;) {
      int64_t next = std::numeric_limits<int64_t>::max();
      size_t holding = 0;
      for (const auto& [o, r] : range)
        if (r.first < r.second) next = std::min(next, coordinate(o));
      if (next == std::numeric_limits<int64_t>::max()) break;
      std::map<std::string, int64_t>& positions = merged_[loop.index];
      for (const auto& [o, r] : range) {
        const bool holds = r.first < r.second && coordinate(o) == next;
        positions[o] = holds ? r.first : -1;
        holding += holds;
      }
      if (loop.unite || holding == range.size()) {
        index_[loop.index] = next;
        if (!loop.pattern.empty()) appendEntry(loop, next);
        for (const TreeNode& c : n.children) exec(c);
        if (!loop.pattern.empty()) dropIfChildless(loop);
      }
      for (auto& [o, r] : range)
        if (r.first < r.second && coordinate(o) == next) ++r.first;
    }
    if (!loop.pattern.empty()) {  // the parent's entries end here
      Pattern& out = patterns_.at(loop.pattern);
      PatternLevel& level = out.levels.at(static_cast<size_t>(loop.level));
      level.pos.at(static_cast<size_t>(parentPosition(out, loop)) + 1) = static_cast<int64_t>(level.crd.size());
    }
    index_.erase(loop.index);
    position_.erase(loop.index);
    merged_.erase(loop.index);
  }

  // One more entry of the pattern a merge loop assembles, at `coordinate`, and the loop's position
  // there: at the last level a value (the identity of what writes it) for every tensor stored at
  // that pattern; above it, the entry's children start where the next level's end now
  // (dropIfChildless takes the entry back if none follow).
  void appendEntry(const IndexLoop& loop, int64_t coordinate) {
    Pattern& p = patterns_.at(loop.pattern);
    const size_t l = static_cast<size_t>(loop.level);
    PatternLevel& level = p.levels.at(l);
    position_[loop.index] = static_cast<int64_t>(level.crd.size());
    level.crd.push_back(coordinate);
    if (l + 1 < p.levels.size()) {
      PatternLevel& next = p.levels[l + 1];
      next.pos.push_back(static_cast<int64_t>(next.crd.size()));
      return;
    }
    for (const auto& [name, s] : t_.tensors)
      if (s.decl.format.hasSparseLevel() && s.decl.pattern == loop.pattern) store_.at(name).values.push_back(identityOf(name));
  }

  // The entry a merge loop above the last level just appended, taken back if nothing was
  // appended under it: an assembled pattern keeps only entries with stored entries under them
  // (mergedPattern).
  void dropIfChildless(const IndexLoop& loop) {
    Pattern& p = patterns_.at(loop.pattern);
    const size_t l = static_cast<size_t>(loop.level);
    if (l + 1 == p.levels.size()) return;
    std::vector<int64_t>& next = p.levels[l + 1].pos;
    if (next[next.size() - 1] != next[next.size() - 2]) return;
    next.pop_back();
    p.levels[l].crd.pop_back();
  }

  const IndexTree& t_;
  std::map<std::string, Storage> store_;
  std::map<std::string, Pattern> patterns_;
  std::map<std::string, int64_t> index_;
  std::map<std::string, int64_t> position_;  // sparse loop index -> its position
  std::map<const TreeNode*, bool> accumulates_;
  std::set<std::string> assembled_;  // patterns merge loops assemble
  // Merge loop index -> each operand's position at the coordinate it visits, -1 where it has none.
  std::map<std::string, std::map<std::string, int64_t>> merged_;
  double absent_ = 0.0;  // what an operand without an entry reads
};

}  // namespace

TensorValues interpret(const IndexTree& t, const TensorValues& inputs) {
  verifyTree(t);
  // A tree built by hand may store a tensor at a pattern of other levels than its own.
  for (const auto& [name, s] : t.tensors)
    if (s.decl.format.hasSparseLevel() && t.tensors.count(s.decl.pattern))
      if (auto mismatch = patternFormatMismatch(s.decl, t.tensors.at(s.decl.pattern).decl))
        throw UserError("interpreter: " + *mismatch);
  Interpreter in(t, inputs);
  in.run();
  return in.outputs();
}

}  // namespace react
