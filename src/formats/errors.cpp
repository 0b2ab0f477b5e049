// Internal compiler errors and legality answers (errors.hpp).
#include "formats/errors.hpp"

namespace react {

namespace {

// The source file relative to the checkout: the build maps the checkout's absolute path away
// (-fmacro-prefix-map), and ccache's base_dir makes it relative to the object's folder, inside the
// build folder ("../../../src/fusion/pipeline.cpp"), so leading "../" go too.
std::string sourcePath(const char* file) {
  std::string path = file;
  size_t from = 0;
  while (path.compare(from, 3, "../") == 0) from += 3;
  return path.substr(from);
}

// The message with its location after the first line: a tree printed below stays readable.
std::string located(const std::string& message, const char* file, int line, const char* function) {
  const std::string where = " (at " + sourcePath(file) + ":" + std::to_string(line) + " in " + function + ")";
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
