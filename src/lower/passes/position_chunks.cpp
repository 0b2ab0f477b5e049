// A row loop's stored positions handed to the workers in chunks of equal length, whatever their
// rows: what dense-lanes and fibre-chunks share.
#include "lower/ir/analysis.hpp"
#include "lower/passes/passes.hpp"

namespace react::passes {

using namespace ir;
using ir::Expr;

std::shared_ptr<StmtNode> chunkPositions(const Stmt& row, const StmtNode& entries, std::vector<Stmt> entryBody,
                                         const Expr& count, const Expr& chunk) {
  const Name& positions = *rowPositions(entries, row->counter);
  const Name chunkCounter{Role::Generated, "react_chunk"}, firstName{Role::Generated, "react_first"},
      lastName{Role::Generated, "react_last"}, rowsBeginName{Role::Generated, "react_rows_begin"},
      rowsEndName{Role::Generated, "react_rows_end"};
  const Expr first = var(firstName, Type::Int64), last = var(lastName, Type::Int64);
  const Expr end = binary(BinOp::Add, first, chunk);
  auto rowOf = [&](std::vector<Expr> entryAndStart) {
    std::vector<Expr> args{var(positions, Type::Int64), row->hi};
    args.insert(args.end(), entryAndStart.begin(), entryAndStart.end());
    return call(Callee::RowOf, std::move(args), Type::Int64);
  };
  const Expr rowsBegin = var(rowsBeginName, Type::Int64);

  // The chunk's part of each row: the row's positions clipped to [first, last).
  std::vector<Stmt> rowBody;
  for (const Stmt& b : row->body) {
    if (b.get() != &entries) {
      rowBody.push_back(b);
      continue;
    }
    auto part = copy(b);
    part->lo = call(Callee::Max, {entries.lo, first}, Type::Int64);
    part->hi = call(Callee::Min, {entries.hi, last}, Type::Int64);
    part->schedule = Schedule::Serial;
    part->body = std::move(entryBody);
    rowBody.push_back(part);
  }
  // The rows the chunk's positions belong to (bound once: a loop's bound is evaluated every iteration).
  auto rows = copy(forLoop(row->counter, rowsBegin, var(rowsEndName, Type::Int64), std::move(rowBody)));
  rows->iterations = Iterations::Independent;

  const Expr lessOne = chunk->kind == ExprKind::IntImm ? intImm(chunk->intValue - 1) : binary(BinOp::Sub, chunk, intImm(1));
  const Expr chunkCount = binary(BinOp::Div, binary(BinOp::Add, count, lessOne), chunk);
  const Expr lastPosition = call(Callee::Select, {binary(BinOp::Lt, end, count), end, count}, Type::Int64);
  // The last row is searched from the first: a chunk's rows are few (but for empty ones).
  const Expr rowsEnd = binary(BinOp::Add, rowOf({binary(BinOp::Sub, last, intImm(1)), rowsBegin}), intImm(1));
  auto chunks = copy(forLoop(chunkCounter, intImm(0), chunkCount,
                             {let(firstName, Type::Int64, binary(BinOp::Mul, var(chunkCounter, Type::Int64), chunk)),
                              let(lastName, Type::Int64, lastPosition), let(rowsBeginName, Type::Int64, rowOf({first})),
                              let(rowsEndName, Type::Int64, rowsEnd), rows},
                             Schedule::Parallel));
  chunks->iterations = Iterations::Independent;
  chunks->privates = row->privates;
  return chunks;
}

}  // namespace react::passes
