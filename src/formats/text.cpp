// What the text readers and writers share (text.hpp).
#include "formats/text.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace react::detail {

std::string describe(const char* at, const char* e) {
  if (at >= e) return "end of file";
  if (*at == '\n' || *at == '\r') return "end of line";
  const char* q = at;
  while (q < e && !isBlank(*q) && *q != '\n' && q - at < 40) ++q;
  return "'" + std::string(at, q) + (q < e && !isBlank(*q) && *q != '\n' ? "...'" : "'");
}

int64_t lineOf(const Source& src, const char* at) { return 1 + std::count(src.begin, at, '\n'); }

void fail(const Source& src, const char* at, const std::string& expected, const std::string& got) {
  throw UserError(src.name + ":" + std::to_string(lineOf(src, at)) + ": expected " + expected + ", got " + got);
}

void fail(const Source& src, const char* at, const std::string& expected) {
  fail(src, at, expected, describe(at, src.end));
}

bool parseUnsigned(const char*& p, const char* e, uint64_t& out) {
  const char* s = p;
  uint64_t v = 0;
  for (; p < e && static_cast<unsigned>(*p - '0') < 10; ++p) {
    if (v >= 100000000000000000ULL) return false;
    v = v * 10 + static_cast<unsigned>(*p - '0');
  }
  if (p == s || !atFieldEnd(p, e)) return false;
  out = v;
  return true;
}

const char* roundChecked(ValueType type, double& v) {
  const double rounded = roundTo(type, v);
  if (std::isinf(rounded) && !std::isinf(v)) return "a real number within the range of float32";
  v = rounded;
  return nullptr;
}

const char* parseReal(const char*& p, const char* e, ValueType type, double& out) {
  const char* tok = p;
  const char* s = p;
  if (s < e && *s == '+' && s + 1 < e && *(s + 1) != '-') ++s;  // from_chars rejects a leading '+'
  double v = 0.0;
  auto [q, ec] = std::from_chars(s, e, v);
  if (ec == std::errc::result_out_of_range) {  // overflow is an error; underflow gives 0 or a subnormal
    char* qq = nullptr;
    v = std::strtod(tok, &qq);  // the text ends in a NUL (a std::string), so strtod stops in it
    q = qq;
    if (std::isinf(v)) return "a real number within the range of double";
  } else if (ec != std::errc()) {
    return "a real number";
  }
  if (!atFieldEnd(q, e)) return "a real number";
  if (const char* expected = roundChecked(type, v)) return expected;
  p = q;
  out = v;
  return nullptr;
}

std::string readFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) throw UserError(path + ": cannot open for reading: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    const int err = S_ISDIR(st.st_mode) ? EISDIR : errno;
    ::close(fd);
    throw UserError(path + ": cannot read: " + std::strerror(err));
  }
  std::string text;
  try {
    allocateOrThrow(path + ": its text", st.st_size, [&] { text.resize(static_cast<size_t>(st.st_size)); });
  } catch (...) {
    ::close(fd);
    throw;
  }
  size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      throw UserError(path + ": cannot read: " + std::strerror(err));
    }
    if (n == 0) break;  // the file shrank while we read it
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  text.resize(got);
  return text;
}

int maxThreads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

std::vector<std::pair<const char*, const char*>> lineChunks(const char* begin, const char* end) {
  const int64_t bytes = end - begin;
  const int64_t T = std::max<int64_t>(1, std::min<int64_t>(maxThreads(), bytes / (256 << 10)));
  std::vector<std::pair<const char*, const char*>> chunks(static_cast<size_t>(T));
  const char* prev = begin;
  for (int64_t t = 0; t < T; ++t) {
    chunks[t].first = prev;
    prev = t + 1 == T ? end : std::max(prev, nextLine(begin + bytes * (t + 1) / T, end));
    chunks[t].second = prev;
  }
  return chunks;
}

void appendNumber(std::string& out, double v, ValueType type) {
  char buf[32];
  auto [q, ec] = type == ValueType::Float32 ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v))
                                            : std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;
  out.append(buf, q);
}

void appendNumber(std::string& out, int64_t v) {
  char buf[24];
  auto [q, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;
  out.append(buf, q);
}

}  // namespace react::detail
