// Shared by the test_indexnotation_*.cpp files.
#pragma once

#include "fuzz/targets/parser_env.hpp"
#include "indexnotation/indexnotation.hpp"

#include <doctest/doctest.h>

#include <string>

namespace react::test {

// S, R: csr 4x5 with different patterns; B 4x3, C 3x5, D and E 4x5 dense; u(5), v(4) vectors,
// col 4x1, alpha a scalar (also the environment of the parser fuzz targets).
inline Environment kernelEnv() { return fuzz::parserEnv(); }

// The message of the react::UserError that `f` throws ("" if it throws none).
template <typename F>
std::string errorOf(F&& f) {
  try {
    f();
  } catch (const UserError& e) {
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
