// The OpenMP kernels' dense product (src/lower/emit/openmp_dense_product.h, the text the JIT puts
// into a kernel): the narrow loop and react_dense_product against a product in long double, on
// shapes that leave remainders in every block (rows, columns, the vector width). Twice: compiled
// into this binary, which is not built with -march=native (the form with the constants for
// machines without AVX-512, in SSE2 here), and compiled by the JIT as the kernels are (-march=native:
// the AVX-512 form where the machine has it).
#include "lower/emit/openmp_dense_product.h"
#include "lower/lower.hpp"
#include "support.hpp"

#include <doctest/doctest.h>
#include <dlfcn.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace react;

namespace {

template <class T>
using Product = void (*)(const T*, const T*, T*, int64_t, int64_t, int64_t, int);

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
// u the unit roundoff of T (first order in k u, which the shapes here keep below 0.01).
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
void checkShapes(const std::string& form, Product<T> narrow, Product<T> product) {
  const char* type = sizeof(T) == 8 ? "float64" : "float32";
  for (int64_t m : {1, 7, 8, 16, 61})
    for (int64_t n : {1, 5, 8, 9, 16, 17, 40, 64, 65})
      for (int64_t k : {0, 1, 3, 300})
        for (bool accumulate : {false, true}) {
          const unsigned seed = static_cast<unsigned>(m * 1000003 + n * 1009 + k * 7 + accumulate);
          const std::vector<T> a = randomValues<T>(m * k, seed), b = randomValues<T>(k * n, seed + 1);
          const std::vector<T> before = randomValues<T>(m * n, seed + 2);
          const std::string what = form + ", " + type + " m=" + std::to_string(m) + " n=" + std::to_string(n) +
                                   " k=" + std::to_string(k) + (accumulate ? " adding" : " writing");
          std::vector<T> narrowOut = before, productOut = before;
          narrow(a.data(), b.data(), narrowOut.data(), m, n, k, accumulate);
          checkProduct(a, b, before, narrowOut, m, n, k, accumulate, "narrow loop, " + what);
          product(a.data(), b.data(), productOut.data(), m, n, k, accumulate);
          checkProduct(a, b, before, productOut, m, n, k, accumulate, "dense product, " + what);
        }
}

template <class T>
void narrowHere(const T* a, const T* b, T* out, int64_t m, int64_t n, int64_t k, int accumulate) {
  react_narrow_product(a, b, out, m, n, k, accumulate != 0);
}
template <class T>
void productHere(const T* a, const T* b, T* out, int64_t m, int64_t n, int64_t k, int accumulate) {
  react_dense_product(a, b, out, m, n, k, accumulate != 0);
}

std::string fileText(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

template <class F>
F symbol(const CompiledLibrary& library, const char* name) {
  void* address = dlsym(library.handle, name);
  REQUIRE(address != nullptr);
  return reinterpret_cast<F>(address);
}

}  // namespace

TEST_CASE("OpenMP dense product: the narrow loop and Eigen's path equal the product, every remainder, in this binary") {
  REQUIRE(REACT_DENSE_PRODUCT == 1);  // Eigen found: the header defines the product
  checkShapes<double>("in this binary", narrowHere<double>, productHere<double>);
  checkShapes<float>("in this binary", narrowHere<float>, productHere<float>);
}

TEST_CASE("OpenMP dense product: the narrow loop and Eigen's path equal the product, every remainder, as the JIT compiles them") {
  std::string source = "#include <cstdint>\n" + fileText(std::string(REACT_SOURCE_DIR) + "/src/lower/emit/openmp_dense_product.h");
  for (const char* type : {"double", "float"}) {
    const std::string t = type, suffix = t == "double" ? "64" : "32";
    const std::string parameters = "(const " + t + "* a, const " + t + "* b, " + t + "* out, int64_t m, int64_t n, int64_t k, int add)";
    source += "extern \"C\" void react_test_narrow" + suffix + parameters + " { react_narrow_product(a, b, out, m, n, k, add != 0); }\n";
    source += "extern \"C\" void react_test_product" + suffix + parameters + " { react_dense_product(a, b, out, m, n, k, add != 0); }\n";
  }
  source += "extern \"C\" int react_test_narrow_rule(int64_t n) { return react_product_is_narrow<double>(n); }\n";
  source += "extern \"C\" void react_kernel() {}\n";
  const CompiledLibrary library = jitCompile(source, Target::OpenMP, test::testCache());
  checkShapes<double>("JIT", symbol<Product<double>>(library, "react_test_narrow64"), symbol<Product<double>>(library, "react_test_product64"));
  checkShapes<float>("JIT", symbol<Product<float>>(library, "react_test_narrow32"), symbol<Product<float>>(library, "react_test_product32"));
  // Where the JIT's compiler targets AVX2 or AVX-512, float64 with 16 columns takes the loop.
  auto rule = symbol<int (*)(int64_t)>(library, "react_test_narrow_rule");
  CHECK(rule(65) == 0);
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) CHECK(rule(16) == 1);
#endif
}

TEST_CASE("OpenMP dense product: the narrow loop takes b of more than one vector's columns and at most 64, where measured") {
  constexpr int64_t doubles = kReactVectorBytes / sizeof(double), floats = kReactVectorBytes / sizeof(float);
  CHECK_FALSE(react_product_is_narrow<double>(doubles));
  CHECK(react_product_is_narrow<double>(doubles + 1) == kReactNarrowMeasured);
  CHECK(react_product_is_narrow<double>(64) == kReactNarrowMeasured);
  CHECK_FALSE(react_product_is_narrow<double>(65));
  CHECK_FALSE(react_product_is_narrow<float>(floats));
  CHECK(react_product_is_narrow<float>(floats + 1) == kReactNarrowMeasured);
  CHECK_FALSE(react_product_is_narrow<float>(65));
}
