// react/formats: the two kinds of error every stage throws, and the answer to a legality question,
// which is neither (docs/reliability.md, "Errors").
#pragma once

#include <stdexcept>
#include <string>

namespace react {

// A user error: bad input (a file, an expression, an argument, a format react does not support).
// Its message names where the problem is (file:line, line:column, the argument); apps print
// what() and exit 1.
class UserError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An internal compiler error: react broke one of its own rules (a pass made an invalid tree, an
// impossible state). It is not a react::UserError, so `catch (const UserError&)` never takes react's bug
// for a user's mistake, and no legality check swallows it; apps report it as a bug (exit 70).
// what() is "internal compiler error: <message> (at <file>:<line> in <function>)"; a message of
// several lines (a tree after it) has the location at the end of its first line.
class InternalError : public std::logic_error {
 public:
  InternalError(const std::string& message, const char* file, int line, const char* function);
};

// Throws an InternalError located where it is called (the defaults are the caller's position, as
// std::source_location does in C++20; GCC and Clang).
[[noreturn]] void internalError(const std::string& message, const char* file = __builtin_FILE(),
                                int line = __builtin_LINE(), const char* function = __builtin_FUNCTION());

// An internal error unless `cond` holds; `message` is evaluated only when it does not.
#define REACT_ASSERT(cond, message)                    \
  do {                                                 \
    if (!(cond)) ::react::internalError(message);      \
  } while (false)

// The answer to a legality question ("can one loop nest iterate this statement?", "is this
// association supported?"): legal, or why not. Functions that decide legality return one, so a
// rejected candidate is a value and every exception is an error.
struct Legality {
  std::string why;  // empty: legal
  bool ok() const { return why.empty(); }
  static Legality illegal(std::string why);  // `why` must not be empty
};

}  // namespace react
