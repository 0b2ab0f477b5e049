// The agreement check every variant passes before it is timed.
#include "bench/bench.hpp"

#include <cmath>
#include <sstream>

namespace react::bench {

namespace {

std::string shapeOf(const MarketData& m) {
  std::ostringstream out;
  if (const CsrMatrix* c = std::get_if<CsrMatrix>(&m)) {
    out << "csr " << c->rows << "x" << c->cols << " with " << c->nnz() << " stored entries";
  } else {
    out << "dense";
    for (int64_t d : std::get<DenseTensor>(m).shape) out << " " << d;
  }
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

Agreement compareResults(const MarketData& got, const MarketData& want, double tolerance) {
  const std::vector<double>* g;
  const std::vector<double>* w;
  if (const CsrMatrix* cg = std::get_if<CsrMatrix>(&got)) {
    const CsrMatrix* cw = std::get_if<CsrMatrix>(&want);
    if (!cw || cg->rows != cw->rows || cg->cols != cw->cols || cg->rowptr != cw->rowptr || cg->col != cw->col)
      return mismatch("structure differs: " + shapeOf(got) + " vs " + shapeOf(want) + " (or another pattern)");
    g = &cg->val;
    w = &cw->val;
  } else {
    const DenseTensor* dw = std::get_if<DenseTensor>(&want);
    if (!dw || dw->shape != std::get<DenseTensor>(got).shape)
      return mismatch("structure differs: " + shapeOf(got) + " vs " + shapeOf(want));
    g = &std::get<DenseTensor>(got).data;
    w = &dw->data;
  }
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
