// The agreement check every variant passes before it is timed.
#include "bench/bench.hpp"

#include <cmath>
#include <sstream>

namespace react::bench {

namespace {

// "csr 4x5 with 7 stored entries", "dense 4 5", "csf 3x4x5 with 9 stored entries".
std::string described(const TensorData& t) {
  std::ostringstream out;
  if (std::holds_alternative<DenseTensor>(t)) {
    out << "dense";
    for (int64_t d : shapeOf(t)) out << " " << d;
    return out.str();
  }
  out << formatOf(t).str() << " ";
  const std::vector<int64_t> shape = shapeOf(t);
  for (size_t d = 0; d < shape.size(); ++d) out << (d ? "x" : "") << shape[d];
  out << " with " << valuesOf(t).size() << " stored entries";
  return out.str();
}

Agreement mismatch(const std::string& detail) {
  Agreement a;
  a.ok = false;
  a.relativeError = INFINITY;
  a.detail = detail;
  return a;
}

}  // namespace

Agreement compareResults(const TensorData& got, const TensorData& want, double tolerance) {
  if (!sameStructure(got, want))
    return mismatch("structure differs: " + described(got) + " vs " + described(want) + " (or another pattern)");
  const std::vector<double>* g = &valuesOf(got);
  const std::vector<double>* w = &valuesOf(want);
  double scale = 0, worst = 0;
  size_t at = 0;
  for (size_t k = 0; k < g->size(); ++k) {
    double x = (*g)[k], y = (*w)[k];
    if (std::isfinite(x) && std::isfinite(y)) {
      scale = std::max(scale, std::abs(y));
      if (std::abs(x - y) > worst) worst = std::abs(x - y), at = k;
    } else if (!(x == y || (std::isnan(x) && std::isnan(y)))) {
      std::ostringstream out;
      out << "value " << k << " is " << x << ", expected " << y;
      return mismatch(out.str());
    }
  }
  Agreement a;
  a.relativeError = scale > 0 ? worst / scale : worst;
  a.ok = a.relativeError <= tolerance;
  std::ostringstream out;
  out.precision(17);
  out << "largest difference at value " << at << ": " << (g->empty() ? 0.0 : (*g)[at]) << ", expected "
      << (w->empty() ? 0.0 : (*w)[at]) << " (relative error " << a.relativeError << ", tolerance " << tolerance << ")";
  a.detail = out.str();
  return a;
}

}  // namespace react::bench
