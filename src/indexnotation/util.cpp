// Small text helpers shared by the index-notation sources.
#include "indexnotation/internal.hpp"

#include <algorithm>

namespace react::detail {

std::string messageAt(SourcePos pos, const std::string& message) {
  if (pos.line <= 0) return message;
  return std::to_string(pos.line) + ":" + std::to_string(pos.column) + ": " + message;
}

UserError errorAt(SourcePos pos, const std::string& message) { return UserError(messageAt(pos, message)); }

std::string quoted(const std::string& s) { return "'" + s + "'"; }

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t n = 0; n < parts.size(); ++n) out += (n ? sep : "") + parts[n];
  return out;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace react::detail
