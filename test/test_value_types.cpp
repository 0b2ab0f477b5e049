// Value types float32 and float64 (docs/semantics.md, "Value types"): names and parsing, rounding,
// Matrix Market and generators in float32, the temporaries' rule, the interpreter computing in
// float32, and float32 kernels of both emitters against the float32 interpreter.
#include "fuzz/differential.hpp"
#include "indexnotation_test_util.hpp"
#include "support.hpp"

#include <cfloat>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

using namespace react;
using react::test::errorOf;

namespace {

// Value types are compared by name: doctest prints what it compares, through react::toString.
constexpr ValueType F32 = ValueType::Float32, F64 = ValueType::Float64;

// Equal results: the same structure and the very same values.
bool same(const TensorValues& a, const TensorValues& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [name, value] : a)
    if (!b.count(name) || valueTypeOf(value) != valueTypeOf(b.at(name)) || fuzz::relativeError(value, b.at(name)) != 0)
      return false;
  return true;
}

bool allFloat32(const std::vector<double>& values) {
  return std::all_of(values.begin(), values.end(), [](double v) { return roundTo(F32, v) == v; });
}

// Every input and output of `p` as `type`.
Program allOf(const Program& p, ValueType type) {
  std::map<std::string, ValueType> types;
  for (const std::string& name : p.inputs()) types[name] = type;
  for (const std::string& name : p.outputs()) types[name] = type;
  return withValueTypes(p, types);
}

}  // namespace

TEST_CASE("value types: names, parse errors, rounding") {
  CHECK(toString(F32) == "float32");
  CHECK(toString(F64) == "float64");
  CHECK(toString(parseValueType("float32", "x")) == "float32");
  CHECK(toString(parseValueType("float64", "x")) == "float64");
  for (const std::string bad : {"float16", "Float32", "double", ""}) {
    const std::string want = "argument '-t=A:" + bad + "': unknown value type '" + bad + "' (expected float32 or float64)";
    CHECK(errorOf([&] { parseValueType(bad, "argument '-t=A:" + bad + "'"); }) == want);
  }
  CHECK(valueBytes(F32) == 4);
  CHECK(valueBytes(F64) == 8);
  CHECK(toString(widest(F32, F32)) == "float32");
  CHECK(toString(widest(F32, F64)) == "float64");
  CHECK(roundTo(F64, 0.1) == 0.1);
  CHECK(roundTo(F32, 0.1) == static_cast<double>(0.1f));
  CHECK(roundTo(F32, 0.1) != 0.1);
  const double top = static_cast<double>(FLT_MAX);
  CHECK(roundTo(F32, top + 0x1p103 - 0x1p80) == top);  // below the halfway point to 2^128
  CHECK(roundTo(F32, top + 0x1p103) == std::numeric_limits<double>::infinity());
  CHECK(roundTo(F32, -1e39) == -std::numeric_limits<double>::infinity());
  CHECK(roundTo(F32, 1e-50) == 0.0);
  CHECK(std::isnan(roundTo(F32, std::nan(""))));
}

TEST_CASE("value types: Matrix Market read as float32, written as the shortest float32 text") {
  const std::string text =
      "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 0.1\n2 3 1e-3\n2 3 0.2\n3 2 -7.25\n";
  const CsrMatrix m = std::get<CsrMatrix>(parseMatrixMarket(text, "m.mtx", F32));
  CHECK(toString(m.valueType) == "float32");
  CHECK(m.val == std::vector<double>{roundTo(F32, 0.1), roundTo(F32, roundTo(F32, 1e-3) + roundTo(F32, 0.2)), -7.25});
  CHECK_NOTHROW(m.validate());
  CHECK(std::get<CsrMatrix>(parseMatrixMarket(text, "m.mtx")).val[0] == 0.1);  // float64 as before

  const DenseTensor a = std::get<DenseTensor>(
      parseMatrixMarket("%%MatrixMarket matrix array real general\n2 1\n0.1\n3\n", "a.mtx", F32));
  CHECK(toString(a.valueType) == "float32");
  CHECK(a.data == std::vector<double>{roundTo(F32, 0.1), 3.0});

  const std::string big = "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 1e39\n";
  CHECK(errorOf([&] { parseMatrixMarket(big, "big.mtx", F32); }) ==
        "big.mtx:4: expected a real number within the range of float32, got '1e39'");
  CHECK_NOTHROW(parseMatrixMarket(big, "big.mtx"));

  // The file holds "0.1", which reads back as the same float32 (and as 0.1 in float64).
  const std::string path = (std::filesystem::path(REACT_BINARY_DIR) / "test-scratch-float32.mtx").string();
  writeMatrixMarket(path, m);
  std::ifstream in(path);
  const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(written.find("1 1 0.1\n") != std::string::npos);
  CHECK(readMatrixMarketCsr(path, F32) == m);
  CHECK(readMatrixMarketCsr(path).val[0] == 0.1);
  std::filesystem::remove(path);

  CsrMatrix notFloat = std::get<CsrMatrix>(parseMatrixMarket(text, "m.mtx"));
  notFloat.valueType = F32;
  CHECK(errorOf([&] { notFloat.validate(); }) == "invalid CSR matrix: value 0 (0.100000) is not a float32 value");

  // A real matrix read as float32 is the float64 one rounded.
  CsrMatrix wide = readMatrixMarketCsr(test::sharedMatrixDir() + "/bcsstk13.mtx");
  CsrMatrix narrow = readMatrixMarketCsr(test::sharedMatrixDir() + "/bcsstk13.mtx", F32);
  CHECK(wide.val != narrow.val);
  wide.setValueType(F32);
  CHECK(narrow == wide);
}

TEST_CASE("value types: generators make float32 values, the float64 draws truncated") {
  const DenseTensor wide = randomDense({3000}, 7), narrow = randomDense({3000}, 7, "", F32);
  CHECK(toString(narrow.valueType) == "float32");
  for (size_t k = 0; k < wide.data.size(); ++k) CHECK(narrow.data[k] == std::floor(wide.data[k] * 0x1p24) * 0x1p-24);
  CHECK(allFloat32(narrow.data));
  CHECK(*std::max_element(narrow.data.begin(), narrow.data.end()) < 1.0);
  CHECK(!allFloat32(wide.data));
  for (const auto& [m, n] : {std::pair{uniformRandom(200, 150, 4, 9), uniformRandom(200, 150, 4, 9, F32)},
                             std::pair{powerLaw(300, 5, 3), powerLaw(300, 5, 3, 2.0, F32)},
                             std::pair{banded(100, 2, 5), banded(100, 2, 5, F32)}}) {
    CHECK(toString(n.valueType) == "float32");
    CHECK(n.col == m.col);
    CHECK(allFloat32(n.val));
    CHECK_NOTHROW(n.validate());
  }
}

TEST_CASE("value types: per-tensor types in the API, and the temporaries' rule") {
  IndexVar i("i"), j("j"), k("k");
  auto sddmm = [&](ValueType out, ValueType in) {
    TensorVar A("A", {4, 5}, Format::csr(), out), S("S", {4, 5}, Format::csr(), in);
    TensorVar B("B", {4, 3}, Format::dense(2), in), C("C", {3, 5}, Format::dense(2), in);
    ProgramBuilder prog;
    prog.add(A(i, j) = S(i, j) * B(i, k) * C(k, j));
    return prog.build();
  };
  Program p = sddmm(F32, F32);
  CHECK(toString(p.tensor("A").valueType) == "float32");
  CHECK(toString(p.tensor("S").valueType) == "float32");
  CHECK(toString(p.tensor("T0").valueType) == "float32");
  CHECK(toString(sddmm(F64, F32).tensor("T0").valueType) == "float64");  // computed for a float64 result
  CHECK(toString(sddmm(F32, F64).tensor("T0").valueType) == "float32");  // the statement computes in float32
  CHECK(sddmm(F32, F32) != sddmm(F64, F32));

  ProgramBuilder twice;
  TensorVar B32("B", {4, 3}, Format::dense(2), F32), B64("B", {4, 3}, Format::dense(2)), x("x", {4}, Format::dense(1));
  twice.declare(B32);
  CHECK(errorOf([&] { twice.add(x(i) = B64(i, k)); }) ==
        "tensor 'B' is declared twice with different shapes, formats or value types");

  // One temporary read by a float32 and a float64 result is float64.
  Program shared = parseIndexNotation("A(i,j) = S(i,j) * B(i,k) * C(k,j)\nF(i,j) = D(i,j) * B(i,k) * C(k,j)",
                                      test::kernelEnv());
  REQUIRE(shared.str().find("F(i,j) = D(i,j) * T0(i,j)") != std::string::npos);
  CHECK(toString(withValueTypes(shared, {{"A", F32}}).tensor("T0").valueType) == "float64");
  CHECK(toString(withValueTypes(shared, {{"A", F32}, {"F", F32}}).tensor("T0").valueType) == "float32");
  CHECK(errorOf([&] { withValueTypes(shared, {{"Q", F32}}); }) == "the program has no input or output 'Q'");
  CHECK(errorOf([&] { withValueTypes(shared, {{"T0", F32}}); }) == "the program has no input or output 'T0'");

  // Temporaries made by fusion (hoisting) take the type of the statement they come from.
  Environment rowScaling, invariant, chain;
  rowScaling.declare("b", {4}, Format::dense(1));
  rowScaling.declare("A", {4, 3}, Format::dense(2));
  for (Environment* env : {&invariant, &chain}) {
    env->declare("C", {4, 5}, Format::dense(2));
    env->declare("D", {5, 3}, Format::dense(2));
  }
  invariant.declare("B", {4, 3}, Format::dense(2));
  invariant.declare("E", {4, 3}, Format::dense(2));
  chain.declare("S", {4, 4}, Format::csr());
  for (const auto& [text, env] : {std::pair{"c(i) = b(i) * A(i,j)", rowScaling}, std::pair{"A = (B + E) * (C @ D)", invariant},
                                  std::pair{"A = S @ C @ D", chain}}) {
    Program q = parseProgram(text, env);
    for (ValueType out : {F32, F64}) {
      Program typed = withValueTypes(allOf(q, F32), {{q.outputs().front(), out}});
      for (FusionMode mode : {FusionMode::None, FusionMode::Maximal, FusionMode::React})
        for (const auto& [name, s] : fuse(typed, mode).tensors) {
          INFO(text << ": " << name << " under " << toString(mode));
          if (s.decl.role == TensorRole::Temporary) CHECK(toString(s.decl.valueType) == toString(out));
        }
    }
  }
}

TEST_CASE("value types: the interpreter computes a float32 statement in float32") {
  Environment env;
  env.declare("B", {1, 2}, Format::dense(2));
  env.declare("c", {2}, Format::dense(1));
  env.declare("v", {1}, Format::dense(1));
  Program p = parseIndexNotation("a(i) = B(i,k) * c(k)\nw(i) = v(i) * 0.1", env);
  DenseTensor B({1, 2}), c({2}, 1.0), v({1}, 3.0);
  B.data = {1.0, 0x1p-30};
  TensorValues inputs{{"B", B}, {"c", c}, {"v", v}};
  TensorValues wide = interpret(buildIndexTree(p), inputs), narrow = interpret(buildIndexTree(allOf(p, F32)), inputs);
  CHECK(std::get<DenseTensor>(wide.at("a")).data[0] == 1.0 + 0x1p-30);
  CHECK(std::get<DenseTensor>(narrow.at("a")).data[0] == 1.0);  // 1 + 2^-30 rounds to 1 in float32
  CHECK(std::get<DenseTensor>(wide.at("w")).data[0] == 3.0 * 0.1);
  CHECK(std::get<DenseTensor>(narrow.at("w")).data[0] == static_cast<double>(3.0f * 0.1f));
  CHECK(toString(std::get<DenseTensor>(narrow.at("w")).valueType) == "float32");
  CHECK(toString(std::get<DenseTensor>(wide.at("w")).valueType) == "float64");

  // A float64 value given for a float32 input is read rounded; float32 inputs of a float64
  // statement are widened exactly.
  DenseTensor tenth({1}, 0.1);
  TensorValues rounded = interpret(buildIndexTree(allOf(p, F32)), {{"B", B}, {"c", c}, {"v", tenth}});
  CHECK(std::get<DenseTensor>(rounded.at("w")).data[0] == static_cast<double>(0.1f * 0.1f));
  Program mixed = withValueTypes(p, {{"v", F32}});
  TensorValues widened = interpret(buildIndexTree(mixed), {{"B", B}, {"c", c}, {"v", tenth}});
  CHECK(std::get<DenseTensor>(widened.at("w")).data[0] == static_cast<double>(0.1f) * 0.1);
}

TEST_CASE("value types: float32 kernels of both emitters agree with the float32 interpreter") {
  // The SDDMM and the stable softmax, all float32 (float accumulators, scratch and reducers), and
  // the softmax of a float32 input into a float64 result (double temporaries, converted reads).
  // K = 64: on Kokkos the SDDMM runs as entry lanes, launched with float32's launch bounds.
  const std::vector<std::string> texts = {"A(i,j) = S(i,j) * B(i,k) * C(k,j)", "A(i,j) = softmax(S(i,j), j)"};
  Environment env;
  env.declare("S", {30, 20}, Format::csr());
  env.declare("B", {30, 64}, Format::dense(2));
  env.declare("C", {64, 20}, Format::dense(2));
  fuzz::RandomProgram inputs;  // the float32 variant's inputs and reference come from fuzz/
  inputs.inputs = {{"S", fuzz::randomCsr(30, 20, 0.3, 5)},
                   {"B", fuzz::randomPositive({30, 64}, 6)},
                   {"C", fuzz::randomPositive({64, 20}, 7)}};
  for (Target target : {Target::OpenMP, Target::Kokkos}) {
    std::vector<Program> programs, narrow;
    std::vector<fuzz::Float32Variant> variants;
    for (const std::string& text : texts) {
      fuzz::RandomProgram q = inputs;
      q.statements = parseIndexNotationStatements(text);
      Program compiled = parseIndexNotation(text, env);
      variants.push_back(fuzz::float32Variant(q, compiled));
      narrow.push_back(variants.back().compiled);
    }
    programs = narrow;
    programs.push_back(withValueTypes(parseIndexNotation(texts[1], env), {{"S", F32}}));
    CompileOptions options;
    options.fusion = FusionMode::React;
    options.target = target;
    options.jit = test::testCache();
    std::vector<Kernel> kernels = Kernel::compileBatch(programs, options);
    for (size_t n = 0; n < texts.size(); ++n) {
      INFO(texts[n] << " on " << toString(target));
      const fuzz::Float32Variant& v = variants[n];
      CHECK(kernels[n].source().find("float* const val_A") != std::string::npos);
      if (target == Target::Kokkos && n == 0) CHECK(kernels[n].source().find("react_entry_lanes_bounds<float, 64>>") != std::string::npos);
      TensorValues want = interpret(buildIndexTree(v.compiled), v.inputs);
      auto mismatch = fuzz::compareWithinBounds(v.compiled, kernels[n].run(v.inputs), want, v.bounds,
                                                fuzz::kFloat32VsFloat32, "kernel");
      CHECK_MESSAGE(!mismatch, (mismatch ? mismatch->detail : ""));
      // float64 values for float32 inputs are rounded at bind: the same result as float32 ones.
      CHECK(same(kernels[n].run(inputs.inputs), kernels[n].run(v.inputs)));
    }
    INFO("mixed softmax on " << toString(target));
    CHECK(kernels[2].source().find("static_cast<double>(val_S[") != std::string::npos);
    TensorValues mixedInputs = variants[1].inputs;
    test::requireClose(programs[2], kernels[2].run(mixedInputs), interpret(buildIndexTree(programs[2]), mixedInputs),
                       "mixed softmax");
  }
}

TEST_CASE("value types: a bound kernel converts float32 tensors once and returns outputs on download") {
  Environment env;
  env.declare("S", {6, 5}, Format::csr(), F32);
  env.declare("x", {5}, Format::dense(1));
  Program p = withValueTypes(parseIndexNotation("y(i) = S(i,j) * x(j)", env), {{"y", F32}});
  CompileOptions options;
  options.fusion = FusionMode::React;
  options.jit = test::testCache();
  Kernel k = Kernel::compile(p, options);
  CsrMatrix s = fuzz::randomCsr(6, 5, 0.6, 3);
  s.setValueType(F32);
  TensorValues inputs{{"S", s}, {"x", fuzz::randomPositive({5}, 4)}};
  BoundKernel b = k.bind(inputs);
  CHECK(b.float32Bytes == static_cast<int64_t>(sizeof(float)) * (s.nnz() + 6));  // S and y; x is float64
  CHECK_THROWS_AS(b.results(), UserError);  // no run yet: nothing to read
  b.run();
  const DenseTensor& y = std::get<DenseTensor>(b.results().at("y"));
  CHECK(toString(y.valueType) == "float32");
  CHECK(same(b.results(), k.run(inputs)));
  CHECK(std::any_of(y.data.begin(), y.data.end(), [](double v) { return v != 0.0; }));
  // A second run on changed inputs is what results() gives afterwards, not the first run's copy.
  std::get<DenseTensor>(inputs.at("x")).data.assign(5, 0.0);
  b.run();
  const DenseTensor& again = std::get<DenseTensor>(b.results().at("y"));
  CHECK(std::all_of(again.data.begin(), again.data.end(), [](double v) { return v == 0.0; }));
}
