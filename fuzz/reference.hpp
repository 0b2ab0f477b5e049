// An independent dense evaluator of react programs (docs/semantics.md) and the comparison every
// differential check uses.
#pragma once

#include "indexnotation/indexnotation.hpp"
#include "indextree/indextree.hpp"

#include <vector>

namespace react::fuzz {

// What one statement computed on the way: the largest |value| of any subexpression (reductions'
// own results excluded: an empty max is -inf by definition), and whether one was not finite.
struct ValueRange {
  double maxAbs = 0;
  bool nonFinite = false;
};

// Evaluates statements (which may contain Reduce nodes) with dense loops over every index point
// and stored-entry semantics for csr operands, independent of splitting, trees, fusion and code
// generation. Output formats (dense / csr with pattern) come from `compiled` (the program the
// compiler produced), so results can be compared entry by entry. `inputs` may also hold values
// of earlier statements' results. Returns the inputs and every statement's result; `ranges`, if
// given, receives one ValueRange per statement; `float32Bounds`, if given, every statement's result
// with, in place of each value, how far its float32 evaluation may lie from it
// (float32_bound.hpp; inputs count as exact: give them as float32 values).
// A pattern's data as kernels and the interpreter iterate it, where results at it are stored: a
// coo tensor in its unique form (Format::iterated), any other as it is.
TensorData iteratedForm(const TensorData& pattern);

TensorValues referenceEvaluate(const std::vector<Statement>& statements, const Program& compiled,
                               const TensorValues& inputs, std::vector<ValueRange>* ranges = nullptr,
                               TensorValues* float32Bounds = nullptr);

// Largest |a-b| over the entries relative to the largest |b| (absolute when b is all zero); NaN
// and inf must match exactly. Returns +inf when the structures (shape, csr pattern) differ.
double relativeError(const TensorData& a, const TensorData& b);

// The tolerance of every differential check.
constexpr double kTolerance = 1e-12;

}  // namespace react::fuzz
