// Random react programs for differential testing (the unit tests and react-fuzz).
#pragma once

#include "indexnotation/indexnotation.hpp"
#include "indextree/indextree.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace react::fuzz {

// A random CSR matrix with values in [0.5, 1.5); every third row left empty when `emptyRows`.
CsrMatrix randomCsr(int64_t rows, int64_t cols, double density, uint64_t seed, bool emptyRows = true);
DenseTensor randomPositive(std::vector<int64_t> shape, uint64_t seed);  // values in [0.5, 1.5)

// What drawing a program's statements took: statements kept, and drawn statements thrown away
// because the front end refused them (a UserError: react's semantics or a format that cannot be a
// result) or because they broke the value rules (keepsValueRules). `reads`: kept statements
// reading an input of each format ("csr", "csc", "dcsr", "csf", "sss:1,0,2", "dense3", ...);
// `contractions`: kept MTTKRP- and TTM-like products of a rank-3 input and dense matrices.
struct GenerationCounts {
  uint64_t kept = 0, refused = 0, brokeValueRules = 0, contractions = 0;
  std::map<std::string, uint64_t> coIterations;  // kept co-iterations of two patterns, by their format
  std::map<std::string, uint64_t> reads;
  std::map<std::string, uint64_t> results;  // kept statements by their result's format (csc, ssd, dense2, ...)
  GenerationCounts& operator+=(const GenerationCounts& o);
  std::string str() const;  // "statements kept 812, refused by the front end 1203, ...; reads: csc 120, ...; results: ..."
};

// A generated program: declarations, input values, the statements as ASTs (evaluated by
// referenceEvaluate; they may contain Reduce nodes) and as the text the compiler parses.
struct RandomProgram {
  Environment env;
  TensorValues inputs;
  std::vector<Statement> statements;
  std::string text;  // programText(statements)
  // Each input's dimensions as index names (every access of an input uses indices of these
  // extents), so that a dimension can be shrunk consistently.
  std::map<std::string, std::vector<std::string>> inputIndices;
  GenerationCounts counts;  // how the generator drew it (zero for a program read back)
};

std::string programText(const std::vector<Statement>& statements);  // one statement per line

// Rules every generated statement keeps (checked with referenceEvaluate, so they hold for the
// given inputs): no subexpression is inf or NaN (IEEE infinities and NaN make exact algebraic
// rewrites such as distributivity disagree; a max reduction over an empty row is -inf, so inside
// an expression it is clamped, max(max(x, k), -4)), and no subexpression is more than 100 times
// larger than the largest result (nor 100 when the results are below 1), so that reordered sums
// stay within the 1e-12 tolerance. A result may be -inf only where a statement-level max reduces
// an empty row; such results are never read again. Denominators are literals, exp(...) or
// operands whose values are all at least 0.25.
bool keepsValueRules(const std::vector<Statement>& statements, const Program& compiled, const TensorValues& inputs);

// Names that broke generated code or could: C++ keywords, names and macros of the C and C++
// libraries and of Kokkos, react's own identifiers in kernels, and what the emitters once derived
// from names (S_pos, N_i, p_j, T0, ...). Valid tensor and index names, none of the usual ones below
// (S, B, i, O0, ...).
extern const std::vector<std::string> kUnusualNames;
// The index notation's functions: index names, not tensor names.
extern const std::vector<std::string> kFunctionNames;

// 1..maxStatements statements over S (csr NI x NJ, every third row empty), B (NI x NK),
// C (NK x NJ), D (NI x NJ), v (NI), w (NJ), u (NK) and earlier results, each checked by the front
// end (rejected ones are regenerated). Throws std::runtime_error if no statement can be drawn.
RandomProgram randomProgram(uint64_t seed, int maxStatements, int64_t ni = 5, int64_t nj = 4, int64_t nk = 3);

// The fuzzer's programs: 1..maxStatements statements over a random environment: 1-4 indices of
// extents 1-7, up to three sparse matrices in csr, csc or dcsr (0 nnz, full, one entry, random
// with or without empty rows, some explicit zeros), dense matrices, vectors and a scalar, some
// accessed transposed or with other indices of the same extents; over 3 or more indices, in one
// program of two, a 3-tensor, dense or sparse (csf or dss in a random mode ordering, as sparse
// as the matrices), with dense factor matrices sharing its indices, and products of it with them
// (MTTKRP, TTM and the like); every operator and reduction of the index notation. A statement
// reading a sparse input other than csr declares its result dense more often (such a result
// cannot be stored in the input's format). In one program of three, each tensor and index has
// even odds of a name from kUnusualNames (indices also from kFunctionNames) instead of the usual
// one.
RandomProgram randomFuzzProgram(uint64_t seed, int maxStatements);

}  // namespace react::fuzz
