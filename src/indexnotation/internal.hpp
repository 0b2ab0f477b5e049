// Internal to src/indexnotation: helpers shared by the front ends, the splitter and the checks.
// Not installed, not for other stages (they use indexnotation.hpp).
#pragma once

#include "indexnotation/indexnotation.hpp"

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace react::detail {

constexpr int kMaxNesting = 200;     // parser recursion: parentheses, unary minus, calls
constexpr int kMaxExprDepth = 1000;  // height of an expression tree (long chains included)

// "line:column: message", or just the message when the position is unknown; as a react::UserError.
std::string messageAt(SourcePos pos, const std::string& message);
UserError errorAt(SourcePos pos, const std::string& message);
std::string quoted(const std::string& s);  // 'X'
std::string join(const std::vector<std::string>& parts, const std::string& sep);
bool contains(const std::vector<std::string>& v, const std::string& s);
bool isFunctionName(const std::string& s);  // exp sqrt log max min where sum softmax logsumexp: not tensor names

// Height of an expression tree, computed without recursion; stops counting past `limit`.
int exprDepth(const Expr& e, int limit);
// A copy of `e` with every index name (accesses and reductions) mapped through `f`.
Expr mapIndices(const Expr& e, const std::function<std::string(const std::string&)>& f);
// Shortest decimal text that reads back as exactly `v`.
std::string formatNumber(double v);

// check.cpp: what a program must satisfy before and after splitting. Throws react::UserError.
struct CheckedProgram {
  std::map<std::string, int64_t> indexSizes;           // every index used
  std::map<std::string, std::vector<int64_t>> shapes;  // every tensor read or assigned
  std::set<std::string> assigned;                      // left-hand sides
};
CheckedProgram checkProgram(const Program& p);

// split.cpp: one-operator form, without checks or inference. `origin[s]` is the index of the
// user statement that split statement s came from.
struct SplitResult {
  Program program;  // tensors and indexSizes copied from the input
  std::set<std::string> temporaries;
  std::set<std::string> grouped;  // temporaries of products the user parenthesised
  std::vector<int> origin;
};
SplitResult splitOnly(const Program& p);

// infer.cpp: checks a split program and fills tensors (shapes, formats, roles, patterns, the
// temporaries' value types) and indexSizes. Only tensors the program uses are kept. A statement
// whose formats react does not support (a csr operand spread where only '*' may spread it, ...)
// makes the result illegal, with the reason at the statement's position; checkProgram's errors
// are thrown (react::UserError).
struct InferredProgram {
  Program program;  // complete when legality.ok()
  Legality legality;
};
InferredProgram inferProgram(const SplitResult& split);
// inferProgram's program; throws react::UserError with its reason when it is illegal.
Program finishProgram(const SplitResult& split);
// value_types.cpp: every temporary's value type, from the statements that read it.
void inferTemporaryTypes(Program& p);

// Union-find whose classes carry a size (-1 = unknown); used for index sizes and index classes.
class SizedUnionFind {
 public:
  int add(int64_t size) {
    parent_.push_back(static_cast<int>(parent_.size()));
    size_.push_back(size);
    return parent_.back();
  }
  int find(int n) {
    while (parent_[n] != n) n = parent_[n] = parent_[parent_[n]];
    return n;
  }
  int64_t size(int n) { return size_[find(n)]; }
  // Merges the classes of a and b (a's root stays the root); false, and nothing merged, when
  // both sizes are known and differ.
  bool unite(int a, int b) {
    a = find(a), b = find(b);
    if (a == b) return true;
    if (size_[a] >= 0 && size_[b] >= 0 && size_[a] != size_[b]) return false;
    parent_[b] = a;
    if (size_[a] < 0) size_[a] = size_[b];
    return true;
  }

 private:
  std::vector<int> parent_;
  std::vector<int64_t> size_;
};

// The numerically stable softmax and logsumexp (docs/semantics.md, "Softmax and logsumexp"),
// written once for the three front ends, which differ in how they reduce and combine operands:
// `reduce(op, x)` reduces x over the builtin's axis or indices (the operator form keeps the
// axis, for broadcasting), `apply(op, operands)` is an element-wise operator. They expand into
// exactly what a user would write by hand, so the split (whose common subexpressions compute
// the maximum and the shifted exp once) and fusion treat both alike. Subtracting the maximum
// keeps every argument of exp at or below 0: exp(x) / sum(exp(x)) overflows above 709.
template <typename Value>
struct StableBuiltins {
  std::function<Value(ReduceOp, const Value&)> reduce;
  std::function<Value(Op, std::vector<Value>)> apply;

  // exp(x - max(x)) / sum(exp(x - max(x)))
  Value softmax(const Value& x) const {
    Value shifted = shiftedExp(x, reduce(ReduceOp::Max, x));
    return apply(Op::Div, {shifted, reduce(ReduceOp::Sum, shifted)});
  }
  // max(x) + log(sum(exp(x - max(x)))); nothing to reduce gives -inf + log(0) = -inf.
  Value logsumexp(const Value& x) const {
    Value m = reduce(ReduceOp::Max, x);
    return apply(Op::Add, {m, apply(Op::Log, {reduce(ReduceOp::Sum, shiftedExp(x, m))})});
  }
  Value expand(const std::string& builtin, const Value& x) const {
    return builtin == "softmax" ? softmax(x) : logsumexp(x);
  }

 private:
  Value shiftedExp(const Value& x, const Value& max) const { return apply(Op::Exp, {apply(Op::Sub, {x, max})}); }
};

}  // namespace react::detail
