// Test support: the shared matrices, output comparison and the four kernels.
#include "support.hpp"

#include <doctest/doctest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace react::test {

std::string sharedMatrixDir() {
  std::string dir = std::string(REACT_SOURCE_DIR) + "/../shared/data/matrices";
  REQUIRE_MESSAGE(std::filesystem::is_directory(dir), "missing " << dir);
  return dir;
}

std::string goldenText(const std::string& path, const std::string& got) {
  if (std::getenv("REACT_UPDATE_GOLDEN")) std::ofstream(path) << got;
  std::ifstream in(path);
  REQUIRE_MESSAGE(in, "missing golden file " << path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void forEachKernelBatch(const std::vector<Program>& programs,
                        const std::function<void(Target, FusionMode, const std::vector<Kernel>&)>& check) {
  for (Target target : {Target::OpenMP, Target::Kokkos})
    for (FusionMode mode : {FusionMode::None, FusionMode::Maximal, FusionMode::React}) {
      CompileOptions o;
      o.fusion = mode;
      o.target = target;
      o.jit = testCache();
      check(target, mode, Kernel::compileBatch(programs, o));
    }
}

JitOptions testCache() {
  JitOptions o;
  // $REACT_CACHE_DIR lets the sanitizer run reuse the kernels the release run compiled (the key
  // is the source and the compiler command, the same in both builds).
  const char* shared = std::getenv("REACT_CACHE_DIR");
  o.cacheDir = shared && *shared ? shared : std::string(REACT_BINARY_DIR) + "/jit-cache";
  return o;
}

int scaled(int n) {
  const char* text = std::getenv("REACT_TEST_SCALE");
  double scale = text && *text ? std::atof(text) : 1.0;
  REQUIRE_MESSAGE((scale > 0 && scale <= 1), "REACT_TEST_SCALE must be in (0, 1], not '" << std::string(text) << "'");
  return std::max(1, static_cast<int>(n * scale));
}

CommandResult runCommand(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE_MESSAGE(pipe, "cannot run " << command);
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

void requireEqualValues(const std::vector<double>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t k = 0; k < got.size(); ++k) {
    INFO("value " << k);
    CHECK((got[k] == want[k] || (std::isnan(got[k]) && std::isnan(want[k]))));
  }
}

void requireClose(const Program& program, const TensorValues& got, const TensorValues& want, const std::string& what) {
  for (const std::string& name : program.outputs()) {
    INFO(what << ": output " << name);
    REQUIRE(got.count(name));
    REQUIRE(want.count(name));
    CHECK(relativeError(got.at(name), want.at(name)) < fuzz::kTolerance);
  }
}

std::vector<KernelCase> benchmarkKernels(const CsrMatrix& s, int64_t dense, uint64_t seed) {
  std::vector<KernelCase> cases;
  auto add = [&](std::string name, std::string text, std::vector<std::pair<std::string, std::vector<int64_t>>> dense_inputs) {
    KernelCase c;
    c.name = std::move(name);
    c.text = std::move(text);
    c.env.declare("S", {s.rows, s.cols}, Format::csr());
    c.inputs["S"] = s;
    uint64_t k = seed;
    for (auto& [n, shape] : dense_inputs) {
      c.env.declare(n, shape, Format::dense(static_cast<int>(shape.size())));
      c.inputs[n] = randomPositive(shape, ++k);
    }
    cases.push_back(std::move(c));
  };
  add("sddmm", "A = S * (B @ C)", {{"B", {s.rows, dense}}, {"C", {dense, s.cols}}});
  add("spmm_mm", "A = S @ C @ D", {{"C", {s.cols, dense}}, {"D", {dense, dense + 1}}});
  add("norm_row", "A = S / sum(S, axis=1)", {});
  add("softmax", "A = exp(S) / sum(exp(S), axis=1)", {});
  return cases;
}

// Fixed rates, so that decisions in these tests do not depend on the machine running them.
MachineModel testMachine() {
  MachineModel m;
  m.threads = 2;
  m.bandwidth1 = 8e9;
  m.bandwidth = 12e9;
  m.vectorFlops = {2e9, 3e9, 3.5e9, 4e9, 4e9};
  m.reductionFlops = {0.8e9, 1e9, 1e9, 1e9, 1e9};
  m.cacheBytes = 8e6;
  m.source = "test";
  return m;
}

// The same with memory far faster than arithmetic: decisions follow the flop counts.
MachineModel flopBoundMachine() {
  MachineModel m = testMachine();
  m.bandwidth1 = m.bandwidth = 1e15;
  m.vectorFlops = {4e9, 4e9, 4e9, 4e9, 4e9};
  m.reductionFlops = {1e9, 1e9, 1e9, 1e9, 1e9};
  return m;
}

}  // namespace react::test
