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
std::optional<Mismatch> compareOutput(const std::string& name, const TensorData& got, const TensorData& want,
                                      const std::string& stage);
// Every output of `compiled` in `got` against `want` (relative error < kTolerance).
std::optional<Mismatch> compareOutputs(const Program& compiled, const TensorValues& got, const TensorValues& want,
                                       const std::string& stage);

// The program in float32: every input and result float32 (docs/semantics.md, "Value types"), the
// inputs rounded to float32, and what float32 evaluations are compared with: the float64
// reference evaluator's results on those inputs and their float32 bounds (float32_bound.hpp).
struct Float32Variant {
  Program compiled;
  TensorValues inputs;
  TensorValues reference, bounds;
};
Float32Variant float32Variant(const RandomProgram& p, const Program& compiled);

// Tolerances of the float32 checks, in units of an entry's bound (an entry whose bound is +inf
// is not compared). The bound is first order and follows the statements as written; fusion's
// rewrites (distributivity, inlining) round each term at most once more: a float32 result lies
// within 2 bounds of the float64 value, and two float32 results within 4 of each other.
constexpr double kFloat32VsFloat64 = 2;
constexpr double kFloat32VsFloat32 = 2 * kFloat32VsFloat64;
// Every output of `compiled` in `got` against `want`, entry by entry: |got - want| <= factor *
// bound, non-finite values equal; the structures (shape, csr pattern) must agree.
std::optional<Mismatch> compareWithinBounds(const Program& compiled, const TensorValues& got, const TensorValues& want,
                                            const TensorValues& bounds, double factor, const std::string& stage);

struct InterpreterReport {
  TensorValues unfused;     // the unfused interpreter's outputs (what JIT kernels are compared with)
  std::optional<Float32Variant> float32;  // when the float32 checks ran
  TensorValues unfused32;   // the unfused float32 interpreter's outputs
  int eigenOutputs = 0;     // outputs Eigen computed and compared
  int eigenLeftOut = 0;     // outputs that are not matrix shaped
};
// The interpreter on the unfused tree against referenceEvaluate, Eigen against the reference
// (where the program's statements are matrix shaped, eigen_reference.hpp), and the interpreter on
// the tree of each mode against the unfused one; for auto, on every candidate it weighs. With
// `float32`, then the float32 variant's interpreter on the unfused tree and on every tree of
// every mode against the float64 reference, within kFloat32VsFloat64 bounds.
std::optional<Mismatch> checkInterpreter(const RandomProgram& p, const Program& compiled, const std::vector<FusionMode>& modes,
                                         bool float32, InterpreterReport* report = nullptr);

struct JitConfig {
  FusionMode mode = FusionMode::React;
  Target target = Target::OpenMP;
  bool boundsCheck = false;
  ValueType valueType = ValueType::Float64;  // float32: the float32 variant's kernel
};
std::string stageName(const JitConfig& c);  // "jit openmp react", "jit kokkos none bounds-checked float32"
// Under auto, with p's input statistics and fuzzMachine(p).
CompileOptions compileOptions(const JitConfig& c, const JitOptions& jit, const RandomProgram& p);

// The machine auto decides for in the fuzzer: rates across four to six orders of magnitude and
// 1-64 threads, drawn from p's text (the same on every replay). Auto's choice follows the machine,
// so the fuzzer's auto kernels cover many choices, not only the one this host makes on tiny inputs.
MachineModel fuzzMachine(const RandomProgram& p);

// One program alone through one JIT configuration, against the unfused interpreter (of the
// float32 variant within kFloat32VsFloat32 bounds, for a float32 configuration).
std::optional<Mismatch> checkJit(const RandomProgram& p, const Program& compiled, const JitConfig& c, const JitOptions& jit);

}  // namespace react::fuzz
