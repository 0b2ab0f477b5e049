// react-gen end to end: argument errors name the argument and exit non-zero; printing, timing,
// writing results; SciPy (/usr/bin/python3) agrees with react-gen on SDDMM and SpMM-MM.
#include "support.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <functional>
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

// A SciPy check in test/ (scipy_check.py, scipy_coiteration.py), run in every fusion mode on both
// targets: `python3 SCRIPT REACT-GEN ARGS FUSION TARGET JIT-CACHE`; `check` reads each run's result.
void forEachScipyRun(const std::string& script, const std::string& args, const std::function<void(const Result&)>& check) {
  for (const char* fusion : {"none", "maximal", "react"})
    for (const char* target : {"openmp", "kokkos"}) {
      INFO(fusion << " " << target);
      Result r = test::runCommand("/usr/bin/python3 " + std::string(REACT_SOURCE_DIR) + "/test/" + script + " " + REACT_BINARY_DIR +
                                  "/bin/react-gen " + args + " " + fusion + " " + target + " " + REACT_BINARY_DIR + "/jit-cache 2>&1");
      INFO(r.output);
      CHECK(r.status == 0);
      check(r);
    }
}

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

TEST_CASE("react-gen: formats are parsed, those that do not run yet are clear errors") {
  requireError("'a(i) = S(i,j)' -f=S:csc -d=S:4x5", "input 'S' has no data: give it with -i=S:FILE.tns or -i=S:FILE.mtx");
  requireError("'a(i) = S(i,j)' -f=S:dcsr -d=S:4x5", "input 'S' has no data: give it with -i=S:FILE.tns or -i=S:FILE.mtx");
  requireError("'a(i) = S(i,j)' -f=S:uq -d=S:4x5", "input 'S' has no data: give it with -i=S:FILE.tns or -i=S:FILE.mtx");
  // A result declared coo is refused by its own name (a coo input's entries give results in its unique form).
  requireError("'A = S * 2' -i=S:" + matrix("cora") + " -f=A:coo",
               "format coo of tensor 'A' is not supported yet: level 0 is compressed-nonunique; the levels run are dense and "
               "compressed");
  requireError("'a(i) = X(i,j,k)' -f=X:csf -d=X:3x4x5", "input 'X' has no data: give it with -i=X:FILE.tns or -i=X:FILE.mtx");
  requireError("'a(i) = X(i,j,k)' -f=X:sds:1,0,2 -d=X:3x4x5",
               "1:8: format sds:1,0,2 of tensor 'X' is not supported yet: level 1 is dense under another level; a dense level runs "
               "as the first only");
  requireError("'A = S * (B @ C)' -i=S:" + matrix("cora") + " -f=S:sd -g=B:u -g=C:u -d=k:8",
               "argument '-f=S:sd': format sd of tensor 'S' is not supported yet: level 1 is dense under a sparse level, which "
               "runs in a result only");
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
  // The script writes dense inputs, runs react-gen, and compares with SciPy's result.
  forEachScipyRun("scipy_check.py", matrix("cora") + " " + dir, [](const Result& r) {
    CHECK(r.output.find("sddmm: max relative error") != std::string::npos);
    CHECK(r.output.find("spmm_mm: max relative error") != std::string::npos);
  });
}

TEST_CASE("react-gen and SciPy agree on co-iteration: S * T, S + T, S - T of two csr, csc or dcsr matrices") {
  std::string dir = std::string(REACT_BINARY_DIR) + "/scipy-coiteration";
  std::filesystem::create_directories(dir);
  // The script writes pairs of matrices, runs react-gen, and compares values and stored entries with SciPy's.
  forEachScipyRun("scipy_coiteration.py", dir, [](const Result& r) {
    for (const char* format : {"csr", "csc", "dcsr"})
      for (const char* pair : {"random", "disjoint", "one pattern", "explicit zeros", "no entries"})
        CHECK(r.output.find(std::string(format) + ", " + pair + ", A = S - T: ") != std::string::npos);
  });
}

TEST_CASE("react-gen -calibrate measures, says so, stores, a model measured under load says so") {
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
  // The library's dense product (Eigen's GEMM here) is measured, stored and read back.
  CHECK(m.productFlops > 0);
  CHECK(m.str().find("library product") != std::string::npos);
  // exp in rows of 4 entries, where the vector library's exp runs in the loop's scalar remainder.
  CHECK(m.shortRowExpRate > 0);
  CHECK(m.str().find("(in rows of 4: ") != std::string::npos);
  // The warning travels with the stored model and is shown wherever the model is.
  m.loadWarning = "measured under load: the copy bandwidth of one thread was 20.0 GB/s at the start and 5.0 GB/s at the end";
  JitOptions jit;
  jit.cacheDir = dir;
  MachineModel back = readMachineModel(storeMachineModel(m, jit));
  CHECK(back.loadWarning == m.loadWarning);
  CHECK(back.productFlops == doctest::Approx(m.productFlops));
  CHECK(back.shortRowExpRate == doctest::Approx(m.shortRowExpRate));
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

TEST_CASE("auto on the Kokkos target decides with a model of the Kokkos execution space, stored per device") {
  std::string dir = std::string(REACT_BINARY_DIR) + "/calibrate-kokkos-test";
  std::filesystem::remove_all(dir);
  Result r = test::runCommand(std::string(REACT_BINARY_DIR) + "/bin/react-gen -calibrate -target=kokkos -cache-dir=" + dir + " 2>&1");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK(r.output.find("react: measuring Kokkos ") != std::string::npos);
  CHECK(r.output.find("on the Kokkos target (once per device)") != std::string::npos);
  std::string path;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().filename().string().rfind("machine-kokkos-", 0) == 0) path = entry.path().string();
  REQUIRE(!path.empty());
  CHECK(r.output.find("stored in " + path) != std::string::npos);
  MachineModel stored = readMachineModel(path);
  CHECK(stored.device.rfind("Kokkos ", 0) == 0);
  CHECK(stored.productFlops > 0);  // the nest itself on a host Kokkos, which has no library product
  // Shared among the rows the space runs at once: a thread each on a host space (these tests').
  JitOptions jit;
  jit.cacheDir = dir;
  CompileOptions kokkos;
  kokkos.target = Target::Kokkos;
  kokkos.jit = jit;
  Environment copyEnv;
  copyEnv.declare("B", {4}, Format::dense(1));
  const Kernel copy = Kernel::compile(parseIndexNotation("A(i) = B(i)", copyEnv), kokkos);
  const KokkosRuntime& runtime = copy.library().runtime;
  REQUIRE(runtime.hostAccessible());
  CHECK(stored.threads == runtime.concurrency());
  CHECK(stored.bandwidth1 * stored.threads == doctest::Approx(stored.bandwidth));  // a row's share of the space's
  CHECK(stored.str().find(stored.device + ", " + std::to_string(stored.threads) + " row") == 0);
  // No OpenMP model was measured: nothing of the Kokkos model stands in for one.
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string file = entry.path().filename().string();
    CHECK_FALSE((file.rfind("machine-", 0) == 0 && file.rfind("machine-kokkos-", 0) != 0));
  }
  CHECK(machineModel(jit, 1, Target::Kokkos).source == path);
  // A model of another device is not this one's: measured again, stored under this device's name.
  {
    std::string text;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) text += (line.rfind("device=", 0) == 0 ? "device=Kokkos Elsewhere" : line) + "\n";
    in.close();
    std::ofstream(path) << text;
  }
  CHECK(machineModel(jit, 1, Target::Kokkos).source == "calibrated now, stored in " + path);
  CHECK(readMachineModel(path).device == stored.device);
  // Auto on the Kokkos target uses it (Kernel::compile's default machine), and its kernel agrees
  // with the interpreter.
  Environment env;
  env.declare("S", {30, 20}, Format::csr());
  env.declare("C", {20, 8}, Format::dense(2));
  env.declare("D", {8, 4}, Format::dense(2));
  Program p = parseProgram("A = S @ C @ D", env);
  CompileOptions options;
  options.target = Target::Kokkos;
  options.jit = jit;
  TensorValues inputs{{"S", test::randomCsr(30, 20, 0.2, 5)}, {"C", randomDense({20, 8}, 6)}, {"D", randomDense({8, 4}, 7)}};
  options.stats = inputStats(inputs);
  AutoDecision decision;
  fusedTree(p, options, &decision);
  CHECK(decision.machine.source == path);
  Kernel k = Kernel::compile(p, options, inputs);
  test::requireClose(p, k.run(inputs), interpret(buildIndexTree(p), inputs), "auto on the Kokkos target");
}

TEST_CASE("a Kokkos model shares the space's measurements among the rows it runs at once") {
  MachineModel whole;
  whole.device = "Kokkos Somewhere";
  whole.bandwidth = whole.bandwidth1 = 2e12;
  whole.vectorFlops.fill(4e12);
  whole.reductionFlops.fill(4e11);
  whole.scratchRowFlops.fill(1e12);
  whole.rowFlops.fill(8e11);
  whole.expRate = 1.6e11;
  whole.productFlops = 5e13;
  whole.shortRowExpRate = 4e10;
  // A device: a warp a row (an H100's 270,336 threads run 8,448 rows).
  MachineModel gpu = sharedAmongRows(whole, 270336, false);
  CHECK(gpu.threads == 8448);
  CHECK(gpu.bandwidth == 2e12);
  CHECK(gpu.bandwidth1 == doctest::Approx(2e12 / 8448));
  CHECK(gpu.vectorFlops[2] * 8448 == doctest::Approx(4e12));
  CHECK(gpu.reductionFlops[2] * 8448 == doctest::Approx(4e11));
  CHECK(gpu.scratchRowFlops[2] * 8448 == doctest::Approx(1e12));
  CHECK(gpu.rowFlops[2] * 8448 == doctest::Approx(8e11));
  CHECK(gpu.expRate * 8448 == doctest::Approx(1.6e11));
  CHECK(gpu.productFlops * 8448 == doctest::Approx(5e13));
  CHECK(gpu.shortRowExpRate * 8448 == doctest::Approx(4e10));
  // A host space: a thread a row; a device of fewer threads than a warp still runs one row.
  CHECK(sharedAmongRows(whole, 16, true).threads == 16);
  CHECK(sharedAmongRows(whole, 16, false).threads == 1);
  // What it is for: a nest of fewer rows than the device runs at once leaves it partly idle, so
  // the same work over 2,000 rows is estimated slower than over 20,000.
  auto estimate = [&](int64_t rows) {
    Environment env;
    env.declare("B", {rows, 20000000 / rows}, Format::dense(2));
    Program p = parseIndexNotation("A(i,j) = B(i,j) * 2", env);
    return estimateCost(fuse(p, FusionMode::None), InputStats{}, gpu).seconds;
  };
  CHECK(estimate(2000) > 2 * estimate(20000));
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

TEST_CASE("react-gen -t: float32 for every tensor or one, inputs read and made in it, results written in it") {
  namespace fs = std::filesystem;
  const std::string dir = std::string(REACT_BINARY_DIR) + "/float32-cli";
  fs::create_directories(dir);
  const std::string input = dir + "/s.mtx", out32 = dir + "/a32.mtx", out64 = dir + "/a64.mtx", outMixed = dir + "/mixed.mtx";
  writeMatrixMarket(input, fuzz::randomCsr(40, 30, 0.2, 11));
  const std::string sddmm = "'A(i,j) = S(i,j) * B(i,k) * C(k,j)' -i=S:" + input + " -g=B:u -g=C:u:7 -d=k:16";
  Result r32 = run(sddmm + " -t=float32 -o=A:" + out32);
  INFO(r32.output);
  REQUIRE(r32.status == 0);
  REQUIRE(run(sddmm + " -o=A:" + out64).status == 0);
  REQUIRE(run(sddmm + " -t=float32 -t=A:float64 -o=A:" + outMixed).status == 0);

  // What react-gen computed, through the interpreter: its inputs made the same way.
  Environment env;
  env.declare("S", {40, 30}, Format::csr());
  env.declare("B", {40, 16}, Format::dense(2));
  env.declare("C", {16, 30}, Format::dense(2));
  Program p = parseIndexNotation("A(i,j) = S(i,j) * B(i,k) * C(k,j)", env);
  std::map<std::string, ValueType> all32 = {{"S", ValueType::Float32}, {"B", ValueType::Float32}, {"C", ValueType::Float32},
                                            {"A", ValueType::Float32}};
  auto inputsAs = [&](ValueType t) {
    return TensorValues{{"S", readMatrixMarketCsr(input, t)}, {"B", randomDense({40, 16}, 1, "B", t)},
                        {"C", randomDense({16, 30}, 7, "C", t)}};
  };
  const CsrMatrix a32 = readMatrixMarketCsr(out32, ValueType::Float32), a64 = readMatrixMarketCsr(out64);
  TensorValues want32 = interpret(buildIndexTree(withValueTypes(p, all32)), inputsAs(ValueType::Float32));
  const CsrMatrix& interpreted = std::get<CsrMatrix>(want32.at("A"));
  CHECK(a32.val != a64.val);
  // Both compute each entry from the same 16 float32 products, summed in any order: each is within
  // 18 roundings (the products, 16 additions, the product with S) of the magnitude of the terms
  // (float32_bound.hpp), so the two are within twice that of each other.
  const CsrMatrix s = readMatrixMarketCsr(input, ValueType::Float32);
  const DenseTensor b = randomDense({40, 16}, 1, "B", ValueType::Float32), c = randomDense({16, 30}, 7, "C", ValueType::Float32);
  for (int64_t r = 0; r < s.rows; ++r)
    for (int64_t q = s.rowptr[r]; q < s.rowptr[r + 1]; ++q) {
      double magnitude = 0;
      for (int64_t k = 0; k < 16; ++k) magnitude += std::abs(s.val[q] * b.data[r * 16 + k] * c.data[k * 30 + s.col[q]]);
      CHECK(std::abs(a32.val[q] - interpreted.val[q]) <= 2 * 18 * 0x1p-24 * magnitude);
    }
  // Float32 results are written as the shortest text of a float32: at most 9 significant digits.
  std::ifstream in(out32);
  std::string line;
  for (int skip = 0; skip < 2; ++skip) std::getline(in, line);
  while (in >> line >> line >> line) CHECK(line.size() <= 9 + 6);  // digits, '.', '-', "e-05"
  // -t=A:float64 wins over -t=float32: a float64 result of float32 inputs, computed in double.
  std::map<std::string, ValueType> mixed = all32;
  mixed["A"] = ValueType::Float64;
  TensorValues wantMixed = interpret(buildIndexTree(withValueTypes(p, mixed)), inputsAs(ValueType::Float32));
  CHECK(fuzz::relativeError(readMatrixMarketCsr(outMixed), wantMixed.at("A")) < 1e-12);

  Result source = run("'A = S * (B @ C)' -f=S:csr -d=S:100x80 -d=B:100x16 -d=C:16x80 -t=S:float32 -print-source");
  CHECK(source.output.find("float* const val_S = static_cast<float*>(t[") != std::string::npos);
  CHECK(source.output.find("double* const val_A = static_cast<double*>(t[") != std::string::npos);
  requireError(sddmm + " -t=float16", "argument '-t=float16': unknown value type 'float16' (expected float32 or float64)");
  requireError(sddmm + " -t=A:half", "argument '-t=A:half': unknown value type 'half' (expected float32 or float64)");
  requireError(sddmm + " -t=Q:float32", "argument '-t=Q:float32': the program has no input or result 'Q'");
  requireError(sddmm + " -t=", "argument '-t=': expected a value after '='");
  fs::remove_all(dir);
}

TEST_CASE("react-gen -i reads a FROSTT tensor into csf (or -f's format) and a Matrix Market file into -f's format") {
  namespace fs = std::filesystem;
  const std::string dir = std::string(REACT_BINARY_DIR) + "/tensors-cli";
  fs::create_directories(dir);
  const std::string b = dir + "/b.tns", c = dir + "/c.mtx", d = dir + "/d.mtx", s = dir + "/s.mtx";
  writeFrostt(b, powerLawTensor({20, 15, 10}, 300, 3));
  writeMatrixMarket(c, randomDense({15, 6}, 4));
  writeMatrixMarket(d, randomDense({10, 6}, 5));
  writeMatrixMarket(s, fuzz::randomCsr(12, 9, 0.3, 6));
  const std::string mttkrp = "'A(i,j) = B(i,k,l) * C(k,j) * D(l,j)' -i=B:" + b + " -i=C:" + c + " -i=D:" + d;

  // What react-gen computes, through the interpreter on the same files.
  TensorValues inputs{{"B", readFrostt(b, Format::csf(3))},
                      {"C", toTensorData(readMatrixMarket(c))},
                      {"D", toTensorData(readMatrixMarket(d))}};
  Environment env;
  for (const auto& [name, value] : inputs) env.declare(name, shapeOf(value), formatOf(value));
  const Program p = parseIndexNotation("A(i,j) = B(i,k,l) * C(k,j) * D(l,j)", env);
  const TensorValues want = interpret(buildIndexTree(p), inputs);
  // coo is read as it is and iterated as csf (Format::iterated), in any mode ordering.
  for (const char* format : {"", " -f=B:csf", " -f=B:sss:2,0,1", " -f=B:dss", " -f=B:coo", " -f=B:ucq:1,2,0"})
    for (const char* mode : {"none", "react"}) {
      const std::string out = dir + "/a.mtx";
      Result r = run(mttkrp + format + " -fusion=" + mode + " -o=A:" + out);
      INFO(format << " " << mode << "\n" << r.output);
      REQUIRE(r.status == 0);
      CHECK(fuzz::relativeError(toTensorData(readMatrixMarket(out)), want.at("A")) < 1e-12);
    }
  // A shape given by -d bounds the coordinates; the file's rank must be the program's.
  requireError(mttkrp + " -d=B:20x15x5", "argument '-i=B:" + b + "': " + b + ":");
  requireError("'a(i) = B(i,k)' -i=B:" + b, "argument '-i=B:" + b + "': " + b + ":2: expected 2 coordinates and a value");
  requireError(mttkrp + " -f=B:ssd",
               "argument '-f=B:ssd': format ssd of tensor 'B' is not supported yet: level 2 is dense under a sparse level, which "
               "runs in a result only");

  // A rank-3 result (TTM) is written as FROSTT: its nonzeros, read back as the interpreter's.
  const std::string ttm = "'A(i,j,l) = B(i,j,k) * C(k,l)' -i=B:" + b + " -g=C:u -d=l:3";
  {
    TensorValues ttmInputs{{"B", inputs.at("B")}, {"C", randomDense({10, 3}, 1)}};
    Environment ttmEnv;
    for (const auto& [name, value] : ttmInputs) ttmEnv.declare(name, shapeOf(value), formatOf(value));
    const TensorValues ttmWant = interpret(buildIndexTree(parseIndexNotation("A(i,j,l) = B(i,j,k) * C(k,l)", ttmEnv)), ttmInputs);
    for (const char* mode : {"none", "maximal", "react"}) {
      Result r = run(ttm + " -fusion=" + mode + " -o=A:" + dir + "/a.tns");
      INFO(mode << "\n" << r.output);
      REQUIRE(r.status == 0);
      const TensorData got = sparseToDense(readFrostt(dir + "/a.tns", Format::coo(3), ValueType::Float64, {20, 15, 3}));
      CHECK(fuzz::relativeError(got, ttmWant.at("A")) < 1e-12);
    }
  }
  requireError(ttm + " -o=A:" + dir + "/a.mtx",
               "argument '-o=A:" + dir + "/a.mtx': 'A' has rank 3; Matrix Market holds rank 2 at most: write it as FROSTT (a .tns file)");

  // Matrix Market into csc: the same SpMM as from csr.
  const std::string spmm = "'A(i,h) = S(i,j) * C(j,h)' -i=S:" + s + " -g=C:u -d=h:4";
  REQUIRE(run(spmm + " -o=A:" + dir + "/csr.mtx").status == 0);
  Result csc = run(spmm + " -f=S:csc -o=A:" + dir + "/csc.mtx");
  INFO(csc.output);
  REQUIRE(csc.status == 0);
  CHECK(fuzz::relativeError(toTensorData(readMatrixMarket(dir + "/csc.mtx")), toTensorData(readMatrixMarket(dir + "/csr.mtx"))) <
        1e-12);
  fs::remove_all(dir);
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
