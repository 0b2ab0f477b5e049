// The innermost loops nested in another loop: where vectorization applies.
#include "lower/ir/analysis.hpp"
#include "lower/ir/mutator.hpp"
#include "lower/passes/passes.hpp"

namespace react::passes {

using namespace ir;

// A position loop runs over a row's stored entries: a few on most graphs, where a vector loop's
// set-up and combine cost more than the scalar loop (norm_row at 1 thread was 1.35-1.39x slower on
// cora, citeseer and power with its row sums vectorized). A call to exp or log costs tens of
// cycles, which the vector math library (glibc's libmvec, declared in the OpenMP prelude) cuts to a
// few per lane: worth it even on short rows.
bool worthVectorizing(const StmtNode& loop, bool vectorMath) { return callsVectorMath(loop) ? vectorMath : isDenseLoop(loop); }

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

LoopProgram rewriteNestedInnermostInPlace(const LoopProgram& p,
                                          const std::function<void(const Stmt& loop, std::vector<Stmt>& out)>& rewrite) {
  struct Walk : Mutator {
    const std::function<void(const Stmt&, std::vector<Stmt>&)>* rewrite;
    int loops = 0;  // loops around the statements being visited
    Stmt visit(const Stmt& s) override {
      if (s->kind == StmtKind::Nest) loops = 0;
      if (s->kind != StmtKind::For) return mutateChildren(s);
      ++loops;
      Stmt out = mutateChildren(s);
      --loops;
      return out;
    }
    std::vector<Stmt> visitBody(const std::vector<Stmt>& body) override {
      std::vector<Stmt> out;
      for (const Stmt& s : body) {
        if (s->kind == StmtKind::For && loops > 0 && isInnermost(*s)) (*rewrite)(s, out);
        else out.push_back(mutate(s));
      }
      return out;
    }
  } walk;
  walk.rewrite = &rewrite;
  return walk.mutate(p);
}

}  // namespace react::passes
