// The floating-point order (docs/design.md, "Floating point"). Written: a kernel's results are the
// interpreter's, bit for bit, on every emitter and fusion mode. Reassociated (the default): each
// result lies within the error bound of its reduction's length, whatever order the lanes and
// threads summed in.
#include "fuzz/differential.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <cstring>

using namespace react;

namespace {

// Equal bit for bit (so NaNs of one payload, and -0 apart from 0); else the first difference.
std::string firstDifference(const TensorValues& got, const TensorValues& want) {
  for (const auto& [name, w] : want) {
    const std::vector<double>& a = valuesOf(got.at(name));
    const std::vector<double>& b = valuesOf(w);
    if (a.size() != b.size()) return name + ": " + std::to_string(a.size()) + " values, not " + std::to_string(b.size());
    for (size_t k = 0; k < a.size(); ++k)
      if (std::memcmp(&a[k], &b[k], sizeof(double)) != 0)
        return name + "[" + std::to_string(k) + "] = " + std::to_string(a[k]) + ", the interpreter's " + std::to_string(b[k]);
  }
  return "";
}

// gamma_n (Higham): a sum or dot product of n terms, in any order, with every product rounded,
// lies within gamma_n * sum |terms| of the exact value.
double gamma(int64_t n, double unitRoundoff) { return n * unitRoundoff / (1 - n * unitRoundoff); }

}  // namespace

TEST_CASE("float order written: OpenMP and Kokkos kernels in every fusion mode are the interpreter's results bit for bit") {
  const uint64_t programs = static_cast<uint64_t>(test::scaled(40));
  const std::vector<FusionMode> modes{FusionMode::None, FusionMode::Maximal, FusionMode::React};
  std::vector<IndexTree> trees;
  std::vector<const fuzz::RandomProgram*> inputsOf;
  std::vector<fuzz::RandomProgram> drawn;
  drawn.reserve(programs);
  for (uint64_t seed = 1; seed <= programs; ++seed) {
    drawn.push_back(fuzz::randomFuzzProgram(9000 + seed, 6));
    std::optional<Program> compiled = fuzz::compileProgram(drawn.back());
    if (!compiled) continue;
    for (FusionMode mode : modes) {
      trees.push_back(fuse(*compiled, mode));
      inputsOf.push_back(&drawn.back());
    }
  }
  REQUIRE(trees.size() >= programs * 2);
  for (Target target : {Target::OpenMP, Target::Kokkos}) {
    CompileOptions options;
    options.target = target;
    options.jit = test::testCache();
    options.emit.floatOrder = FloatOrder::Written;
    std::vector<Kernel> kernels = Kernel::compileTrees(trees, options);
    for (size_t n = 0; n < trees.size(); ++n) {
      const TensorValues& inputs = inputsOf[n]->inputs;
      INFO(toString(target) << ", program:\n" << inputsOf[n]->text << "tree:\n" << printTree(trees[n]));
      CHECK(firstDifference(kernels[n].run(inputs), interpret(trees[n], inputs)) == "");
    }
  }
}

TEST_CASE("float order reassociate: SDDMM within gamma_n of exact, n the reduction's length") {
  // Values of both signs, so that sums cancel and the bound is not a relative error of 1 ulp.
  const int64_t rows = 64, cols = 48, k = 1000;
  CsrMatrix s = fuzz::randomCsr(rows, cols, 0.5, 11, false);
  DenseTensor b = fuzz::randomPositive({rows, k}, 12), c = fuzz::randomPositive({k, cols}, 13);
  for (double& x : b.data) x -= 1.0;
  for (double& x : c.data) x -= 1.0;
  Environment env;
  env.declare("S", {rows, cols}, Format::csr());
  env.declare("B", {rows, k}, Format::dense(2));
  env.declare("C", {k, cols}, Format::dense(2));
  Program sddmm = parseProgram("A = S * (B @ C)", env);
  const double u = DBL_EPSILON / 2;

  for (Target target : {Target::OpenMP, Target::Kokkos}) {
    CompileOptions options;
    options.target = target;
    options.fusion = FusionMode::React;
    options.jit = test::testCache();
    const TensorValues inputs{{"S", s}, {"B", b}, {"C", c}};
    const CsrMatrix got = std::get<CsrMatrix>(Kernel::compile(sddmm, options).run(inputs).at("A"));
    options.emit.floatOrder = FloatOrder::Written;
    const CsrMatrix written = std::get<CsrMatrix>(Kernel::compile(sddmm, options).run(inputs).at("A"));
    int differs = 0;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t p = s.rowptr[i]; p < s.rowptr[i + 1]; ++p) {
        const int64_t j = s.col[p];
        long double exact = 0, magnitude = 0;  // long double: its own error is 2^-11 of the bound's
        for (int64_t q = 0; q < k; ++q) {
          const long double term = static_cast<long double>(b.data[i * k + q]) * c.data[q * cols + j];
          exact += term;
          magnitude += std::fabs(term);
        }
        exact *= s.val[p];
        magnitude *= std::fabs(s.val[p]);
        // k products and k - 1 adds, then the product with S: gamma_{k+1}; plus the reference's own.
        const double bound = static_cast<double>(magnitude) * (gamma(k + 1, u) + gamma(k + 1, LDBL_EPSILON / 2));
        INFO(toString(target) << " A(" << i << "," << j << ") = " << got.val[p] << ", exact " << static_cast<double>(exact));
        CHECK(std::fabs(static_cast<double>(got.val[p] - exact)) <= bound);
        CHECK(std::fabs(static_cast<double>(written.val[p] - exact)) <= bound);
        differs += got.val[p] != written.val[p];
      }
    MESSAGE(toString(target) << ": " << differs << " of " << s.nnz() << " entries differ from the written order's");
    // On OpenMP the dot products run on vector lanes: the reassociated order is not the written one.
    if (target == Target::OpenMP) CHECK(differs > 0);
  }
}

TEST_CASE("float order: reassociated row normalisation (sum in a local, multiplication by the reciprocal) within its derived bound") {
  const int64_t rows = 32, cols = 2000;
  CsrMatrix s = fuzz::randomCsr(rows, cols, 0.5, 21, false);  // positive values: the sum's magnitude is the sum
  Environment env;
  env.declare("S", {rows, cols}, Format::csr());
  Program norm = parseProgram("A = S / sum(S, axis=1)", env);
  const double u = DBL_EPSILON / 2;
  CompileOptions options;
  options.fusion = FusionMode::React;
  options.jit = test::testCache();
  const TensorValues inputs{{"S", s}};
  const CsrMatrix got = std::get<CsrMatrix>(Kernel::compile(norm, options).run(inputs).at("A"));
  options.emit.floatOrder = FloatOrder::Written;
  const CsrMatrix written = std::get<CsrMatrix>(Kernel::compile(norm, options).run(inputs).at("A"));
  int differs = 0;
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t n = s.rowptr[i + 1] - s.rowptr[i];
    long double sum = 0;
    for (int64_t p = s.rowptr[i]; p < s.rowptr[i + 1]; ++p) sum += s.val[p];
    for (int64_t p = s.rowptr[i]; p < s.rowptr[i + 1]; ++p) {
      const long double exact = s.val[p] / sum;
      // n - 1 adds into the sum, its reciprocal and one product (x / d alone would be one rounding
      // fewer): gamma_{n+1}, plus the reference's own.
      const double bound = static_cast<double>(exact) * (gamma(n + 1, u) + gamma(n + 1, LDBL_EPSILON / 2));
      INFO("A(" << i << ", " << s.col[p] << ") = " << got.val[p] << ", exact " << static_cast<double>(exact));
      CHECK(std::fabs(static_cast<double>(got.val[p] - exact)) <= bound);
      differs += got.val[p] != written.val[p];
    }
  }
  MESSAGE(differs << " of " << s.nnz() << " entries differ from the written order's");
  CHECK(differs > 0);
}
