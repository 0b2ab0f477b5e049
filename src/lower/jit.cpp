// JIT: compile emitted source into a shared library, cache it on disk, load it with dlopen.
//
// What is trusted (docs/reliability.md, "Threat model"): the compiler and flags of the build or
// the REACT_JIT_* environment, and the cache directory only while it is private to this user. The
// compiler runs without a shell (runProcess); every library proves after loading that it was built
// from the source asked for (its exported react_cache_key), and one that does not is rebuilt.
#include "lower/lower.hpp"
#include "lower/jit_config.hpp"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

namespace react {

namespace fs = std::filesystem;

namespace {

std::string env(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

template <typename F>
void lookup(const CompiledLibrary& lib, const char* name, F& f) {
  f = reinterpret_cast<F>(::dlsym(lib.handle, name));
  if (!f) throw UserError("JIT: " + lib.libraryPath + " has no function '" + name + "' (not a react Kokkos library)");
}

KokkosRuntime loadKokkosRuntime(const CompiledLibrary& lib) {
  KokkosRuntime r;
#define REACT_LOOKUP_RUNTIME_FUNCTION(type, name, parameters, field) lookup(lib, #name, r.field##Function);
  REACT_KOKKOS_RUNTIME(REACT_LOOKUP_RUNTIME_FUNCTION)
#undef REACT_LOOKUP_RUNTIME_FUNCTION
  return r;
}

// Libraries go after the source file on the command line.
std::string linkLibraries(Target target) {
  return target == Target::Kokkos ? env("REACT_JIT_KOKKOS_LIBS", REACT_JIT_KOKKOS_LIBS) : "";
}

// The directory of this process's kernels when the cache cannot be written: private (mkdtemp
// makes it 0700), removed at exit. Loaded libraries stay mapped after their files are removed.
class PrivateDirectory {
 public:
  const std::string& path() {
    std::call_once(once_, [this] {
      std::string base = env("TMPDIR", "/tmp");
      std::vector<char> name(base.begin(), base.end());
      for (char c : std::string("/react-jit-XXXXXX")) name.push_back(c);
      name.push_back('\0');
      if (!::mkdtemp(name.data()))
        throw UserError("JIT: cannot create a private directory under '" + base + "' (TMPDIR): " + std::strerror(errno));
      path_ = name.data();
    });
    return path_;
  }
  ~PrivateDirectory() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }

 private:
  std::once_flag once_;
  std::string path_;
};
PrivateDirectory privateDirectory;

// Is `dir` usable as a cache: a directory of this user that no other user can write. Creates it
// (0700) when missing. False when it cannot be created or written (a read-only file system, a
// directory of this user without write permission); an unsafe directory throws.
bool prepareCache(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    std::error_code ec;
    fs::create_directories(fs::path(dir).parent_path(), ec);
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return false;
    if (::stat(dir.c_str(), &st) != 0) return false;
  }
  if (!S_ISDIR(st.st_mode)) throw UserError("JIT cache '" + dir + "' is not a directory");
  if (st.st_uid != ::geteuid())
    throw UserError("JIT cache '" + dir + "' belongs to another user (uid " + std::to_string(st.st_uid) +
                "): refusing to load kernels from it; set REACT_CACHE_DIR or -cache-dir to a directory of your own");
  if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    throw UserError("JIT cache '" + dir + "' is writable by other users (mode " + mode +
                "): refusing to load kernels from it; make it private (chmod 700) or choose another cache directory");
  }
  return ::access(dir.c_str(), W_OK) == 0;
}

// The definition every library carries: which compile it is (source, compiler, flags).
std::string keyDefinition(const std::string& key) {
  return "\nextern \"C\" __attribute__((visibility(\"default\"))) const char react_cache_key[] = \"" + key + "\";\n";
}

// Loads `path` and checks that it carries `key`; null (and the reason in *why) when it does not.
void* loadVerified(const std::string& path, const std::string& key, std::string* why) {
  // RTLD_NODELETE: unloading an OpenMP library from a host without OpenMP crashes libgomp.
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!handle) {
    *why = ::dlerror();
    return nullptr;
  }
  const char* symbol = static_cast<const char*>(::dlsym(handle, "react_cache_key"));
  if (!symbol) {
    *why = "it has no react_cache_key";
    return nullptr;
  }
  std::string stored(symbol, strnlen(symbol, 64));  // bounded: the library is not trusted yet
  if (stored != key) {
    *why = "it was built from other source (key " + stored + ")";
    return nullptr;
  }
  return handle;
}

// Libraries this process has loaded and verified, by the cache path asked for. dlopen returns an
// object already loaded under the same name, so once a damaged library was opened at a path, only
// this map leads to the good one built in its place (or in the private directory).
class VerifiedLibraries {
 public:
  bool find(const std::string& cachedPath, CompiledLibrary& lib) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = libraries_.find(cachedPath);
    if (it == libraries_.end()) return false;
    lib = it->second;
    return true;
  }
  void add(const std::string& cachedPath, const CompiledLibrary& lib) {
    std::lock_guard<std::mutex> lock(mutex_);
    libraries_[cachedPath] = lib;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, CompiledLibrary> libraries_;
};
VerifiedLibraries verifiedLibraries;

// The cache's library for `key`, loaded and verified, if its source is `text`; else no handle
// (saying why on stderr when the library is damaged).
CompiledLibrary loadCached(const std::string& dir, const std::string& key, const std::string& text) {
  CompiledLibrary lib;
  lib.sourcePath = dir + "/" + key + ".cpp";
  lib.libraryPath = dir + "/" + key + ".so";
  if (!fs::exists(lib.libraryPath) || readFile(lib.sourcePath) != text) return lib;
  std::string why;
  lib.handle = loadVerified(lib.libraryPath, key, &why);
  if (lib.handle) lib.cacheHit = true;
  else std::fprintf(stderr, "react JIT: the cached kernel %s is damaged (%s); compiling it again\n", lib.libraryPath.c_str(), why.c_str());
  return lib;
}

// Removes the files it names: no temporary outlives a failed step.
struct TemporaryFiles {
  std::vector<std::string> paths;
  ~TemporaryFiles() {
    std::error_code ec;
    for (const std::string& p : paths) fs::remove(p, ec);
  }
};

std::string displayCommand(const std::vector<std::string>& argv) {
  std::string s;
  for (const std::string& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

// Writes `text` as dir/key.cpp, compiles it and loads the library (under its temporary name, so
// that a damaged library of the same final name loaded earlier in this process is never
// returned instead), then moves the library into place. False when `dir` cannot be written.
bool compileInto(const std::string& dir, const std::string& key, const std::string& text,
                 const std::vector<std::string>& compiler, const std::vector<std::string>& libs,
                 const JitOptions& options, CompiledLibrary& lib) {
  static std::atomic<unsigned> compiles{0};
  // Private names for everything written, then renames: concurrent compiles (other processes or
  // threads) never read a partial source or load a partial library.
  std::string suffix = ".tmp." + std::to_string(::getpid()) + "." + std::to_string(compiles++);
  lib.sourcePath = dir + "/" + key + ".cpp";
  lib.libraryPath = dir + "/" + key + ".so";
  TemporaryFiles temporaries;
  std::string source = lib.sourcePath + suffix, library = lib.libraryPath + suffix, log = dir + "/" + key + ".log" + suffix;
  temporaries.paths = {source, library, log};
  {
    std::ofstream out(source, std::ios::binary);
    out << text;
    out.close();
    if (!out) return false;
  }
  std::error_code ec;
  fs::rename(source, lib.sourcePath, ec);
  if (ec) return false;
  std::vector<std::string> argv = compiler;
  for (const std::string& w : splitWords(options.extraFlags)) argv.push_back(w);
  argv.insert(argv.end(), {"-o", library, lib.sourcePath});
  argv.insert(argv.end(), libs.begin(), libs.end());
  if (options.verbose) std::fprintf(stderr, "react JIT: %s\n", displayCommand(argv).c_str());
  auto start = std::chrono::steady_clock::now();
  int rc = runProcess(argv, log);
  lib.compileSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (rc != 0)
    throw UserError("JIT: compiling generated source " + lib.sourcePath + " failed (" + displayCommand(compiler) + ", exit " +
                std::to_string(rc) + "):\n" + readFile(log));
  std::string why;
  lib.handle = loadVerified(library, key, &why);
  if (!lib.handle) throw UserError("JIT: cannot load the library just compiled from " + lib.sourcePath + ": " + why);
  fs::rename(library, lib.libraryPath, ec);
  if (ec) throw UserError("JIT: cannot move the library into '" + dir + "': " + ec.message());
  return true;
}

}  // namespace

std::string contentHash(const std::string& text) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a, 64 bits: stable across runs and platforms (std::hash is not)
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string jitCacheDirectory(const JitOptions& o) {
  if (!o.cacheDir.empty()) return o.cacheDir;
  if (const char* d = std::getenv("REACT_CACHE_DIR"); d && *d) return d;
  return env("HOME", "/tmp") + "/.cache/react";
}

std::string compilerCommand(Target target) {
  // REACT_JIT_CXX / REACT_JIT_*_FLAGS in the environment override what CMake found.
  if (target == Target::OpenMP)
    return env("REACT_JIT_CXX", REACT_JIT_CXX) + " " + env("REACT_JIT_OPENMP_FLAGS", REACT_JIT_OPENMP_FLAGS);
  return env("REACT_JIT_KOKKOS_CXX", REACT_JIT_KOKKOS_CXX) + " " + env("REACT_JIT_KOKKOS_FLAGS", REACT_JIT_KOKKOS_FLAGS);
}

CompiledLibrary jitCompile(const std::string& source, Target target, const JitOptions& options,
                           const std::string& functionName) {
  std::string command = compilerCommand(target), libs = linkLibraries(target);
  std::string key = contentHash(source + "\n" + command + "\n" + libs + "\n" + options.extraFlags);
  std::string text = source + keyDefinition(key);
  std::string dir = jitCacheDirectory(options);
  bool writable = prepareCache(dir);
  std::string cached = dir + "/" + key + ".so";

  CompiledLibrary lib;
  if (verifiedLibraries.find(cached, lib)) {
    lib.cacheHit = true;
    lib.compileSeconds = 0;
  } else {
    lib = loadCached(dir, key, text);
    if (!lib.handle) {
      std::vector<std::string> compiler = splitWords(command), libraries = splitWords(libs);
      if (!(writable && compileInto(dir, key, text, compiler, libraries, options, lib))) {
        std::string fallback = privateDirectory.path();
        static std::once_flag said;
        std::call_once(said, [&] {
          std::fprintf(stderr, "react JIT: the cache '%s' cannot be written; compiling into %s (removed at exit)\n",
                       dir.c_str(), fallback.c_str());
        });
        if (!compileInto(fallback, key, text, compiler, libraries, options, lib))
          throw UserError("JIT: cannot write the kernel's source into '" + fallback + "'");
      }
    }
    verifiedLibraries.add(cached, lib);
  }
  lib.function = lookupKernel(lib, functionName);
  if (target == Target::Kokkos) lib.runtime = loadKokkosRuntime(lib);
  return lib;
}

KernelFunction lookupKernel(const CompiledLibrary& lib, const std::string& functionName) {
  auto f = reinterpret_cast<KernelFunction>(::dlsym(lib.handle, functionName.c_str()));
  if (!f) throw UserError("JIT: " + lib.libraryPath + " has no function '" + functionName + "'");
  return f;
}

}  // namespace react
