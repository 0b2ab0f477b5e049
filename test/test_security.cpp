// What a user or another program controls cannot reach a shell, change which kernel is loaded,
// or turn an environment problem into an internal error (docs/reliability.md, "Threat model").
#include "support.hpp"

#include <doctest/doctest.h>

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

using namespace react;
using namespace react::test;

namespace fs = std::filesystem;

namespace {

// A fresh directory of the build tree for one test.
std::string freshDirectory(const std::string& name) {
  std::string dir = std::string(REACT_BINARY_DIR) + "/security-test/" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Single quotes for the test's own shell (runCommand): the text reaches the program unchanged.
std::string shellQuoted(const std::string& text) {
  std::string q = "'";
  for (char c : text) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string kernelSource(double factor) {
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "extern \"C\" double react_kernel_value() { return %g; }\n"
                "extern \"C\" void react_kernel(const void*, const long*) {}\n",
                factor);
  return buf;
}

double valueOf(const CompiledLibrary& lib) {
  void* symbol = ::dlsym(lib.handle, "react_kernel_value");
  REQUIRE(symbol != nullptr);
  return reinterpret_cast<double (*)()>(symbol)();
}

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("JIT: quotes and shell syntax in the cache path are only characters") {
  std::string base = freshDirectory("shell");
  JitOptions o;
  o.cacheDir = base + "/x'; touch PWNED; echo '";
  CompiledLibrary lib = jitCompile(kernelSource(1.5), Target::OpenMP, o);
  CHECK(valueOf(lib) == 1.5);
  CHECK_FALSE(fs::exists("PWNED"));
  CHECK_FALSE(fs::exists(base + "/PWNED"));
  CHECK(fs::is_directory(o.cacheDir));
  // An ordinary home with an apostrophe.
  o.cacheDir = base + "/o'brien/.cache/react";
  CHECK(valueOf(jitCompile(kernelSource(2.5), Target::OpenMP, o)) == 2.5);
}

TEST_CASE("react-gen and react-bench: injected shell syntax in paths runs nothing") {
  std::string base = freshDirectory("shell-tools");
  std::string gen = std::string(REACT_BINARY_DIR) + "/bin/react-gen 'A(i,j) = B(i,j) * 2' -g=B:u -d=i:2 -d=j:2 -time=1 ";
  CommandResult r = runCommand("cd " + base + " && " + gen + shellQuoted("-cache-dir=x'; touch PWNED; echo '") + " 2>&1");
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK_FALSE(fs::exists(base + "/PWNED"));
  CommandResult home = runCommand("cd " + base + " && env -u REACT_CACHE_DIR HOME=" + shellQuoted(base + "/o'brien") + " " +
                                  gen + "2>&1");
  INFO(home.output);
  CHECK(home.status == 0);
  CHECK(fs::is_directory(base + "/o'brien/.cache/react"));

  // The plot command: python runs with the paths as arguments, and a failure is an error.
  CommandResult plot = runCommand("cd " + base + " && REACT_PYTHON=/bin/false " + REACT_BINARY_DIR +
                                  "/bin/react-bench --kernel norm_row --synthetic banded:200:4 --variants react-openmp"
                                  " --reps 1 --budget 0.01 --csv " + shellQuoted("a'; touch PWNED2; echo '.csv") + " --plot " +
                                  shellQuoted("p'; touch PWNED3; echo '.png") + " --cache-dir " + testCache().cacheDir + " 2>&1");
  INFO(plot.output);
  CHECK(plot.status != 0);
  CHECK(plot.output.find("plot: /bin/false") != std::string::npos);
  CHECK_FALSE(fs::exists(base + "/PWNED2"));
  CHECK_FALSE(fs::exists(base + "/PWNED3"));
}

TEST_CASE("JIT: a cached library that is not the kernel asked for is rebuilt") {
  // Libraries built in one cache, then copied into caches this process never loaded from, as
  // another run would find them: one swapped, one truncated, one with edited source.
  JitOptions origin;
  origin.cacheDir = freshDirectory("origin");
  CompiledLibrary one = jitCompile(kernelSource(1.0), Target::OpenMP, origin);
  CompiledLibrary two = jitCompile(kernelSource(2.0), Target::OpenMP, origin);
  auto copied = [&](const std::string& name, const std::string& libraryBytes, const std::string& sourceBytes) {
    JitOptions o;
    o.cacheDir = freshDirectory(name);
    std::ofstream(o.cacheDir + "/" + fs::path(two.libraryPath).filename().string(), std::ios::binary) << libraryBytes;
    std::ofstream(o.cacheDir + "/" + fs::path(two.sourcePath).filename().string(), std::ios::binary) << sourceBytes;
    return o;
  };
  std::string library = readText(two.libraryPath), source = readText(two.sourcePath);
  REQUIRE(jitCompile(kernelSource(2.0), Target::OpenMP, copied("intact", library, source)).cacheHit);

  // Another kernel's library in its place: found out, compiled again, the right value, and the
  // cache holds the right library afterwards.
  JitOptions swapped = copied("swapped", readText(one.libraryPath), source);
  CompiledLibrary again = jitCompile(kernelSource(2.0), Target::OpenMP, swapped);
  CHECK_FALSE(again.cacheHit);
  CHECK(valueOf(again) == 2.0);
  CHECK(readText(again.libraryPath) != readText(one.libraryPath));
  CHECK(jitCompile(kernelSource(2.0), Target::OpenMP, swapped).cacheHit);

  // A truncated library fails to load and is rebuilt on this run, not only reported.
  CompiledLibrary repaired = jitCompile(kernelSource(2.0), Target::OpenMP, copied("truncated", library.substr(0, 100), source));
  CHECK_FALSE(repaired.cacheHit);
  CHECK(valueOf(repaired) == 2.0);

  // A source that is not the source asked for (the same key) means the library is not trusted.
  JitOptions edited = copied("edited", library, source + "// edited\n");
  CHECK_FALSE(jitCompile(kernelSource(2.0), Target::OpenMP, edited).cacheHit);
  CHECK(readText(edited.cacheDir + "/" + fs::path(two.sourcePath).filename().string()) == source);
}

TEST_CASE("JIT: the cache is created private, and a cache others can write is refused") {
  std::string base = freshDirectory("modes");
  JitOptions o;
  o.cacheDir = base + "/new/cache";
  jitCompile(kernelSource(1.0), Target::OpenMP, o);
  struct stat st {};
  REQUIRE(::stat(o.cacheDir.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  ::chmod(o.cacheDir.c_str(), 0777);
  CHECK_THROWS_WITH_AS(jitCompile(kernelSource(1.0), Target::OpenMP, o),
                       doctest::Contains("is writable by other users (mode 0777): refusing to load kernels from it"), UserError);
  ::chmod(o.cacheDir.c_str(), 0775);
  CHECK_THROWS_WITH_AS(jitCompile(kernelSource(1.0), Target::OpenMP, o), doctest::Contains("writable by other users"), UserError);
  ::chmod(o.cacheDir.c_str(), 0755);
  CHECK(jitCompile(kernelSource(1.0), Target::OpenMP, o).cacheHit);
  // Another user's directory, private or not (only root can hand one over to test it).
  if (::geteuid() == 0) {
    REQUIRE(::chown(o.cacheDir.c_str(), 65534, 65534) == 0);
    CHECK_THROWS_WITH_AS(jitCompile(kernelSource(1.0), Target::OpenMP, o),
                         doctest::Contains("belongs to another user (uid 65534): refusing to load kernels from it"), UserError);
    REQUIRE(::chown(o.cacheDir.c_str(), 0, 0) == 0);
  }
}

TEST_CASE("JIT: a cache that cannot be written compiles into a private directory") {
  // /proc/self/fd: this user's directory that no one can create files in (root included).
  JitOptions o;
  o.cacheDir = "/proc/self/fd";
  CompiledLibrary lib = jitCompile(kernelSource(7.0), Target::OpenMP, o);
  CHECK(valueOf(lib) == 7.0);
  CHECK(lib.libraryPath.find("/react-jit-") != std::string::npos);
  struct stat st {};
  REQUIRE(::stat(fs::path(lib.libraryPath).parent_path().c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  // react-gen with the default mode (auto: calibrates, cannot store the model) still runs.
  CommandResult r = runCommand(std::string(REACT_BINARY_DIR) + "/bin/react-gen 'A = S / sum(S, axis=1)' -i=S:" +
                               sharedMatrixDir() + "/cora.mtx -time=1 -threads=1 -cache-dir=/proc/self/fd 2>&1");
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(r.output.find("internal error") == std::string::npos);
  CHECK(r.output.find("cannot be written; compiling into") != std::string::npos);
  CHECK(r.output.find("measured again next time") != std::string::npos);
}

TEST_CASE("writes replace a file whole or leave it as it was") {
  std::string dir = freshDirectory("atomic");
  std::string path = dir + "/out.mtx";
  writeFileAtomically(path, "old");
  CHECK_THROWS_AS(writeFileAtomically(dir + "/missing/out.mtx", "new"), UserError);
  writeFileAtomically(path, "new");
  CHECK(readText(path) == "new");
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) files += entry.is_regular_file();
  CHECK(files == 1);  // no temporary left behind
}

TEST_CASE("child processes get their arguments as they are") {
  std::string dir = freshDirectory("spawn");
  std::string out = dir + "/out.txt";
  CHECK(runProcess({"/bin/echo", "a'b", "$(touch x)", "; rm -rf /"}, out) == 0);
  CHECK(readText(out) == "a'b $(touch x) ; rm -rf /\n");
  CHECK(runProcess({"/bin/sh", "-c", "exit 3"}) == 3);
  CHECK_THROWS_WITH_AS(runProcess({"/nonexistent/program"}), doctest::Contains("cannot run '/nonexistent/program'"), UserError);
  CHECK(splitWords("  g++ -O3\t-fPIC \n") == std::vector<std::string>{"g++", "-O3", "-fPIC"});
}
