// Lowering: loop IR, both emitters through the JIT (many kernels per translation unit), against
// the reference interpreter on random programs, the four kernels, and real matrices.
#include "lower/lower.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

#include <filesystem>

using namespace react;
using namespace react::test;

namespace {

// Fusion mode react on the Kokkos target, through the tests' JIT cache.
CompileOptions kokkosReact() {
  CompileOptions o;
  o.fusion = FusionMode::React;
  o.target = Target::Kokkos;
  o.jit = testCache();
  return o;
}

bool hasCancellingRow(const CsrMatrix& m) {
  for (int64_t r = 0; r < m.rows; ++r) {
    double sum = 0, magnitude = 0;
    for (int64_t p = m.rowptr[r]; p < m.rowptr[r + 1]; ++p) {
      sum += m.val[p];
      magnitude += std::abs(m.val[p]);
    }
    if (magnitude > 0 && std::abs(sum) < 1e-8 * magnitude) return true;
  }
  return false;
}

struct Run {
  Program program;  // the program for these inputs' shapes (for the reference)
  TensorValues inputs;
};
struct Case {
  std::vector<Run> runs;  // one kernel, compiled for the first, runs on each
  std::string what;
};

std::vector<Case> cases(int randomPrograms) {
  std::vector<Case> out;
  // The four kernels, compiled once each, run on random matrices and on real ones.
  std::vector<CsrMatrix> matrices = {randomCsr(9, 7, 0.4, 1), randomCsr(4, 12, 0.5, 2)};
  for (const char* name : {"cora", "power", "lp_maros_r7", "bayer10"})
    matrices.push_back(readMatrixMarketCsr(sharedMatrixDir() + "/" + name + ".mtx"));
  for (size_t k = 0; k < 4; ++k) {
    Case c;
    for (const CsrMatrix& m : matrices) {
      KernelCase kc = benchmarkKernels(m, 4, 7)[k];
      // Dividing by a row sum that cancels to ~0 (bayer10 has such rows) makes the result depend
      // on the summation order, which parallel code may change: no exact comparison there.
      if ((kc.name == "norm_row" || kc.name == "softmax") && hasCancellingRow(m)) continue;
      c.runs.push_back({parseProgram(kc.text, kc.env), kc.inputs});
      c.what = kc.name;
    }
    out.push_back(std::move(c));
  }
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(randomPrograms); ++seed) {
    RandomProgram r = randomProgram(seed + 5000, 5);
    out.push_back({{{parseIndexNotation(r.text, r.env), r.inputs}}, "random program " + std::to_string(seed) + ":\n" + r.text});
  }
  return out;
}

void checkTarget(Target target, int randomPrograms, int teamSize = 0, bool laneLoopsOutermost = false) {
  std::vector<Case> cs = cases(randomPrograms);
  for (FusionMode mode : {FusionMode::None, FusionMode::Maximal, FusionMode::React}) {
    std::vector<Program> programs;
    for (const Case& c : cs) programs.push_back(c.runs[0].program);
    CompileOptions o;
    o.fusion = mode;
    o.target = target;
    o.jit = testCache();
    o.emit.kokkosTeamSize = teamSize;
    o.emit.laneLoopsOutermost = laneLoopsOutermost;
    std::vector<Kernel> kernels = Kernel::compileBatch(programs, o);
    for (size_t n = 0; n < cs.size(); ++n)
      for (const Run& run : cs[n].runs) {
        INFO(toString(target) << " " << toString(mode) << " " << cs[n].what << "\n" << kernels[n].source());
        // The interpreter on the react tree: O(nnz) on the real matrices (the unfused SDDMM tree
        // would compute a dense NI x NJ product), and shown equal to the unfused tree in test_fusion.
        TensorValues want = interpret(fuse(run.program, FusionMode::React), run.inputs);
        requireClose(run.program, kernels[n].run(run.inputs), want, cs[n].what);
      }
  }
}

Program sddmm() {
  return parseProgram(benchmarkKernels(randomCsr(5, 5, 0.5, 3), 4, 1)[0].text, benchmarkKernels(randomCsr(5, 5, 0.5, 3), 4, 1)[0].env);
}

}  // namespace

TEST_CASE("lowering: OpenMP emitter equals the interpreter in every mode") { checkTarget(Target::OpenMP, 60); }

TEST_CASE("lowering: Kokkos emitter equals the interpreter in every mode") { checkTarget(Target::Kokkos, 25); }

// On a GPU a lane loop below serial loops is interchanged to the outside (passes/interchange.cpp);
// forcing that order here tests it against the interpreter without a GPU.
TEST_CASE("lowering: Kokkos emitter in the GPU's loop order equals the interpreter") {
  checkTarget(Target::Kokkos, 25, 0, true);
}

// SDDMM with K >= 32: the lanes along k, the stored entries in chunks of 32 that split rows, an
// entry per lane (entry lanes, passes/dense_lanes.cpp), C read through its transposed copy or, as
// C.T, in place; K = 33 leaves all but one lane out of the last step along k; S in csc, walked by
// columns, its coordinates rows. The host runs the entries of a chunk one after another.
TEST_CASE("lowering: Kokkos SDDMM with the lanes along k equals the interpreter") {
  // Rows longer than a chunk, empty rows (first and last among them; hundreds between a chunk's
  // first and last rows in the third, which the search of the last row crosses), and real graphs.
  std::vector<CsrMatrix> matrices = {randomCsr(40, 60, 0.8, 4), randomCsr(50, 9, 0.1, 5), randomCsr(3000, 40, 0.002, 6)};
  for (const char* name : {"cora", "power"}) matrices.push_back(readMatrixMarketCsr(sharedMatrixDir() + "/" + name + ".mtx"));
  struct Variant {
    std::string text;
    int64_t k;
    bool transposed;  // C given as K x NJ (read through a copy), else NJ x K (C.T, read in place)
    Format format = Format::csr();
  };
  const std::vector<Variant> variants{{"A = S * (B @ C)", 64, true},
                                      {"A = S * (B @ C)", 33, true},
                                      {"A = S * (B @ C.T)", 64, false},
                                      {"A = S * (B @ C)", 64, true, Format::csc()}};
  auto programFor = [](const Variant& v, const CsrMatrix& s) {
    Environment env;
    env.declare("S", {s.rows, s.cols}, v.format);
    env.declare("B", {s.rows, v.k}, Format::dense(2));
    env.declare("C", v.transposed ? std::vector<int64_t>{v.k, s.cols} : std::vector<int64_t>{s.cols, v.k}, Format::dense(2));
    return parseProgram(v.text, env);
  };
  std::vector<Program> programs;
  for (const Variant& v : variants) programs.push_back(programFor(v, matrices[0]));
  CompileOptions o = kokkosReact();
  std::vector<Kernel> kernels = Kernel::compileBatch(programs, o);
  for (size_t n = 0; n < variants.size(); ++n) {
    INFO(variants[n].text << " K=" << variants[n].k << "\n" << kernels[n].source());
    // Entry lanes, the sum's K trips known at compile time.
    CHECK(kernels[n].source().find("react_entry_lanes<double, " + std::to_string(variants[n].k) + ">(react_first") != std::string::npos);
    CHECK(kernels[n].source().find("react_entry_lanes_bounds<double, " + std::to_string(variants[n].k) + ">>") != std::string::npos);
    // A chunk's first row searched by the warp's lanes together (the host takes react_row_of's path).
    CHECK(kernels[n].source().find("return react_from < 0 ? react_row_of_warp(") != std::string::npos);
    CHECK(kernels[n].loops().transposedInputs.size() == (variants[n].transposed ? 1u : 0u));
    for (size_t m = 0; m < matrices.size(); ++m) {
      const CsrMatrix& s = matrices[m];
      const Program program = programFor(variants[n], s);
      const TensorData stored = variants[n].format == Format::csr() ? TensorData(s) : TensorData(convertFormat(csrToSparse(s), variants[n].format));
      TensorValues inputs{{"S", stored},
                          {"B", randomDense({s.rows, variants[n].k}, 20 + m)},
                          {"C", randomDense(variants[n].transposed ? std::vector<int64_t>{variants[n].k, s.cols}
                                                                   : std::vector<int64_t>{s.cols, variants[n].k},
                                            30 + m)}};
      requireClose(program, kernels[n].run(inputs), interpret(fuse(program, FusionMode::React), inputs),
                   "matrix " + std::to_string(m));
    }
  }
}

// A csr S whose rows crowd (a power-law graph's) is walked by its columns where bound
// (passes/column_walks.cpp), each result stored at its csr position: with every access checked,
// and fused with a use of the result at S's entries (E = A * A reads A at the csr position).
TEST_CASE("lowering: Kokkos SDDMM walked by columns, bounds-checked and fused with a use at S's entries") {
  const CsrMatrix s = powerLaw(600, 6, 12);
  REQUIRE(walksByColumns(s));
  Environment env;
  env.declare("S", {s.rows, s.cols}, Format::csr());
  env.declare("B", {s.rows, 48}, Format::dense(2));
  env.declare("C", {48, s.cols}, Format::dense(2));
  const std::vector<Program> programs{parseProgram("A = S * (B @ C)", env), parseProgram("A = S * (B @ C); E = A * A", env)};
  CompileOptions o = kokkosReact();
  o.emit.boundsCheck = true;
  const std::vector<Kernel> kernels = Kernel::compileBatch(programs, o);
  const TensorValues inputs{{"S", s}, {"B", randomDense({s.rows, 48}, 15)}, {"C", randomDense({48, s.cols}, 16)}};
  for (size_t n = 0; n < programs.size(); ++n) {
    INFO(kernels[n].source());
    CHECK(kernels[n].source().find("const int64_t p_j = src_S_cols[p_i];") != std::string::npos);
    BoundKernel bound = kernels[n].bind(inputs);
    REQUIRE(bound.prepared);
    CHECK(bound.prepared->count("S_cols") == 1);
    bound.run();
    requireClose(programs[n], bound.results(), interpret(fuse(programs[n], FusionMode::React), inputs), "program " + std::to_string(n));
  }
}

// Both dense operands read down their columns along k (B(k,i) too): entry lanes run over the rows
// and the coordinates, so each read repeats for every entry and both go through transposed copies.
TEST_CASE("lowering: Kokkos entry lanes read both operands of B(k,i) * C(k,j) through transposed copies") {
  const CsrMatrix s = randomCsr(40, 60, 0.3, 9);
  Environment env;
  env.declare("S", {s.rows, s.cols}, Format::csr());
  env.declare("B", {64, s.rows}, Format::dense(2));
  env.declare("C", {64, s.cols}, Format::dense(2));
  const Program program = parseIndexNotation("A(i,j) = S(i,j) * B(k,i) * C(k,j)", env);
  CompileOptions o = kokkosReact();
  const Kernel kernel = Kernel::compile(program, o);
  INFO(kernel.source());
  CHECK(kernel.source().find("react_entry_lanes<double, 64>") != std::string::npos);
  CHECK(kernel.loops().transposedInputs.size() == 2u);
  TensorValues inputs{{"S", s}, {"B", randomDense({64, s.rows}, 80)}, {"C", randomDense({64, s.cols}, 81)}};
  requireClose(program, kernel.run(inputs), interpret(fuse(program, FusionMode::React), inputs), "B(k,i) * C(k,j)");
}

// Two sums under a stored entry (K = 64 and 40): the lanes along each, the entries in chunks of 16
// whose rows a team thread walks (the form entry lanes leave to any other entry work).
TEST_CASE("lowering: Kokkos two sums under each stored entry, in chunks, equal the interpreter") {
  std::vector<CsrMatrix> matrices = {randomCsr(40, 60, 0.8, 7), randomCsr(3000, 40, 0.002, 8)};
  matrices.push_back(readMatrixMarketCsr(sharedMatrixDir() + "/cora.mtx"));
  CompileOptions o = kokkosReact();
  for (size_t m = 0; m < matrices.size(); ++m) {
    const CsrMatrix& s = matrices[m];
    Environment env;
    env.declare("S", {s.rows, s.cols}, Format::csr());
    env.declare("B", {s.rows, 64}, Format::dense(2));
    env.declare("C", {64, s.cols}, Format::dense(2));
    env.declare("D", {s.rows, 40}, Format::dense(2));
    env.declare("E", {40, s.cols}, Format::dense(2));
    const Program program = parseIndexNotation("A(i,j) = S(i,j) * B(i,k) * C(k,j) * D(i,l) * E(l,j)", env);
    const Kernel kernel = Kernel::compile(program, o);
    INFO(kernel.source());
    CHECK(kernel.source().find("react_chunk * 16") != std::string::npos);
    CHECK(kernel.source().find("react_entry_lanes<double") == std::string::npos);
    TensorValues inputs{{"S", s},
                        {"B", randomDense({s.rows, 64}, 40 + m)},
                        {"C", randomDense({64, s.cols}, 50 + m)},
                        {"D", randomDense({s.rows, 40}, 60 + m)},
                        {"E", randomDense({40, s.cols}, 70 + m)}};
    requireClose(program, kernel.run(inputs), interpret(fuse(program, FusionMode::React), inputs), "matrix " + std::to_string(m));
  }
}

// A matrix whose row `heavy` holds every other column and five rows a few entries each (the row
// after the heavy one among them); the other rows, first, inside and last, empty: what the
// chunked forms split.
namespace {
CsrMatrix skewedMatrix(int64_t rows, int64_t cols, int64_t heavy) {
  DenseTensor dense({rows, cols});
  for (int64_t j = 0; j < cols; j += 2) dense.at({heavy, j}) = 0.25 + static_cast<double>(j) / static_cast<double>(cols);
  for (int64_t i : {int64_t{3}, heavy + 1, heavy + 2, rows / 2, rows - 3})
    for (int64_t j = i; j < cols; j += 37 + cols / 40) dense.at({i, j}) = 0.5 + static_cast<double>(i) / static_cast<double>(rows);
  return denseToCsr(dense);
}
// A row of 5,000 entries amid rows of none to three, so that a run of entries holds whole rows.
CsrMatrix shortRowsAroundLongOne() {
  DenseTensor dense({300, 6000});
  for (int64_t j = 0; j < 5000; ++j) dense.at({150, j}) = 0.25 + static_cast<double>(j) / 6000.0;
  for (int64_t i = 0; i < 300; ++i)
    for (int64_t k = 0; i != 150 && k < i % 4; ++k) dense.at({i, (i * 7 + k * 13) % 6000}) = 0.5 + static_cast<double>(i) / 300.0;
  return denseToCsr(dense);
}
}  // namespace

// SpMM (a dense loop under each stored entry): the stored entries in chunks of equal length that
// split rows, each row's part added atomically (passes/fibre_chunks.cpp), so one heavy row no
// longer runs on one team thread. One row holds most entries, empty rows lie first, inside and
// last; both associations of S @ C @ D (the right one's second nest is a plain SpMM); the host's
// loop order and the GPU's.
TEST_CASE("lowering: Kokkos SpMM with the stored entries in chunks equals the interpreter on a skewed matrix") {
  const std::vector<CsrMatrix> matrices = {skewedMatrix(30, 200, 7), readMatrixMarketCsr(sharedMatrixDir() + "/cora.mtx"),
                                           randomCsr(3000, 40, 0.002, 8)};  // hundreds of empty rows in a chunk
  const std::vector<std::string> texts = {"A(i,j) = S(i,m) * C(m,j)", "A = S @ (C @ D)", "A = S @ C @ D"};
  auto programFor = [](const std::string& text, const CsrMatrix& s) {
    Environment env;
    env.declare("S", {s.rows, s.cols}, Format::csr());
    env.declare("C", {s.cols, 16}, Format::dense(2));
    if (text.find('D') != std::string::npos) env.declare("D", {16, 5}, Format::dense(2));
    return parseProgram(text, env);
  };
  for (bool gpuOrder : {false, true}) {
    std::vector<Program> programs;
    for (const std::string& text : texts) programs.push_back(programFor(text, matrices[0]));
    CompileOptions o = kokkosReact();
    o.emit.laneLoopsOutermost = gpuOrder;
    std::vector<Kernel> kernels = Kernel::compileBatch(programs, o);
    for (size_t n = 0; n < texts.size(); ++n) {
      INFO(texts[n] << (gpuOrder ? ", the GPU's order" : "") << "\n" << kernels[n].source());
      // S @ C @ D as written fuses a private row of S @ C with its product by D: the row is not
      // one loop over its entries, and keeps a team thread.
      const bool chunked = n < 2;
      CHECK((kernels[n].source().find("react_chunk") != std::string::npos) == chunked);
      CHECK((kernels[n].source().find("Kokkos::atomic_add(&") != std::string::npos) == chunked);
      for (size_t m = 0; m < matrices.size(); ++m) {
        const CsrMatrix& s = matrices[m];
        const Program program = programFor(texts[n], s);
        TensorValues inputs{{"S", s}, {"C", randomDense({s.cols, 16}, 40 + m)}};
        if (texts[n].find('D') != std::string::npos) inputs.emplace("D", randomDense({16, 5}, 50 + m));
        requireClose(program, kernels[n].run(inputs), interpret(fuse(program, FusionMode::React), inputs),
                     "matrix " + std::to_string(m));
      }
    }
  }
}

// Row normalisation and softmax where a row holds more than 1,024 stored entries: the row's sum
// over its stored entries, then its use at each of them, as two loops over the stored entries in
// runs of a few entries whatever their rows, a run's part of each row added into an array of the
// rows: stored where the row lies inside the run, else atomically (passes/reduction_runs.cpp).
// In the first matrix one row holds 6,000 entries (its first and last runs partly its
// neighbours'), a few rows about 36 each, empty rows lie first, inside and last; in the second,
// rows of none to three entries lie around one of 5,000, several to a run. cora's rows are
// shorter, so it runs the row form, a team thread per row. The stable softmax's rows (a maximum,
// then a sum of exponentials, then their use) run as three loops in runs, the maxima taken
// atomically. Each call starts the sums from zero and the maxima from -inf again: the arrays of
// the rows alternate between two halves, the runs that add into one setting the other back, no
// fill launched; the matrices of 40 and 300 rows come twice, cora between them, so a half that
// a call of 300 rows wrote serves one of 40 and then one of 300 again. The host's team threads
// have one lane each; the device check (react-bench against react-openmp) runs the warps' staged
// stores.
TEST_CASE("lowering: Kokkos row sums in runs of entries equal the interpreter on a skewed matrix") {
  const std::vector<CsrMatrix> matrices = {skewedMatrix(40, 12000, 9), shortRowsAroundLongOne(),
                                           readMatrixMarketCsr(sharedMatrixDir() + "/cora.mtx"), skewedMatrix(40, 12000, 9),
                                           shortRowsAroundLongOne()};
  const std::vector<std::string> texts = {"A = S / sum(S, axis=1)", "A = exp(S) / sum(exp(S), axis=1)", "A = softmax(S, axis=1)"};
  const ValueType types[] = {ValueType::Float64, ValueType::Float32};
  auto programFor = [](const std::string& text, const CsrMatrix& s, ValueType type) {
    Environment env;
    env.declare("S", {s.rows, s.cols}, Format::csr(), type);
    const Program p = parseProgram(text, env);
    return type == ValueType::Float64 ? p : withValueTypes(p, {{"A", type}});
  };
  std::vector<Program> programs;
  for (ValueType type : types)
    for (const std::string& text : texts) programs.push_back(programFor(text, matrices[0], type));
  CompileOptions o = kokkosReact();
  std::vector<Kernel> kernels = Kernel::compileBatch(programs, o);
  for (size_t n = 0; n < programs.size(); ++n) {
    const ValueType type = types[n / texts.size()];
    const std::string& text = texts[n % texts.size()];
    INFO(text << " in " << toString(type) << "\n" << kernels[n].source());
    const std::string& source = kernels[n].source();
    const bool stable = n % texts.size() == 2;
    // The using runs span a 32-byte sector of the values they store: 4 doubles, 8 floats (their
    // staged stores go out in a loop of the run's length; the summing runs stage nothing).
    const std::string useRun = type == ValueType::Float64 ? "4" : "8";
    CHECK(source.find("for (int64_t react_k = 0; react_k < " + useRun + "; ++react_k) {") != std::string::npos);
    CHECK(source.find("react_update_first_row<false>(&") != std::string::npos);
    CHECK(source.find("react_combine_into<false>(&") != std::string::npos);
    CHECK((source.find("react_update_first_row<true>(&") != std::string::npos) == stable);
    CHECK((source.find("react_combine_into<true>(&") != std::string::npos) == stable);
    // The later runs start from the rows the first runs record; the using runs write out through the scratch.
    // The summing runs' first rows: the rows an earlier call recorded where the positions confirm
    // them, else the warp's lanes search for its first run's together. The matrices below follow
    // one another through one kernel, so a call finds the rows of the call before, of this matrix
    // (confirmed) or of another (refuted where they are not this matrix's rows).
    CHECK(source.find("int64_t ix_i = react_run_row_recorded(ptr1_S, ext_i, react_first, react_last, react_run_rows, react_run);") !=
          std::string::npos);
    CHECK(source.find("= react_run_row(ptr1_S") == std::string::npos);
    CHECK(source.find("react_row_from(ptr1_S, ext_i, react_run_rows[react_first / 8], react_first)") != std::string::npos);
    CHECK(source.find("react_sync_lanes();") != std::string::npos);
    // No fill of the sums: the adding runs restore the other half.
    CHECK(source.find(std::string("ReactWorkspaceLease<ReactAlternatingArray<") + (type == ValueType::Float64 ? "double" : "float") +
                      ">> buf_T") != std::string::npos);
    CHECK(source.find(type == ValueType::Float64 ? ".other[react_q] = 0.0;" : ".other[react_q] = 0.0f;") != std::string::npos);
    CHECK((source.find(type == ValueType::Float64 ? ".other[react_q] = (-HUGE_VAL);" : ".other[react_q] = (-HUGE_VALF);") != std::string::npos) ==
          stable);
    CHECK(source.find("_sums.storage().end_call(static_cast<size_t>(len_T") != std::string::npos);
    CHECK(source.find("_sums, static_cast<size_t>") == std::string::npos);
    for (size_t m = 0; m < matrices.size(); ++m) {
      const Program program = programFor(text, matrices[m], type);
      CsrMatrix s = matrices[m];
      s.setValueType(type);
      const TensorValues inputs{{"S", s}};
      const TensorValues want = interpret(fuse(program, FusionMode::React), inputs);
      for (int call = 0; call < 2; ++call) {
        const TensorValues got = kernels[n].run(inputs);
        const std::string what = "matrix " + std::to_string(m) + ", call " + std::to_string(call);
        if (type == ValueType::Float64) {
          requireClose(program, got, want, what);
          continue;
        }
        // float32: each value is a term over its row's sum of positive terms, which the kernel and
        // the interpreter add in different orders, each within (row length + 4) roundings of 2^-24
        // (exp's 2 ulps and the division included) of the exact value. On the long rows that
        // bound would pass a sum missing one of its thousands of entries; the summing runs' logic
        // is the float64 kernels' (checked to kTolerance above), and what float32 changes, the
        // using runs' length, puts a value against a wrong row's sum, or leaves it unwritten, by
        // errors of order 1.
        int64_t longest = 0;
        for (int64_t i = 0; i < s.rows; ++i) longest = std::max(longest, s.rowptr[i + 1] - s.rowptr[i]);
        const std::vector<double>& x = std::get<CsrMatrix>(got.at("A")).val;
        const std::vector<double>& y = std::get<CsrMatrix>(want.at("A")).val;
        REQUIRE(x.size() == y.size());
        for (size_t k = 0; k < x.size(); ++k) {
          INFO(what << ", value " << k);
          CHECK(std::abs(x[k] - y[k]) <= double(longest + 4) * 0x1p-23 * std::abs(y[k]));
        }
      }
    }
  }
}

// The longest row is remembered by its positions' address: a caller who empties a matrix in
// place (no entries, the same positions array) keeps the runs form, whose sums kernel then has no
// runs. It still sets the other half of the sums back to zero, so the next call, on the matrix
// again, adds into zeros (it added into the sums of two calls before when that kernel did not
// run: every value halved).
TEST_CASE("lowering: Kokkos row sums in runs stay right after a call without entries") {
  const CsrMatrix m = shortRowsAroundLongOne();
  Environment env;
  env.declare("S", {m.rows, m.cols}, Format::csr());
  const Program program = parseProgram("A = S / sum(S, axis=1)", env);
  CompileOptions o = kokkosReact();
  const Kernel kernel = Kernel::compile(program, o);
  const std::vector<double> want = std::get<CsrMatrix>(interpret(fuse(program, FusionMode::React), TensorValues{{"S", m}}).at("A")).val;
  std::vector<int64_t> rowptr = m.rowptr;
  std::vector<int32_t> col(m.col.begin(), m.col.end());
  std::vector<double> val = m.val, out(m.val.size(), -1);
  auto run = [&](int64_t nnz) {
    TensorView s, a;
    s.csr = a.csr = true;
    s.shape = a.shape = {m.rows, m.cols};
    s.data.pos[1] = rowptr.data();
    s.data.crd[1] = col.data();
    s.data.vals = val.data();
    a.data.vals = out.data();
    s.data.nnz = a.data.nnz = nnz;
    kernel.bindViews(TensorViews{{"S", s}, {"A", a}}).run();
  };
  auto largestError = [&] {
    double e = 0;
    for (size_t q = 0; q < out.size(); ++q) e = std::max(e, std::abs(out[q] - want[q]));
    return e;
  };
  run(static_cast<int64_t>(m.val.size()));
  CHECK(largestError() < 1e-12);
  const int64_t* const positions = rowptr.data();
  std::fill(rowptr.begin(), rowptr.end(), 0);  // no entries: the same array, the same rows
  run(0);
  std::copy(m.rowptr.begin(), m.rowptr.end(), rowptr.begin());
  REQUIRE(rowptr.data() == positions);
  run(static_cast<int64_t>(m.val.size()));
  CHECK(largestError() < 1e-12);
}

// A Kokkos kernel's temporaries live in a workspace per allocation site, kept between calls
// (ReactWorkspace, emit/workspace.h): each call fills it again, a larger input grows it, a
// smaller one uses its start.
TEST_CASE("lowering: a Kokkos kernel's temporaries are kept between calls, filled again and grown") {
  auto programFor = [](const CsrMatrix& s) {
    Environment env;
    env.declare("S", {s.rows, s.cols}, Format::csr());
    env.declare("C", {s.cols, 8}, Format::dense(2));
    env.declare("D", {8, 3}, Format::dense(2));
    return parseProgram("A = S @ (C @ D)", env);
  };
  const std::vector<CsrMatrix> matrices = {randomCsr(30, 40, 0.2, 6), readMatrixMarketCsr(sharedMatrixDir() + "/cora.mtx"),
                                           randomCsr(30, 40, 0.2, 6)};
  CompileOptions o = kokkosReact();
  const Kernel kernel = Kernel::compile(programFor(matrices[0]), o);
  REQUIRE(kernel.source().find("ReactWorkspaceLease<ReactDeviceArray<double>>") != std::string::npos);
  for (size_t m = 0; m < matrices.size(); ++m) {
    const CsrMatrix& s = matrices[m];
    const TensorValues inputs{{"S", s}, {"C", randomDense({s.cols, 8}, 60)}, {"D", randomDense({8, 3}, 61)}};
    const Program program = programFor(s);
    for (int call = 0; call < 2; ++call)
      requireClose(program, kernel.run(inputs), interpret(fuse(program, FusionMode::React), inputs),
                   "matrix " + std::to_string(m) + ", call " + std::to_string(call));
  }
}

TEST_CASE("lowering: Kokkos team mappings are race-free with several rows per team") {
  CompileOptions o;
  o.target = Target::Kokkos;
  o.jit = testCache();
  if (Kernel::compile(sddmm(), o).library().runtime.concurrency() < 2) {
    MESSAGE("skipped: this Kokkos runs one thread (Debian's is Serial-only); run against a multi-threaded Kokkos");
    return;
  }
  checkTarget(Target::Kokkos, 25, 2);
}

TEST_CASE("loop IR: fused SpMM-MM runs its rows in parallel with the shrunk row in scratch") {
  LoopProgram p = lowerToLoops(fuse(parseProgram(benchmarkKernels(randomCsr(5, 5, 0.5, 3), 4, 1)[1].text,
                                                 benchmarkKernels(randomCsr(5, 5, 0.5, 3), 4, 1)[1].env),
                                    FusionMode::React));
  CHECK(p.str() == R"(kernel(C, D, S, A) sizes(i, k)
fill val_A = 0.0
nest T0_A {
  // nest T0_A: T0(i,h) = S(i,k) * C(k,h); A(i,j) = T0(i,h) * D(h,j); 
  let len_T0: i64 = 4
  for ix_i in [0, ext_i) parallel private(T0 = 0.0) {
    for p_k in [ptr1_S[ix_i], ptr1_S[ix_i + 1]) serial {
      let ix_k: i64 = crd1_S[p_k]
      for ix_h in [0, 4) serial {
        T0(i,h) += (S(i,k) * C(k,h))
      }
    }
    for ix_h in [0, 4) serial {
      for ix_j in [0, 5) serial {
        A(i,j) += (T0(i,h) * D(h,j))
      }
    }
    for ix_h in [0, 4) serial independent {
      T0(i,h) = 0.0
    }
  }
}
)");
  CHECK(p.runtimeSizes == std::vector<std::string>{"i", "k"});
}

TEST_CASE("loop IR: fused SDDMM spreads the row's nonzeros over the team, scalar private") {
  LoopProgram p = lowerToLoops(fuse(sddmm(), FusionMode::React));
  CHECK(p.str() == R"(kernel(B, C, S, A) sizes(i, j)
nest T0_A {
  // nest T0_A: T0(i,j) = B(i,k) * C(k,j); A(i,j) = S(i,j) * T0(i,j); 
  for ix_i in [0, ext_i) parallel {
    for p_j in [ptr1_S[ix_i], ptr1_S[ix_i + 1]) serial independent {
      let ix_j: i64 = crd1_S[p_j]
      var loc_T0: f64 = 0.0
      for ix_k in [0, 4) serial {
        loc_T0 += (B(i,k) * C(k,j))
      }
      A(i,j) = (S(i,j) * loc_T0)
      loc_T0 = 0.0
    }
  }
}
)");
}

TEST_CASE("emitted source is readable: named nests, the tree on top") {
  LoopProgram p = lowerToLoops(fuse(sddmm(), FusionMode::React));
  std::string src = emitSource(p, Target::OpenMP);
  CHECK(src.find("// Generated by react. Index tree:") == 0);
  CHECK(src.find("//   └─ i (D)") != std::string::npos);
  CHECK(src.find("// nest T0_A: T0(i,j) = B(i,k) * C(k,j); A(i,j) = S(i,j) * T0(i,j);") != std::string::npos);
  CHECK(src.find("#pragma omp for schedule(dynamic, 16)") != std::string::npos);
  // Only a kernel with scratch of its own goes without GCC's unroll-and-jam (emit/openmp.cpp).
  CHECK(src.find("extern \"C\" void react_kernel(") != std::string::npos);
  LoopProgram spmm = lowerToLoops(fuse(parseProgram(benchmarkKernels(randomCsr(5, 5, 0.5, 3), 4, 1)[1].text,
                                                    benchmarkKernels(randomCsr(5, 5, 0.5, 3), 4, 1)[1].env),
                                       FusionMode::React));
  CHECK(emitSource(spmm, Target::OpenMP).find("extern \"C\" REACT_NO_UNROLL_AND_JAM void react_kernel(") != std::string::npos);
  std::string kokkos = emitSource(p, Target::Kokkos);
  CHECK(kokkos.find("Kokkos::ThreadVectorRange(team, static_cast<int64_t>(ptr1_S[ix_i]), static_cast<int64_t>(ptr1_S[ix_i + 1]))") !=
        std::string::npos);
}

// A Kokkos kernel's statements run inside react_call (emit/kokkos_graphs.h), which may replay a
// repeated call as a CUDA graph: never where the statements wait for the device themselves, since
// nothing may wait for it while a call is captured. Built against a CUDA Kokkos only
// (scripts/device_check.py --calls checks the replays); here, that the kernel says which it is.
TEST_CASE("lowering: a Kokkos kernel runs through react_call, capturable unless it waits for the device") {
  const auto capturable = [](const Program& program) {
    const std::string source = emitSource(lowerToLoops(fuse(program, FusionMode::React)), Target::Kokkos);
    REQUIRE(source.find("namespace react_bodies {\nstatic void react_kernel(") != std::string::npos);
    REQUIRE(source.find("extern \"C\" void react_kernel(") != std::string::npos);
    if (source.find("react_call(graphs, true, t, ") != std::string::npos) return true;
    REQUIRE(source.find("react_call(graphs, false, t, ") != std::string::npos);
    return false;
  };
  CHECK(capturable(sddmm()));
  Environment scalar;
  scalar.declare("S", {50, 50}, Format::csr());
  scalar.declare("B", {50, 50}, Format::dense(2));
  CHECK_FALSE(capturable(parseProgram("y() = S(i,j) * B(i,j)", scalar)));  // Kokkos' reduction into a host value waits
  Environment tensor;
  tensor.declare("B", {10, 10, 10}, Format::csf(3));
  tensor.declare("C", {10, 32}, Format::dense(2));
  tensor.declare("D", {10, 32}, Format::dense(2));
  CHECK_FALSE(capturable(parseProgram("A(i,j) = B(i,k,l) * C(k,j) * D(l,j)", tensor)));  // csf's slices read on the host
}

// A plain dense product in an OpenMP kernel calls the helper of openmp_dense_product.h: the JIT's
// compiler must find Eigen, else the kernel silently keeps the slower nest. D of 13 columns takes
// the narrow loop in its AVX-512 form where the JIT targets it (this binary runs the other form,
// test_dense_product.cpp), D of 70 Eigen's GEMM; shapes that leave remainders in every block.
TEST_CASE("lowering: an OpenMP dense product runs the helper's product and equals the interpreter") {
  CsrMatrix s = randomCsr(61, 61, 0.1, 9);
  for (int64_t width : {13, 70}) {
    Environment env;
    env.declare("S", {61, 61}, Format::csr());
    env.declare("C", {61, 300}, Format::dense(2));
    env.declare("D", {300, width}, Format::dense(2));
    const Program program = parseProgram("A = S @ (C @ D)", env);
    const std::string source = emitSource(lowerToLoops(fuse(program, FusionMode::React)), Target::OpenMP);
    REQUIRE(source.find("#include <Eigen/Core>") != std::string::npos);
    std::string required = source;
    required.insert(source.find("extern \"C\""), "#ifndef REACT_DENSE_PRODUCT\n#error the JIT's compiler does not find Eigen\n#endif\n");
    CHECK_NOTHROW(jitCompile(required, Target::OpenMP, testCache()));
    CompileOptions o;
    o.jit = testCache();
    Kernel k = Kernel::compile(program, o);
    CHECK(k.source().find("react_dense_product(val_C, val_D, val_T0") != std::string::npos);
    TensorValues inputs = {{"S", s}, {"C", randomDense({61, 300}, 4)}, {"D", randomDense({300, width}, 5)}};
    requireClose(program, k.run(inputs), interpret(fuse(program, FusionMode::React), inputs), "S @ (C @ D), D of " + std::to_string(width));
  }
}

TEST_CASE("JIT: a second compile of the same source is a cache hit") {
  JitOptions o;
  o.cacheDir = std::string(REACT_BINARY_DIR) + "/jit-cache-hit-test";
  std::filesystem::remove_all(o.cacheDir);
  std::string src = emitSource(lowerToLoops(fuse(sddmm(), FusionMode::React)), Target::OpenMP);
  CompiledLibrary cold = jitCompile(src, Target::OpenMP, o);
  CompiledLibrary warm = jitCompile(src, Target::OpenMP, o);
  CHECK_FALSE(cold.cacheHit);
  CHECK(cold.compileSeconds > 0);
  CHECK(warm.cacheHit);
  CHECK(warm.compileSeconds == 0);
  CHECK(warm.libraryPath == cold.libraryPath);
  CHECK(static_cast<bool>(warm.function));
}

TEST_CASE("JIT: extra flags reach the compiler and are part of the cache key") {
  JitOptions o = testCache();
  std::string src = "#ifndef REACT_EXTRA_FLAG\n#error the extra flag did not arrive\n#endif\n"
                    "extern \"C\" void react_kernel() {}\n";
  CHECK_THROWS_AS(jitCompile(src, Target::OpenMP, o), UserError);
  o.extraFlags = "-DREACT_EXTRA_FLAG -O0";
  CompiledLibrary lib = jitCompile(src, Target::OpenMP, o);
  CHECK(static_cast<bool>(lib.function));
}

TEST_CASE("JIT: a compile error names the generated file") {
  JitOptions o = testCache();
  try {
    jitCompile("extern \"C\" void react_kernel() { this is not C++; }\n", Target::OpenMP, o);
    FAIL("compiled invalid source");
  } catch (const UserError& e) {
    std::string m = e.what();
    CHECK(m.find("JIT: compiling generated source") != std::string::npos);
    CHECK(m.find(o.cacheDir) != std::string::npos);
    CHECK(m.find(".cpp failed") != std::string::npos);
  }
}

TEST_CASE("kernel: inputs of the wrong format or shape are rejected by name") {
  CompileOptions o;
  o.jit = testCache();
  Kernel k = Kernel::compile(sddmm(), o);
  TensorValues in = benchmarkKernels(randomCsr(5, 5, 0.5, 3), 4, 1)[0].inputs;
  TensorValues missing = in;
  missing.erase("B");
  CHECK_THROWS_WITH_AS(k.run(missing), "kernel: no value given for input 'B'", UserError);
  TensorValues wrong = in;
  wrong["B"] = DenseTensor({5, 3});
  CHECK_THROWS_WITH_AS(k.run(wrong), "kernel: input 'B' dimension 1 is 3 but index 'k' has size 4", UserError);
  TensorValues dense = in;
  dense["S"] = DenseTensor({5, 5});
  CHECK_THROWS_WITH_AS(k.run(dense), "kernel: input 'S' is declared csr but given dense", UserError);
  TensorValues levels = in;
  levels["S"] = csrToSparse(std::get<CsrMatrix>(in.at("S")));
  CHECK_THROWS_WITH_AS(k.run(levels), "kernel: input 'S' is declared csr but given a SparseTensor: csr data is a CsrMatrix", UserError);
  // A kernel serves any matrix size: rows and columns come from S.
  KernelCase bigger = benchmarkKernels(randomCsr(9, 7, 0.5, 4), 4, 1)[0];
  Program resized = parseProgram(bigger.text, bigger.env);
  requireClose(resized, k.run(bigger.inputs), interpret(buildIndexTree(resized), bigger.inputs), "resized");
}

TEST_CASE("bounds-check mode: generated code checks every access") {
  CompileOptions o;
  o.jit = testCache();
  o.emit.boundsCheck = true;
  Kernel k = Kernel::compile(sddmm(), o);
  CHECK(k.source().find("react_checked(") != std::string::npos);
  TensorValues in = benchmarkKernels(randomCsr(5, 5, 0.5, 3), 4, 1)[0].inputs;
  requireClose(sddmm(), k.run(in), interpret(k.tree(), in), "bounds-checked");
  // Kokkos row sums in runs: the runs' target bounds-checked at the row (the verifier refused it).
  const CsrMatrix skewed = skewedMatrix(40, 12000, 9);
  o.target = Target::Kokkos;
  o.fusion = FusionMode::React;
  for (const char* text : {"A = S / sum(S, axis=1)", "A = softmax(S, axis=1)"}) {
    Environment env;
    env.declare("S", {skewed.rows, skewed.cols}, Format::csr());
    const Program program = parseProgram(text, env);
    const Kernel runs = Kernel::compile(program, o);
    INFO(text);
    CHECK(runs.source().find("react_update_first_row<false>(&val_T") != std::string::npos);
    CHECK(runs.source().find("react_checked(ix_i, len_T") != std::string::npos);
    const TensorValues inputs{{"S", skewed}};
    requireClose(program, runs.run(inputs), interpret(fuse(program, FusionMode::React), inputs), "bounds-checked runs");
  }
}

TEST_CASE("C++ API: the README example builds, compiles and matches the interpreter") {
  CsrMatrix s = randomCsr(30, 20, 0.2, 9);
  const int64_t n = s.rows, m = s.cols;
  DenseTensor b = randomPositive({n, 64}, 1), c = randomPositive({64, m}, 2);
  IndexVar i("i"), j("j"), k("k");
  TensorVar A("A", {n, m}, Format::csr()), S("S", {n, m}, Format::csr()), B("B", {n, 64}, Format::dense(2)),
      C("C", {64, m}, Format::dense(2));
  ProgramBuilder prog;
  prog.add(A(i, j) = S(i, j) * B(i, k) * C(k, j));
  Program p = prog.build();
  CompileOptions options;  // fusion unset: auto, on the statistics of the inputs given
  options.jit = testCache();
  Kernel kernel = Kernel::compile(p, options, {{"S", s}});
  TensorValues in{{"S", s}, {"B", b}, {"C", c}};
  TensorValues out = kernel.run(in);
  requireClose(p, out, interpret(buildIndexTree(p), in), "README example");
  CHECK(std::get<CsrMatrix>(out.at("A")).col == s.col);  // the output takes S's pattern
  options.fusion = FusionMode::React;
  Kernel fixed = Kernel::compile(p, options);
  requireClose(p, fixed.run(in), interpret(buildIndexTree(p), in), "README example, react");
}

// Found by react-fuzz (fuzz/regressions/kokkos-empty-max.txt): Kokkos::Max starts from the lowest
// finite double, so a max over no stored entries came out -1.8e308 instead of -inf.
TEST_CASE("Kokkos emitter: a max over no stored entries is -inf, in a range and in a team") {
  Environment env;
  env.declare("S", {4, 3}, Format::csr());
  CsrMatrix empty = randomCsr(4, 3, 0.0, 1), rows = randomCsr(4, 3, 1.0, 2);  // rows: row 1 empty
  std::vector<Program> programs = {parseIndexNotation("m() = max(S(i,j), i, j)", env),
                                   parseIndexNotation("r(i) = max(S(i,j), j)", env)};
  for (FusionMode mode : {FusionMode::None, FusionMode::React}) {
    CompileOptions o;
    o.fusion = mode;
    o.target = Target::Kokkos;
    o.jit = testCache();
    std::vector<Kernel> kernels = Kernel::compileBatch(programs, o);
    for (size_t n = 0; n < programs.size(); ++n)
      for (const CsrMatrix& s : {empty, rows}) {
        INFO(toString(mode) << " " << programs[n].str() << kernels[n].source());
        TensorValues in{{"S", s}};
        requireClose(programs[n], kernels[n].run(in), interpret(buildIndexTree(programs[n]), in), "max");
      }
  }
}

// Found by react-fuzz on the GPU machine (fuzz/regressions/kokkos-two-row-reductions.txt): two
// reductions in one row declared the same accumulator in one scope, and the kernel did not compile.
TEST_CASE("Kokkos emitter: two reductions in one row") {
  Environment env;
  env.declare("S", {6, 5}, Format::csr());
  env.declare("B", {6, 7}, Format::dense(2));
  Program p = parseIndexNotation("r(i) = sum(S(i,j), j) * sum(B(i,k), k)", env);
  CompileOptions o;
  o.target = Target::Kokkos;
  o.jit = testCache();
  Kernel k = Kernel::compile(p, o);
  INFO(k.source());
  CHECK(k.loops().str().find("lane-reduce") != k.loops().str().rfind("lane-reduce"));  // two in one row
  TensorValues in{{"S", randomCsr(6, 5, 0.5, 4)}, {"B", randomPositive({6, 7}, 5)}};
  requireClose(p, k.run(in), interpret(buildIndexTree(p), in), "two reductions");
}

// emit/openmp.cpp: GCC keeps a stack array in registers across the loop that accumulates into it,
// where a vector's heap row may alias the kernel's other arrays.
TEST_CASE("OpenMP: a private row of a constant length of up to 512 bytes is an array on the stack") {
  auto source = [](int64_t h, ValueType type) {
    Environment env;
    env.declare("S", {6, 6}, Format::csr());
    env.declare("C", {6, h}, Format::dense(2));
    env.declare("D", {h, 3}, Format::dense(2));
    std::map<std::string, ValueType> types{{"S", type}, {"C", type}, {"D", type}, {"A", type}};
    return emitSource(lowerToLoops(fuse(withValueTypes(parseProgram("A = S @ C @ D", env), types), FusionMode::React)), Target::OpenMP);
  };
  CHECK(source(64, ValueType::Float64).find("alignas(64) double val_T0[64];") != std::string::npos);
  CHECK(source(128, ValueType::Float32).find("alignas(64) float val_T0[128];") != std::string::npos);
  // A longer row goes to memory whatever holds it: a vector, as before.
  const std::string longer = source(65, ValueType::Float64);
  CHECK(longer.find("alignas(64)") == std::string::npos);
  CHECK(longer.find("std::vector<double> buf_T0(") != std::string::npos);
}
