// react-gen end to end: argument errors name the argument and exit non-zero; printing, timing,
// writing results; SciPy (/usr/bin/python3) agrees with react-gen on SDDMM and SpMM-MM.
#include "support.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <utility>

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
  // An error found on the way through fusion mode auto is still the user's: status 1, not 70.
  requireError("'A = S * (B @ C)' -f=S:csr -d=S:40x40 -d=B:40x8 -d=C:8x40 -fusion=auto",
               "auto: no statistics for csr input 'S'");
}

TEST_CASE("react-gen: formats are parsed; those that do not run yet are clear errors") {
  requireError("'a(i) = S(i,j)' -f=S:csc -d=S:4x5", "1:8: format csc of tensor 'S' is not supported yet; only csr and dense");
  requireError("'a(i) = S(i,j)' -f=S:dcsr -d=S:4x5", "1:8: format dcsr of tensor 'S' is not supported yet; only csr and dense");
  requireError("'a(i) = S(i,j)' -f=S:uq -d=S:4x5", "1:8: format coo of tensor 'S' is not supported yet; only csr and dense");
  requireError("'a(i) = X(i,j,k)' -f=X:csf -d=X:3x4x5", "1:8: format csf of tensor 'X' is not supported yet; only csr and dense");
  requireError("'a(i) = X(i,j,k)' -f=X:sss:1,0,2 -d=X:3x4x5",
               "1:8: format sss:1,0,2 of tensor 'X' is not supported yet; only csr and dense");
  requireError("'A = S * (B @ C)' -i=S:" + matrix("cora") + " -f=S:coo -g=B:u -g=C:u -d=k:8",
               "argument '-f=S:coo': format coo of tensor 'S' is not supported yet; only csr and dense");
  requireError("'A = S * (B @ C)' -i=S:" + matrix("cora") + " -f=S:dense -g=B:u -g=C:u -d=k:8",
               "argument '-f=S:dense': 'S' was loaded as csr");
  requireError("'a(i) = S(i,j)' -f=S:xyz -d=S:4x5", "argument '-f=S:xyz': unknown format 'xyz' (expected dense, csr, csc,");
  requireError("'a(i) = S(i,j)' -f=S:ds:1,1 -d=S:4x5",
               "argument '-f=S:ds:1,1': format 'ds:1,1': mode ordering 1,1 is not a permutation of the 2 dimensions 0..1");
  requireError("'a(i) = S(i,j)' -g=S:u -f=S:csr -d=S:4x5", "argument '-g=S': generated inputs are dense");
  for (const char* ok : {"-f=S:ds", "-f=S:csr"}) {
    Result r = run(std::string("'a(i) = S(i,j)' ") + ok + " -d=S:4x5 -print-tree");
    INFO(r.output);
    CHECK(r.status == 0);
    CHECK(r.output.find("j (S: S row i)") != std::string::npos);
  }
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

TEST_CASE("react-gen -calibrate measures, says so, stores; a model measured under load says so") {
  std::string dir = std::string(REACT_BINARY_DIR) + "/calibrate-test";
  std::filesystem::remove_all(dir);
  Result r = test::runCommand(std::string(REACT_BINARY_DIR) + "/bin/react-gen -calibrate -threads=1 -cache-dir=" + dir + " 2>&1");
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(r.output.find("react: measuring this machine for fusion mode auto") != std::string::npos);
  CHECK(r.output.find(": done in ") != std::string::npos);
  CHECK(r.output.find("stored in " + dir + "/machine-1t.txt") != std::string::npos);
  MachineModel m = readMachineModel(dir + "/machine-1t.txt");
  CHECK(m.threads == 1);
  // The warning travels with the stored model and is shown wherever the model is.
  m.loadWarning = "measured under load: the copy bandwidth of one thread was 20.0 GB/s at the start and 5.0 GB/s at the end";
  JitOptions jit;
  jit.cacheDir = dir;
  MachineModel back = readMachineModel(storeMachineModel(m, jit));
  CHECK(back.loadWarning == m.loadWarning);
  CHECK(back.str().find("WARNING: measured under load") != std::string::npos);
  // machineModel uses the stored model as long as it names these calibration kernels (a hash of
  // their emitted sources and the compiler) ...
  const std::string path = dir + "/machine-1t.txt";
  CHECK(machineModel(jit, 1).source == path);
  // ... and measures again, storing the new model, when it names other ones.
  std::string text;
  {
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);)
      text += (line.rfind("calibration=", 0) == 0 ? "calibration=0123456789abcdef" : line) + "\n";
  }
  std::ofstream(path) << text;
  MachineModel measured = machineModel(jit, 1);
  CHECK(measured.source == "calibrated now, stored in " + path);
  CHECK(machineModel(jit, 1).source == path);
}

TEST_CASE("react-gen: shapes by tensor, errors at the statement's own line, units, output checks before compiling") {
  // Operator form printed without index names: shapes by tensor.
  Result shapes = run("'A = S * (B @ C)' -f=S:csr -d=S:100x80 -d=B:100x16 -d=C:16x80 -print-source");
  INFO(shapes.output);
  CHECK(shapes.status == 0);
  CHECK(shapes.output.find("extern \"C\" void react_kernel") != std::string::npos);
  requireError("'A = S * (B @ C)' -f=S:csr -d=S:100x80 -d=B:100x16x3 -d=C:16x80 -print-source",
               "1:12: '@' needs operands of rank 1 or 2, but the left one has rank 3");
  requireError("'A = S * (B @ C)' -i=S:" + matrix("cora") + " -d=S:100x80 -print-tree",
               "argument '-d=S:100x80': 'S' is loaded from '" + matrix("cora") + "' with another shape");
  requireError("'A = S * (B @ C)' -d=S:100xq", "argument '-d=S:100xq': 'q' is not a positive integer");
  // One statement: its errors are on line 1.
  requireError("'A = S * (B @ C'", "1:");
  Result line = run("'A = S * (B @ C'");
  CHECK(line.output.find("2:1") == std::string::npos);
  // Units, and -o checked before anything is compiled.
  Result timed = run("'A(i,j) = B(i,j) * 2' -g=B:u -d=i:3 -d=j:3 -time=2");
  CHECK(timed.output.find(" ms min=") != std::string::npos);
  requireError("'A(i,j) = B(i,j) * 2' -g=B:u -d=i:3 -d=j:3 -o=Z:/tmp/z.mtx", "argument '-o=Z:/tmp/z.mtx': the program has no tensor 'Z'");
  requireError("'A(i,j) = B(i,j) * 2' -g=B:u -d=i:3 -d=j:3 -o=A:/nonexistent-dir/a.mtx",
               "argument '-o=A:/nonexistent-dir/a.mtx': the directory '/nonexistent-dir' does not exist");
  requireError("'A = S * (B @ C)' -i=S:/nonexistent.mtx", "argument '-i=S:/nonexistent.mtx': /nonexistent.mtx");
  // Counts that do not fit are errors, not wrapped.
  requireError("'A(i,j) = B(i,j) * 2' -g=B:u -d=i:3 -d=j:3 -threads=4294967297", "argument '-threads=4294967297': '4294967297' is not an integer from 1 to 4096");
  requireError("'A(i,j) = B(i,j) * 2' -g=B:u -d=i:3 -d=j:3 -time=2147483648", "argument '-time=2147483648'");
  // No regular expression on user text: a huge or odd name is a plain error or works.
  requireError("'A(i,j) = B(i,j) * 2' '-g=B(:u' -d=i:3 -d=j:3", "argument '-g=B(:u': 'B(' is not a name");
  Result huge = run("'A(i,j) = B(i,j) * 2' -g=" + std::string(60000, 'x') + ":u -d=i:3 -d=j:3 -print-tree");
  CHECK(huge.status == 1);
  CHECK(huge.output.find("internal error") == std::string::npos);
}

TEST_CASE("react-demo rejects an unknown flag before doing any work") {
  Result r = test::runCommand(std::string(REACT_BINARY_DIR) + "/bin/react-demo --bogus 2>&1");
  CHECK(r.status == 1);
  CHECK(r.output.find("argument '--bogus': unknown option") != std::string::npos);
  CHECK(r.output.find("Matrix Market round trips") == std::string::npos);
}

TEST_CASE("README: every react-gen example runs as written from the repository root") {
  // A stand-in root: build/ and ../shared are where a fresh clone has them, and the examples'
  // outputs land here, not in the checkout.
  namespace fs = std::filesystem;
  std::string root = std::string(REACT_BINARY_DIR) + "/readme-test/root";
  fs::remove_all(fs::path(root).parent_path());
  fs::create_directories(root);
  fs::create_directory_symlink(REACT_BINARY_DIR, root + "/build");
  fs::create_directory_symlink(test::sharedMatrixDir() + "/../..", fs::path(root).parent_path() / "shared");
  std::ifstream readme(std::string(REACT_SOURCE_DIR) + "/README.md");
  std::vector<std::string> examples;
  std::string command;
  for (std::string line; std::getline(readme, line);) {
    if (command.empty() && line.rfind("build/bin/react-gen ", 0) != 0) continue;
    bool continued = !line.empty() && line.back() == '\\';
    command += continued ? line.substr(0, line.size() - 1) : line;
    if (!continued) examples.push_back(std::exchange(command, ""));
  }
  REQUIRE(examples.size() >= 6);
  for (const std::string& example : examples) {
    Result r = test::runCommand("cd " + root + " && REACT_CACHE_DIR=" + root + "/../cache " + example + " 2>&1");
    INFO(example << "\n" << r.output);
    CHECK(r.status == 0);
  }
  CHECK(fs::file_size(root + "/a.mtx") > 0);
}
