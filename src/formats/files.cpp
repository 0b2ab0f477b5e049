// Files written whole or not at all.
#include "formats/formats.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace react {

void writeFileAtomically(const std::string& path, const std::string& text) {
  static std::atomic<unsigned> writes{0};
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(writes++);
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw UserError(path + ": cannot open for writing: " + std::strerror(errno));
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  int err = errno;
  ok = (std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0) && ok;
  if (!ok && !err) err = errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (ok && std::rename(tmp.c_str(), path.c_str()) != 0) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    std::remove(tmp.c_str());
    throw UserError(path + ": cannot write: " + std::strerror(err));
  }
}

}  // namespace react
