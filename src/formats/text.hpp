// react/formats internal: what the text readers and writers (Matrix Market, FROSTT) share: fields
// and numbers on a line, errors "name:line: expected X, got Y", whole-file reads, line-aligned
// chunks for parsing in parallel, and number formatting. Not part of the public API.
#pragma once

#include "formats/formats.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace react::detail {

// A text being parsed; `name` (a file name) starts every error.
struct Source {
  const char* begin;
  const char* end;
  const std::string& name;
};

inline bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
inline bool atFieldEnd(const char* p, const char* e) { return p == e || isBlank(*p) || *p == '\n'; }
inline const char* skipBlanks(const char* p, const char* e) {
  while (p < e && isBlank(*p)) ++p;
  return p;
}
inline const char* nextLine(const char* p, const char* e) {
  const void* nl = std::memchr(p, '\n', static_cast<size_t>(e - p));
  return nl ? static_cast<const char*>(nl) + 1 : e;
}

// What is at `at`, for "got ...": the field there (its first 40 characters), or end of line / end
// of file.
std::string describe(const char* at, const char* e);
// The 1-based line of `at`.
int64_t lineOf(const Source& src, const char* at);
// Throws react::UserError "name:line: expected <expected>, got <got>" (got: describe(at)).
[[noreturn]] void fail(const Source& src, const char* at, const std::string& expected, const std::string& got);
[[noreturn]] void fail(const Source& src, const char* at, const std::string& expected);

// An unsigned decimal integer ending at a field boundary; advances p. False if it is absent,
// malformed or >= 1e18 (p is then anywhere in the field).
bool parseUnsigned(const char*& p, const char* e, uint64_t& out);
// A real number ending at a field boundary (a leading '+' is allowed, as std::from_chars does
// not), rounded to `type`; advances p. Returns nullptr, or what was expected where it is not one:
// "a real number", "a real number within the range of double" (1e999) or "... of float32" (a
// finite value that rounds to infinity as float32). inf and nan are read as such.
const char* parseReal(const char*& p, const char* e, ValueType type, double& out);
// v rounded to `type`; nullptr, or "a real number within the range of float32" when a finite v
// becomes infinite.
const char* roundChecked(ValueType type, double& v);

// The whole file, or react::UserError "path: cannot open for reading: ..." and the like.
std::string readFile(const std::string& path);

// How many threads an OpenMP region may use (1 without OpenMP).
int maxThreads();
// [begin, end) cut at line starts into at most maxThreads() pieces of at least 256 KiB each (one
// piece for a small text), in order, covering it all.
std::vector<std::pair<const char*, const char*>> lineChunks(const char* begin, const char* end);

// The first error a parsing thread met, reported after the parallel part in file order, so the
// message is the same for any thread count.
struct ParseError {
  const char* at = nullptr;  // nullptr: none
  std::string expected, got;
};

// The shortest text that reads back exactly as the value v of `type`; an integer.
void appendNumber(std::string& out, double v, ValueType type);
void appendNumber(std::string& out, int64_t v);

}  // namespace react::detail
