// Running error bounds of float32 evaluation: how far a float32 result may lie from the float64
// value of the same program on the same (float32) inputs, so that the differential checks can
// compare the two types with a tolerance derived from float32's epsilon, the length of every
// reduction and the depth of every expression, entry by entry.
//
// First-order running error analysis (Wilkinson): beside every value v the reference evaluator
// carries a bound e such that the float32 evaluation of the same expression lies within e of v.
// Every float32 operation rounds once, by at most u = 2^-24 of its result (exp, log and sqrt by
// 2 ulps: CUDA's expf and logf; glibc's are within 1); an operand's error propagates through
// the operation by its derivative, taken at its worst over the operand's interval; a sum of n
// terms adds n roundings of at most u * sum(|terms|) each, whatever order a kernel adds them in.
// A comparison whose operands lie closer than their errors may flip (a bound of 1), a where()
// whose condition may flip may take either branch, and a division by, or log or sqrt of, an
// interval that reaches 0 is unbounded (+inf: no check). Every rounding term also counts the
// float64 reference's own rounding (2^-53), so the bound covers the reference's error too.
#pragma once

#include "indexnotation/indexnotation.hpp"

#include <vector>

namespace react::fuzz {

constexpr double kFloat32Rounding = 0x1p-24 + 0x1p-53;  // one basic operation
constexpr double kFloat32Libm = 0x1p-22 + 0x1p-53;      // exp, log, sqrt: 2 ulps

// The bound of a literal: its distance to the nearest float32.
double literalBound(double v);
// The bound of `op` applied to operands `a` with bounds `e`, whose float64 result is `r`.
double operationBound(Op op, const std::vector<double>& a, const std::vector<double>& e, double r);

// The bound of a reduction (sum or max) of terms with their bounds.
class ReductionBound {
 public:
  explicit ReductionBound(ReduceOp op) : op_(op) {}
  void add(double term, double bound);
  double bound(double result) const;

 private:
  ReduceOp op_;
  double propagated_ = 0, magnitude_ = 0;  // sum: the terms' bounds and |terms|; max: the largest bound
  int64_t terms_ = 0;
};

}  // namespace react::fuzz
