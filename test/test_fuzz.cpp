// The differential fuzzer (fuzz/): a quick run of the interpreter part and of the OpenMP JIT,
// that its checks see wrong results, that minimised reproducers read back, that the generator
// covers the shapes and operators it promises, and the fixed reproducers in fuzz/regressions.
#include "fuzz/driver.hpp"
#include "fuzz/minimize.hpp"
#include "fuzz/reproducer.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <set>
#include <sstream>

using namespace react;
using namespace react::fuzz;

namespace {

FuzzOptions quick(uint64_t programs, uint64_t seed, std::vector<Target> emitters) {
  FuzzOptions o;
  o.programs = programs;
  o.seed = seed;
  o.emitters = std::move(emitters);
  o.outDir = std::string(REACT_BINARY_DIR) + "/fuzz-quick";
  o.minimizeSeconds = 30;
  return o;
}

// A program's tensor names (inputs, declared and computed) and index names; is any in `pool`?
std::set<std::string> tensorNames(const RandomProgram& p) {
  std::set<std::string> names;
  for (const auto& [name, decl] : p.env.tensors) names.insert(name);
  for (const Statement& s : p.statements) names.insert(s.lhs);
  return names;
}
std::set<std::string> indexNames(const RandomProgram& p) {
  std::set<std::string> names;
  for (const auto& [name, size] : p.env.indexSizes) names.insert(name);
  return names;
}
bool anyIn(const std::set<std::string>& names, const std::vector<std::string>& pool) {
  return std::any_of(pool.begin(), pool.end(), [&](const std::string& n) { return names.count(n) > 0; });
}

void requireClean(const FuzzOptions& o) {
  std::ostringstream log;
  FuzzSummary s = runFuzz(o, log);
  INFO(log.str());
  CHECK(s.programs == o.programs);
  CHECK(s.mismatchFiles.empty());
  MESSAGE(s.programs << " programs, " << s.kernelRuns << " kernel runs (" << s.boundsCheckedRuns << " bounds-checked), "
                     << s.eigenOutputs << " outputs through Eigen, " << s.seconds << " s; generator: " << s.generated.str());
}

}  // namespace

TEST_CASE("fuzz quick run: reference, Eigen and every fusion mode on 1000 random programs, float64 and float32") {
  requireClean(quick(test::scaled(1000), 1000000, {}));
}

TEST_CASE("fuzz quick run: 100 random programs through the OpenMP JIT in one batch per mode") {
  FuzzOptions o = quick(test::scaled(100), 2000000, {Target::OpenMP});
  o.valueTypes = {ValueType::Float64};
  uint64_t unusual = 0;  // programs with unusual names (C++ keywords, react's own identifiers, ...)
  for (uint64_t seed = o.seed; seed < o.seed + o.programs; ++seed) {
    RandomProgram p = randomFuzzProgram(seed, o.maxStatements);
    unusual += anyIn(tensorNames(p), kUnusualNames) || anyIn(indexNames(p), kUnusualNames);
  }
  CHECK(unusual * 10 >= o.programs);
  requireClean(o);
}

TEST_CASE("fuzz quick run: 50 random programs in float32 through the OpenMP JIT in one batch per mode") {
  FuzzOptions o = quick(test::scaled(50), 4000000, {Target::OpenMP});
  o.valueTypes = {ValueType::Float32};
  requireClean(o);
}

TEST_CASE("fuzz quick run: 50 random programs through the OpenMP JIT with masked blocks in plain C++, float64 and float32") {
  // The kernels' AVX-512 form (passes/masked_blocks.cpp) on machines without AVX-512, emulated lane
  // by lane: the loads, stores and sums at the masks the kernels compute. With AVX-512 the other
  // JIT runs take the form itself.
  FuzzOptions o = quick(test::scaled(50), 5000000, {Target::OpenMP});
  o.jitFlags = "-DREACT_EMULATE_MASKED_BLOCKS";
  requireClean(o);
}

TEST_CASE("fuzz: float32 differs from float64, within its bound, which one half-precision error exceeds") {
  // A result off by half precision's rounding (2^-11 of its largest entry) must be a mismatch:
  // the bound is far tighter than that, not a tolerance loose enough to pass anything.
  int differ = 0, within = 0, halfCaught = 0, halfTried = 0;
  const int programs = 300;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(programs); ++seed) {
    RandomProgram p = randomFuzzProgram(seed, 8);
    Program compiled = *compileProgram(p);
    Float32Variant v = float32Variant(p, compiled);
    TensorValues got = interpret(buildIndexTree(v.compiled), v.inputs);
    within += !compareWithinBounds(v.compiled, got, v.reference, v.bounds, kFloat32VsFloat64, "float32");
    bool different = false;
    for (const std::string& name : compiled.outputs())
      different |= relativeError(got.at(name), v.reference.at(name)) > 0;
    differ += different;
    const std::string name = compiled.outputs().front();
    std::vector<double>& values = valuesOf(got.at(name));
    auto largest = values.end();  // the finite entry of largest magnitude
    for (auto x = values.begin(); x != values.end(); ++x)
      if (std::isfinite(*x) && (largest == values.end() || std::abs(*x) > std::abs(*largest))) largest = x;
    if (largest == values.end() || *largest == 0) continue;
    *largest *= 1 + 0x1p-11;
    ++halfTried;
    halfCaught += compareWithinBounds(v.compiled, got, v.reference, v.bounds, kFloat32VsFloat64, "half").has_value();
  }
  CHECK(within == programs);
  CHECK(differ * 2 > programs);          // float32 is not float64 under another name
  CHECK(halfTried * 10 > programs * 8);
  CHECK(halfCaught * 100 >= halfTried * 95);
  MESSAGE(differ << " of " << programs << " programs differ in float32; a half-precision error caught in " << halfCaught
                 << " of " << halfTried);
}

TEST_CASE("fuzz: auto decides for machines drawn from the programs, so its kernels cover several choices") {
  std::set<std::string> modes;
  int reassociatedCandidates = 0, otherChoices = 0;  // choices other than react or maximal as written
  const int programs = test::scaled(1000);
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(programs); ++seed) {
    RandomProgram p = randomFuzzProgram(seed, 8);
    CHECK(fuzzMachine(p).bandwidth == fuzzMachine(p).bandwidth);  // the same machine on a replay
    const Program compiled = *compileProgram(p);
    AutoDecision d = decideFusion(compiled, inputStats(p.inputs), fuzzMachine(p));
    const AutoCandidate& c = d.choice();
    modes.insert(toString(c.mode));
    otherChoices += !c.asWritten || c.mode == FusionMode::None || !c.plan.unlimited();
    for (const AutoCandidate& k : d.candidates) reassociatedCandidates += k.rejected.empty() && !k.asWritten;
  }
  CHECK(modes.count("maximal") == 1);
  CHECK(modes.count("react") == 1);
  CHECK(otherChoices * 1000 >= 5 * programs);           // re-associated chains, per-edge plans or none reach the JIT
  CHECK(reassociatedCandidates * 1000 > 100 * programs);  // and many more candidates reach the interpreter
}

TEST_CASE("fuzz: a wrong value, a wrong pattern or a different NaN is a mismatch") {
  DenseTensor a({2}), b({2});
  a.data = {1.0, 2.0};
  b.data = {1.0, 2.0 + 1e-9};
  CHECK(compareOutput("A", a, a, "same") == std::nullopt);
  std::optional<Mismatch> m = compareOutput("A", a, b, "values");
  REQUIRE(m);
  CHECK(m->detail.find("output A: relative error") == 0);
  CsrMatrix s = randomCsr(3, 3, 0.5, 1), t = s;
  t.col[0] = (t.col[0] + 1) % 3;
  CHECK(relativeError(s, t) == std::numeric_limits<double>::infinity());
  b.data = {1.0, std::nan("")};
  CHECK(relativeError(a, b) == std::numeric_limits<double>::infinity());
  CHECK(relativeError(b, b) == 0);
}

TEST_CASE("fuzz: a minimised program is small and its reproducer reads back exactly") {
  RandomProgram p;
  for (uint64_t seed = 1;; ++seed) {
    p = randomFuzzProgram(seed, 8);
    if (p.statements.size() >= 4 && p.text.find("exp(") != std::string::npos && p.inputs.size() >= 3) break;
  }
  // A stand-in for a bug: "fails" while some statement still calls exp.
  RandomProgram small = minimize(p, [](const RandomProgram& q) { return q.text.find("exp(") != std::string::npos; }, 60);
  INFO(p.text << "->\n" << small.text);
  CHECK(small.statements.size() == 1);
  CHECK(small.text.size() < p.text.size());
  for (const auto& [name, shape] : small.env.tensors)
    for (int64_t n : shape.shape) CHECK(n <= 1);
  RandomProgram back = parseReproducer(reproducerText(small, 7, {"stage", "detail\nsecond line"}));
  CHECK(back.text == small.text);
  CHECK(back.env.tensors == small.env.tensors);
  CHECK(back.env.indexSizes == small.env.indexSizes);
  CHECK(back.inputIndices == small.inputIndices);
  REQUIRE(back.inputs.size() == small.inputs.size());
  for (const auto& [name, v] : small.inputs) CHECK(relativeError(back.inputs.at(name), v) == 0);
  CHECK_THROWS_WITH_AS(parseReproducer("program\nA() = 1\n"), "reproducer line 2: missing 'end'", UserError);
}

TEST_CASE("fuzz: shrinking an index slices every input that uses it") {
  RandomProgram p = randomProgram(3, 2, 5, 4, 3);
  RandomProgram q = withExtent(p, {"i"}, 2);
  CHECK(std::get<CsrMatrix>(q.inputs.at("S")).rows == 2);
  CHECK(std::get<DenseTensor>(q.inputs.at("B")).shape == std::vector<int64_t>{2, 3});
  CHECK(std::get<DenseTensor>(q.inputs.at("B")).data[4] == std::get<DenseTensor>(p.inputs.at("B")).data[4]);
  CHECK(std::get<DenseTensor>(q.inputs.at("C")).shape == std::vector<int64_t>{3, 4});
  CHECK(q.env.tensors.at("v").shape == std::vector<int64_t>{2});
  CHECK_NOTHROW(std::get<CsrMatrix>(q.inputs.at("S")).validate());
}

TEST_CASE("fuzz: the generator covers every operator, reduction and the promised shapes") {
  std::set<std::string> seen;
  std::set<size_t> counts;
  for (uint64_t seed = 1; seed <= 1500; ++seed) {
    RandomProgram p = randomFuzzProgram(seed, 8);
    counts.insert(p.statements.size());
    for (const Statement& s : p.statements) {
      std::function<void(const Expr&)> visit = [&](const Expr& e) {
        seen.insert(e->op == Op::Reduce ? (e->reduceOp == ReduceOp::Sum ? "sum" : "max-reduce")
                    : e->op == Op::Neg  ? "neg"
                                        : opName(e->op));
        for (const Expr& a : e->args) visit(a);
      };
      visit(s.rhs);
      if (s.reduce == ReduceOp::Max && !s.reductionIndices().empty()) seen.insert("statement max");
      seen.insert("rank " + std::to_string(s.lhsIndices.size()) + " result");
    }
    int csr = 0;
    for (const auto& [name, v] : p.inputs)
      if (const CsrMatrix* m = std::get_if<CsrMatrix>(&v)) {
        ++csr;
        if (m->nnz() == 0) seen.insert("0 nnz");
        if (m->rows == 1) seen.insert("1 row");
        if (m->cols == 1) seen.insert("1 column");
        if (m->rows != m->cols) seen.insert("rectangular");
        if (std::count(m->val.begin(), m->val.end(), 0.0) > 0) seen.insert("explicit zeros");
        for (int64_t r = 0; r < m->rows; ++r)
          if (m->rowptr[r] == m->rowptr[r + 1] && m->nnz() > 0) seen.insert("empty row");
      }
    if (csr >= 2) seen.insert("several csr");
    bool unusualTensor = anyIn(tensorNames(p), kUnusualNames), unusualIndex = anyIn(indexNames(p), kUnusualNames),
         functionIndex = anyIn(indexNames(p), kFunctionNames);
    if (unusualTensor) seen.insert("unusual tensor name");
    if (unusualIndex) seen.insert("unusual index name");
    if (functionIndex) seen.insert("index named like a function");
    if (!unusualTensor && !unusualIndex && !functionIndex) seen.insert("usual names");
  }
  for (const char* want : {"+", "-", "*", "/", "neg", "exp", "sqrt", "log", "max", "min", "<", "<=", ">", ">=", "==", "!=", "where",
                           "sum", "max-reduce", "statement max", "rank 0 result", "rank 1 result", "rank 2 result",
                           "rank 3 result", "0 nnz", "1 row", "1 column", "rectangular", "explicit zeros", "empty row",
                           "several csr", "unusual tensor name", "unusual index name", "index named like a function",
                           "usual names"})
    CHECK_MESSAGE(seen.count(want), want);
  CHECK(*counts.begin() == 1);
  CHECK(*counts.rbegin() == 8);
}

TEST_CASE("fuzz: the generator draws csc, dcsr, coo, csf in any mode ordering and dense 3-tensors, and counts what it threw away") {
  GenerationCounts counts;
  std::set<std::string> formats;
  int orderings = 0, tensorContractions = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    RandomProgram p = randomFuzzProgram(seed, 8);
    counts += p.counts;
    for (const auto& [name, v] : p.inputs) {
      const Format f = formatOf(v);
      formats.insert(f.hasSparseLevel() ? (f.rank() == 3 ? "sparse3" : f.str()) : "dense" + std::to_string(f.rank()));
      orderings += f.rank() == 3 && f.hasSparseLevel() && f != Format::csf(3);
      const TensorDecl& d = p.env.tensors.at(name);  // coo is declared as given and iterated as csf
      CHECK(d.declaredFormat() == f);
      CHECK(d.format == f.iterated());
    }
    for (const Statement& s : p.statements)
      if (s.rhs->op == Op::Mul && accesses(s.rhs).size() >= 2 && !s.reductionIndices().empty())
        for (const ExprNode* a : accesses(s.rhs)) tensorContractions += a->indices.size() == 3;
  }
  MESSAGE(counts.str());
  for (const char* want : {"csr", "csc", "dcsr", "coo", "sparse3", "dense3", "dense2", "dense1", "dense0"}) CHECK_MESSAGE(formats.count(want), want);
  CHECK(orderings > 10);
  CHECK(tensorContractions > 30);
  CHECK(counts.contractions > 30);
  CHECK(counts.refused > 0);  // the front end's refusals are counted, not silently redrawn
  // Most drawn statements are kept, and each format is read by many kept statements.
  CHECK(counts.kept > counts.refused + counts.brokeValueRules);
  for (const char* format : {"csr", "csc", "dcsr", "coo", "csf", "dense3"}) CHECK_MESSAGE(counts.reads[format] > 5, format);
}

TEST_CASE("fuzz: reproducers and shrinking keep csc, dcsr, csf and dense 3-tensor inputs exactly") {
  int tensors = 0, others = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    RandomProgram p = randomFuzzProgram(seed, 3);
    RandomProgram back = parseReproducer(reproducerText(p, seed, {"stage", "detail"}));
    CHECK(back.env.tensors == p.env.tensors);
    REQUIRE(back.inputs.size() == p.inputs.size());
    for (const auto& [name, v] : p.inputs) {
      INFO(name << " " << formatOf(v).str());
      CHECK(formatOf(back.inputs.at(name)) == formatOf(v));
      CHECK(relativeError(back.inputs.at(name), v) == 0);
      const Format f = formatOf(v);
      tensors += f.rank() == 3;
      others += f.hasSparseLevel() && f != Format::csr();
    }
    // Shrinking every index to 1 keeps every input valid in its format.
    std::vector<std::string> all;
    for (const auto& [x, n] : p.env.indexSizes) all.push_back(x);
    RandomProgram small = withExtent(p, all, 1);
    for (const auto& [name, v] : small.inputs) {
      CHECK(formatOf(v) == formatOf(p.inputs.at(name)));
      for (int64_t n : shapeOf(v)) CHECK(n <= 1);
      if (const SparseTensor* t = std::get_if<SparseTensor>(&v)) CHECK_NOTHROW(t->validate());
    }
  }
  CHECK(tensors > 5);
  CHECK(others > 10);
}

TEST_CASE("fuzz: fixed reproducers in fuzz/regressions replay clean") {
  FuzzOptions o = quick(0, 0, {Target::OpenMP});
  o.valueTypes = {ValueType::Float64};  // as they were found
  JitOptions jit;
  jit.cacheDir = std::string(REACT_BINARY_DIR) + "/jit-cache";
  int replayed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(REACT_SOURCE_DIR) + "/fuzz/regressions")) {
    if (entry.path().extension() != ".txt") continue;
    INFO(entry.path().string());
    std::optional<Mismatch> m = checkAll(readReproducer(entry.path().string()), o, jit);
    CHECK_MESSAGE(!m, (m ? m->stage + ": " + m->detail : ""));
    ++replayed;
  }
  CHECK(replayed >= 1);
}
