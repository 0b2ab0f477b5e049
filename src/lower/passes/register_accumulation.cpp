// A lane loop's accumulation over the loops inside it, held in a register.
#include "lower/ir/analysis.hpp"
#include "lower/ir/mutator.hpp"
#include "lower/passes/passes.hpp"

namespace react::passes {

using namespace ir;
using ir::Expr;

namespace {

struct RegisterAccumulation : Mutator {
  explicit RegisterAccumulation(const LoopProgram& p) : p(p) {}
  const LoopProgram& p;

  // The loops from `s` down to the one accumulation at the end of the chain, or false.
  static bool chain(const Stmt& s, std::vector<const StmtNode*>& loops, const StmtNode*& update) {
    const StmtNode* n = s.get();
    while (n->kind == StmtKind::Block && n->body.size() == 1 && !n->scoped) n = n->body[0].get();
    if (n->kind == StmtKind::Assign) {
      update = n;
      return n->update != Update::Set && n->target->kind == ExprKind::Access;
    }
    if (n->kind != StmtKind::For || n->schedule != Schedule::Serial || declaresLocals(*n)) return false;
    const StmtNode* only = onlyStatement(*n);
    if (!only) return false;
    loops.push_back(n);
    for (const Stmt& b : n->body)
      if (b.get() == only) return chain(b, loops, update);
    return false;
  }

  Stmt visit(const Stmt& s) override {
    if (s->kind != StmtKind::For || s->schedule != Schedule::Vector) return mutateChildren(s);
    const StmtNode* only = onlyStatement(*s);
    std::vector<const StmtNode*> loops;
    const StmtNode* update = nullptr;
    Stmt inside;
    for (const Stmt& b : s->body)
      if (b.get() == only) inside = b;
    if (!inside || !chain(inside, loops, update) || loops.empty()) return s;
    const Expr& target = update->target;
    for (const StmtNode* l : loops)
      if (varies(*target, loopIndex(*l), p.tensors)) return s;
    bool readsTarget = false;
    forEachExpr(update->value, [&](const Expr& e) { readsTarget |= e->kind == ExprKind::Access && e->tensor == target->tensor; });
    if (readsTarget) return s;
    Expr acc = var(Name{Role::Generated, "lane_acc"}, target->type);
    struct ToRegister : Mutator {
      const StmtNode* update;
      Expr acc;
      Stmt visit(const Stmt& st) override {
        if (st.get() != update) return mutateChildren(st);
        auto n = copy(st);
        n->target = acc;
        n->atomic = false;
        return n;
      }
    } toRegister;
    toRegister.update = update;
    toRegister.acc = acc;
    auto loop = copy(s);
    loop->body.clear();
    for (const Stmt& b : s->body) {
      if (b != inside) {
        loop->body.push_back(b);
        continue;
      }
      // An atomic update (other team threads add to the element too) adds the register's sum once;
      // otherwise the register starts from the element and replaces it.
      loop->body.push_back(let(acc->name, target->type, update->atomic ? floatImm(0.0, target->type) : target, true));
      loop->body.push_back(toRegister.mutate(b));
      loop->body.push_back(update->atomic ? atomicAdd(target, acc) : assign(target, acc));
    }
    return loop;
  }
};

}  // namespace

LoopProgram accumulateInRegisters(const LoopProgram& p) { return RegisterAccumulation(p).mutate(p); }

}  // namespace react::passes
