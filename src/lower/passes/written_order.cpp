// FloatOrder::Written: a nest's parallel reduction runs its iterations in order, on one thread:
//   for i in [lo, hi) parallel-reduce into acc { body }
// becomes
//   for react_once in [0, 1) parallel-reduce into acc { for i in [lo, hi) serial { body } }
//
// Why: threads (and a Kokkos parallel_reduce) each sum a share of the rows and combine their
// partial sums, which rounds otherwise than the one sum the loops write. One iteration keeps the
// reduction's form (the accumulator a Kokkos kernel can write), and its combine adds the sum to
// the identity, which changes nothing. The other passes keep the order themselves where they are
// told to (lane mapping, vectorization).
#include "lower/ir/mutator.hpp"
#include "lower/passes/passes.hpp"

namespace react::passes {

using namespace ir;

LoopProgram runReductionsInOrder(const LoopProgram& p) {
  struct InOrder : Mutator {
    Stmt visit(const Stmt& s) override {
      if (s->kind != StmtKind::For || s->schedule != Schedule::ParallelReduce) return mutateChildren(s);
      auto serial = copy(s);
      serial->schedule = Schedule::Serial;
      auto once = copy(s);
      once->counter = Name{Role::Generated, "react_once"};
      once->lo = intImm(0);
      once->hi = intImm(1);
      once->body = {serial};
      return once;
    }
  } inOrder;
  return inOrder.mutate(p);
}

}  // namespace react::passes
