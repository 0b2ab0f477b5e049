// Differential checks of one random program: the dense reference, the interpreter on the unfused
// and on every fused tree, Eigen, and JIT-compiled kernels.
#pragma once

#include "fuzz/random_program.hpp"
#include "lower/lower.hpp"

#include <optional>
#include <string>
#include <vector>

namespace react::fuzz {

struct Mismatch {
  std::string stage;   // "interpreter vs reference", "fusion maximal", "jit openmp react", ...
  std::string detail;  // the output and its relative error, or the exception
};

// The program react compiles from p (nullopt when the front end rejects it).
std::optional<Program> compileProgram(const RandomProgram& p);

// One result against the expected value (relative error < kTolerance).
std::optional<Mismatch> compareOutput(const std::string& name, const MarketData& got, const MarketData& want,
                                      const std::string& stage);
// Every output of `compiled` in `got` against `want` (relative error < kTolerance).
std::optional<Mismatch> compareOutputs(const Program& compiled, const TensorValues& got, const TensorValues& want,
                                       const std::string& stage);

struct InterpreterReport {
  TensorValues unfused;     // the unfused interpreter's outputs (what JIT kernels are compared with)
  int eigenOutputs = 0;     // outputs Eigen computed and compared
  int eigenLeftOut = 0;     // outputs that are not matrix shaped
};
// The interpreter on the unfused tree against referenceEvaluate, Eigen against the reference
// (where the program's statements are matrix shaped, eigen_reference.hpp), and the interpreter on
// the tree of each mode against the unfused one; for auto, on every candidate it weighs.
std::optional<Mismatch> checkInterpreter(const RandomProgram& p, const Program& compiled, const std::vector<FusionMode>& modes,
                                         InterpreterReport* report = nullptr);

struct JitConfig {
  FusionMode mode = FusionMode::React;
  Target target = Target::OpenMP;
  bool boundsCheck = false;
};
std::string stageName(const JitConfig& c);  // "jit openmp react", "jit kokkos none bounds-checked"
// Under auto, with p's input statistics and fuzzMachine(p).
CompileOptions compileOptions(const JitConfig& c, const JitOptions& jit, const RandomProgram& p);

// The machine auto decides for in the fuzzer: rates across four to six orders of magnitude and
// 1-64 threads, drawn from p's text (the same on every replay). Auto's choice follows the machine,
// so the fuzzer's auto kernels cover many choices, not only the one this host makes on tiny inputs.
MachineModel fuzzMachine(const RandomProgram& p);

// One program alone through one JIT configuration, against the unfused interpreter.
std::optional<Mismatch> checkJit(const RandomProgram& p, const Program& compiled, const JitConfig& c, const JitOptions& jit);

}  // namespace react::fuzz
