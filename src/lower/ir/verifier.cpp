// The rules every pass keeps, checked after each (passes/schedule.cpp).
#include "lower/ir/mutator.hpp"
#include "lower/ir/names.hpp"

namespace react::ir {

namespace {

class Verifier {
 public:
  explicit Verifier(const KernelIR& k) : k_(k) {
    scopes_.emplace_back();
    for (const std::string& s : k.runtimeSizes) declare(Name{Role::Extent, s}, false);
    for (const std::string& a : k.args) declare(Name{Role::Size, a}, false);
    for (const std::string& a : k.patternArgs) declare(Name{Role::StoredEntries, a}, false);
  }

  void body(const std::vector<Stmt>& b) {
    scopes_.emplace_back();
    for (const Stmt& s : b) stmt(s);
    scopes_.pop_back();
  }

 private:
  [[noreturn]] void fail(const std::string& what, const Stmt& s) const {
    std::string text = print(s);
    internalError("loop IR verifier: " + what + " in: " + text.substr(0, text.find('\n')));
  }

  void declare(const Name& n, bool isMutable) { scopes_.back()[n] = isMutable; }
  const bool* lookup(const Name& n) const {
    for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s)
      if (auto it = s->find(n); it != s->end()) return &it->second;
    return nullptr;
  }

  void expr(const Expr& e, const Stmt& s) {
    if (!e) fail("a missing expression", s);
    for (const Expr& a : e->args) expr(a, s);
    if (e->kind == ExprKind::Var && !lookup(e->name)) fail("'" + mangle(e->name) + "' is used before it is declared", s);
    if (e->kind == ExprKind::Access) {
      auto t = k_.tensors.find(e->tensor);
      if (t == k_.tensors.end()) fail("unknown tensor '" + e->tensor + "'", s);
      if (e->indices.size() != t->second.kept.size()) fail("an access with the wrong number of indices", s);
      for (const std::string& i : e->indices)
        if (!lookup(Name{Role::Index, i})) fail("index '" + i + "' is not bound here", s);
    }
  }

  void stmt(const Stmt& s) {
    switch (s->kind) {
      case StmtKind::Block:
      case StmtKind::Single:
      case StmtKind::Nest:
        if (s->scoped || s->kind != StmtKind::Block) return body(s->body);
        for (const Stmt& c : s->body) stmt(c);
        return;
      case StmtKind::IfDevice:
        if (s->body.size() != 2) fail("an IfDevice without two branches", s);
        body({s->body[0]});
        body({s->body[1]});
        return;
      case StmtKind::Comment: return;
      case StmtKind::Let:
        expr(s->value, s);
        if (lookup(s->name) && s->name.role != Role::Generated) fail("'" + mangle(s->name) + "' is declared twice", s);
        return declare(s->name, s->isMutable);
      case StmtKind::Assign: {
        expr(s->value, s);
        const Expr& t = s->target;
        if (!t) fail("an assignment without a target", s);
        if (t->kind == ExprKind::Var) {
          const bool* isMutable = lookup(t->name);
          if (!isMutable || !*isMutable) fail("an assignment to '" + mangle(t->name) + "', which is not a declared variable", s);
        } else if (t->kind == ExprKind::Access || t->kind == ExprKind::Load) {
          expr(t, s);
        } else {
          fail("an assignment to an expression", s);
        }
        return;
      }
      case StmtKind::For: {
        expr(s->lo, s);
        expr(s->hi, s);
        if (s->laneTrips) expr(s->laneTrips, s);
        bool reduces = s->schedule == Schedule::ParallelReduce || s->schedule == Schedule::LaneReduce;
        if (reduces) {
          const bool* isMutable = lookup(s->reduceVar);
          if (!isMutable || !*isMutable) fail("a reduction into an undeclared accumulator", s);
        }
        if (lookup(s->counter)) fail("counter '" + mangle(s->counter) + "' is already bound", s);
        scopes_.emplace_back();
        declare(s->counter, false);
        for (const PrivateBuffer& b : s->privates)
          if (!k_.tensors.count(b.tensor)) fail("a private buffer of an unknown tensor", s);
        body(s->body);
        scopes_.pop_back();
        return;
      }
      case StmtKind::Allocate:
        expr(s->value, s);
        [[fallthrough]];
      case StmtKind::Fill:
        if (!k_.tensors.count(s->name.text)) fail("storage for an unknown tensor", s);
        return;
    }
  }

  const KernelIR& k_;
  std::vector<std::map<Name, bool>> scopes_;  // declared names -> mutable
};

}  // namespace

void verify(const KernelIR& k) {
  Verifier v(k);
  v.body(k.body);
}

}  // namespace react::ir
