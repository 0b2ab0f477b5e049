// Questions passes ask of the loop IR.
#pragma once

#include "lower/ir/ir.hpp"

#include <functional>
#include <optional>
#include <set>

namespace react::ir {

// Does this access move through memory as `index` changes (is `index` one of the dimensions the
// tensor keeps)? A sparse tensor's stored entries differ for different coordinates of every
// dimension, so each of its indices counts.
bool varies(const ExprNode& access, const std::string& index, const std::map<std::string, TensorStorage>& tensors);

// How the iterations of `loop` depend on one another, writes to `privates` aside (temporaries
// each worker holds itself) and locals declared inside the loop aside:
//  - Independent: every write moves with the loop's index, each tensor is written at one access
//    and read only there (no iteration reads what another writes);
//  - ReduceScalar: the only dependent writes accumulate, with one operator, into one scalar that
//    the loop does not read otherwise: a tensor of no stored dimension, or a variable declared
//    outside the loop (`reduceTarget`, `op`);
//  - Dependent otherwise.
struct IterationFacts {
  Iterations kind = Iterations::Dependent;
  Expr reduceTarget;  // what every reduction writes: an access, or a variable
  ReduceOp op = ReduceOp::Sum;
};
IterationFacts analyzeIterations(const StmtNode& loop, const std::map<std::string, TensorStorage>& tensors,
                                 const std::set<std::string>& privates = {});

// A copy of `loop` that records its facts (iterations, reduceTarget, reduceOp), privates counting
// as writes: what lowering records on the loops of a parallel row for lane mapping.
Stmt withIterations(const Stmt& loop, const std::map<std::string, TensorStorage>& tensors);

// The logical index a loop visits (its counter's name).
const std::string& loopIndex(const StmtNode& loop);
// Does a dense loop (one over coordinates, not positions) run it?
bool isDenseLoop(const StmtNode& loop);
// Does the loop's body call a function the vector math library has (exp, log)?
bool callsVectorMath(const StmtNode& loop);
// Has the loop no loop inside it?
bool isInnermost(const StmtNode& loop);
// The one statement of a loop's body besides the binding of its coordinate, or null.
const StmtNode* onlyStatement(const StmtNode& loop);
// The positions a loop runs over when it visits the stored entries of row `row` of a matrix
// (positions[row] .. positions[row + 1]), or null.
const Name* rowPositions(const StmtNode& loop, const Name& row);
// The matrix or tensor whose stored entries a loop visits when it runs over row `row` at the
// pattern's last level (positions[row] .. positions[row + 1], each position a stored entry), or "".
std::string rowEntriesPattern(const StmtNode& loop, const Name& row, const std::map<std::string, TensorStorage>& tensors);
// What a masked-blocks loop's lanes hold (StmtNode::maskedBlocks), where the loop's body allows
// them: locals it declares, and assignments, each to such a local, a store into a tensor's values
// at the loop's counter, or a reduction (+= or max=) into one variable declared outside that the
// body does not otherwise read; values made of loads of values at the counter, variables,
// constants, + - * /, negation, exp, log, sqrt, max and min, all of one float type. Then every
// iteration touches memory only at its own position: iterations are independent but for the
// reduction. None where the body is anything else.
struct MaskedLanes {
  Type type = Type::Float64;
  Name reduced;  // the variable the body reduces into; empty where it reduces into none
  ReduceOp op = ReduceOp::Sum;
};
std::optional<MaskedLanes> maskedLanes(const StmtNode& loop);
// Does the loop run over one row of a compressed level: [positions[r], positions[r + 1])?
bool overRowPositions(const StmtNode& loop);
// Does the body declare a local variable (a scalar temporary private to one iteration)?
bool declaresLocals(const StmtNode& loop);
// The loop a vector unit could run for a statement one thread runs alone: following a chain of
// loops with one statement each and no locals down to a dense loop of independent iterations.
// Null when there is none.
const StmtNode* laneLoop(const StmtNode& s, const std::map<std::string, TensorStorage>& tensors);
// Does an access to a matrix name the stored entry at `row` and `coordinate` of a loop over its
// pattern: its first level (in storage order: i in csr, j in csc) at `row`, its second at
// `coordinate`? Only the indices' order is checked: that a sparse result shares the pattern the
// loop walks is the front end's rule (a result at a pattern is stored in the pattern's format).
bool atStoredEntry(const ExprNode& access, const std::string& row, const std::string& coordinate,
                   const std::map<std::string, TensorStorage>& tensors);
// The tensor whose values an access or a load names ("" for anything else: a variable, a load
// of positions or of a generated array).
std::string tensorOf(const ExprNode& e);
// The tensor an assignment writes ("" for a local variable).
std::string writtenTensor(const StmtNode& assign);
// Does the statement itself write memory: an assignment, or entry runs adding into a target?
bool writesMemory(const StmtNode& s);
// Does an assignment in `s` (or `s` itself) write `tensor`?
bool writesTensor(const Stmt& s, const std::string& tensor);
// A name for a tensor a pass adds (a copy of an input): `base`, or where `taken` says that name
// is in use, base1, base2, ...
std::string freeTensorName(const std::string& base, const std::function<bool(const std::string&)>& taken);

}  // namespace react::ir
