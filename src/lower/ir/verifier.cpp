// The rules every pass keeps, checked after each (passes/schedule.cpp).
#include "lower/ir/mutator.hpp"
#include "lower/ir/names.hpp"

namespace react::ir {

namespace {

class Verifier {
 public:
  explicit Verifier(const KernelIR& k) : k_(k) {
    scopes_.emplace_back();
    for (const std::string& s : k.runtimeSizes) declare(Name{Role::Extent, s}, {false, Type::Int64});
    // A prepared argument's size is computed by the kernel (a Let before its Prepare).
    for (const std::string& a : k.args)
      if (!k.transposedInputs.count(a)) declare(Name{Role::Size, a}, {false, Type::Int64});
    for (const std::string& a : k.patternArgs) {
      declare(Name{Role::StoredEntries, a}, {false, Type::Int64});
      // Each compressed level's positions array, as a RowOf call names it.
      const Format& f = k.tensors.at(a).decl.format;
      for (int l = 0; l < f.rank(); ++l)
        if (f.level(l).kind == LevelKind::Compressed) declare(Name{Role::Positions, a, l}, {false, Type::Int64});
    }
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

  struct Declared {
    bool isMutable = false;
    Type type = Type::Int64;
  };
  void declare(const Name& n, Declared d) { scopes_.back()[n] = d; }
  const Declared* lookup(const Name& n) const {
    for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s)
      if (auto it = s->find(n); it != s->end()) return &it->second;
    return nullptr;
  }

  // Where a value of float type meets another type, they must be equal (only a Cast converts).
  void sameType(Type a, Type b, const std::string& where, const Stmt& s) const {
    if ((isFloat(a) || isFloat(b)) && a != b)
      fail(std::string("a value of type ") + toString(b) + " where " + where + " has type " + toString(a), s);
  }

  const TensorStorage& tensor(const std::string& name, const Stmt& s) const {
    auto t = k_.tensors.find(name);
    if (t == k_.tensors.end()) fail("unknown tensor '" + name + "'", s);
    return t->second;
  }

  void expr(const Expr& e, const Stmt& s) {
    if (!e) fail("a missing expression", s);
    for (const Expr& a : e->args) expr(a, s);
    if (e->kind == ExprKind::Var) {
      const Declared* d = lookup(e->name);
      if (!d) fail("'" + mangle(e->name) + "' is used before it is declared", s);
      sameType(d->type, e->type, "the declaration of '" + mangle(e->name) + "'", s);
    }
    if (e->kind == ExprKind::Access) {
      const TensorStorage& t = tensor(e->tensor, s);
      if (e->indices.size() != t.kept.size()) fail("an access with the wrong number of indices", s);
      for (const std::string& i : e->indices)
        if (!lookup(Name{Role::Index, i})) fail("index '" + i + "' is not bound here", s);
      sameType(valueTypeOf(t), e->type, "tensor '" + e->tensor + "'", s);
    }
    if (e->kind == ExprKind::Load && e->name.role == Role::Values)
      sameType(valueTypeOf(tensor(e->name.text, s)), e->type, "tensor '" + e->name.text + "'", s);
    operandTypes(e, s);
  }

  // An operation computes in its own type: its value operands have it (a comparison's, the
  // operands' type, when they are values).
  void operandTypes(const Expr& e, const Stmt& s) const {
    bool arithmetic = e->kind == ExprKind::Neg || e->kind == ExprKind::Binary ||
                      (e->kind == ExprKind::Call && e->callee != Callee::Cast && e->callee != Callee::Checked &&
                       e->callee != Callee::Select && e->callee != Callee::RowOf);
    if (!arithmetic) return;
    for (const Expr& a : e->args) sameType(e->type, a->type, "the operation " + print(e), s);
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
        sameType(s->type, s->value->type, "'" + mangle(s->name) + "'", s);
        return declare(s->name, {s->isMutable, s->type});
      case StmtKind::Assign: {
        expr(s->value, s);
        const Expr& t = s->target;
        if (!t) fail("an assignment without a target", s);
        if (t->kind == ExprKind::Var) {
          const Declared* d = lookup(t->name);
          if (!d || !d->isMutable) fail("an assignment to '" + mangle(t->name) + "', which is not a declared variable", s);
          expr(t, s);
        } else if (t->kind == ExprKind::Access || t->kind == ExprKind::Load) {
          expr(t, s);
        } else {
          fail("an assignment to an expression", s);
        }
        sameType(t->type, s->value->type, "the target", s);
        return;
      }
      case StmtKind::For: {
        expr(s->lo, s);
        expr(s->hi, s);
        if (s->laneTrips) expr(s->laneTrips, s);
        if (!s->balancePositions.text.empty() &&
            (s->balancePositions.role != Role::Positions || s->entryWork < 1 || s->rowWork < 1 ||
             (s->schedule != Schedule::Parallel && s->schedule != Schedule::ParallelReduce)))
          fail("a balanced loop needs a parallel schedule, positions and positive weights", s);
        bool reduces = s->schedule == Schedule::ParallelReduce || s->schedule == Schedule::LaneReduce;
        if (reduces) {
          const Declared* d = lookup(s->reduceVar);
          if (!d || !d->isMutable) fail("a reduction into an undeclared accumulator", s);
          sameType(d->type, s->reduceType, "the accumulator", s);
        }
        if (lookup(s->counter)) fail("counter '" + mangle(s->counter) + "' is already bound", s);
        scopes_.emplace_back();
        declare(s->counter, {false, Type::Int64});
        for (const PrivateBuffer& b : s->privates) {
          if (!k_.tensors.count(b.tensor)) fail("a private buffer of an unknown tensor", s);
          sameType(valueTypeOf(k_.tensors.at(b.tensor)), b.type, "tensor '" + b.tensor + "'", s);
        }
        body(s->body);
        scopes_.pop_back();
        return;
      }
      case StmtKind::Prepare:
        if (!k_.transposedInputs.count(s->name.text)) fail("a prepared tensor that is not a prepared argument", s);
        body(s->body);
        [[fallthrough]];
      case StmtKind::Allocate:
        expr(s->value, s);
        [[fallthrough]];
      case StmtKind::Fill:
        if (!k_.tensors.count(s->name.text)) fail("storage for an unknown tensor", s);
        sameType(valueTypeOf(k_.tensors.at(s->name.text)), s->type, "tensor '" + s->name.text + "'", s);
        return;
    }
  }

  const KernelIR& k_;
  std::vector<std::map<Name, Declared>> scopes_;
};

}  // namespace

void verify(const KernelIR& k) {
  Verifier v(k);
  v.body(k.body);
}

}  // namespace react::ir
