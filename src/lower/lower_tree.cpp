// Index tree -> loop IR: one nest per top-level subtree, its loops over the levels the tree names,
// its statements as assignments to accesses, temporaries placed (a local scalar, per-worker
// scratch, or a full array), and each nest's outer loop scheduled from the dependences of its
// iterations (ir/analysis.hpp).
#include "lower/ir/analysis.hpp"
#include "lower/ir/mutator.hpp"
#include "lower/levels.hpp"
#include "lower/lower.hpp"

#include <algorithm>

namespace react {

namespace {

using namespace ir;
using ir::Expr;

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

void forEachCompute(const TreeNode& n, const std::function<void(const TreeNode&)>& f) {
  if (n.kind == NodeKind::Compute) return f(n);
  for (const TreeNode& c : n.children) forEachCompute(c, f);
}

std::set<std::string> tensorsUsed(const TreeNode& n) {
  std::set<std::string> used;
  forEachCompute(n, [&](const TreeNode& c) {
    used.insert(c.stmt.lhs);
    for (const react::ExprNode* a : accesses(c.stmt.rhs)) used.insert(a->tensor);
  });
  return used;
}

class TreeLowering {
 public:
  TreeLowering(const IndexTree& t, LoopProgram& p) : t_(t), p_(p) {
    // What each tensor's last writer says of it, found in one walk.
    visitTree(t.root, [&](const TreeNode& n, const TreePath&) {
      if (n.kind != NodeKind::Compute || n.computeKind == ComputeKind::Reset) return;
      producerIndices_[n.stmt.lhs] = n.stmt.lhsIndices;
      if (n.accumulates()) identity_[n.stmt.lhs] = reduceIdentity(n.stmt.reduce);
    });
  }

  double identityOf(const std::string& tensor) const {
    auto it = identity_.find(tensor);
    return it == identity_.end() ? 0.0 : it->second;
  }

  Expr extent(const std::string& index) const { return indexExtent(index, t_.indexSizes, p_.runtimeSizes); }

  // The elements of a tensor in memory: a sparse one's stored entries (one when shrunk to a
  // scalar), else the product of its kept dimensions as its producer writes them.
  Expr storedSize(const std::string& name) const {
    const TensorStorage& s = t_.tensor(name);
    static const std::vector<std::string> unwritten;
    auto producer = producerIndices_.find(name);
    const std::vector<std::string>& idx = producer == producerIndices_.end() ? unwritten : producer->second;
    const Format& f = s.decl.format;
    if (storesPositions(s) && !s.shrunk() && f.storesPatternPrefix()) {
      // At a prefix of the pattern's levels: the positions of its last pattern level, times the
      // extents of the dense levels under it.
      Expr size = prefixPositions(s, idx);
      for (int l = f.patternLevels(); l < f.rank(); ++l) size = binary(BinOp::Mul, size, extent(idx.at(static_cast<size_t>(f.dimension(l)))));
      return size;
    }
    if (storesPositions(s)) return s.shrunk() ? intImm(1) : var(Name{Role::StoredEntries, s.decl.pattern}, Type::Int64);
    Expr size = intImm(1);
    for (size_t d = 0; d < idx.size(); ++d)
      if (s.kept[d]) size = timesExtent(size, extent(idx[d]));
    return size;
  }

  // size * extent, a constant where both are and the product fits (a private row of a fixed
  // length then prints as a fixed-size array: emit/openmp.cpp).
  static Expr timesExtent(const Expr& size, const Expr& extent) {
    int64_t product = 0;
    if (size->kind == ExprKind::IntImm && extent->kind == ExprKind::IntImm &&
        !__builtin_mul_overflow(size->intValue, extent->intValue, &product))
      return intImm(product);
    return binary(BinOp::Mul, size, extent);
  }

  // The positions of the last pattern level of `s`, stored at a prefix of its pattern's levels
  // (accessed with `idx`): the pattern's stored entries when that is its last level; above it, a
  // compressed level's positions array's entry past its parents' (csf's fibres: pos1[pos0[1]]), a
  // dense level's parents times its extent, a singleton's its parents'.
  Expr prefixPositions(const TensorStorage& s, const std::vector<std::string>& idx) const {
    const Format& f = s.decl.format;
    const int last = f.patternLevels() - 1;
    if (last == t_.tensor(s.decl.pattern).decl.format.rank() - 1) return var(Name{Role::StoredEntries, s.decl.pattern}, Type::Int64);
    Expr count = intImm(1);
    for (int l = 0; l <= last; ++l) {
      const Level& k = f.level(l);
      if (k.kind == LevelKind::Compressed) count = load(Name{Role::Positions, s.decl.pattern, l}, count, Type::Int64);
      else if (k.kind == LevelKind::Dense) count = binary(BinOp::Mul, count, extent(idx.at(static_cast<size_t>(f.dimension(l)))));
    }
    return count;
  }

  Stmt declareSize(const std::string& name) const { return let(Name{Role::Size, name}, Type::Int64, storedSize(name)); }

  // The IR type of a tensor's values.
  Type tensorType(const std::string& tensor) const { return valueTypeOf(t_.tensor(tensor)); }

  // `e` computed in `type`, its statement's left-hand side's (docs/semantics.md, "Value types"):
  // a read of a tensor of the other type is converted, literals are of `type`.
  Expr value(const react::Expr& e, Type type) const {
    auto a = [&](size_t k) { return value(e->args[k], type); };
    auto fn = [&](Callee c) {
      std::vector<ir::Expr> args;
      for (size_t k = 0; k < e->args.size(); ++k) args.push_back(a(k));
      return call(c, std::move(args), type);
    };
    switch (e->op) {
      case Op::Access: return cast(reference(e->tensor, e->indices), type);
      case Op::Literal: return floatImm(e->value, type);
      case Op::Neg: return neg(a(0));
      case Op::Exp: return fn(Callee::Exp);
      case Op::Sqrt: return fn(Callee::Sqrt);
      case Op::Log: return fn(Callee::Log);
      case Op::Add: return binary(BinOp::Add, a(0), a(1));
      case Op::Sub: return binary(BinOp::Sub, a(0), a(1));
      case Op::Mul: return binary(BinOp::Mul, a(0), a(1));
      case Op::Div: return binary(BinOp::Div, a(0), a(1));
      case Op::Max: return fn(Callee::Max);
      case Op::Min: return fn(Callee::Min);
      case Op::Lt: return binary(BinOp::Lt, a(0), a(1));
      case Op::Le: return binary(BinOp::Le, a(0), a(1));
      case Op::Gt: return binary(BinOp::Gt, a(0), a(1));
      case Op::Ge: return binary(BinOp::Ge, a(0), a(1));
      case Op::Eq: return binary(BinOp::Eq, a(0), a(1));
      case Op::Ne: return binary(BinOp::Ne, a(0), a(1));
      case Op::Where: return fn(Callee::Where);
      default: internalError("lowering met operator '" + std::string(opName(e->op)) + "'");
    }
  }

  // A tensor read or written, of its value type: a local variable while one holds it, else an access.
  ir::Expr reference(const std::string& tensor, const std::vector<std::string>& indices) const {
    if (locals_.count(tensor)) return var(Name{Role::Scalar, tensor}, tensorType(tensor));
    return ir::access(tensor, indices, tensorType(tensor));
  }

  Stmt compute(const TreeNode& c) const {
    Update u = !c.accumulates() ? Update::Set : c.stmt.reduce == ReduceOp::Sum ? Update::Add : Update::Max;
    return assign(reference(c.stmt.lhs, c.stmt.lhsIndices), value(c.stmt.rhs, tensorType(c.stmt.lhs)), u);
  }

  LevelIteration iterate(const IndexLoop& loop) const {
    const Format& pattern = iteratesPositions(loop) ? t_.tensor(loop.pattern).decl.format : Format();
    return iterateLevel(loop, pattern, [&](const std::string& i) { return extent(i); });
  }

  Stmt node(const TreeNode& n, const std::vector<std::string>& localsHere = {}) {
    if (n.kind == NodeKind::Compute) return compute(n);
    if (n.loop.kind == LoopKind::Merge) return mergeLoop(n);
    LevelIteration it = iterate(n.loop);
    std::vector<Stmt> body = it.bind;
    for (const std::string& l : localsHere) {
      body.push_back(let(Name{Role::Scalar, l}, tensorType(l), floatImm(identityOf(l), tensorType(l)), true));
      locals_.insert(l);
    }
    for (const TreeNode& c : n.children) body.push_back(node(c));
    for (const std::string& l : localsHere) locals_.erase(l);
    return forLoop(it.counter, it.lo, it.hi, std::move(body));
  }

  // A Merge loop: a finger per co-iterated pattern, the assembled one appended, and its children
  // once per set of fingers that may hold a coordinate (all of them for an intersection; every
  // nonempty set, the most first, for a union), with the operands of the other fingers read as 0.
  Stmt mergeLoop(const TreeNode& n) {
    const IndexLoop& loop = n.loop;
    auto finger = [&](const std::string& pattern) {
      const Format& f = t_.tensor(pattern).decl.format;
      if (loop.level == 0 || !f.level(loop.level - 1).iteratedByPosition()) {
        LevelIteration it = iterate(IndexLoop::sparse(loop.index, pattern, loop.level, loop.parentIndex));
        return MergeFinger{pattern, loop.level, it.lo, it.hi};
      }
      // Under a merge of the level above: the children of that merge's finger of this pattern;
      // none where the case runs without it, or where the first level's search found none (-1).
      if (absent_.count(pattern)) return MergeFinger{pattern, loop.level, intImm(0), intImm(0)};
      Expr parent = var(mergePosition(pattern, loop.level - 1), Type::Int64);
      Name positions{Role::Positions, pattern, loop.level};
      Expr lo = load(positions, parent, Type::Int64), hi = load(positions, binary(BinOp::Add, parent, intImm(1)), Type::Int64);
      if (loop.level - 1 == 0 && pattern != loop.pattern) {
        Expr none = binary(BinOp::Lt, parent, intImm(0));
        lo = call(Callee::Select, {none, intImm(0), lo}, Type::Int64);
        hi = call(Callee::Select, {none, intImm(0), hi}, Type::Int64);
      }
      return MergeFinger{pattern, loop.level, lo, hi};
    };
    std::vector<MergeFinger> fingers;
    for (const std::string& o : loop.operands) fingers.push_back(finger(o));
    std::optional<MergeFinger> appended;
    if (!loop.pattern.empty()) {
      appended = finger(loop.pattern);
      if (loop.level + 1 == t_.tensor(loop.pattern).decl.format.rank()) appended->hi = nullptr;
    }
    const unsigned all = (1u << fingers.size()) - 1;
    std::vector<unsigned> masks;
    for (unsigned m = 1; m <= all; ++m)
      if (loop.unite || m == all) masks.push_back(m);
    std::stable_sort(masks.begin(), masks.end(), [](unsigned a, unsigned b) { return __builtin_popcount(a) > __builtin_popcount(b); });
    std::vector<Stmt> cases;
    for (unsigned m : masks) {
      std::set<std::string> absent;
      for (size_t f = 0; f < fingers.size(); ++f)
        if (!(m & (1u << f))) absent.insert(fingers[f].pattern);
      std::vector<Stmt> body;
      const std::set<std::string> outer = absent_;
      absent_.insert(absent.begin(), absent.end());
      for (const TreeNode& c : n.children) body.push_back(readAbsentAsZero(node(c), absent));
      absent_ = outer;
      cases.push_back(block(std::move(body)));
    }
    return merge(Name{Role::Index, loop.index}, std::move(fingers), loop.unite, std::move(appended), std::move(masks), std::move(cases));
  }

  // A merge of first levels (dcsr's rows, csf's slices) as the nest's parallel loop: over the
  // first level of the pattern the statement assembles (Kernel::bind merged it: every entry there
  // is one the operands' merge visits), or over every coordinate for a dense result (which
  // assembles none); each operand's position found by a search (in the window the coordinate
  // allows), -1 where it holds no such entry (its children are then none: mergeLoop). The loop
  // binds the index and the merge positions a merge of the level below starts from.
  LevelIteration firstLevelMerge(const IndexLoop& loop) const {
    REACT_ASSERT(loop.level == 0, "lowering: a first-level merge of level " + std::to_string(loop.level));
    const bool assembles = !loop.pattern.empty();
    LevelIteration it = iterate(assembles ? IndexLoop::sparse(loop.index, loop.pattern, 0, "") : IndexLoop::dense(loop.index));
    Expr index = var(Name{Role::Index, loop.index}, Type::Int64);
    if (assembles) it.bind.push_back(let(mergePosition(loop.pattern, 0), Type::Int64, var(it.counter, Type::Int64)));
    for (const std::string& o : loop.operands) {
      // The operand's n rows are distinct coordinates in [0, extent), in order: coordinate c can
      // only be at a position in [c - (extent - n), c], which is c itself where no row is empty.
      Expr rows = load(Name{Role::Positions, o, 0}, intImm(1), Type::Int64);
      Expr from = binary(BinOp::Sub, index, binary(BinOp::Sub, extent(loop.index), rows)), to = binary(BinOp::Add, index, intImm(1));
      Expr lo = call(Callee::Select, {binary(BinOp::Gt, from, intImm(0)), from, intImm(0)}, Type::Int64);
      Expr hi = call(Callee::Select, {binary(BinOp::Lt, to, rows), to, rows}, Type::Int64);
      it.bind.push_back(let(mergePosition(o, 0), Type::Int64,
                            call(Callee::Find, {var(Name{Role::Coordinates, o, 0}, Type::Int32), lo, hi, index}, Type::Int64)));
    }
    return it;
  }

  // `s` with every read of a tensor stored at one of the `absent` patterns replaced by 0.
  Stmt readAbsentAsZero(const Stmt& s, const std::set<std::string>& absent) const {
    struct Zero : Mutator {
      const IndexTree* t;
      const std::set<std::string>* absent;
      ir::Expr visit(const ir::Expr& e) override {
        if (e->kind != ExprKind::Access) return mutateChildren(e);
        const TensorStorage& s = t->tensor(e->tensor);
        return storesPositions(s) && absent->count(s.decl.pattern) ? floatImm(0.0, e->type) : e;
      }
    } zero;
    zero.t = &t_;
    zero.absent = &absent;
    return zero.mutate(s);
  }

  // Each shrunk temporary the nest uses: a local of a level-1 loop when it is a scalar used only
  // there, else scratch private to each worker of the outer loop.
  void placeTemporaries(const TreeNode& top, std::map<const TreeNode*, std::vector<std::string>>& locals,
                        std::vector<std::string>& scratch) const {
    for (const std::string& name : tensorsUsed(top)) {
      const TensorStorage& s = t_.tensor(name);
      if (s.decl.role != TensorRole::Temporary || !s.shrunk()) continue;
      bool scalar = t_.storedIndices(name, std::vector<std::string>(s.kept.size(), "")).empty();
      const TreeNode* owner = nullptr;
      int owners = 0;
      if (top.kind == NodeKind::Index)
        for (const TreeNode& c : top.children)
          if (tensorsUsed(c).count(name)) {
            ++owners;
            owner = &c;
          }
      if (scalar && owners == 1 && owner->kind == NodeKind::Index) locals[owner].push_back(name);
      else scratch.push_back(name);
    }
  }

  std::string nestName(const TreeNode& top) const {
    std::vector<std::string> names;
    forEachCompute(top, [&](const TreeNode& c) {
      if (c.computeKind != ComputeKind::Reset && !contains(names, c.stmt.lhs)) names.push_back(c.stmt.lhs);
    });
    std::string s;
    for (const auto& n : names) s += (s.empty() ? "" : "_") + n;
    return s;
  }

  Stmt lowerNest(const TreeNode& top) {
    std::map<const TreeNode*, std::vector<std::string>> locals;
    std::vector<std::string> scratch;
    placeTemporaries(top, locals, scratch);
    std::string name = nestName(top);
    std::string text = "nest " + name + ": ";
    forEachCompute(top, [&](const TreeNode& c) {
      if (c.computeKind != ComputeKind::Reset) text += c.stmt.str() + "; ";
    });
    std::vector<Stmt> body{comment(text)};
    for (const std::string& s : scratch) body.push_back(declareSize(s));
    if (top.kind == NodeKind::Compute) {
      body.push_back(compute(top));
      return nest(name, std::move(body));
    }
    if (top.loop.kind == LoopKind::Merge && t_.tensor(top.loop.operands.at(0)).decl.format.rank() == 1) {
      // A merge of first levels that are the last (two sparse vectors): one serial merge.
      body.push_back(mergeLoop(top));
      return nest(name, std::move(body));
    }
    LevelIteration it = top.loop.kind == LoopKind::Merge ? firstLevelMerge(top.loop) : iterate(top.loop);
    std::vector<Stmt> children = it.bind;
    for (const TreeNode& c : top.children) children.push_back(node(c, locals[&c]));
    auto loop = copy(forLoop(it.counter, it.lo, it.hi, std::move(children)));
    for (const std::string& s : scratch) loop->privates.push_back({s, identityOf(s), tensorType(s)});
    body.push_back(schedule(loop));
    return nest(name, std::move(body));
  }

  // The outer loop runs in parallel when its iterations are independent, as a parallel reduction
  // when they only reduce into one scalar (and hold no scratch), else serially. The loops of a
  // parallel row record their own dependences, for the lanes of a row (passes/lane_mapping.cpp).
  Stmt schedule(std::shared_ptr<StmtNode> top) const {
    std::set<std::string> privates;
    for (const PrivateBuffer& b : top->privates) privates.insert(b.tensor);
    IterationFacts outer = analyzeIterations(*top, p_.tensors, privates);
    if (outer.kind == Iterations::ReduceScalar && top->privates.empty()) {
      Name acc{Role::Generated, "acc"};
      const Type type = outer.reduceTarget->type;
      top->schedule = Schedule::ParallelReduce;
      top->reduceVar = acc;
      top->reduceType = type;
      top->reduceOp = outer.op;
      Update u = outer.op == ReduceOp::Sum ? Update::Add : Update::Max;
      top->body = retargetWrites(top->body, outer.reduceTarget, var(acc, type));
      return block({let(acc, type, floatImm(reduceIdentity(outer.op), type), true), top,
                    assign(outer.reduceTarget, var(acc, type), u)});
    }
    if (outer.kind != Iterations::Independent) return top;
    top->schedule = Schedule::Parallel;
    for (Stmt& c : top->body)
      if (c->kind == StmtKind::For) c = withIterations(c, p_.tensors);
    return top;
  }

 private:
  const IndexTree& t_;
  LoopProgram& p_;
  std::map<std::string, std::vector<std::string>> producerIndices_;
  std::map<std::string, double> identity_;
  std::set<std::string> locals_;  // temporaries a local variable holds where we are
  std::set<std::string> absent_;  // patterns the merge case being lowered runs without
};

}  // namespace

LoopProgram lowerToLoops(const IndexTree& t) {
  // A tree built by hand (Kernel::compile of an IndexTree) may hold a format the front end refuses.
  for (const auto& [name, s] : t.tensors) {
    const Format& f = s.decl.format;
    if (auto unsupported = unsupportedFormat(name, f)) throw UserError("lowering: " + *unsupported);
    if (f.hasSparseLevel() && t.tensors.count(s.decl.pattern))
      if (auto mismatch = patternFormatMismatch(s.decl, t.tensors.at(s.decl.pattern).decl))
        throw UserError("lowering: " + *mismatch);
    if (f.hasSparseLevel() && f.rank() > REACT_MAX_LEVELS)
      throw UserError("lowering: tensor '" + name + "' of format " + f.str() + " has " + std::to_string(f.rank()) +
                      " levels; the kernel ABI passes at most " + std::to_string(REACT_MAX_LEVELS));
  }
  LoopProgram p;
  p.tensors = t.tensors;
  p.indexSizes = t.indexSizes;
  p.treeText = printTree(t);
  for (TensorRole role : {TensorRole::Input, TensorRole::Output})
    for (const auto& [name, s] : t.tensors)
      if (s.decl.role == role) {
        p.args.push_back(name);
        if (storesPositions(s) && s.decl.pattern == name) p.patternArgs.push_back(name);
      }

  // Extents of sparse dimensions vary with the input matrix: passed at run time.
  std::set<std::string> runtime;
  visitTree(t.root, [&](const TreeNode& n, const TreePath&) {
    if (n.kind != NodeKind::Compute) return;
    auto note = [&](const std::string& name, const std::vector<std::string>& idx) {
      if (storesPositions(t.tensor(name))) runtime.insert(idx.begin(), idx.end());
      if (t.tensor(name).decl.role != TensorRole::Temporary) p.dimIndices.emplace(name, idx);
    };
    if (t.tensor(n.stmt.lhs).decl.role == TensorRole::Temporary && n.computeKind != ComputeKind::Reset)
      p.dimIndices[n.stmt.lhs] = n.stmt.lhsIndices;  // as its producer writes it, as the emitter sizes it
    note(n.stmt.lhs, n.stmt.lhsIndices);
    for (const react::ExprNode* a : accesses(n.stmt.rhs)) note(a->tensor, a->indices);
  });
  p.runtimeSizes.assign(runtime.begin(), runtime.end());
  visitTree(t.root, [&](const TreeNode& n, const TreePath&) {
    if (n.kind == NodeKind::Index && n.loop.kind == LoopKind::Merge && !n.loop.pattern.empty())
      p.assembledPatterns[n.loop.pattern] = CoIteration{n.loop.operands, n.loop.unite};
  });

  TreeLowering lowering(t, p);
  // Outputs that are accumulated, or written only at a pattern's stored entries, start from the
  // reduction's identity.
  for (const std::string& name : p.args) {
    const TensorStorage& s = t.tensor(name);
    if (s.decl.role != TensorRole::Output) continue;
    bool accumulated = false, sparseWritten = false;
    std::function<void(const TreeNode&, bool)> find = [&](const TreeNode& n, bool inSparse) {
      if (n.kind == NodeKind::Compute && n.stmt.lhs == name) {
        accumulated |= n.accumulates();
        sparseWritten |= inSparse;
      }
      for (const TreeNode& c : n.children) find(c, inSparse || (n.kind == NodeKind::Index && n.loop.kind != LoopKind::Dense));
    };
    find(t.root, false);
    if (accumulated || (sparseWritten && !storesPositions(s)))
      p.body.push_back(fill(name, valueTypeOf(s), lowering.identityOf(name)));
  }
  for (const auto& [name, s] : t.tensors)
    if (s.decl.role == TensorRole::Temporary && !s.shrunk()) {
      p.body.push_back(lowering.declareSize(name));
      p.body.push_back(allocate(name, valueTypeOf(s), var(Name{Role::Size, name}, Type::Int64), lowering.identityOf(name), true));
    }
  for (const TreeNode& child : t.root.children) p.body.push_back(lowering.lowerNest(child));
  verify(p);
  return p;
}

std::string LoopProgram::str() const { return print(*this); }

}  // namespace react
