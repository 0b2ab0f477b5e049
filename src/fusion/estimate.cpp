// The time model auto ranks candidates by (docs/auto.md): per top-level loop nest, the larger of
// compute time and memory time, on as many threads as its outer loop has iterations.
#include "fusion/internal.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <set>
#include <sstream>

namespace react {
namespace {

struct NestCost {
  double flops = 0, seconds = 0;  // compute time on one thread
  std::map<std::string, double> bytes;  // per tensor (or "<pattern> structure")
  double width = 1;                     // iterations of the outer loop
  // Compute time (one thread) of the statements under a sparse loop over the rows the outer loop
  // runs through, and the largest fraction of that work one row holds (its longest / nnz).
  double rowSeconds = 0, longestRowShare = 0;
  // Compute time (one thread) of work that runs on every thread whatever the outer loop's width:
  // exp of every stored entry in OpenMP's flat loop.
  double flatSeconds = 0;
};

// exp and log calls in an expression (each costs far more than an arithmetic operation). The
// machine model measures exp only; log costs about as much (both are libm polynomial kernels).
int expLogCalls(const Expr& e) {
  int n = e->op == Op::Exp || e->op == Op::Log ? 1 : 0;
  for (const Expr& a : e->args) n += expLogCalls(a);
  return n;
}

std::map<std::string, int64_t> nnzOf(const InputStats& stats) {
  std::map<std::string, int64_t> nnz;
  for (const auto& [name, s] : stats.sparse) nnz[name] = s.nnz;
  return nnz;
}

// Bytes of a pattern's structure: each compressed level's positions (one more than its parent's)
// and coordinates, each singleton level's coordinates.
double structureBytes(const SparseStats& s, const Format& f) {
  double bytes = 0, parent = 1;
  for (int l = 0; l < f.rank(); ++l) {
    const double positions = static_cast<double>(s.positions(l));
    if (f.level(l).storesPositions()) bytes += 8.0 * (parent + 1);
    if (f.level(l).storesCoordinates()) bytes += 4.0 * positions;
    parent = positions;
  }
  return bytes;
}

// The statistics of a merge of patterns a and b of format f: at each level an intersection holds at
// most the fewer positions of the two, a union at most their sum (and no more than the coordinates
// the level's extents allow). Upper bounds, for the merge runs when a kernel is bound, after auto
// has chosen: an intersection of patterns that overlap little, and a union of patterns that
// overlap much, hold fewer.
SparseStats mergedStats(const SparseStats& a, const SparseStats& b, bool unite, const Format& f,
                        const std::vector<int64_t>& shape) {
  SparseStats m{a.rows, a.cols, 0, 0};
  m.shape = shape;
  double coordinates = 1;
  for (int l = 0; l < f.rank(); ++l) {
    const int64_t extent = shape.at(static_cast<size_t>(f.dimension(l)));  // not known yet: no cap
    coordinates *= extent > 0 ? static_cast<double>(extent) : std::numeric_limits<double>::infinity();
    const int64_t pa = a.positions(l), pb = b.positions(l);
    int64_t p = std::min(pa, pb);
    if (f.level(l).kind == LevelKind::Dense) p = pa;
    else if (unite) p = static_cast<int64_t>(std::min(static_cast<double>(pa) + static_cast<double>(pb), coordinates));
    m.levelPositions.push_back(p);
  }
  m.nnz = m.levelPositions.back();
  m.longestRow = unite ? std::min(a.longestRow + b.longestRow, m.nnz) : std::min(a.longestRow, b.longestRow);
  return m;
}

// Calls f on each merge loop of `t` (co-iteration of two patterns).
template <class F>
void forEachMerge(const IndexTree& t, const F& f) {
  visitTree(t.root, [&](const TreeNode& n, const TreePath&) {
    if (n.kind == NodeKind::Index && n.loop.kind == LoopKind::Merge) f(n.loop);
  });
}

// `stats` with those of the patterns `t`'s merge loops visit (by fusion::mergedName) and assemble
// (by the result's pattern).
InputStats withMerges(const IndexTree& t, const InputStats& stats) {
  InputStats all = stats;
  forEachMerge(t, [&](const IndexLoop& loop) {
    for (const std::string& o : loop.operands)
      if (!stats.sparse.count(o)) throw UserError("auto: no statistics for sparse input '" + o + "'");
    // The operands' extents: the declaration's (a statistic's shape may be left out).
    const TensorDecl& first = t.tensor(loop.operands.at(0)).decl;
    const SparseStats m = mergedStats(stats.sparse.at(loop.operands.at(0)), stats.sparse.at(loop.operands.at(1)), loop.unite,
                                      first.format, first.shape);
    all.sparse[fusion::mergedName(loop)] = m;
    if (!loop.pattern.empty()) all.sparse[loop.pattern] = m;
  });
  return all;
}

class Estimator {
 public:
  Estimator(const IndexTree& t, const InputStats& stats, const MachineModel& m)
      : t_(t), stats_(withMerges(t, stats)), m_(m), nnz_(nnzOf(stats_)), symbols_(costSymbols(t, nnz_)) {
    for (const auto& [name, s] : t.tensors)
      if (s.decl.format.hasSparseLevel() && !nnz_.count(s.decl.pattern))
        throw UserError("auto: no statistics for sparse input '" + s.decl.pattern + "'");
    // The positions of the levels above the last (nnz0(S) of dcsr, nnz1(B) of csf: its fibres).
    for (const auto& [name, s] : t.tensors) {
      const Format& f = s.decl.format;
      if (s.decl.role != TensorRole::Input || !f.hasSparseLevel()) continue;
      for (int l = 0; l + 1 < f.rank(); ++l)
        symbols_[fusion::positionsSymbol(name, l, f.rank())] = static_cast<double>(stats_.sparse.at(name).positions(l));
    }
    forEachMerge(t, [&](const IndexLoop& loop) {
      const std::string merged = fusion::mergedName(loop);
      const int rank = t.tensor(loop.operands.front()).decl.format.rank();
      symbols_[fusion::positionsSymbol(merged, loop.level, rank)] = static_cast<double>(stats_.sparse.at(merged).positions(loop.level));
    });
  }

  CostEstimate run() {
    CostEstimate e;
    for (const TreeNode& top : t_.root.children) {
      NestCost nest;
      if (top.kind == NodeKind::Index && iterationsIndependent(top))
        nest.width = symbols_.at(fusion::extentSymbol(top.loop.index));
      TreePath path{&t_.root};
      walk(top, path, nest);
      // A plain dense product is the kernel library's (Eigen's GEMM, cuBLAS), which runs it on
      // every thread whatever its outer extent.
      const bool libraryProduct = m_.productFlops > 0 && isPlainDenseProduct(top);
      if (libraryProduct) {
        nest.seconds = nest.flops / m_.productFlops;
        nest.width = m_.threads;
      }
      double threads = std::max(1.0, std::min<double>(m_.threads, nest.width));
      double bandwidth = m_.threads > 1 ? m_.bandwidth1 + (m_.bandwidth - m_.bandwidth1) * (threads - 1) / (m_.threads - 1)
                                        : m_.bandwidth1;
      double bytes = 0;
      for (const auto& [name, b] : nest.bytes) bytes += b;
      // One row's work runs on one thread: with a skewed pattern that bounds the nest's time,
      // unless the target spreads the rows' entries.
      const double longestRow = entriesSpread(top) ? 0 : nest.rowSeconds * nest.longestRowShare;
      double compute = std::max(nest.seconds / threads + nest.flatSeconds / m_.threads, longestRow);
      e.seconds += std::max(compute, bytes / bandwidth) + m_.regionSeconds;
      e.flops += nest.flops;
      e.bytes += bytes;
      ++e.nests;
    }
    e.temporaryBytes = 8 * analyzeCost(t_).temporarySize.evaluate(symbols_);
    return e;
  }

 private:
  // Can the iterations of a nest's outer loop run at once, as lowering runs them (a parallel
  // loop)? Not where a statement writes memory shared by all of them at an element the outer
  // index does not select: csc's column loop scatters into rows of the result, so its nest runs
  // on one thread. A per-iteration scratch (a shrunk temporary) and a sum into one scalar (a
  // parallel reduction) do not count.
  bool iterationsIndependent(const TreeNode& top) const {
    bool independent = true;
    std::function<void(const TreeNode&)> visit = [&](const TreeNode& n) {
      for (const TreeNode& c : n.children) visit(c);
      if (n.kind != NodeKind::Compute) return;
      const TensorStorage& lhs = t_.tensor(n.stmt.lhs);
      const std::vector<std::string>& at = n.stmt.lhsIndices;
      const bool scratch = lhs.decl.role == TensorRole::Temporary && lhs.shrunk();
      const bool scalarSum = at.empty() && n.accumulates() && n.stmt.reduce == ReduceOp::Sum;
      if (!scratch && !scalarSum && std::find(at.begin(), at.end(), top.loop.index) == at.end()) independent = false;
    };
    visit(top);
    return independent;
  }

  // Is the nest `X(i,j) += A(i,k) * B(k,j)` under three dense loops and nothing else, over three
  // distinct row-major matrices of one value type, none shrunk? Lowering hands such a nest to the
  // kernel library's product (src/lower/passes/dense_product.cpp matches the same on the loop IR).
  bool isPlainDenseProduct(const TreeNode& top) const {
    const TreeNode* n = &top;
    std::set<std::string> loops;
    for (int depth = 0; depth < 3; ++depth) {
      if (n->kind != NodeKind::Index || n->loop.kind != LoopKind::Dense || n->children.size() != 1) return false;
      loops.insert(n->loop.index);
      n = &n->children.front();
    }
    if (n->kind != NodeKind::Compute || n->computeKind != ComputeKind::Compute || !n->accumulates() ||
        n->stmt.reduce != ReduceOp::Sum || loops.size() != 3)
      return false;
    const Statement& s = n->stmt;
    const Expr& v = s.rhs;
    if (s.lhsIndices.size() != 2 || v->op != Op::Mul || v->args.size() != 2) return false;
    const std::string &i = s.lhsIndices[0], &j = s.lhsIndices[1];
    if (i == j || !loops.count(i) || !loops.count(j)) return false;
    std::string k;
    for (const std::string& index : loops)
      if (index != i && index != j) k = index;
    auto matrix = [&](const Expr& e, const std::string& first, const std::string& second) {
      if (e->op != Op::Access || e->indices != std::vector<std::string>{first, second} || e->tensor == s.lhs) return false;
      const TensorStorage& t = t_.tensor(e->tensor);
      const TensorStorage& x = t_.tensor(s.lhs);
      return t.decl.format == Format::dense(2) && !t.shrunk() && t.decl.valueType == x.decl.valueType;
    };
    const TensorStorage& x = t_.tensor(s.lhs);
    if (x.decl.format != Format::dense(2) || x.shrunk() || v->args[0]->tensor == v->args[1]->tensor) return false;
    return (matrix(v->args[0], i, k) && matrix(v->args[1], k, j)) || (matrix(v->args[1], i, k) && matrix(v->args[0], k, j));
  }

  void walk(const TreeNode& n, TreePath& path, NestCost& nest) {
    if (n.kind == NodeKind::Compute) return compute(n, path, nest);
    path.push_back(&n);
    for (const TreeNode& c : n.children) walk(c, path, nest);
    path.pop_back();
  }

  // The statistics of the pattern a sparse or merge loop visits.
  const SparseStats& statsOf(const IndexLoop& loop) const {
    return stats_.sparse.at(loop.kind == LoopKind::Merge ? fusion::mergedName(loop) : loop.pattern);
  }

  double evaluate(const std::vector<std::string>& symbols) const {
    double v = 1;
    for (const std::string& s : symbols) v *= symbols_.at(s);
    return v;
  }

  // Does OpenMP's lowering compute this statement in one vector loop over all stored entries
  // (passes/flatten_entries.cpp)? An entry-wise statement under the last level of a pattern that
  // writes and reads only tensors stored at that pattern's entries (not a sum over the row).
  bool flatEntrywise(const TreeNode& n, const TreeNode* innermost) const {
    if (!m_.device.empty() || !innermost || innermost->loop.kind != LoopKind::Sparse || n.accumulates()) return false;
    const std::string& pattern = innermost->loop.pattern;
    if (innermost->loop.level != t_.tensor(pattern).decl.format.rank() - 1 || !t_.tensor(n.stmt.lhs).storedAtEntriesOf(pattern)) return false;
    for (const ExprNode* a : accesses(n.stmt.rhs))
      if (!t_.tensor(a->tensor).storedAtEntriesOf(pattern)) return false;
    return true;
  }

  // Does the target spread this nest's stored entries over its threads whatever their rows
  // (MachineModel::splitRowsFrom)? dense-lanes' rule (src/lower/passes/dense_lanes.cpp) on the tree:
  // a dense outer loop whose one child is the loop over its rows' stored entries (no merge), under
  // which every statement stores at the entry or into a scalar temporary, and every loop is an
  // innermost dense sum into a scalar temporary, of at least splitRowsFrom iterations, reading no
  // scalar the entry sets outside its sums; one such sum at least. A row that also sums over its
  // entries (a row sum, SpMM's accumulation), holds a row temporary or merges stays one thread's.
  bool entriesSpread(const TreeNode& top) const {
    if (m_.splitRowsFrom <= 0 || top.kind != NodeKind::Index || top.loop.kind != LoopKind::Dense || top.children.size() != 1)
      return false;
    const TreeNode& entries = top.children[0];
    if (entries.kind != NodeKind::Index || entries.loop.kind != LoopKind::Sparse || entries.loop.parentIndex != top.loop.index)
      return false;
    auto scalar = [&](const std::string& name) {
      return t_.tensor(name).decl.role == TensorRole::Temporary && t_.storedSize(name, nnz_) <= 1;
    };
    auto has = [](const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); };
    std::set<std::string> set;  // scalars the entry sets outside its sums, so far
    bool sums = false;
    for (const TreeNode& c : entries.children) {
      if (c.kind == NodeKind::Compute) {
        if (c.computeKind == ComputeKind::Reset) continue;
        if (scalar(c.stmt.lhs)) set.insert(c.stmt.lhs);
        else if (!has(c.stmt.lhsIndices, top.loop.index) || !has(c.stmt.lhsIndices, entries.loop.index)) return false;
        continue;
      }
      if (c.kind != NodeKind::Index || c.loop.kind != LoopKind::Dense ||
          symbols_.at(fusion::extentSymbol(c.loop.index)) < static_cast<double>(m_.splitRowsFrom))
        return false;
      for (const TreeNode& sum : c.children) {
        if (sum.kind != NodeKind::Compute || sum.computeKind == ComputeKind::Reset || !scalar(sum.stmt.lhs) ||
            !has(sum.stmt.reductionIndices(), c.loop.index))
          return false;
        for (const ExprNode* a : accesses(sum.stmt.rhs))
          if (set.count(a->tensor)) return false;
      }
      sums = true;
    }
    return sums;
  }

  // Bytes of `name` in memory (csr: its values; the structure is counted with the loops).
  double storedBytes(const std::string& name) const {
    const TensorStorage& s = t_.tensor(name);
    if (s.decl.role == TensorRole::Temporary && s.shrunk()) return 0;  // per-row scratch, in cache
    const Format& f = s.decl.format;
    if (f.storesPatternPrefix()) {
      // At a prefix of its pattern's levels: a block of the dense levels per last pattern position.
      double values = static_cast<double>(stats_.sparse.at(s.decl.pattern).positions(f.patternLevels() - 1));
      for (int l = f.patternLevels(); l < f.rank(); ++l) values *= static_cast<double>(s.decl.shape.at(static_cast<size_t>(f.dimension(l))));
      return 8.0 * values;
    }
    return 8.0 * static_cast<double>(t_.storedSize(name, nnz_));
  }

  void compute(const TreeNode& n, const TreePath& path, NestCost& nest) {
    double trips = evaluate(fusion::tripSymbols(t_, path));
    std::vector<std::string> sparseCoordinates;
    const TreeNode* innermost = nullptr;
    for (const TreeNode* a : path) {
      if (a->kind != NodeKind::Index) continue;
      innermost = a;
      if (a->loop.kind == LoopKind::Dense) continue;
      sparseCoordinates.push_back(a->loop.index);
      // A merge reads its operands' structure and the assembled pattern's.
      std::vector<std::string> patterns = a->loop.kind == LoopKind::Merge ? a->loop.operands : std::vector<std::string>{};
      if (!a->loop.pattern.empty()) patterns.push_back(a->loop.pattern);
      for (const std::string& p : patterns)
        nest.bytes[p + " structure"] = structureBytes(stats_.sparse.at(p), t_.tensor(p).decl.format);
    }
    {
      // A reset stores the identity into each element of a shrunk array: one operation per trip
      // (a scalar's reset is a register move, free).
      bool reset = n.computeKind == ComputeKind::Reset;
      if (reset && t_.storedSize(n.stmt.lhs, nnz_) <= 1) return;
      std::vector<std::string> reduced = reset ? std::vector<std::string>{} : n.stmt.reductionIndices();
      bool sums = innermost && std::find(reduced.begin(), reduced.end(), innermost->loop.index) != reduced.end();
      double flops = reset ? trips : trips * (fusion::operatorCount(n.stmt.rhs) + (n.accumulates() ? 1 : 0));
      double length = 1;
      if (innermost && innermost->loop.kind == LoopKind::Dense) length = symbols_.at(fusion::extentSymbol(innermost->loop.index));
      const bool merges = innermost && innermost->loop.kind == LoopKind::Merge;
      if (innermost && innermost->loop.kind != LoopKind::Dense) {
        // The level's average run under one parent position (csr: a row's length).
        const SparseStats& s = statsOf(innermost->loop);
        const int level = innermost->loop.level;
        const double parents = level == 0 ? 1.0 : static_cast<double>(s.positions(level - 1));
        length = parents > 0 ? std::max(1.0, static_cast<double>(s.positions(level)) / parents) : 1;
      }
      // A statement accumulating gathered rows of a sparse loop above its innermost (dense) loop
      // (`T(h) += S(i,k) * C(k,h)` under `k (S)`) runs the sparse row loop the machine measured:
      // the innermost sparse loop's coordinate is summed (csf's outer levels, (i,k) of
      // `T0(i,k,j) += B(i,k,l) * D(l,j)`, may be the accumulator's).
      bool sparseRow = !reset && !sums && !sparseCoordinates.empty() && innermost->loop.kind == LoopKind::Dense &&
                       std::find(n.stmt.lhsIndices.begin(), n.stmt.lhsIndices.end(), sparseCoordinates.back()) ==
                           n.stmt.lhsIndices.end();
      // A merge's compare-and-advance loop does not vectorise: it runs at the scalar loop's rate.
      double rate = sums || merges ? m_.reductionRate(length)
                         : sparseRow ? m_.sparseRowRate(length, t_.tensor(n.stmt.lhs).shrunk()) : m_.vectorRate(length);
      double seconds = flops / rate;
      if (!reset && m_.expRate > 0 && expLogCalls(n.stmt.rhs) > 0) {
        double expSeconds = trips * expLogCalls(n.stmt.rhs);
        if (flatEntrywise(n, innermost)) nest.flatSeconds += expSeconds / m_.expRate;
        else seconds += expSeconds / m_.expRateAt(length);
      }
      nest.flops += flops;
      nest.seconds += seconds;
      const TreeNode* outer = path.size() > 1 ? path[1] : nullptr;
      for (const TreeNode* a : path)
        if (outer && a->kind == NodeKind::Index && a->loop.kind != LoopKind::Dense &&
            a->loop.parentIndex == outer->loop.index && outer->loop.kind == LoopKind::Dense) {
          const SparseStats& s = statsOf(a->loop);
          nest.rowSeconds += seconds;
          if (s.nnz > 0) nest.longestRowShare = std::max(nest.longestRowShare, double(s.longestRow) / double(s.nnz));
          break;
        }
    }
    auto touch = [&](const std::string& name, const std::vector<std::string>& indices) {
      double bytes = storedBytes(name);
      const TensorStorage& s = t_.tensor(name);
      bool gathered = !s.decl.format.hasSparseLevel() && bytes > m_.cacheBytes &&
                      std::any_of(indices.begin(), indices.end(), [&](const std::string& i) {
                        return std::find(sparseCoordinates.begin(), sparseCoordinates.end(), i) != sparseCoordinates.end();
                      });
      // Rows gathered through a sparse loop are re-read from memory when they do not stay cached.
      if (gathered) bytes = std::max(bytes, 8.0 * trips * (1.0 - m_.cacheBytes / bytes));
      double& b = nest.bytes[name];
      b = std::max(b, bytes);
    };
    touch(n.stmt.lhs, n.stmt.lhsIndices);
    for (const ExprNode* a : accesses(n.stmt.rhs)) touch(a->tensor, a->indices);
  }

  const IndexTree& t_;
  const InputStats stats_;  // the inputs' and the merges' (withMerges)
  const MachineModel& m_;
  std::map<std::string, int64_t> nnz_;
  std::map<std::string, double> symbols_;
};

std::string bytesText(double b) {
  char buf[32];
  if (b < 1024) std::snprintf(buf, sizeof buf, "%.0f B", b);
  else if (b < 1048576) std::snprintf(buf, sizeof buf, "%.1f KiB", b / 1024);
  else if (b < 1073741824) std::snprintf(buf, sizeof buf, "%.1f MiB", b / 1048576);
  else std::snprintf(buf, sizeof buf, "%.1f GiB", b / 1073741824);
  return buf;
}

}  // namespace

namespace {

// Rate at `length` iterations from rates at MachineModel::kRateLengths, interpolated on log2.
double rateAt(const MachineModel::Rates& rates, double length) {
  const int* at = MachineModel::kRateLengths;
  if (length <= at[0]) return rates[0];
  for (size_t n = 1; n < rates.size(); ++n)
    if (length <= at[n]) {
      double f = (std::log2(length) - std::log2(at[n - 1])) / (std::log2(at[n]) - std::log2(at[n - 1]));
      return rates[n - 1] + f * (rates[n] - rates[n - 1]);
    }
  return rates.back();
}

}  // namespace

double MachineModel::vectorRate(double length) const { return rateAt(vectorFlops, length); }
double MachineModel::reductionRate(double length) const { return rateAt(reductionFlops, length); }
double MachineModel::expRateAt(double length) const {
  const double shortest = kShortExpRow, longest = kRateLengths[std::size(kRateLengths) - 1];
  if (shortRowExpRate <= 0 || length >= longest) return expRate;
  if (length <= shortest) return shortRowExpRate;
  const double f = (std::log2(length) - std::log2(shortest)) / (std::log2(longest) - std::log2(shortest));
  return shortRowExpRate + f * (expRate - shortRowExpRate);
}

double MachineModel::sparseRowRate(double length, bool scratch) const {
  const Rates& r = scratch ? scratchRowFlops : rowFlops;
  return r.back() > 0 ? rateAt(r, length) : vectorRate(length);
}

CostEstimate estimateCost(const IndexTree& t, const InputStats& stats, const MachineModel& m) {
  bool rates = m.bandwidth1 > 0 && m.bandwidth > 0;
  for (size_t n = 0; n < m.vectorFlops.size(); ++n) rates = rates && m.vectorFlops[n] > 0 && m.reductionFlops[n] > 0;
  if (!rates) throw UserError("auto: the machine model has no measured rates");
  return Estimator(t, stats, m).run();
}

std::string CostEstimate::str() const {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%.3g ms (flops %.3g, bytes %s, temporaries %s, %d nest%s)", seconds * 1e3, flops,
                bytesText(bytes).c_str(), bytesText(temporaryBytes).c_str(), nests, nests == 1 ? "" : "s");
  return buf;
}

int64_t SparseStats::positions(int level) const {
  if (!levelPositions.empty()) return levelPositions.at(static_cast<size_t>(level));
  return level == 0 ? rows : nnz;
}

std::string InputStats::str() const {
  std::ostringstream out;
  for (const auto& [name, s] : sparse) {
    out << (out.tellp() > 0 ? "; " : "") << name << ": ";
    if (s.shape.empty()) out << s.rows << "x" << s.cols;
    for (size_t d = 0; d < s.shape.size(); ++d) out << (d ? "x" : "") << s.shape[d];
    if (!s.levelPositions.empty()) {
      out << ", positions per level ";
      for (size_t l = 0; l < s.levelPositions.size(); ++l) out << (l ? "/" : "") << s.levelPositions[l];
    }
    out << ", nnz " << s.nnz << ", longest " << (s.levelPositions.empty() ? "row " : "slice ") << s.longestRow;
  }
  return out.str().empty() ? "no sparse inputs" : out.str();
}

namespace {

// Positions of every level of `t` and the most last-level positions under one of the first's.
SparseStats tensorStats(const SparseTensor& t) {
  // Kernels iterate coo's entries as those of its unique form (Format::iterated), whose levels
  // the cost model counts: a repeating level's positions are not the coordinates a loop visits.
  if (t.format != t.format.iterated()) return tensorStats(convertFormat(t, t.format.iterated()));
  SparseStats s;
  s.shape = t.shape;
  s.rows = t.shape[0];
  s.cols = t.rank() > 1 ? t.shape[1] : 1;
  s.nnz = t.nnz();
  // bounds[p] .. bounds[p+1]: the positions of the current level under position p of the first.
  std::vector<int64_t> bounds;
  for (int l = 0; l < t.rank(); ++l) {
    const Level& level = t.format.level(l);
    const LevelArrays& a = t.levels[static_cast<size_t>(l)];
    const int64_t extent = t.shape[static_cast<size_t>(t.format.dimension(l))];
    auto firstChild = [&](int64_t p) {  // the first position of level l under parent position p
      if (level.kind == LevelKind::Dense) return p * extent;
      return level.kind == LevelKind::Compressed ? a.pos[static_cast<size_t>(p)] : p;
    };
    if (l == 0) {
      bounds.resize(static_cast<size_t>(firstChild(1)) + 1);
      for (size_t p = 0; p < bounds.size(); ++p) bounds[p] = static_cast<int64_t>(p);
    } else {
      for (int64_t& b : bounds) b = firstChild(b);
    }
    s.levelPositions.push_back(bounds.back());
  }
  for (size_t p = 0; p + 1 < bounds.size(); ++p) s.longestRow = std::max(s.longestRow, bounds[p + 1] - bounds[p]);
  return s;
}

}  // namespace

InputStats inputStats(const TensorValues& inputs) {
  InputStats stats;
  for (const auto& [name, value] : inputs) {
    if (const CsrMatrix* m = std::get_if<CsrMatrix>(&value)) {
      SparseStats s{m->rows, m->cols, m->nnz(), 0};
      for (int64_t r = 0; r < m->rows; ++r) s.longestRow = std::max(s.longestRow, m->rowptr[r + 1] - m->rowptr[r]);
      stats.sparse[name] = s;
    } else if (const SparseTensor* t = std::get_if<SparseTensor>(&value)) {
      stats.sparse[name] = tensorStats(*t);
    }
  }
  return stats;
}

std::string MachineModel::str() const {
  // A device's rates per row are a few Mflop/s: three digits, not two decimals.
  auto list = [&](const Rates& r) {
    std::string out;
    char buf[24];
    for (double v : r) {
      std::snprintf(buf, sizeof buf, device.empty() ? "%s%.2f" : "%s%.3g", out.empty() ? "" : "/", v / 1e9);
      out += buf;
    }
    return out;
  };
  std::string lengths;
  for (int l : kRateLengths) lengths += (lengths.empty() ? "" : "/") + std::to_string(l);
  char buf[300];
  if (device.empty())
    std::snprintf(buf, sizeof buf, "%d thread%s; copy %.1f GB/s (1 thread %.1f GB/s); ", threads, threads == 1 ? "" : "s",
                  bandwidth / 1e9, bandwidth1 / 1e9);
  else
    std::snprintf(buf, sizeof buf, "%.150s, %d row%s at once; copy %.1f GB/s (a row's share %.3f GB/s); ", device.c_str(),
                  threads, threads == 1 ? "" : "s", bandwidth / 1e9, bandwidth1 / 1e9);
  std::string out = buf + std::string(device.empty() ? "Gflop/s per thread" : "Gflop/s per row") + " in loops of " + lengths + ": " + list(vectorFlops) +
                    " (vector), " + list(reductionFlops) + " (sums), " + list(scratchRowFlops) + " (sparse rows into scratch), " +
                    list(rowFlops) + " (sparse rows into rows)";
  std::snprintf(buf, sizeof buf, "; cache %s; %s %.1f us; exp %.0f M/s",
                bytesText(cacheBytes).c_str(), device.empty() ? "parallel region" : "launch and fence",
                regionSeconds * 1e6, expRate / 1e6);
  out += buf;
  if (shortRowExpRate > 0) {
    std::snprintf(buf, sizeof buf, " (in rows of %d: %.0f M/s)", kShortExpRow, shortRowExpRate / 1e6);
    out += buf;
  }
  if (productFlops > 0) {
    std::snprintf(buf, sizeof buf, device.empty() ? "; library product %.2f Gflop/s per thread" : "; library product %.3g Gflop/s per row",
                  productFlops / 1e9);
    out += buf;
  }
  return out + (source.empty() ? "" : " (" + source + ")") + (loadWarning.empty() ? "" : "; WARNING: " + loadWarning);
}

}  // namespace react
