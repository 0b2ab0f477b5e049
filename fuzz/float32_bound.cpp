// Running error bounds of float32 evaluation (float32_bound.hpp).
#include "fuzz/float32_bound.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace react::fuzz {

namespace {

constexpr double kUnbounded = std::numeric_limits<double>::infinity();

// A result r whose exact operands give it within `propagated`, rounded once by at most `unit` of
// its magnitude; beyond float32's range the float32 value may be inf.
double rounded(double r, double propagated, double unit) {
  if (!std::isfinite(r) || !std::isfinite(propagated)) return kUnbounded;
  const double bound = propagated + unit * (std::abs(r) + propagated);
  return std::abs(r) + bound > FLT_MAX ? kUnbounded : bound;
}

// Can operands a and b, each within its bound, compare differently than they do exactly?
bool mayFlip(double a, double b, double ea, double eb) { return ea + eb > 0 && !(std::abs(a - b) > ea + eb); }

}  // namespace

double literalBound(double v) {
  return std::abs(v - roundTo(ValueType::Float32, v)) + 0x1p-53 * std::abs(v);
}

double operationBound(Op op, const std::vector<double>& a, const std::vector<double>& e, double r) {
  switch (op) {
    case Op::Neg: return e[0];
    case Op::Exp: return rounded(r, r * std::expm1(e[0]), kFloat32Libm);
    case Op::Sqrt:
      if (a[0] - e[0] < 0) return e[0] == 0 && a[0] == 0 ? 0 : kUnbounded;
      return rounded(r, r - std::sqrt(a[0] - e[0]), kFloat32Libm);
    case Op::Log:
      if (a[0] - e[0] <= 0) return kUnbounded;
      return rounded(r, r - std::log(a[0] - e[0]), kFloat32Libm);
    case Op::Add:
    case Op::Sub: return rounded(r, e[0] + e[1], kFloat32Rounding);
    case Op::Mul: return rounded(r, std::abs(a[0]) * e[1] + std::abs(a[1]) * e[0] + e[0] * e[1], kFloat32Rounding);
    case Op::Div: {
      const double below = std::abs(a[1]) - e[1];  // the smallest |denominator|
      if (below <= 0) return kUnbounded;
      return rounded(r, (std::abs(a[0]) * e[1] + std::abs(a[1]) * e[0]) / (std::abs(a[1]) * below), kFloat32Rounding);
    }
    case Op::Max:
    case Op::Min: return std::max(e[0], e[1]);  // exact, and moves no further than its operands
    case Op::Lt:
    case Op::Le:
    case Op::Gt:
    case Op::Ge:
    case Op::Eq:
    case Op::Ne: return mayFlip(a[0], a[1], e[0], e[1]) ? 1.0 : 0.0;
    case Op::Where: {
      const bool mayFlipBranch = e[0] > 0 && !(std::abs(a[0]) > e[0]);
      const double chosen = a[0] != 0.0 ? e[1] : e[2];
      return mayFlipBranch ? std::max(e[1], e[2]) + std::abs(a[1] - a[2]) : chosen;
    }
    default: throw std::logic_error(std::string("float32 bound: unexpected operator ") + opName(op));
  }
}

void ReductionBound::add(double term, double bound) {
  ++terms_;
  if (op_ == ReduceOp::Max) {
    propagated_ = std::max(propagated_, bound);
    return;
  }
  propagated_ += bound;
  magnitude_ += std::abs(term) + bound;
}

double ReductionBound::bound(double result) const {
  if (op_ == ReduceOp::Max) return propagated_;  // the maximum moves no further than its terms
  if (!std::isfinite(result) || !std::isfinite(magnitude_)) return kUnbounded;
  const double bound = propagated_ + static_cast<double>(terms_) * kFloat32Rounding * magnitude_;
  return std::abs(result) + bound > FLT_MAX ? kUnbounded : bound;
}

}  // namespace react::fuzz
