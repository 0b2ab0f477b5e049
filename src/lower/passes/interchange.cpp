// Kokkos: a lane loop under a chain of loops one lane would run becomes the outermost on a device.
#include "lower/ir/analysis.hpp"
#include "lower/ir/mutator.hpp"
#include "lower/passes/passes.hpp"

namespace react::passes {

using namespace ir;
using ir::Expr;

namespace {

// `chain` (loops from the Single's statement down to, not including, the lane loop) rebuilt
// around `inner`, each loop keeping its bounds and coordinate binding.
Stmt rebuildChain(const std::vector<const StmtNode*>& chain, size_t k, std::vector<Stmt> inner) {
  if (k == chain.size()) return block(std::move(inner));
  auto loop = std::make_shared<StmtNode>(*chain[k]);
  std::vector<Stmt> body;
  for (const Stmt& s : chain[k]->body)
    if (s->kind == StmtKind::Let && s->name.role == Role::Index) body.push_back(s);
  body.push_back(rebuildChain(chain, k + 1, std::move(inner)));
  loop->body = std::move(body);
  loop->schedule = Schedule::Serial;
  return loop;
}

struct Interchange : Mutator {
  Interchange(const LoopProgram& p, bool forced) : p(p), forced(forced) {}
  const LoopProgram& p;
  bool forced;

  Stmt visit(const Stmt& s) override {
    if (s->kind != StmtKind::Single || s->body.size() != 1) return mutateChildren(s);
    const StmtNode* lanes = laneLoop(*s->body[0], p.tensors);
    if (!lanes) return s;
    std::vector<const StmtNode*> chain;
    for (const StmtNode* n = s->body[0].get(); n != lanes; n = onlyStatement(*n)) chain.push_back(n);
    auto lanesOnDevice = std::make_shared<StmtNode>(*lanes);
    lanesOnDevice->schedule = Schedule::Vector;
    lanesOnDevice->body = {rebuildChain(chain, 0, lanes->body)};
    auto lanesOnHost = std::make_shared<StmtNode>(*lanes);
    lanesOnHost->schedule = Schedule::Vector;
    return ifDevice(lanesOnDevice, rebuildChain(chain, 0, {lanesOnHost}), forced);
  }
};

}  // namespace

LoopProgram interchangeLaneLoops(const LoopProgram& p, bool forced) { return Interchange(p, forced).mutate(p); }

}  // namespace react::passes
