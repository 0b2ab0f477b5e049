// Level formats: named configurations, printing and parsing.
#include "formats/levels.hpp"

#include "formats/formats.hpp"

#include <algorithm>

namespace react {

namespace {

const char* kExpected =
    "expected dense, csr, csc, dcsr, coo, csf, or one level letter per dimension (d dense, s compressed, "
    "u compressed non-unique, q singleton, c singleton non-unique) with an optional :ORDERING such as sss:1,0,2";

std::vector<int> identity(size_t n) {
  std::vector<int> v(n);
  for (size_t d = 0; d < n; ++d) v[d] = static_cast<int>(d);
  return v;
}

bool isIdentity(const std::vector<int>& ordering) { return ordering == identity(ordering.size()); }

void requireRank(const char* name, int rank, int least) {
  if (rank < least)
    throw UserError("format " + std::string(name) + " needs a tensor of rank " + std::to_string(least) + " or more, not " +
                std::to_string(rank));
}

Level levelOfLetter(char c, const std::string& text) {
  switch (c) {
    case 'd': return Level::dense();
    case 's': return Level::compressed();
    case 'u': return Level::compressed(false);
    case 'q': return Level::singleton();
    case 'c': return Level::singleton(false);
    default: throw UserError("unknown format '" + text + "' (" + kExpected + ")");
  }
}

// "1,0,2" -> {1, 0, 2}; the Format constructor checks that it is a permutation.
std::vector<int> orderingOf(const std::string& text, const std::string& whole) {
  std::vector<int> out;
  for (size_t start = 0;;) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty() || item.size() > 3 || item.find_first_not_of("0123456789") != std::string::npos)
      throw UserError("format '" + whole + "': ordering '" + text + "' is not a list of dimensions such as 1,0,2");
    out.push_back(std::stoi(item));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

}  // namespace

char Level::letter() const {
  switch (kind) {
    case LevelKind::Dense: return 'd';
    case LevelKind::Compressed: return unique ? 's' : 'u';
    case LevelKind::Singleton: return unique ? 'q' : 'c';
  }
  return '?';
}

std::string Level::str() const {
  std::string nonunique = unique ? "" : "-nonunique";
  switch (kind) {
    case LevelKind::Dense: return "dense";
    case LevelKind::Compressed: return "compressed" + nonunique;
    case LevelKind::Singleton: return "singleton" + nonunique;
  }
  return "?";
}

Format::Format(std::vector<Level> levels, std::vector<int> ordering)
    : levels_(std::move(levels)), ordering_(std::move(ordering)) {
  if (ordering_.empty()) ordering_ = identity(levels_.size());
  std::vector<int> sorted = ordering_;
  std::sort(sorted.begin(), sorted.end());
  if (sorted != identity(levels_.size())) {
    std::string text;
    for (int d : ordering_) text += (text.empty() ? "" : ",") + std::to_string(d);
    throw UserError("mode ordering " + text + " is not a permutation of the " + std::to_string(levels_.size()) +
                " dimensions 0.." + std::to_string(static_cast<int>(levels_.size()) - 1));
  }
}

Format Format::dense(int rank) { return Format(std::vector<Level>(static_cast<size_t>(rank), Level::dense())); }
Format Format::csr() { return Format({Level::dense(), Level::compressed()}); }
Format Format::csc() { return Format({Level::dense(), Level::compressed()}, {1, 0}); }
Format Format::dcsr() { return Format({Level::compressed(), Level::compressed()}); }

Format Format::coo(int rank) {
  requireRank("coo", rank, 1);
  if (rank == 1) return Format({Level::compressed()});
  std::vector<Level> levels{Level::compressed(false)};
  for (int l = 1; l < rank - 1; ++l) levels.push_back(Level::singleton(false));
  levels.push_back(Level::singleton());
  return Format(levels);
}

Format Format::csf(int rank) {
  requireRank("csf", rank, 1);
  return Format(std::vector<Level>(static_cast<size_t>(rank), Level::compressed()));
}

Format Format::iterated() const {
  std::vector<Level> levels = levels_;
  for (Level& l : levels)
    if (l.kind != LevelKind::Dense) l = Level::compressed();
  return Format(levels, ordering_);
}

int Format::levelOf(int dimension) const {
  auto it = std::find(ordering_.begin(), ordering_.end(), dimension);
  if (it == ordering_.end()) throw UserError("format " + str() + " has no dimension " + std::to_string(dimension));
  return static_cast<int>(it - ordering_.begin());
}

bool Format::hasSparseLevel() const {
  return std::any_of(levels_.begin(), levels_.end(), [](const Level& l) { return !l.full(); });
}

int Format::patternLevels() const {
  int n = rank();
  while (n > 0 && levels_[static_cast<size_t>(n - 1)].full()) --n;
  return n;
}

bool Format::storesPatternPrefix() const { return hasSparseLevel() && patternLevels() < rank(); }

std::string Format::str() const {
  // Smallest rank first where two names describe the same levels: "ss" is dcsr, "s" a vector.
  if (*this == dense(rank())) return "dense";
  if (*this == csr()) return "csr";
  if (*this == csc()) return "csc";
  if (*this == dcsr()) return "dcsr";
  if (rank() >= 2 && *this == coo(rank())) return "coo";
  if (rank() >= 3 && *this == csf(rank())) return "csf";
  std::string s;
  for (const Level& l : levels_) s += l.letter();
  if (isIdentity(ordering_)) return s;
  s += ':';
  for (size_t l = 0; l < ordering_.size(); ++l) s += (l ? "," : "") + std::to_string(ordering_[l]);
  return s;
}

Format parseFormat(const std::string& text, int rank) {
  if (text == "dense") return Format::dense(rank);
  if (text == "csr") return Format::csr();
  if (text == "csc") return Format::csc();
  if (text == "dcsr") return Format::dcsr();
  if (text == "coo") return Format::coo(rank);
  if (text == "csf") return Format::csf(rank);
  size_t colon = text.find(':');
  std::string letters = text.substr(0, colon);
  if (letters.empty()) throw UserError("unknown format '" + text + "' (" + kExpected + ")");
  std::vector<Level> levels;
  for (char c : letters) levels.push_back(levelOfLetter(c, text));
  if (colon == std::string::npos) return Format(levels);
  std::vector<int> ordering = orderingOf(text.substr(colon + 1), text);
  if (ordering.size() != levels.size())
    throw UserError("format '" + text + "': the ordering names " + std::to_string(ordering.size()) + " dimensions but there are " +
                std::to_string(levels.size()) + " levels");
  try {
    return Format(levels, ordering);
  } catch (const UserError& e) {
    throw UserError("format '" + text + "': " + e.what());
  }
}

}  // namespace react
