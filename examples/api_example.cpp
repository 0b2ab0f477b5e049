// The README's C++ API example as a program: SDDMM A = S * (B @ C) on a small generated matrix,
// compiled under fusion mode auto and under react, each result checked against a direct loop.
// Exits non-zero on a mismatch.
#include "lower/lower.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <variant>

using namespace react;

namespace {

// The largest relative difference between A's stored values and S(i,j) * sum_k B(i,k) * C(k,j).
double maxError(const CsrMatrix& a, const CsrMatrix& s, const DenseTensor& b, const DenseTensor& c, int64_t kDim) {
  if (a.rowptr != s.rowptr || a.col != s.col) return INFINITY;  // A takes S's pattern
  double worst = 0;
  for (int64_t i = 0; i < s.rows; ++i)
    for (int64_t p = s.rowptr[i]; p < s.rowptr[i + 1]; ++p) {
      int64_t j = s.col[p];
      double dot = 0;
      for (int64_t k = 0; k < kDim; ++k) dot += b.data[i * kDim + k] * c.data[k * s.cols + j];
      double expected = s.val[p] * dot;
      worst = std::max(worst, std::abs(a.val[p] - expected) / std::max(1.0, std::abs(expected)));
    }
  return worst;
}

}  // namespace

int main() {
  try {
    const int64_t n = 300, m = 200, K = 64;
    CsrMatrix s = uniformRandom(n, m, 8, /*seed=*/1);
    DenseTensor b = randomDense({n, K}, 2), c = randomDense({K, m}, 3);

    IndexVar i("i"), j("j"), k("k");
    TensorVar A("A", {n, m}, Format::csr()), S("S", {n, m}, Format::csr()),
        B("B", {n, K}, Format::dense(2)), C("C", {K, m}, Format::dense(2));
    ProgramBuilder prog;
    prog.add(A(i, j) = S(i, j) * B(i, k) * C(k, j));
    Program p = prog.build();

    CompileOptions options;  // fusion unset: auto, decided on the statistics of the inputs given
    Kernel kernel = Kernel::compile(p, options, {{"S", s}});
    TensorValues out = kernel.run({{"S", s}, {"B", b}, {"C", c}});

    options.fusion = FusionMode::React;
    Kernel fixed = Kernel::compile(p, options);
    TensorValues outFixed = fixed.run({{"S", s}, {"B", b}, {"C", c}});

    double autoError = maxError(std::get<CsrMatrix>(out.at("A")), s, b, c, K);
    double reactError = maxError(std::get<CsrMatrix>(outFixed.at("A")), s, b, c, K);
    std::printf("A = S * (B @ C): S %lld x %lld with %lld stored entries, K = %lld\n", static_cast<long long>(n),
                static_cast<long long>(m), static_cast<long long>(s.nnz()), static_cast<long long>(K));
    std::printf("max relative error against a direct loop: auto %.3g, react %.3g\n", autoError, reactError);
    if (!(autoError < 1e-12 && reactError < 1e-12)) {
      std::printf("MISMATCH\n");
      return 1;
    }
    std::printf("OK\n");
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "api_example: %s\n", e.what());
    return 1;
  }
}
