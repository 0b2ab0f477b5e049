// How names and user text are spelt in generated code and in the IR's text form.
#pragma once

#include "lower/ir/ir.hpp"

namespace react::ir {

// The one way a Name becomes an identifier: the role's prefix (letters, a level's digits, and one
// '_') and the name: "ptr1_S" for the positions of S's level 1. User names and react's own
// identifiers thus live in disjoint spaces: every Generated name (react_*, lane_acc, acc,
// hoisted0, ...) and every macro of the headers kernels include lacks these prefixes, and the
// text before the first '_' says the role and the level, so no two names give one identifier.
std::string mangle(const Name& n);
// User text as a C++ string literal, and as text that cannot end a // comment.
std::string stringLiteral(const std::string& text);
std::string commentText(const std::string& text);
// A value of float type `t` as C++ source of that type that reads back as the same value: v
// rounded to t, a float32 one with the suffix 'f' so that arithmetic with it stays float ("1.0",
// "0.100000001f", "(-HUGE_VAL)", "HUGE_VALF", "static_cast<double>(NAN)", "NAN").
std::string literalText(double v, Type t);

// An offset's printed text as a subscript: without the parentheses of its outermost arithmetic.
std::string subscript(const Expr& offset, const std::string& text);

}  // namespace react::ir
