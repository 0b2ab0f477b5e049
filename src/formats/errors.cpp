// Internal compiler errors and legality answers (errors.hpp).
#include "formats/errors.hpp"

namespace react {

namespace {

// The message with its location after the first line: a tree printed below stays readable.
std::string located(const std::string& message, const char* file, int line, const char* function) {
  const std::string where = " (at " + std::string(file) + ":" + std::to_string(line) + " in " + function + ")";
  const size_t end = message.find('\n');
  if (end == std::string::npos) return message + where;
  return message.substr(0, end) + where + message.substr(end);
}

}  // namespace

InternalError::InternalError(const std::string& message, const char* file, int line, const char* function)
    : std::logic_error("internal compiler error: " + located(message, file, line, function)) {}

void internalError(const std::string& message, const char* file, int line, const char* function) {
  throw InternalError(message, file, line, function);
}

Legality Legality::illegal(std::string why) {
  REACT_ASSERT(!why.empty(), "an illegal answer needs its reason");
  return Legality{std::move(why)};
}

}  // namespace react
