// The agreement check every variant passes before it is timed.
#include "bench/bench.hpp"

#include <algorithm>
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

// float32 results against the float64 reference. Every float32 operation rounds its result by a
// relative error of at most u = 2^-24 (the float64 reference by 2^-53, counted in u as in
// fuzz/float32_bound.hpp); rounding an input to float32 is one such rounding, and glibc's vector
// expf (libmvec, src/lower/emit/openmp_prelude.h) is within 4 ulps, 8 roundings. A result entry
// that passes through at most m roundings along any path lies within gamma_m = m u / (1 - m u)
// of the sum of |terms| it is computed from (Higham, "Accuracy and Stability of Numerical
// Algorithms", 2nd ed., Lemma 3.1 and eq. 3.5): a sum of n terms in any order (lanes, threads, a
// fused or an unfused loop) adds at most n - 1 roundings to each term. Per kernel, n being the
// longest reduction of one entry on this S and f the factors of each term:
//   sddmm, spmm_mm, mttkrp, ttm  products of f inputs (3, 3, 3, 2): f roundings of the inputs,
//                                f - 1 products, n - 1 additions: m = n + 2f - 2, with n = K,
//                                NH x the longest row, the most entries of a slice, the longest
//                                fibre;
//   norm_row                     S(i,j) / sum_k S(i,k) over a row of n entries: the numerator's
//                                input (1), the sum's n inputs and n - 1 additions (n), the
//                                division (1); a quotient adds the two (Higham, Lemma 3.3):
//                                m = n + 2;
//   softmax                      exp(S) with S in [0.5, 1.5) (kernelInputs): S's rounding moves
//                                exp by at most 1.5u (2 roundings), expf 8: 10 per exp; the
//                                numerator's 10, the sum's 10 + n - 1, the division 1: m = n + 20.
// The sum of |terms| of every entry is the kernel's value on |S| (`magnitude`: the dense inputs
// are in [0, 1), norm_row's and softmax's S positive), so max|got - want| <= gamma_m max|magnitude|,
// and the tolerance of the relative error compareResults measures, max|got - want| / max|want|,
// is gamma_m max|magnitude| / max|want|.
namespace {

int64_t longestRow(const CsrMatrix& s) {
  int64_t longest = 0;
  for (int64_t r = 0; r < s.rows; ++r) longest = std::max(longest, s.rowptr[r + 1] - s.rowptr[r]);
  return longest;
}

int64_t largestSlice(const SparseTensor& csf) {
  int64_t largest = 0;
  const std::vector<int64_t>&fibres = csf.levels[1].pos, &entries = csf.levels[2].pos;
  for (size_t slice = 0; slice + 1 < fibres.size(); ++slice)
    largest = std::max(largest, entries[fibres[slice + 1]] - entries[fibres[slice]]);
  return largest;
}

double largestMagnitude(const TensorData& t) {
  double largest = 0;
  for (double v : valuesOf(t))
    if (std::isfinite(v)) largest = std::max(largest, std::abs(v));
  return largest;
}

}  // namespace

int64_t float32Roundings(const BenchKernel& k, const TensorData& s) {
  if (std::string why = inputMismatch(k, s); !why.empty()) throw UserError(why);
  if (k.name == "sddmm") return k.k + 2 * 3 - 2;
  if (k.name == "mttkrp") return largestSlice(std::get<SparseTensor>(s)) + 2 * 3 - 2;
  if (k.name == "ttm") return fibreStats(std::get<SparseTensor>(s)).longestFibre + 2 * 2 - 2;
  const int64_t row = longestRow(std::get<CsrMatrix>(s));
  if (k.name == "spmm_mm") return k.nh * row + 2 * 3 - 2;
  if (k.name == "norm_row") return row + 2;
  return row + 20;  // softmax
}

double float32Tolerance(const BenchKernel& k, const TensorData& s, const TensorData& want, const TensorData& magnitude) {
  constexpr double u = 0x1p-24 + 0x1p-53;
  const double m = static_cast<double>(float32Roundings(k, s));
  if (m * u >= 1) return INFINITY;  // no bound: a reduction longer than 2^24 terms
  const double gamma = m * u / (1 - m * u), scale = largestMagnitude(want);
  // compareResults measures the absolute error where every reference value is 0.
  return scale > 0 ? gamma * largestMagnitude(magnitude) / scale : gamma * largestMagnitude(magnitude);
}

}  // namespace react::bench
