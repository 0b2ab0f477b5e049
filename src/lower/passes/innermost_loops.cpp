// The innermost loops nested in another loop: where vectorization applies.
#include "lower/ir/analysis.hpp"
#include "lower/ir/mutator.hpp"
#include "lower/passes/passes.hpp"

namespace react::passes {

using namespace ir;

LoopProgram rewriteNestedInnermost(const LoopProgram& p, const std::function<Stmt(const Stmt& loop)>& rewrite) {
  struct Walk : Mutator {
    const std::function<Stmt(const Stmt&)>* rewrite;
    int loops = 0;
    Stmt visit(const Stmt& s) override {
      if (s->kind != StmtKind::For) return mutateChildren(s);
      if (loops > 0 && isInnermost(*s)) return (*rewrite)(s);
      ++loops;
      Stmt out = mutateChildren(s);
      --loops;
      return out;
    }
  } walk;
  walk.rewrite = &rewrite;
  return walk.mutate(p);
}

}  // namespace react::passes
