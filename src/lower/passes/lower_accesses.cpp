// Accesses to loads and stores at offsets the levels compute.
#include "lower/ir/mutator.hpp"
#include "lower/levels.hpp"
#include "lower/passes/passes.hpp"


namespace react::passes {

using namespace ir;
using ir::Expr;

namespace {

struct LowerAccesses : Mutator {
  explicit LowerAccesses(const LoopProgram& p) : p(p) {}
  const LoopProgram& p;

  // Inside a merge: its counter's index -> the patterns it walks, each at its finger's position.
  std::map<std::string, std::map<std::string, Name>> merged;

  Stmt visit(const Stmt& s) override {
    if (s->kind != StmtKind::Merge) return mutateChildren(s);
    std::map<std::string, Name>& fingers = merged[s->counter.text];
    for (const MergeFinger& f : s->fingers) fingers[f.pattern] = mergePosition(f.pattern, f.level);
    if (s->appended) fingers[s->appended->pattern] = mergePosition(s->appended->pattern, s->appended->level);
    Stmt out = mutateChildren(s);
    merged.erase(s->counter.text);
    return out;
  }

  Expr visit(const Expr& e) override {
    if (e->kind != ExprKind::Access) return mutateChildren(e);
    PositionOf position = [&](const std::string& index, const std::string& pattern, int) {
      auto m = merged.find(index);
      if (m != merged.end() && m->second.count(pattern)) return m->second.at(pattern);
      return Name{Role::Position, index};
    };
    return loadAt(p, *e, position);
  }
};

}  // namespace

Expr loadAt(const LoopProgram& p, const ir::ExprNode& access, const PositionOf& position) {
  ExtentOf extent = [&](const std::string& index) { return indexExtent(index, p.indexSizes, p.runtimeSizes); };
  const Expr offset = valueOffset(p.tensors.at(access.tensor), access.indices, extent, position);
  auto l = std::make_shared<ir::ExprNode>(*load(Name{Role::Values, access.tensor}, offset, access.type));
  l->tensor = access.tensor;  // what the load reads, for a bounds check's report
  l->indices = access.indices;
  return l;
}

LoopProgram lowerAccesses(const LoopProgram& p) { return LowerAccesses(p).mutate(p); }

}  // namespace react::passes
