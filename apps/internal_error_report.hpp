// How every app reports an internal compiler error (README, "Exit status"): the error, then one
// line that asks for a report with the command line that caused it, and a status of its own.
#pragma once

#include "formats/formats.hpp"

#include <cstdio>
#include <string>

namespace react::apps {

// User errors exit 1; react's own bugs exit 70 (EX_SOFTWARE of sysexits.h, "internal software
// error"), so scripts tell a bad input from a bug in react.
constexpr int kExitUserError = 1;
constexpr int kExitInternalError = 70;

// `arg` as one shell word: in single quotes unless it is made of characters no shell reads.
inline std::string shellWord(const std::string& arg) {
  if (!arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=:,./@%") ==
                          std::string::npos)
    return arg;
  std::string quoted = "'";
  for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// The command line as a user can paste it back into a shell.
inline std::string commandLine(int argc, char** argv) {
  std::string line;
  for (int a = 0; a < argc; ++a) line += (a ? " " : "") + shellWord(argv[a]);
  return line;
}

// Prints "<tool>: internal compiler error: ..." and the request for a report to stderr; returns
// kExitInternalError for main to return.
inline int reportInternalError(const char* tool, const InternalError& e, int argc, char** argv) {
  std::fprintf(stderr, "%s: %s\n%s: this is a bug in react, not in your input; please report it with the command line: %s\n",
               tool, e.what(), tool, commandLine(argc, argv).c_str());
  return kExitInternalError;
}

}  // namespace react::apps
