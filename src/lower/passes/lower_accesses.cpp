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

  Expr visit(const Expr& e) override {
    if (e->kind != ExprKind::Access) return mutateChildren(e);
    ExtentOf extent = [&](const std::string& index) { return indexExtent(index, p.indexSizes, p.runtimeSizes); };
    auto l = std::make_shared<ir::ExprNode>(*load(Name{Role::Values, e->tensor}, valueOffset(p.tensors.at(e->tensor), e->indices, extent), e->type));
    l->tensor = e->tensor;  // what the load reads, for a bounds check's report
    l->indices = e->indices;
    return l;
  }
};

}  // namespace

LoopProgram lowerAccesses(const LoopProgram& p) { return LowerAccesses(p).mutate(p); }

}  // namespace react::passes
