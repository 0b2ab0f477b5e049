// Masked blocks (src/lower/passes/masked_blocks.cpp): which loops take the form, and the kernels
// over rows that a block's end cuts anywhere (empty, shorter than a block of 8 doubles or 16
// floats, a block's length, one past it, several blocks), in both value types, against the
// interpreter: in the AVX-512 form where this machine has it, else as the kernel's loops were, and
// in the form's plain C++ emulation (REACT_EMULATE_MASKED_BLOCKS) on every machine.
#include "fuzz/differential.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>

using namespace react;

namespace {

// Row r of 41 holds r stored entries at random columns of 48, values in [0.5, 1.5).
CsrMatrix rowsOfEveryLength() {
  std::mt19937_64 random(7);
  CsrMatrix m;
  m.rows = 41;
  m.cols = 48;
  m.rowptr = {0};
  std::vector<int32_t> columns(48);
  for (int32_t c = 0; c < 48; ++c) columns[c] = c;
  for (int r = 0; r < m.rows; ++r) {
    std::shuffle(columns.begin(), columns.end(), random);
    std::vector<int32_t> row(columns.begin(), columns.begin() + r);
    std::sort(row.begin(), row.end());
    for (int32_t c : row) {
      m.col.push_back(c);
      m.val.push_back(0.5 + std::uniform_real_distribution<double>(0, 1)(random));
    }
    m.rowptr.push_back(static_cast<int64_t>(m.col.size()));
  }
  return m;
}

const std::vector<std::string> kRowKernels = {
    "A(i,j) = S(i,j) / sum(S(i,j), j)",             // a sum, then a store per entry
    "A(i,j) = exp(S(i,j)) / sum(exp(S(i,j)), j)",   // the flat exp, then the same
    "A(i,j) = S(i,j) / sum(sqrt(S(i,j)) * S(i,j) - 0.25, j)",  // a sum of locals
    "A(i,j) = max(S(i,j), 1.0) - min(S(i,j), 1.0) * 2.0",      // stores of locals
    "A(i,j) = softmax(S(i,j), j)",                             // a maximum, then the shifted exp's sum
};

Environment rowsEnv() {
  Environment env;
  env.declare("S", {41, 48}, Format::csr());
  return env;
}

}  // namespace

TEST_CASE("masked blocks: a row's loads, stores and sum at its entries take them, a gather does not") {
  Environment env = rowsEnv();
  env.declare("B", {41, 8}, Format::dense(2));
  env.declare("C", {8, 48}, Format::dense(2));
  auto source = [&](const std::string& text, FloatOrder order) {
    EmitOptions o;
    o.floatOrder = order;
    return emitSource(lowerToLoops(fuse(parseIndexNotation(text, env), FusionMode::React)), Target::OpenMP, o);
  };
  const std::string masked = "#if defined(REACT_MASKED_BLOCKS)";
  for (const std::string& text : kRowKernels) {
    INFO(text);
    CHECK(source(text, FloatOrder::Reassociate).find(masked) != std::string::npos);
  }
  // SDDMM reads C's transposed row at the entry's column: a gather, left as it was.
  CHECK(source("A(i,j) = S(i,j) * B(i,k) * C(k,j)", FloatOrder::Reassociate).find(masked) == std::string::npos);
  // Under the written order a row's sum keeps its order.
  CHECK(source(kRowKernels[0], FloatOrder::Written).find(masked) == std::string::npos);
}

TEST_CASE("masked blocks: the emulation defines the form on any machine, and REACT_NO_MASKED_BLOCKS turns it off") {
  // A kernel's source with a line that fails to compile unless the form is (or is not) defined:
  // the kernel tests below would pass on the loops as they were if the emulation's flag did nothing.
  const std::string source = emitSource(lowerToLoops(fuse(parseIndexNotation(kRowKernels[0], rowsEnv()), FusionMode::React)),
                                        Target::OpenMP, EmitOptions{});
  JitOptions o = test::testCache();
  o.extraFlags = "-DREACT_EMULATE_MASKED_BLOCKS";
  CHECK(jitCompile(source + "#if !defined(REACT_MASKED_BLOCKS)\n#error no masked blocks\n#endif\n", Target::OpenMP, o).handle);
  o.extraFlags = "-DREACT_NO_MASKED_BLOCKS";
  CHECK(jitCompile(source + "#if defined(REACT_MASKED_BLOCKS)\n#error masked blocks\n#endif\n", Target::OpenMP, o).handle);
}

TEST_CASE("masked blocks: kernels over rows of 0 to 40 entries agree with the interpreter, float64 and float32, "
          "as this machine compiles them and emulated") {
  const Environment env = rowsEnv();
  fuzz::RandomProgram inputs;
  inputs.inputs = {{"S", rowsOfEveryLength()}};
  for (const std::string flags : {"", "-DREACT_EMULATE_MASKED_BLOCKS"}) {
    CompileOptions options;
    options.fusion = FusionMode::React;
    options.target = Target::OpenMP;
    options.jit = test::testCache();
    options.jit.extraFlags = flags;
    std::vector<Program> wide, narrow;
    std::vector<fuzz::Float32Variant> variants;
    for (const std::string& text : kRowKernels) {
      fuzz::RandomProgram q = inputs;
      q.statements = parseIndexNotationStatements(text);
      wide.push_back(parseIndexNotation(text, env));
      variants.push_back(fuzz::float32Variant(q, wide.back()));
      narrow.push_back(variants.back().compiled);
    }
    std::vector<Kernel> wideKernels = Kernel::compileBatch(wide, options), narrowKernels = Kernel::compileBatch(narrow, options);
    for (size_t n = 0; n < kRowKernels.size(); ++n) {
      INFO(kRowKernels[n] << " compiled with '" << flags << "'");
      test::requireClose(wide[n], wideKernels[n].run(inputs.inputs), interpret(buildIndexTree(wide[n]), inputs.inputs), "float64");
      const fuzz::Float32Variant& v = variants[n];
      TensorValues want = interpret(buildIndexTree(v.compiled), v.inputs);
      auto mismatch = fuzz::compareWithinBounds(v.compiled, narrowKernels[n].run(v.inputs), want, v.bounds,
                                                fuzz::kFloat32VsFloat32, "float32 kernel");
      CHECK_MESSAGE(!mismatch, (mismatch ? mismatch->detail : ""));
    }
  }
}
