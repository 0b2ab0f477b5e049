// Test support: the shared matrices, fuzz/ helpers under their test names, the four kernels.
#pragma once

#include "fuzz/random_program.hpp"
#include "fuzz/reference.hpp"
#include "indexnotation/indexnotation.hpp"
#include "indextree/indextree.hpp"
#include "lower/lower.hpp"

#include <functional>
#include <string>

namespace react::test {

// The matrices in ../shared/data/matrices (the suite fails if the folder is missing).
std::string sharedMatrixDir();

// The reviewed text of the golden file `path`; with $REACT_UPDATE_GOLDEN set, `got` is written
// there first (review the diff in git). A missing file fails the test.
std::string goldenText(const std::string& path, const std::string& got);

// The JIT cache the tests share (build/jit-cache): reruns compile nothing.
JitOptions testCache();

// `programs` compiled as one batch (the tests' JIT cache) for each emitter and each fixed fusion
// mode (none, maximal, react: auto has tests of its own), each batch handed to `check`.
void forEachKernelBatch(const std::vector<Program>& programs,
                        const std::function<void(Target, FusionMode, const std::vector<Kernel>&)>& check);

// How many random programs a long randomized test runs: n, times $REACT_TEST_SCALE (a fraction;
// scripts/test-sanitizers.sh runs a quarter, since the release suite runs them all), at least 1.
int scaled(int n);

// Fixed machine rates, so that auto's decisions in tests do not depend on the machine running
// them; flopBoundMachine's memory is far faster than its arithmetic: decisions follow the flops.
MachineModel testMachine();
MachineModel flopBoundMachine();

// Runs a shell command; its exit status (-1 if it did not exit) and its standard output (append
// 2>&1 to the command for standard error too).
struct CommandResult {
  int status;
  std::string output;
};
CommandResult runCommand(const std::string& command);

// Random inputs and programs, the dense reference evaluator and the comparison live in fuzz/
// (react_fuzzlib), shared with react-fuzz.
using fuzz::randomCsr;
using fuzz::randomPositive;
using fuzz::RandomProgram;
using fuzz::randomProgram;
using fuzz::referenceEvaluate;
using fuzz::relativeError;

// `got` equals `want` value by value (a NaN where the other has a NaN), naming the first that differs.
void requireEqualValues(const std::vector<double>& got, const std::vector<double>& want);

// Checks every Output of `program` in `got` against `want` to 1e-12, naming the tensor.
void requireClose(const Program& program, const TensorValues& got, const TensorValues& want, const std::string& what);

// The four benchmark kernels on small random inputs.
struct KernelCase {
  std::string name, text;
  Environment env;
  TensorValues inputs;
};
std::vector<KernelCase> benchmarkKernels(const CsrMatrix& s, int64_t dense, uint64_t seed);

}  // namespace react::test
