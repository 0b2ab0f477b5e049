// Shared by the test_indexnotation_*.cpp files.
#pragma once

#include "indexnotation/indexnotation.hpp"

#include <doctest/doctest.h>

#include <string>

namespace react::test {

// S, R: csr 4x5 with different patterns; B 4x3, C 3x5, D and E 4x5 dense; u(5), v(4) vectors,
// col 4x1, alpha a scalar.
inline Environment kernelEnv() {
  Environment env;
  env.declare("S", {4, 5}, Format::csr());
  env.declare("R", {4, 5}, Format::csr());
  env.declare("B", {4, 3}, Format::dense(2));
  env.declare("C", {3, 5}, Format::dense(2));
  env.declare("D", {4, 5}, Format::dense(2));
  env.declare("E", {4, 5}, Format::dense(2));
  env.declare("u", {5}, Format::dense(1));
  env.declare("v", {4}, Format::dense(1));
  env.declare("col", {4, 1}, Format::dense(2));
  env.declare("alpha", {}, Format::dense(0));
  return env;
}

// The message of the react::Error that `f` throws ("" if it throws none).
template <typename F>
std::string errorOf(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

inline std::string indexError(const std::string& text, const Environment& env = kernelEnv()) {
  return errorOf([&] { parseIndexNotation(text, env); });
}
inline std::string operatorError(const std::string& text, const Environment& env = kernelEnv()) {
  return errorOf([&] { parseOperatorForm(text, env); });
}

}  // namespace react::test
