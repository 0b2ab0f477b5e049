// JIT: compile emitted source into a shared library, cache it on disk, load it with dlopen.
#include "lower/lower.hpp"
#include "lower/jit_config.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace react {

namespace fs = std::filesystem;

namespace {

std::string env(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

std::string cacheDirectory(const JitOptions& o) {
  if (!o.cacheDir.empty()) return o.cacheDir;
  if (const char* d = std::getenv("REACT_CACHE_DIR"); d && *d) return d;
  return env("HOME", "/tmp") + "/.cache/react";
}

// FNV-1a, 64 bits: stable across runs and platforms (std::hash is not).
std::string hashOf(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

template <typename F>
void lookup(const CompiledLibrary& lib, const char* name, F& f) {
  f = reinterpret_cast<F>(::dlsym(lib.handle, name));
  if (!f) throw Error("JIT: " + lib.libraryPath + " has no function '" + name + "' (not a react Kokkos library)");
}

KokkosRuntime loadKokkosRuntime(const CompiledLibrary& lib) {
  KokkosRuntime r;
  lookup(lib, "react_runtime_initialize", r.initialize);
  lookup(lib, "react_runtime_allocate", r.allocate);
  lookup(lib, "react_runtime_release", r.release);
  lookup(lib, "react_runtime_copy", r.copy);
  lookup(lib, "react_runtime_host_accessible", r.hostAccessible);
  lookup(lib, "react_runtime_concurrency", r.concurrency);
  lookup(lib, "react_runtime_describe", r.describe);
  return r;
}

}  // namespace

std::string compilerCommand(Target target) {
  // REACT_JIT_CXX / REACT_JIT_*_FLAGS in the environment override what CMake found.
  if (target == Target::OpenMP)
    return env("REACT_JIT_CXX", REACT_JIT_CXX) + " " + env("REACT_JIT_OPENMP_FLAGS", REACT_JIT_OPENMP_FLAGS);
  return env("REACT_JIT_KOKKOS_CXX", REACT_JIT_KOKKOS_CXX) + " " + env("REACT_JIT_KOKKOS_FLAGS", REACT_JIT_KOKKOS_FLAGS);
}

// Libraries go after the source file on the command line.
static std::string linkLibraries(Target target) {
  return target == Target::Kokkos ? env("REACT_JIT_KOKKOS_LIBS", REACT_JIT_KOKKOS_LIBS) : "";
}

CompiledLibrary jitCompile(const std::string& source, Target target, const JitOptions& options,
                           const std::string& functionName) {
  CompiledLibrary lib;
  std::string command = compilerCommand(target), libs = linkLibraries(target);
  if (!options.extraFlags.empty()) command += " " + options.extraFlags;
  std::string dir = cacheDirectory(options);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error("JIT: cannot create cache directory '" + dir + "': " + ec.message());
  std::string key = hashOf(source + "\n" + command + "\n" + libs);
  lib.sourcePath = dir + "/" + key + ".cpp";
  lib.libraryPath = dir + "/" + key + ".so";

  if (!fs::exists(lib.libraryPath)) {
    // Write and compile under private names, then rename: concurrent compiles (other processes,
    // or other threads of this one) never read a partial source or load a partial library.
    static std::atomic<unsigned> compiles{0};
    std::string suffix = ".tmp." + std::to_string(::getpid()) + "." + std::to_string(compiles++);
    {
      std::ofstream out(lib.sourcePath + suffix);
      out << source;
      if (!out) throw Error("JIT: cannot write '" + lib.sourcePath + suffix + "'");
    }
    fs::rename(lib.sourcePath + suffix, lib.sourcePath, ec);
    if (ec) throw Error("JIT: cannot write '" + lib.sourcePath + "': " + ec.message());
    std::string tmp = lib.libraryPath + suffix;
    std::string log = dir + "/" + key + ".log" + suffix;
    std::string cmd = command + " -o '" + tmp + "' '" + lib.sourcePath + "' " + libs + " > '" + log + "' 2>&1";
    if (options.verbose) std::fprintf(stderr, "react JIT: %s\n", cmd.c_str());
    auto start = std::chrono::steady_clock::now();
    int rc = std::system(cmd.c_str());
    lib.compileSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::string messages = readFile(log);
    fs::remove(log, ec);
    if (rc != 0) {
      fs::remove(tmp, ec);
      throw Error("JIT: compiling generated source " + lib.sourcePath + " failed (" + command + "):\n" + messages);
    }
    fs::rename(tmp, lib.libraryPath, ec);
    if (ec) throw Error("JIT: cannot move the library into the cache: " + ec.message());
  } else {
    lib.cacheHit = true;
  }
  // RTLD_NODELETE: unloading an OpenMP library from a host without OpenMP crashes libgomp.
  void* handle = ::dlopen(lib.libraryPath.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!handle) throw Error("JIT: cannot load " + lib.libraryPath + ": " + ::dlerror());
  lib.handle = handle;
  lib.function = lookupKernel(lib, functionName);
  if (target == Target::Kokkos) lib.runtime = loadKokkosRuntime(lib);
  return lib;
}

KernelFunction lookupKernel(const CompiledLibrary& lib, const std::string& functionName) {
  auto f = reinterpret_cast<KernelFunction>(::dlsym(lib.handle, functionName.c_str()));
  if (!f) throw Error("JIT: " + lib.libraryPath + " has no function '" + functionName + "'");
  return f;
}

}  // namespace react
