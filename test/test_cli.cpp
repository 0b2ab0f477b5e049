// react-gen end to end: argument errors name the argument and exit non-zero; printing, timing,
// writing results; SciPy (/usr/bin/python3) agrees with react-gen on SDDMM and SpMM-MM.
#include "support.hpp"

#include <doctest/doctest.h>

#include <filesystem>

using namespace react;

namespace {

using Result = test::CommandResult;

Result run(const std::string& args) {
  return test::runCommand(std::string(REACT_BINARY_DIR) + "/bin/react-gen " + args + " -cache-dir=" + REACT_BINARY_DIR +
                          "/jit-cache 2>&1");
}

std::string matrix(const std::string& name) { return test::sharedMatrixDir() + "/" + name + ".mtx"; }

void requireError(const std::string& args, const std::string& message) {
  Result r = run(args);
  INFO(args << "\n" << r.output);
  CHECK(r.status == 1);
  CHECK(r.output.find(message) != std::string::npos);
}

}  // namespace

TEST_CASE("react-gen: input errors name the argument") {
  requireError("'A = S * (B @ C)' -bogus", "argument '-bogus': unknown option");
  requireError("'A = S * (B @ C)' -d=k", "argument '-d=k': expected INDEX:SIZE");
  requireError("'A = S * (B @ C)' -d=k:-3", "argument '-d=k:-3': '-3' is not a positive integer");
  requireError("'A = S * (B @ C)' -fusion=tile", "argument '-fusion=tile': unknown fusion mode 'tile'");
  requireError("'A = S * (B @ C)' -target=cuda", "argument '-target=cuda': unknown target 'cuda'");
  requireError("'A = S * (B @ C)' -i=S:/nonexistent.mtx", "/nonexistent.mtx");
  requireError("'A = S * (B @ C)' -i=S:" + matrix("cora") + " -g=B:u -g=C:u -d=k:8 -o=S:/tmp/x.mtx",
               "'S' is an input, not a result");
  requireError("'A = S * (B @ C)' -i=S:" + matrix("cora") + " -g=B:u", "unknown tensor 'C'");
  requireError("'A = S * (B @ C)' -i=S:" + matrix("cora") + " -i=B:" + matrix("power") + " -g=C:u -d=k:8", "");
  requireError("", "no statement given");
}

TEST_CASE("react-gen: prints trees and source without running, times with -time") {
  Result r = run("'A(i,j) = S(i,j) * B(i,k) * C(k,j)' -f=S:csr -f=B:dd -f=C:dd -d=i:50 -d=j:40 -d=k:8 -print-tree -print-source");
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(r.output.find("j (S: S row i)") != std::string::npos);
  CHECK(r.output.find("extern \"C\" void react_kernel") != std::string::npos);
  CHECK(r.output.find("time:") == std::string::npos);

  Result t = run("'A = S * (B @ C)' -i=S:" + matrix("cora") + " -g=B:u -g=C:u:7 -d=k:16 -time=5 -threads=2");
  INFO(t.output);
  CHECK(t.status == 0);
  CHECK(t.output.find("threads: 2") != std::string::npos);
  CHECK(t.output.find("time: median=") != std::string::npos);
  CHECK(t.output.find(" runs=5") != std::string::npos);

  Result all = run("'A = S / sum(S, axis=1)' -i=S:" + matrix("cora") + " -print-after-all");
  CHECK(all.output.find("--- after partial-fusion") != std::string::npos);
  CHECK(all.output.find("--- after shrink-temporaries") != std::string::npos);
}

TEST_CASE("react-gen and SciPy agree on SDDMM and SpMM-MM (cora)") {
  std::string dir = std::string(REACT_BINARY_DIR) + "/scipy-check";
  std::filesystem::create_directories(dir);
  std::string script = std::string(REACT_SOURCE_DIR) + "/test/scipy_check.py";
  for (const char* fusion : {"none", "maximal", "react"})
    for (const char* target : {"openmp", "kokkos"}) {
      INFO(fusion << " " << target);
      // The script writes dense inputs, runs react-gen, and compares with SciPy's result.
      Result r = test::runCommand("/usr/bin/python3 " + script + " " + REACT_BINARY_DIR + "/bin/react-gen " +
                                  matrix("cora") + " " + dir + " " + fusion + " " + target + " " + REACT_BINARY_DIR +
                                  "/jit-cache 2>&1");
      INFO(r.output);
      CHECK(r.status == 0);
      CHECK(r.output.find("sddmm: max relative error") != std::string::npos);
      CHECK(r.output.find("spmm_mm: max relative error") != std::string::npos);
    }
}
