// The rules every pass keeps, checked after each (passes/schedule.cpp).
#include "lower/ir/analysis.hpp"
#include "lower/ir/mutator.hpp"
#include "lower/ir/names.hpp"

#include <map>
#include <optional>
#include <set>

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
      // Each compressed level's positions array, as a RowOf call names it, and its coordinates, as
      // a Find call does.
      const Format& f = k.tensors.at(a).decl.format;
      for (int l = 0; l < f.rank(); ++l)
        if (f.level(l).kind == LevelKind::Compressed) {
          declare(Name{Role::Positions, a, l}, {false, Type::Int64});
          declare(Name{Role::Coordinates, a, l}, {false, Type::Int32});
        }
    }
  }

  void body(const std::vector<Stmt>& b) {
    const int outer = block_;
    block_ = ++blocks_;
    scopes_.emplace_back();
    for (const Stmt& s : b) stmt(s);
    scopes_.pop_back();
    block_ = outer;
  }

  // Each alternating array of the nest `s` (or of the kernel's top level, `s` null) is added into
  // by one entry-runs loop, which restores its other half.
  void alternatingAddedOnce(const Stmt& s) {
    for (const auto& [tensor, a] : alternating_)
      if (a.adders != 1) fail("alternating array '" + tensor + "' added into by " + std::to_string(a.adders) + " entry runs, not one", s);
    alternating_.clear();
  }

 private:
  [[noreturn]] void fail(const std::string& what, const Stmt& s) const {
    std::string text = s ? print(s) : std::string("the kernel");
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

  // A library computes the product from the tensors' memory alone: three distinct row-major
  // dense matrices of one value type, none shrunk, and extents bound where the nest runs.
  void product(const DenseProduct& d, const Stmt& s) {
    if (d.out == d.a || d.out == d.b) fail("a dense product that writes an operand", s);
    const Type type = valueTypeOf(tensor(d.out, s));
    for (const std::string* name : {&d.out, &d.a, &d.b}) {
      const TensorStorage& t = tensor(*name, s);
      if (t.decl.format != Format::dense(2) || t.shrunk()) fail("a dense product of '" + *name + "', not a row-major matrix", s);
      sameType(type, valueTypeOf(t), "the dense product's '" + d.out + "'", s);
    }
    for (const Expr& e : {d.m, d.n, d.k}) {
      expr(e, s);
      if (e->type != Type::Int64) fail("a dense product's extent that is not an integer", s);
    }
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
                       e->callee != Callee::Select && e->callee != Callee::RowOf &&
                       e->callee != Callee::Find && e->callee != Callee::ChunkLength);
    if (!arithmetic) return;
    for (const Expr& a : e->args) sameType(e->type, a->type, "the operation " + print(e), s);
  }

  void stmt(const Stmt& s) {
    switch (s->kind) {
      case StmtKind::Nest:
        if (s->product) product(*s->product, s);
        body(s->body);
        return alternatingAddedOnce(s);
      case StmtKind::Block:
      case StmtKind::Single:
        if (s->scoped || s->kind != StmtKind::Block) return body(s->body);
        for (const Stmt& c : s->body) stmt(c);
        return;
      case StmtKind::IfDevice:
        if (s->body.size() != 2) fail("an IfDevice without two branches", s);
        body({s->body[0]});
        body({s->body[1]});
        return;
      case StmtKind::IfLongRows:
        if (s->body.size() != 2) fail("an IfLongRows without two branches", s);
        if (s->name.role != Role::Positions || !lookup(s->name))
          fail("an IfLongRows over '" + mangle(s->name) + "', not a level's positions", s);
        expr(s->value, s);
        body({s->body[0]});
        body({s->body[1]});
        return;
      case StmtKind::IfColumnWalk: {
        if (s->body.size() != 2) fail("an IfColumnWalk without two branches", s);
        auto walk = k_.columnWalks.find(s->name.text);
        if (s->name.role != Role::StoredEntries || walk == k_.columnWalks.end())
          fail("an IfColumnWalk over '" + mangle(s->name) + "', not a column walk's stored entries", s);
        // The walk's entry lanes where it is given, the matrix's where not.
        auto over = [](const Stmt& b, const std::string& tensor) {
          return b->kind == StmtKind::EntryLanes && b->name == Name{Role::Positions, tensor, 1};
        };
        if (!over(s->body[0], walk->first) || !over(s->body[1], walk->second))
          fail("an IfColumnWalk whose branches are not entry lanes over the walk and over its matrix", s);
        body({s->body[0]});
        body({s->body[1]});
        return;
      }
      case StmtKind::EntryRuns: return entryRuns(s);
      case StmtKind::EntryLanes: return entryLanes(s);
      case StmtKind::Comment: return;
      case StmtKind::Let:
        expr(s->value, s);
        if ((lookup(s->name) && s->name.role != Role::Generated) || indexArrays_.count(s->name)) fail("'" + mangle(s->name) + "' is declared twice", s);
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
        if (t->kind != ExprKind::Var && alternating_.count(writtenTensor(*s)))
          fail("an assignment to alternating array '" + writtenTensor(*s) + "' (only its entry runs add into it)", s);
        if (s->atomic && (s->update != Update::Add || t->kind == ExprKind::Var))
          fail("an atomic update that is not an addition into memory", s);
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
        if (s->rowChunks && (!s->balancePositions.text.empty() || s->schedule != Schedule::Parallel))
          fail("rows in chunks need a parallel schedule (no reduction) and no balanced shares", s);
        bool reduces = s->schedule == Schedule::ParallelReduce || s->schedule == Schedule::LaneReduce;
        if (reduces) {
          std::vector<Name> accumulators{s->reduceVar};
          accumulators.insert(accumulators.end(), s->jointReduceVars.begin(), s->jointReduceVars.end());
          for (const Name& a : accumulators) {
            const Declared* d = lookup(a);
            if (!d || !d->isMutable) fail("a reduction into an undeclared accumulator", s);
            sameType(d->type, s->reduceType, "the accumulator", s);
          }
        }
        if (!s->jointReduceVars.empty() && s->schedule != Schedule::LaneReduce) fail("joint accumulators outside a lane-reduce loop", s);
        if (s->maskedBlocks) maskedBlocks(s);
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
      case StmtKind::Merge: return merge(s);
      case StmtKind::Prepare:
        if (!k_.transposedInputs.count(s->name.text)) fail("a prepared tensor that is not a prepared argument", s);
        body(s->body);
        [[fallthrough]];
      case StmtKind::Allocate:
        expr(s->value, s);
        if (s->name.role == Role::Generated) {
          if (s->type != Type::Int64 || !s->uninitialized || s->value->type != Type::Int64) fail("a generated array that is not of indices set before read", s);
          if (lookup(s->name) || indexArrays_.count(s->name)) fail("'" + mangle(s->name) + "' is declared twice", s);
          indexArrays_[s->name];  // not a variable: only entry runs name it
          return;
        }
        if (s->alternating) {
          if (s->uninitialized || alternating_.count(s->name.text)) fail("an alternating array that is not filled, or allocated twice", s);
          alternating_[s->name.text] = Alternating{block_, 0};
        }
        [[fallthrough]];
      case StmtKind::Fill:
        if (s->kind == StmtKind::Fill && alternating_.count(s->name.text)) fail("a fill of alternating array '" + s->name.text + "'", s);
        if (!k_.tensors.count(s->name.text)) fail("storage for an unknown tensor", s);
        sameType(valueTypeOf(k_.tensors.at(s->name.text)), s->type, "tensor '" + s->name.text + "'", s);
        return;
    }
  }

  // A body the lanes can run (maskedLanes) over one row's positions, reducing into the declared
  // mutable accumulator of the lanes' type with the loop's operator where it reduces.
  void maskedBlocks(const Stmt& s) {
    const std::optional<MaskedLanes> m = maskedLanes(*s);
    if (!m || !overRowPositions(*s) || (s->schedule != Schedule::Serial && s->schedule != Schedule::Vector && s->schedule != Schedule::LaneReduce))
      fail("masked blocks over a loop the lanes cannot run", s);
    if (m->reduced != s->reduceVar) fail("masked blocks reducing into another variable than their accumulator", s);
    if (m->reduced.text.empty()) return;
    const Declared* d = lookup(m->reduced);
    if (!d || !d->isMutable || s->reduceType != m->type || d->type != m->type || s->reduceOp != m->op)
      fail("masked blocks reducing into an undeclared accumulator", s);
  }

  // What entry runs and entry lanes (`what`) share: positions of a level the kernel has, integer
  // bounds computed outside, an entry and a row counter of their own.
  void overStoredEntries(const Stmt& s, const std::string& what) {
    if (s->name.role != Role::Positions || !lookup(s->name)) fail(what + " over '" + mangle(s->name) + "', not a level's positions", s);
    for (const Expr& bound : {s->value, s->hi}) {
      expr(bound, s);
      if (bound->type != Type::Int64) fail(what + " with a bound that is not an integer", s);
    }
    if (lookup(s->counter) || lookup(s->rowCounter) || s->counter == s->rowCounter)
      fail("an entry or row counter that is already bound", s);
  }

  // Positions of a level the kernel has, integer bounds computed outside, a positive run length;
  // the entry, its row and the accumulator, three names of their own, bound inside; a target of
  // the accumulator's type at the row; a body of plain statements (each run is one lane's: no
  // lanes, no co-iteration inside) that writes nothing of the target's tensor.
  void entryRuns(const Stmt& s) {
    overStoredEntries(s, "entry runs");
    if (s->runLength < 1) fail("entry runs of no entries", s);
    if (s->runRows.text.empty() && (s->recordsRunRows || s->runRowsEvery)) fail("entry runs that record or read first rows without an array for them", s);
    if (!s->runRows.text.empty()) {
      auto array = indexArrays_.find(s->runRows);
      if (s->runRows.role != Role::Generated || array == indexArrays_.end()) fail("entry runs whose first rows go to no allocated index array", s);
      std::optional<RecordedRuns>& recorded = array->second;
      if (s->recordsRunRows) {
        if (s->runRowsEvery != s->runLength || recorded) fail("entry runs that record first rows of runs of another length, or again", s);
        recorded = RecordedRuns{s->runLength, s->name, s->hi};
      } else if (!recorded || recorded->runLength != s->runRowsEvery || recorded->positions != s->name || !equal(recorded->entries, s->hi)) {
        fail("entry runs that read first rows no earlier runs over the same entries recorded", s);
      }
    }
    scopes_.emplace_back();
    declare(s->counter, {false, Type::Int64});
    declare(s->rowCounter, {false, Type::Int64});
    if (s->target) {
      const Expr& t = s->target;
      // A load's offset is the row, or the row bounds-checked (passes/bounds_check.cpp).
      Expr offset = t->kind == ExprKind::Load ? t->args.at(0) : nullptr;
      if (offset && offset->kind == ExprKind::Call && offset->callee == Callee::Checked) offset = offset->args.at(0);
      const bool atRow = t->kind == ExprKind::Access ? t->indices == std::vector<std::string>{s->rowCounter.text}
                                                     : offset && offset->kind == ExprKind::Var && offset->name == s->rowCounter;
      if (!atRow) fail("entry runs that add into something other than an element at the row", s);
      expr(t, s);
      if (auto a = alternating_.find(tensorOf(*t)); a != alternating_.end()) {
        // Once a call, after the allocation: in its block, not in a branch or a loop of its own.
        if (a->second.block != block_) fail("entry runs that add into alternating array '" + a->first + "' outside the block that allocates it", s);
        ++a->second.adders;
      }
      if (s->reduceVar.text.empty() || lookup(s->reduceVar)) fail("entry runs without an accumulator of their own", s);
      if (s->reduceOp != ReduceOp::Sum && s->reduceOp != ReduceOp::Max) fail("entry runs that reduce by neither a sum nor a maximum", s);
      sameType(t->type, s->reduceType, "the accumulator", s);
      declare(s->reduceVar, {true, s->reduceType});
      forEachStmt(s->body, [&](const Stmt& c) {
        if (c->kind == StmtKind::Assign && writtenTensor(*c) == tensorOf(*t))
          fail("entry runs whose body writes the tensor the runs add into", s);
      });
    }
    forEachStmt(s->body, [&](const Stmt& c) {
      if (c->kind == StmtKind::Single || c->kind == StmtKind::Merge || c->kind == StmtKind::EntryRuns ||
          (c->kind == StmtKind::For && c->schedule != Schedule::Serial))
        fail("entry runs with lanes or co-iteration inside", s);
    });
    body(s->body);
    scopes_.pop_back();
  }

  // Positions of a level the kernel has, integer bounds computed outside; the entry, its row and
  // the accumulator, three names of their own, bound inside; first the coordinate (an integer
  // Let), then a lane reduction over a constant range from 0 summing into the accumulator one term
  // that reads neither the entry's position nor the accumulator, and no tensor but dense ones at
  // the row, the coordinate and the sum's index (the lanes share only those among entries); then
  // plain stores: at the row and the coordinate where still an access (each lane's own entry).
  void entryLanes(const Stmt& s) {
    overStoredEntries(s, "entry lanes");
    if (lookup(s->reduceVar) || s->reduceVar == s->counter || s->reduceVar == s->rowCounter)
      fail("entry lanes whose accumulator's name is already bound", s);
    if (s->body.size() < 2 || s->body[0]->kind != StmtKind::Let || s->body[0]->isMutable || s->body[0]->type != Type::Int64)
      fail("entry lanes that do not bind the entry's coordinate first", s);
    const StmtNode& dot = *s->body[1];
    if (dot.kind != StmtKind::For || dot.schedule != Schedule::LaneReduce || dot.reduceVar != s->reduceVar || dot.reduceOp != ReduceOp::Sum ||
        dot.lo->kind != ExprKind::IntImm || dot.lo->intValue != 0 || dot.hi->kind != ExprKind::IntImm || dot.hi->intValue < 1 ||
        dot.body.size() != 1 || dot.body[0]->kind != StmtKind::Assign || dot.body[0]->update != Update::Add || dot.body[0]->atomic ||
        dot.body[0]->target->kind != ExprKind::Var || dot.body[0]->target->name != s->reduceVar)
      fail("entry lanes whose second statement is not a sum over a constant range into their accumulator", s);
    const std::set<Name> shared{s->rowCounter, s->body[0]->name, dot.counter};
    forEachExpr(dot.body[0]->value, [&](const Expr& e) {
      if (e->kind == ExprKind::Var && (e->name == s->counter || e->name == s->reduceVar || e->name.role == Role::Position))
        fail("entry lanes whose sum reads the entry's position or the accumulator", s);
      if (e->kind == ExprKind::Access) {
        const Format& f = tensor(e->tensor, s).decl.format;
        for (int l = 0; l < f.rank(); ++l)
          if (f.level(l).kind != LevelKind::Dense) fail("entry lanes whose sum reads the sparse '" + e->tensor + "'", s);
        for (const std::string& index : e->indices)
          if (!shared.count(Name{Role::Index, index})) fail("entry lanes whose sum reads at an index of its own", s);
      }
    });
    // A column walk's entries are a csr matrix's by columns: the uses store at its entries, whose
    // rows are the walk's coordinates.
    const std::string &row = s->rowCounter.text, &coordinate = s->body[0]->name.text;
    const bool byColumns = k_.columnWalks.count(s->name.text) > 0;
    for (size_t k = 2; k < s->body.size(); ++k) {
      const StmtNode& use = *s->body[k];
      if (byColumns && use.kind == StmtKind::Let && !use.isMutable) continue;  // the entry's csr position
      const bool access = use.kind == StmtKind::Assign && use.target->kind == ExprKind::Access;
      if (access) tensor(use.target->tensor, s);  // fails on an unknown tensor
      if (use.kind != StmtKind::Assign || use.atomic || use.update != Update::Set ||
          (!access && use.target->kind != ExprKind::Load) ||
          (access && !(byColumns ? atStoredEntry(*use.target, coordinate, row, k_.tensors)
                                 : atStoredEntry(*use.target, row, coordinate, k_.tensors))))
        fail("entry lanes that do more with an entry's sum than store at the entry", s);
    }
    scopes_.emplace_back();
    declare(s->counter, {false, Type::Int64});
    declare(s->rowCounter, {false, Type::Int64});
    declare(s->reduceVar, {true, s->reduceType});
    body(s->body);
    scopes_.pop_back();
  }

  // Each finger a compressed level of a pattern the kernel has, its bounds computed outside; its
  // position and coordinate, the appended pattern's position and the counter bound inside; a case
  // per nonempty set of fingers at most once, every finger in each case of an intersection.
  void merge(const Stmt& s) {
    if (s->fingers.size() < 2 || s->fingers.size() > 8 * sizeof(unsigned) - 1) fail("a merge of fewer than two fingers", s);
    if (s->counter.role != Role::Index || lookup(s->counter)) fail("a merge counter that is not a free index", s);
    std::vector<MergeFinger> levels = s->fingers;
    if (s->appended) levels.push_back(*s->appended);
    for (const MergeFinger& f : levels) {
      const Format& format = tensor(f.pattern, s).decl.format;
      if (f.level < 0 || f.level >= format.rank() || format.level(f.level).kind != LevelKind::Compressed)
        fail("a merge over level " + std::to_string(f.level) + " of '" + f.pattern + "', which is not compressed", s);
      if (!f.lo || (!f.hi && s->appended && &f != &levels.back())) fail("a merge finger without bounds", s);
      expr(f.lo, s);
      if (f.hi) expr(f.hi, s);
    }
    const unsigned all = (1u << s->fingers.size()) - 1;
    std::set<unsigned> seen;
    for (unsigned mask : s->caseMasks)
      if (mask == 0 || (mask & ~all) || !seen.insert(mask).second || (!s->unite && mask != all))
        fail("a merge case for fingers " + std::to_string(mask), s);
    scopes_.emplace_back();
    declare(s->counter, {false, Type::Int64});
    for (const MergeFinger& f : levels) {
      declare(mergePosition(f.pattern, f.level), {false, Type::Int64});
      declare(mergeCoordinate(f.pattern, f.level), {false, Type::Int64});
    }
    for (const Stmt& c : s->body) body({c});
    scopes_.pop_back();
  }

  const KernelIR& k_;
  std::vector<std::map<Name, Declared>> scopes_;
  // Generated index arrays (allocateIndices), and what the entry runs that recorded them ran over.
  struct RecordedRuns {
    int64_t runLength;
    Name positions;
    Expr entries;
  };
  std::map<Name, std::optional<RecordedRuns>> indexArrays_;
  // The nest's alternating arrays: the block that allocates each, and how many entry runs add
  // into it (one restores it). Blocks are numbered as body() enters them.
  struct Alternating {
    int block = 0, adders = 0;
  };
  std::map<std::string, Alternating> alternating_;
  int block_ = 0, blocks_ = 0;
};

}  // namespace

void verify(const KernelIR& k) {
  Verifier v(k);
  v.body(k.body);
  v.alternatingAddedOnce(nullptr);
}

}  // namespace react::ir
