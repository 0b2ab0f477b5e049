// Test support: random inputs and programs, and an independent dense reference evaluator.
#pragma once

#include "indexnotation/indexnotation.hpp"
#include "indextree/indextree.hpp"
#include "lower/lower.hpp"

#include <random>
#include <string>

namespace react::test {

// The matrices in ../shared/data/matrices (the suite fails if the folder is missing).
std::string sharedMatrixDir();

// The JIT cache the tests share (build/jit-cache): reruns compile nothing.
JitOptions testCache();

// Runs a shell command; its exit status (-1 if it did not exit) and its standard output (append
// 2>&1 to the command for standard error too).
struct CommandResult {
  int status;
  std::string output;
};
CommandResult runCommand(const std::string& command);

// A random CSR matrix with values in [0.5, 1.5); every third row left empty when `emptyRows`.
CsrMatrix randomCsr(int64_t rows, int64_t cols, double density, uint64_t seed, bool emptyRows = true);
DenseTensor randomPositive(std::vector<int64_t> shape, uint64_t seed);  // values in [0.5, 1.5)

// A generated program: its statements as ASTs (evaluated by `referenceEvaluate`) and as the text
// the compiler parses.
struct RandomProgram {
  Environment env;
  TensorValues inputs;
  std::vector<Statement> statements;  // may contain Reduce nodes
  std::string text;
};
// 1..maxStatements statements over S (csr NI x NJ), B (NI x NK), C (NK x NJ), D (NI x NJ),
// v (NI), w (NJ), u (NK) and earlier results, each checked by the front end (rejected ones are
// regenerated).
RandomProgram randomProgram(uint64_t seed, int maxStatements, int64_t ni = 5, int64_t nj = 4, int64_t nk = 3);

// Evaluates statements with dense loops over every index point, stored-entry semantics for csr
// operands, independent of splitting, trees, fusion and code generation. Output formats (dense /
// csr with pattern) come from `compiled` (the program the compiler produced), so results can be
// compared entry by entry.
TensorValues referenceEvaluate(const std::vector<Statement>& statements, const Program& compiled,
                               const TensorValues& inputs);

// Largest |a-b| over the outputs relative to the largest |b| (NaN and inf must match exactly).
// Returns +inf when the structures differ.
double relativeError(const MarketData& a, const MarketData& b);
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
