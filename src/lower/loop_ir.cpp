// Index tree -> loop IR: one nest per top-level subtree, with parallel mappings and the places
// where shrunk temporaries live.
#include "lower/lower.hpp"

#include <algorithm>
#include <sstream>

namespace react {

const char* toString(Mapping m) {
  switch (m) {
    case Mapping::Serial: return "serial";
    case Mapping::Parallel: return "parallel";
    case Mapping::ParallelReduce: return "parallel-reduce";
    case Mapping::TeamThread: return "team-thread";
    case Mapping::TeamReduce: return "team-reduce";
    case Mapping::Single: return "single";
  }
  return "?";
}

namespace {

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

LoopNode convert(const TreeNode& n) {
  LoopNode l;
  if (n.kind == NodeKind::Compute) {
    l.kind = LoopNode::Kind::Compute;
    l.stmt = n.stmt;
    l.accumulate = n.accumulates();
    l.reset = n.computeKind == ComputeKind::Reset;
    return l;
  }
  l.loop = n.loop;
  for (const TreeNode& c : n.children) l.body.push_back(convert(c));
  return l;
}

void forEachCompute(const LoopNode& n, const std::function<void(const LoopNode&)>& f) {
  if (n.kind == LoopNode::Kind::Compute) return f(n);
  for (const LoopNode& c : n.body) forEachCompute(c, f);
}

std::set<std::string> tensorsUsed(const LoopNode& n) {
  std::set<std::string> used;
  forEachCompute(n, [&](const LoopNode& c) {
    used.insert(c.stmt.lhs);
    for (const ExprNode* a : accesses(c.stmt.rhs)) used.insert(a->tensor);
  });
  return used;
}

// How the iterations of loop `n` over `index` may run, ignoring writes to `privates`.
struct Independence {
  bool independent = true;
  std::optional<std::string> scalar;  // the one scalar every dependent write accumulates into
  ReduceOp op = ReduceOp::Sum;
  bool reducible = true;
};

Independence analyze(const IndexTree& t, const LoopNode& n, const std::set<std::string>& privates) {
  Independence r;
  const std::string& index = n.loop.index;
  forEachCompute(n, [&](const LoopNode& c) {
    if (privates.count(c.stmt.lhs)) return;
    if (contains(t.storedIndices(c.stmt.lhs, c.stmt.lhsIndices), index)) return;
    r.independent = false;
    bool scalar = t.storedIndices(c.stmt.lhs, c.stmt.lhsIndices).empty();
    if (!scalar || !c.accumulate || c.reset || (r.scalar && (*r.scalar != c.stmt.lhs || r.op != c.stmt.reduce))) {
      r.reducible = false;
      return;
    }
    r.scalar = c.stmt.lhs;
    r.op = c.stmt.reduce;
  });
  // The reduced scalar may be read only by its own accumulations.
  if (r.scalar)
    forEachCompute(n, [&](const LoopNode& c) {
      for (const ExprNode* a : accesses(c.stmt.rhs))
        if (a->tensor == *r.scalar) r.reducible = false;
    });
  return r;
}

void mapNest(const IndexTree& t, LoopNest& nest) {
  LoopNode& top = nest.top;
  if (top.kind != LoopNode::Kind::Loop) return;
  std::set<std::string> privates(nest.scratch.begin(), nest.scratch.end());
  for (const LoopNode& c : top.body) privates.insert(c.locals.begin(), c.locals.end());
  Independence outer = analyze(t, top, privates);
  if (outer.independent) {
    top.mapping = Mapping::Parallel;
  } else if (outer.reducible && outer.scalar && nest.scratch.empty()) {
    top.mapping = Mapping::ParallelReduce;
    top.reduceInto = *outer.scalar;
    top.reduceOp = outer.op;
    return;
  } else {
    return;  // Serial
  }
  for (LoopNode& c : top.body) {
    if (c.kind != LoopNode::Kind::Loop) {
      c.mapping = Mapping::Single;
      continue;
    }
    std::set<std::string> own(c.locals.begin(), c.locals.end());
    Independence inner = analyze(t, c, own);
    if (inner.independent) {
      c.mapping = Mapping::TeamThread;
    } else if (inner.reducible && inner.scalar) {
      c.mapping = Mapping::TeamReduce;
      c.reduceInto = *inner.scalar;
      c.reduceOp = inner.op;
    } else {
      c.mapping = Mapping::Single;
    }
  }
}

// Places each shrunk temporary used by this nest: private to one level-1 loop when it is a scalar
// used only there, else in the nest's scratch (per team / per thread).
void placeTemporaries(const IndexTree& t, LoopNest& nest) {
  std::set<std::string> used = tensorsUsed(nest.top);
  for (const std::string& name : used) {
    const TensorStorage& s = t.tensor(name);
    if (s.decl.role != TensorRole::Temporary || !s.shrunk()) continue;
    bool scalar = t.storedIndices(name, std::vector<std::string>(s.kept.size(), "")).empty();
    LoopNode* owner = nullptr;
    int owners = 0;
    if (nest.top.kind == LoopNode::Kind::Loop)
      for (LoopNode& c : nest.top.body)
        if (tensorsUsed(c).count(name)) {
          ++owners;
          owner = &c;
        }
    if (scalar && owners == 1 && owner->kind == LoopNode::Kind::Loop)
      owner->locals.push_back(name);
    else
      nest.scratch.push_back(name);
  }
}

std::string nestName(const LoopNode& top) {
  std::vector<std::string> names;
  forEachCompute(top, [&](const LoopNode& c) {
    if (!c.reset && !contains(names, c.stmt.lhs)) names.push_back(c.stmt.lhs);
  });
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : "_") + n;
  return s;
}

void dump(const LoopNode& n, int depth, std::ostringstream& out) {
  std::string pad(static_cast<size_t>(2 * depth), ' ');
  if (n.kind == LoopNode::Kind::Compute) {
    out << pad << (n.reset ? "reset " : "") << n.stmt.lhs << (n.accumulate ? " accumulate " : " assign ")
        << toString(n.stmt.rhs) << "\n";
    return;
  }
  out << pad << "for " << n.loop.str() << " [" << toString(n.mapping);
  if (!n.reduceInto.empty()) out << " into " << n.reduceInto;
  out << "]";
  if (!n.locals.empty()) {
    out << " locals:";
    for (const auto& l : n.locals) out << " " << l;
  }
  out << "\n";
  for (const LoopNode& c : n.body) dump(c, depth + 1, out);
}

}  // namespace

LoopProgram lowerToLoops(const IndexTree& t) {
  LoopProgram p;
  p.tensors = t.tensors;
  p.indexSizes = t.indexSizes;
  p.treeText = printTree(t);
  for (TensorRole role : {TensorRole::Input, TensorRole::Output})
    for (const auto& [name, s] : t.tensors)
      if (s.decl.role == role) p.args.push_back(name);
  for (const auto& [name, s] : t.tensors)
    if (s.decl.role == TensorRole::Temporary && !s.shrunk()) p.fullTemporaries.push_back(name);

  // Extents of sparse dimensions vary with the input matrix: passed at run time.
  std::set<std::string> runtime;
  visitTree(t.root, [&](const TreeNode& n, const TreePath&) {
    if (n.kind != NodeKind::Compute) return;
    auto note = [&](const std::string& name, const std::vector<std::string>& idx) {
      if (t.tensor(name).decl.format.hasSparseLevel()) runtime.insert(idx.begin(), idx.end());
      if (t.tensor(name).decl.role != TensorRole::Temporary) p.dimIndices.emplace(name, idx);
    };
    if (t.tensor(n.stmt.lhs).decl.role == TensorRole::Temporary && n.computeKind != ComputeKind::Reset)
      p.dimIndices[n.stmt.lhs] = n.stmt.lhsIndices;  // as its producer writes it, as the emitter sizes it
    note(n.stmt.lhs, n.stmt.lhsIndices);
    for (const ExprNode* a : accesses(n.stmt.rhs)) note(a->tensor, a->indices);
  });
  p.runtimeSizes.assign(runtime.begin(), runtime.end());

  for (const TreeNode& child : t.root.children) {
    LoopNest nest;
    nest.top = convert(child);
    nest.name = nestName(nest.top);
    placeTemporaries(t, nest);
    mapNest(t, nest);
    p.nests.push_back(std::move(nest));
  }
  return p;
}

std::string LoopProgram::str() const {
  std::ostringstream out;
  for (const LoopNest& n : nests) {
    out << "nest " << n.name;
    if (!n.scratch.empty()) {
      out << " scratch:";
      for (const auto& s : n.scratch) out << " " << s;
    }
    out << "\n";
    dump(n.top, 1, out);
  }
  return out.str();
}

}  // namespace react
