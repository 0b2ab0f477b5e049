// Bounds-checked offsets for every load and store of a tensor's values.
#include "lower/ir/mutator.hpp"
#include "lower/passes/passes.hpp"

namespace react::passes {

using namespace ir;
using ir::Expr;

namespace {

struct CheckBounds : Mutator {
  Expr visit(const Expr& e) override {
    Expr m = mutateChildren(e);
    if (m->kind != ExprKind::Load || m->name.role != Role::Values || m->tensor.empty()) return m;
    std::string what = m->tensor + "(";
    for (size_t d = 0; d < m->indices.size(); ++d) what += (d ? "," : "") + m->indices[d];
    what += ")";
    auto checked = std::make_shared<ir::ExprNode>(*m);
    checked->args = {call(Callee::Checked, {m->args[0], var(Name{Role::Size, m->tensor}, Type::Int64), stringImm(what)}, Type::Int64)};
    return checked;
  }
};

}  // namespace

LoopProgram checkBounds(const LoopProgram& p) { return CheckBounds().mutate(p); }

}  // namespace react::passes
