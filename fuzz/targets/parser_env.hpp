// What the two parser targets share: the declarations a fuzzed program may use, and the oracle
// that whatever parses prints as index notation that parses back to the same program.
#pragma once

#include "indexnotation/indexnotation.hpp"

#include <cstdio>
#include <cstdlib>

namespace react::fuzz {

// S, R: csr 4x5 with different patterns; B 4x3, C 3x5, D and E 4x5 dense; u(5), v(4) vectors,
// col 4x1, alpha a scalar (also the environment of the index-notation unit tests).
inline const Environment& parserEnv() {
  static const Environment env = [] {
    Environment e;
    e.declare("S", {4, 5}, Format::csr());
    e.declare("R", {4, 5}, Format::csr());
    e.declare("B", {4, 3}, Format::dense(2));
    e.declare("C", {3, 5}, Format::dense(2));
    e.declare("D", {4, 5}, Format::dense(2));
    e.declare("E", {4, 5}, Format::dense(2));
    e.declare("u", {5}, Format::dense(1));
    e.declare("v", {4}, Format::dense(1));
    e.declare("col", {4, 1}, Format::dense(2));
    e.declare("alpha", {}, Format::dense(0));
    return e;
  }();
  return env;
}

// Runs `parse` on the text; react::UserError is an expected outcome. A program that parses must read
// back from its printed form (docs/semantics.md, Text); a difference aborts (a finding).
template <typename Parse>
void parseAndRoundTrip(const std::string& text, Parse parse) {
  Program p;
  try {
    p = parse(text, parserEnv());
  } catch (const UserError&) {
    return;
  }
  Environment decls;  // everything, so outputs declared in the environment keep their format
  decls.tensors = p.tensors;
  Program q;
  try {
    q = parseIndexNotation(p.str(), decls);
  } catch (const UserError& e) {
    std::fprintf(stderr, "printed program does not parse back: %s\n%s\n", e.what(), p.str().c_str());
    std::abort();
  }
  if (!(q == p)) {
    std::fprintf(stderr, "round trip changed the program:\n%s\n->\n%s\n", p.str().c_str(), q.str().c_str());
    std::abort();
  }
}

}  // namespace react::fuzz
