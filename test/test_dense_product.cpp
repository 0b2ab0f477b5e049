// The OpenMP kernels' dense product (src/lower/emit/openmp_dense_product.h, the text the JIT puts
// into a kernel) compiled into the tests: the narrow loop and Eigen's path against a product in
// long double, on shapes that leave remainders in every block (rows, columns, the vector width).
// This binary is not built with -march=native, so the narrow loop runs its 32-byte form here; the
// JIT's kernels run the AVX-512 one (test_lower.cpp, "an OpenMP dense product").
#include "lower/emit/openmp_dense_product.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

template <class T>
std::vector<T> randomValues(int64_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<T> v(static_cast<size_t>(count));
  for (T& x : v) x = static_cast<T>(value(rng));
  return v;
}

// out (m x n, as it was before the call) against a b + (accumulate ? before : 0), entry by entry
// within the bound of a sum of k products and one more addition: (k + 1) u (sum |a||b| + |before|),
// u the unit roundoff of T.
template <class T>
void checkProduct(const std::vector<T>& a, const std::vector<T>& b, const std::vector<T>& before, const std::vector<T>& out,
                  int64_t m, int64_t n, int64_t k, bool accumulate, const std::string& what) {
  const long double u = std::numeric_limits<T>::epsilon() / 2;
  int64_t wrong = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      long double exact = accumulate ? before[i * n + j] : 0, magnitude = accumulate ? std::abs(before[i * n + j]) : 0;
      for (int64_t p = 0; p < k; ++p) {
        exact += static_cast<long double>(a[i * k + p]) * b[p * n + j];
        magnitude += std::abs(static_cast<long double>(a[i * k + p]) * b[p * n + j]);
      }
      if (std::abs(out[i * n + j] - exact) > (k + 1) * u * magnitude) ++wrong;
    }
  INFO(what);
  CHECK(wrong == 0);
}

template <class T>
void checkShapes(const char* type) {
  for (int64_t m : {1, 7, 61})
    for (int64_t n : {1, 5, 8, 9, 16, 17, 40, 64, 65})
      for (int64_t k : {0, 1, 3, 300})
        for (bool accumulate : {false, true}) {
          const unsigned seed = static_cast<unsigned>(m * 1000003 + n * 1009 + k * 7 + accumulate);
          const std::vector<T> a = randomValues<T>(m * k, seed), b = randomValues<T>(k * n, seed + 1);
          const std::vector<T> before = randomValues<T>(m * n, seed + 2);
          const std::string what = std::string(type) + " m=" + std::to_string(m) + " n=" + std::to_string(n) +
                                   " k=" + std::to_string(k) + (accumulate ? " adding" : " writing");
          std::vector<T> narrow = before, product = before;
          react_narrow_product(a.data(), b.data(), narrow.data(), m, n, k, accumulate);
          checkProduct(a, b, before, narrow, m, n, k, accumulate, "narrow loop, " + what);
          react_dense_product(a.data(), b.data(), product.data(), m, n, k, accumulate);
          checkProduct(a, b, before, product, m, n, k, accumulate, "dense product, " + what);
        }
}

}  // namespace

TEST_CASE("OpenMP dense product: the narrow loop and Eigen's path equal the product, every remainder") {
  REQUIRE(REACT_DENSE_PRODUCT == 1);  // Eigen found: the header defines the product
  checkShapes<double>("float64");
  checkShapes<float>("float32");
}

TEST_CASE("OpenMP dense product: the narrow loop takes b of more than one vector's columns and at most 64") {
  constexpr int64_t doubles = kReactVectorBytes / sizeof(double), floats = kReactVectorBytes / sizeof(float);
  CHECK_FALSE(react_product_is_narrow<double>(doubles));
  CHECK(react_product_is_narrow<double>(doubles + 1));
  CHECK(react_product_is_narrow<double>(64));
  CHECK_FALSE(react_product_is_narrow<double>(65));
  CHECK_FALSE(react_product_is_narrow<float>(floats));
  CHECK(react_product_is_narrow<float>(floats + 1));
  CHECK_FALSE(react_product_is_narrow<float>(65));
}
