// Sparse tensors beyond csr through the pipeline (issue 21): MTTKRP on csf 3-tensors and the
// csr kernels on csc and dcsr matrices, through the interpreter against the dense reference and
// as OpenMP and Kokkos kernels against the interpreter, in every fusion mode; the formats and
// results the front end refuses, and the data the interpreter and kernels are given.
#include "fuzz/differential.hpp"
#include "lower/lower.hpp"
#include "support.hpp"

#include "indexnotation_test_util.hpp"

#include <doctest/doctest.h>

using namespace react;
using namespace react::test;

namespace {

const FusionMode kModes[] = {FusionMode::None, FusionMode::Maximal, FusionMode::React};

// A program over inputs of any format, and the dense reference's results for it.
struct TensorCase {
  std::string text, what;
  Environment env;
  TensorValues inputs;

  void declare(const std::string& name, TensorData value) {
    env.declare(name, shapeOf(value), formatOf(value), valueTypeOf(value));
    inputs[name] = std::move(value);
  }
  Program program() const { return parseIndexNotation(text, env); }
  TensorValues reference() const { return referenceEvaluate(parseIndexNotationStatements(text), program(), inputs); }
};

// A = B(i,k,l) C(k,j) D(l,j) (in both association orders) with B in `format`: a power-law
// tensor (empty slices and fibres, a few long ones); and a sum over exp of its partial sums,
// whose temporaries are not zero outside B's fibres (exp(0) = 1): react must not restrict it.
std::vector<TensorCase> mttkrpCases(const Format& format, uint64_t seed) {
  const int64_t ni = 9, nk = 7, nl = 8, nj = 5;
  SparseTensor b = convertFormat(powerLawTensor({ni, nk, nl}, 60, seed), format);
  std::vector<TensorCase> cases;
  for (const char* text : {"A(i,j) = B(i,k,l) * C(k,j) * D(l,j)", "A(i,j) = B(i,k,l) * D(l,j) * C(k,j)",
                           "A(i,j) = sum(exp(sum(B(i,k,l) * D(l,j), l)) * C(k,j), k)"}) {
    TensorCase c;
    c.text = text;
    c.what = std::string(text) + " with B " + format.str();
    c.declare("B", b);
    c.declare("C", randomPositive({nk, nj}, seed + 1));
    c.declare("D", randomPositive({nl, nj}, seed + 2));
    cases.push_back(std::move(c));
  }
  return cases;
}

// TTM `A(i,j,l) = B(i,j,k) * C(k,l)` with B in `format` and A stored at B's first two levels, a
// row of l under each (ssd, in B's mode ordering); and a csr S broadcast over l, A's rows of l
// under S's entries (dsd).
std::vector<TensorCase> prefixCases(const Format& format, uint64_t seed) {
  std::vector<TensorCase> cases;
  TensorCase ttm;
  ttm.text = "A(i,j,l) = B(i,j,k) * C(k,l)";
  ttm.declare("B", convertFormat(powerLawTensor({7, 6, 8}, 60, seed), format));
  ttm.declare("C", randomPositive({8, 3}, seed + 1));
  std::vector<Level> levels{format.level(0), format.level(1), Level::dense()};
  std::vector<int> ordering{format.dimension(0), format.dimension(1), 2};
  if (format.dimension(2) != 2) return cases;  // k below (i,j): a prefix of B's levels
  ttm.env.declare("A", {7, 6, 3}, Format(levels, ordering));
  ttm.what = ttm.text + " with B " + format.str() + ", A " + Format(levels, ordering).str();
  cases.push_back(std::move(ttm));
  TensorCase broadcast;
  broadcast.text = "A(i,j,l) = S(i,j) * E(j,l)";
  broadcast.declare("S", randomCsr(5, 6, 0.4, seed + 2));
  broadcast.declare("E", randomPositive({6, 4}, seed + 3));
  broadcast.env.declare("A", {5, 6, 4}, Format({Level::dense(), Level::compressed(), Level::dense()}));
  broadcast.what = broadcast.text + " with S csr, A dsd";
  cases.push_back(std::move(broadcast));
  return cases;
}

// SpMM and the four benchmark kernels with S in `format` and the result declared dense, or
// (`atPattern`) SDDMM's, row normalisation's and softmax's stored at S's entries in its format.
std::vector<TensorCase> matrixCases(const Format& format, const CsrMatrix& s, uint64_t seed, bool atPattern = false) {
  const int64_t n = 4;
  const std::pair<const char*, const char*> kernels[] = {
      {"spmm", "A(i,h) = S(i,j) * E(j,h)"},
      {"sddmm", "A(i,j) = S(i,j) * B(i,k) * C(k,j)"},
      {"spmm_mm", "A(i,h) = S(i,j) * E(j,k) * F(k,h)"},
      {"norm_row", "A(i,j) = S(i,j) / sum(S(i,k), k)"},
      {"softmax", "A(i,j) = exp(S(i,j)) / sum(exp(S(i,k)), k)"},
  };
  std::vector<TensorCase> cases;
  for (const auto& [name, text] : kernels) {
    TensorCase c;
    c.text = text;
    c.what = std::string(name) + " with S " + format.str();
    c.declare("S", format == Format::csr() ? TensorData(s) : TensorData(convertFormat(csrToSparse(s), format)));
    c.declare("B", randomPositive({s.rows, n}, seed + 1));
    c.declare("C", randomPositive({n, s.cols}, seed + 2));
    c.declare("E", randomPositive({s.cols, n}, seed + 3));
    c.declare("F", randomPositive({n, n + 1}, seed + 4));
    const bool rowsByDense = std::string(name) == "spmm" || std::string(name) == "spmm_mm";
    if (atPattern && rowsByDense) continue;
    if (atPattern) c.what += ", A at S's entries";
    else c.env.declare("A", {s.rows, rowsByDense ? (std::string(name) == "spmm" ? n : n + 1) : s.cols}, Format::dense(2));
    cases.push_back(std::move(c));
  }
  return cases;
}

void checkInterpreter(const TensorCase& c) {
  Program p = c.program();
  TensorValues want = c.reference();
  for (FusionMode mode : kModes) {
    INFO(c.what << ", fusion " << toString(mode));
    requireClose(p, interpret(fuse(p, mode), c.inputs), want, "interpreter");
  }
}

}  // namespace

TEST_CASE("tensors: MTTKRP on a csf or coo 3-tensor, any mode ordering, through the interpreter equals the dense reference") {
  // coo's data is read as given and iterated as csf of its mode ordering (Format::iterated).
  const Format formats[] = {Format::csf(3), parseFormat("sss:1,0,2", 3), parseFormat("sss:2,1,0", 3), parseFormat("dss", 3),
                            Format::coo(3), parseFormat("ucq:2,0,1", 3)};
  uint64_t seed = 1;
  for (const Format& f : formats)
    for (const TensorCase& c : mttkrpCases(f, seed += 10)) checkInterpreter(c);
}

TEST_CASE("tensors: MTTKRP of a csf tensor without entries is zero") {
  CooTensor none;
  none.shape = {9, 7, 8};
  none.crd.resize(3);
  TensorCase c = mttkrpCases(Format::csf(3), 1)[0];
  c.declare("B", cooToSparse(none, Format::csf(3)));
  checkInterpreter(c);
  const TensorValues got = interpret(fuse(c.program(), FusionMode::React), c.inputs);
  const std::vector<double>& a = valuesOf(got.at("A"));
  CHECK(std::all_of(a.begin(), a.end(), [](double x) { return x == 0; }));
}

TEST_CASE("tensors: the four kernels on csc, dcsr and coo matrices through the interpreter equal the dense reference, results dense or at S's entries") {
  for (const CsrMatrix& s : {randomCsr(9, 7, 0.4, 1), randomCsr(4, 12, 0.5, 2), randomCsr(6, 6, 0.1, 3)})
    for (const Format& f : {Format::csc(), Format::dcsr(), Format::coo(2)})
      for (bool atPattern : {false, true})
        for (const TensorCase& c : matrixCases(f, s, 5, atPattern)) {
          checkInterpreter(c);
          // A result at S's entries is in the format the kernel iterates S in (coo's: dcsr).
          if (atPattern) CHECK(formatOf(interpret(fuse(c.program(), FusionMode::React), c.inputs).at("A")) == f.iterated());
        }
}

TEST_CASE("tensors: results at a prefix of a pattern (TTM's ssd) through the interpreter equal the dense reference") {
  uint64_t seed = 40;
  for (const Format& f : {Format::csf(3), parseFormat("sss:1,0,2", 3), parseFormat("dss", 3)})
    for (const TensorCase& c : prefixCases(f, seed += 10)) {
      checkInterpreter(c);
      // A's levels are B's first two and a dense one: a row of l per (i,j) fibre.
      const SparseTensor a = std::get<SparseTensor>(interpret(fuse(c.program(), FusionMode::React), c.inputs).at("A"));
      const SparseTensor want = patternPrefix(c.inputs.count("B") ? c.inputs.at("B") : c.inputs.at("S"), a.format, a.shape);
      CHECK(a.levels == want.levels);
      CHECK(a.val.size() == want.val.size());
      CHECK_NOTHROW(a.validate());
    }
}

TEST_CASE("tensors: the cost report counts a nested level's positions once") {
  TensorCase c = mttkrpCases(Format::csf(3), 1)[0];
  CHECK(analyzeCost(fuse(c.program(), FusionMode::Maximal)).flops.str() == "3*NJ*nnz(B)");
  // A statement at level 1 runs once per (i,k) fibre: nnz1(B).
  c.text = "A(i,k) = B(i,k,l)";
  CHECK(analyzeCost(fuse(c.program(), FusionMode::None)).flops.str() == "nnz(B)");
  // dcsr: the loop over level 1 replaces the count of level 0's, the rows with entries.
  TensorCase m;
  m.text = "A(i,j) = S(i,j) * u(i)";
  m.declare("S", convertFormat(csrToSparse(randomCsr(5, 5, 0.5, 1)), Format::dcsr()));
  m.declare("u", randomPositive({5}, 2));
  m.env.declare("A", {5, 5}, Format::dense(2));
  CHECK(analyzeCost(fuse(m.program(), FusionMode::None)).flops.str() == "nnz(S)");
  m.text = "a(i) = S(i,j)";
  CHECK(analyzeCost(fuse(m.program(), FusionMode::None)).flops.str() == "nnz(S)");
}

TEST_CASE("tensors: auto decides for csf inputs from their statistics, without them the default is react") {
  TensorCase c = mttkrpCases(Format::csf(3), 1)[0];
  Program p = c.program();
  CompileOptions o;
  CHECK((fusionModeOf(p, o) == FusionMode::React));
  o.stats = inputStats(c.inputs);
  CHECK((fusionModeOf(p, o) == FusionMode::Auto));
  CHECK_NOTHROW(requireStatistics(p, *o.stats));
}

TEST_CASE("tensors: formats and results that do not run are user errors naming the tensor") {
  Environment env;
  env.declare("C", {5, 4}, Format::dense(2));
  auto declared = [&](const std::string& format, int rank, const std::string& text) {
    Environment e = env;
    e.declare("S", rank == 2 ? std::vector<int64_t>{4, 5} : std::vector<int64_t>{4, 5, 3}, parseFormat(format, rank));
    return indexError(text, e);
  };
  // coo runs (as dcsr); a coo result is refused by the format it was declared in.
  CHECK(declared("coo", 2, "A(i,h) = S(i,j) * C(j,h)") == "");
  {
    Environment e = env;
    e.declare("S", {4, 5}, Format::csr());
    e.declare("A", {4, 5}, Format::coo(2));
    CHECK(indexError("A(i,j) = S(i,j) * 2", e) ==
          "1:1: format coo of tensor 'A' is not supported yet: level 0 is compressed-nonunique; the levels run are dense "
          "and compressed");
  }
  CHECK(declared("sd", 2, "A(i,h) = S(i,j) * C(j,h)") ==
        "1:10: format sd of tensor 'S' is not supported yet: level 1 is dense under a sparse level, which runs in a result "
        "only (stored at a prefix of a sparse factor's pattern)");
  CHECK(declared("sds", 3, "A(i,j,l) = S(i,j,l)") ==
        "1:12: format sds of tensor 'S' is not supported yet: level 1 is dense under another level; a dense level runs "
        "as the first only");
  CHECK(declared("dd:1,0", 2, "A(i,h) = S(i,j) * C(j,h)") ==
        "1:10: format dd:1,0 of tensor 'S' is not supported yet: a dense tensor is stored row-major (no mode ordering)");
  // A result at the positions of a csc, dcsr or csf pattern takes its format, inferred or declared;
  // declared in another, it is refused.
  CHECK(declared("csc", 2, "A(i,j) = S(i,j) * 2").empty());
  CHECK(declared("csf", 3, "A(i,j,l) = exp(S(i,j,l))").empty());
  Environment e = env;
  e.declare("S", {4, 5}, Format::dcsr());
  e.declare("A", {4, 5}, Format::dcsr());
  CHECK(indexError("A(i,j) = S(i,j) * 2", e).empty());
  e.declare("A", {4, 5}, Format::csr());
  CHECK(indexError("A(i,j) = S(i,j) * 2", e) ==
        "1:1: result 'A' is declared csr but is stored at the positions of 'S', which is dcsr: declare it dcsr, or dense");
  e.declare("A", {4, 5}, Format::csc());
  CHECK(indexError("A(i,j) = S(i,j) * 2", e) ==
        "1:1: result 'A' is declared csc but is stored at the positions of 'S', which is dcsr: declare it dcsr, or dense");
  e.declare("A", {4, 5}, Format::dense(2));
  CHECK(indexError("A(i,j) = S(i,j) * 2", e).empty());
  // Dense levels under sparse ones: a result at a prefix of a factor's pattern only.
  {
    Environment t = env;
    const Format ssd({Level::compressed(), Level::compressed(), Level::dense()});
    t.declare("B", {4, 5, 3}, Format::csf(3));
    t.declare("D", {3, 2}, Format::dense(2));
    t.declare("A", {4, 5, 2}, ssd);
    CHECK(indexError("A(i,j,l) = B(i,j,k) * D(k,l)", t).empty());
    t.declare("E", {5, 2}, Format::dense(2));
    t.declare("Y", {4, 3, 2}, ssd);
    CHECK(indexError("Y(i,k,l) = B(i,j,k) * E(j,l)", t) == "1:1: 'Y' is declared ssd but its value is dense here");
    CHECK(indexError("A(i,j,l) = B(i,j,k) + D(k,l)", t) != "");
    t.declare("B", {4, 5, 3}, ssd);
    CHECK(indexError("X(i,j) = B(i,j,k)", t) ==
          "1:10: format ssd of tensor 'B' is not supported yet: level 2 is dense under a sparse level, which runs in a result "
          "only (stored at a prefix of a sparse factor's pattern)");
  }
  // The operators' rules name the operands' format.
  e.declare("R", {4, 5}, Format::csc());
  CHECK(indexError("A(i,j) = S(i,j) * C(j,i)", e).empty());
  CHECK(indexError("A(i,j) = S(i,j) * R(i,j)", e) ==
        "1:17: '*' of dcsr and csc operands 'S' and 'R' is not supported: their levels store the dimensions in different orders "
        "(convert one)");
  e.declare("D", {4, 5}, Format::dense(2));
  CHECK(indexError("A(i,j) = S(i,j) + D(i,j)", e) ==
        "1:17: '+' of dcsr 'S' and dense 'D' is not supported: it would need a dense result (only '*' keeps the pattern)");
}

TEST_CASE("tensors: the interpreter takes each format's data in its form, validated, and names the input") {
  TensorCase c = mttkrpCases(Format::csf(3), 1)[0];
  const IndexTree tree = fuse(c.program(), FusionMode::React);
  auto given = [&](const std::string& name, TensorData value) {
    TensorValues inputs = c.inputs;
    inputs[name] = std::move(value);
    return errorOf([&] { interpret(tree, inputs); });
  };
  const SparseTensor b = std::get<SparseTensor>(c.inputs.at("B"));
  CHECK(given("B", convertFormat(b, parseFormat("sss:1,0,2", 3))) == "interpreter: input 'B' is declared csf but given sss:1,0,2");
  CHECK(given("B", sparseToDense(b)) == "interpreter: input 'B' is declared csf but given dense");
  CHECK(given("C", csrToSparse(denseToCsr(std::get<DenseTensor>(c.inputs.at("C"))))) ==
        "interpreter: input 'C' is declared dense but given csr");
  CHECK(given("C", DenseTensor({4, 5, 1})) == "interpreter: input 'C' is declared dense of rank 2 but given dense of rank 3");
  CHECK(given("C", denseToSparse(std::get<DenseTensor>(c.inputs.at("C")), Format::dense(2))) ==
        "interpreter: input 'C' is declared dense but given a SparseTensor: dense data is a DenseTensor");
  SparseTensor broken = b;
  broken.levels[2].crd[0] = 99;
  CHECK(given("B", broken).rfind("interpreter: input 'B': invalid sparse tensor: level 2 (compressed): ", 0) == 0);
  SparseTensor wider = convertFormat(powerLawTensor({9, 7, 9}, 20, 3), Format::csf(3));
  CHECK(given("B", wider) == "interpreter: input 'B' has the wrong shape");

  // csr data is a CsrMatrix: the csr paths read its arrays as they are.
  TensorCase m = matrixCases(Format::csr(), randomCsr(5, 5, 0.5, 1), 1)[0];
  TensorValues inputs = m.inputs;
  inputs["S"] = csrToSparse(std::get<CsrMatrix>(inputs.at("S")));
  CHECK(errorOf([&] { interpret(fuse(m.program(), FusionMode::React), inputs); }) ==
        "interpreter: input 'S' is declared csr but given a SparseTensor: csr data is a CsrMatrix");
}

TEST_CASE("tensors: MTTKRP on csf and coo and the matrix kernels on csc, dcsr and coo as kernels equal the interpreter, float64 and float32") {
  std::vector<TensorCase> cases;
  uint64_t seed = 100;
  for (const Format& f : {Format::csf(3), parseFormat("sss:1,0,2", 3), parseFormat("sss:2,1,0", 3), parseFormat("dss", 3), Format::coo(3)})
    for (TensorCase& c : mttkrpCases(f, seed += 10)) cases.push_back(std::move(c));
  for (const CsrMatrix& s : {randomCsr(9, 7, 0.4, 1), randomCsr(4, 12, 0.5, 2)})
    for (const Format& f : {Format::csc(), Format::dcsr(), Format::coo(2)})
      for (bool atPattern : {false, true})
        for (TensorCase& c : matrixCases(f, s, seed += 10, atPattern)) cases.push_back(std::move(c));
  for (const Format& f : {Format::csf(3), parseFormat("sss:1,0,2", 3)})
    for (TensorCase& c : prefixCases(f, seed += 10)) cases.push_back(std::move(c));
  // A result at a csf pattern: B normalised along its fibres, stored at B's entries.
  for (const Format& f : {Format::csf(3), parseFormat("sss:2,0,1", 3)}) {
    TensorCase c;
    c.text = "A(i,k,l) = B(i,k,l) / sum(B(i,k,m), m)";
    c.what = c.text + " with B " + f.str();
    c.declare("B", convertFormat(powerLawTensor({6, 5, 7}, 50, seed += 10), f));
    cases.push_back(std::move(c));
  }
  // Each case in float64, then in float32 (every input and result), in one batch per target and mode.
  std::vector<Program> programs;
  std::vector<fuzz::Float32Variant> narrow;
  for (const TensorCase& c : cases) {
    fuzz::RandomProgram r;
    r.inputs = c.inputs;
    r.statements = parseIndexNotationStatements(c.text);
    narrow.push_back(fuzz::float32Variant(r, c.program()));
  }
  for (const TensorCase& c : cases) programs.push_back(c.program());
  for (const fuzz::Float32Variant& v : narrow) programs.push_back(v.compiled);
  forEachKernelBatch(programs, [&](Target target, FusionMode mode, const std::vector<Kernel>& kernels) {
      for (size_t n = 0; n < cases.size(); ++n) {
        const TensorCase& c = cases[n];
        INFO(c.what << ", " << toString(target) << ", fusion " << toString(mode) << "\n" << kernels[n].source());
        requireClose(programs[n], kernels[n].run(c.inputs), interpret(fuse(programs[n], mode), c.inputs), "float64 kernel");
        const fuzz::Float32Variant& v = narrow[n];
        const Kernel& k = kernels[cases.size() + n];
        auto mismatch = fuzz::compareWithinBounds(v.compiled, k.run(v.inputs), interpret(fuse(v.compiled, mode), v.inputs),
                                                  v.bounds, fuzz::kFloat32VsFloat32, "float32 kernel");
        CHECK_MESSAGE(!mismatch, (mismatch ? mismatch->detail : ""));
      }
  });
}

// fibre-chunks (passes/fibre_chunks.cpp): MTTKRP's fibres in chunks of 32 whatever their slices,
// A's updates atomic. B has one slice holding most entries (its fibres split over many chunks),
// a few light slices and empty ones (stored as empty rows in dss); run in the host's loop order
// and in the GPU's (lanes outermost, forced), float64 and float32, in fusion modes maximal and react.
TEST_CASE("tensors: Kokkos MTTKRP with the fibres in chunks equals the interpreter on a skewed tensor") {
  const int64_t ni = 12, nk = 150, nl = 20, nj = 6;
  DenseTensor dense({ni, nk, nl});
  uint64_t state = 7;
  auto next = [&]() { return (state = state * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
  for (int64_t k = 0; k < nk; ++k)
    for (int64_t l = 0; l < nl; ++l)
      if (next() % 4 != 0) dense.at({4, k, l}) = 1.0 + static_cast<double>(next() % 1000) / 1000;  // the heavy slice
  for (int64_t i : {1, 2, 7, 11})  // light slices; 0, 3, 5, 6, 8, 9, 10 empty
    for (int64_t e = 0; e < 5; ++e) dense.at({i, static_cast<int64_t>(next() % nk), static_cast<int64_t>(next() % nl)}) = 0.5;
  std::vector<TensorCase> cases;
  for (const Format& f : {Format::csf(3), parseFormat("dss", 3)})
    for (const char* text : {"A(i,j) = B(i,k,l) * C(k,j) * D(l,j)", "A(i,j) = B(i,k,l) * D(l,j) * C(k,j)"}) {
      TensorCase c;
      c.text = text;
      c.what = std::string(text) + " with B " + f.str();
      c.declare("B", denseToSparse(dense, f));
      c.declare("C", randomPositive({nk, nj}, 3));
      c.declare("D", randomPositive({nl, nj}, 4));
      cases.push_back(std::move(c));
    }
  REQUIRE(std::get<SparseTensor>(cases[0].inputs.at("B")).levels[1].crd.size() > 4 * 32);  // the heavy slice spans chunks
  std::vector<Program> programs;
  std::vector<fuzz::Float32Variant> narrow;
  for (const TensorCase& c : cases) {
    programs.push_back(c.program());
    fuzz::RandomProgram r;
    r.inputs = c.inputs;
    r.statements = parseIndexNotationStatements(c.text);
    narrow.push_back(fuzz::float32Variant(r, c.program()));
  }
  for (const fuzz::Float32Variant& v : narrow) programs.push_back(v.compiled);
  for (FusionMode mode : {FusionMode::Maximal, FusionMode::React})
    for (bool gpuOrder : {false, true}) {
      CompileOptions o;
      o.fusion = mode;
      o.target = Target::Kokkos;
      o.jit = testCache();
      o.emit.laneLoopsOutermost = gpuOrder;
      std::vector<Kernel> kernels = Kernel::compileBatch(programs, o);
      for (size_t n = 0; n < cases.size(); ++n) {
        const TensorCase& c = cases[n];
        INFO(c.what << ", fusion " << toString(mode) << (gpuOrder ? ", the GPU's order" : "") << "\n" << kernels[n].source());
        // React fuses B * C * D into an (l, j) plane per slice, which the slice's fibres share: no chunks.
        const bool chunked = mode == FusionMode::Maximal || n % 2 == 1;
        CHECK((kernels[n].source().find("react_chunk") != std::string::npos) == chunked);
        CHECK((kernels[n].source().find("Kokkos::atomic_add(&") != std::string::npos) == chunked);
        requireClose(programs[n], kernels[n].run(c.inputs), interpret(fuse(programs[n], mode), c.inputs), "float64 kernel");
        const fuzz::Float32Variant& v = narrow[n];
        auto mismatch = fuzz::compareWithinBounds(v.compiled, kernels[cases.size() + n].run(v.inputs),
                                                  interpret(fuse(v.compiled, mode), v.inputs), v.bounds, fuzz::kFloat32VsFloat32,
                                                  "float32 kernel");
        CHECK_MESSAGE(!mismatch, (mismatch ? mismatch->detail : ""));
      }
    }
  // Under the written order a slice stays one team thread's: no chunks, no atomics.
  CompileOptions written;
  written.fusion = FusionMode::Maximal;
  written.target = Target::Kokkos;
  written.emit.floatOrder = FloatOrder::Written;
  const std::string source = emitSource(lowerToLoops(fuse(programs[0], FusionMode::Maximal)), Target::Kokkos, written.emit);
  CHECK(source.find("react_chunk") == std::string::npos);
  CHECK(source.find("Kokkos::atomic_add(&") == std::string::npos);
}

TEST_CASE("tensors: a kernel checks a sparse tensor's arrays and format, and the levels the ABI passes") {
  TensorCase c = mttkrpCases(Format::csf(3), 1)[0];
  CompileOptions o;
  o.fusion = FusionMode::React;
  o.jit = testCache();
  Kernel k = Kernel::compile(c.program(), o);
  TensorValues inputs = c.inputs;
  SparseTensor& b = std::get<SparseTensor>(inputs.at("B"));
  b.levels[1].pos.back() += 1;  // the kernel would read past level 2's positions
  CHECK(errorOf([&] { k.run(inputs); }).rfind("kernel: input 'B': invalid sparse tensor: level 1 (compressed): ", 0) == 0);
  inputs["B"] = convertFormat(std::get<SparseTensor>(c.inputs.at("B")), parseFormat("sss:1,0,2", 3));
  CHECK(errorOf([&] { k.run(inputs); }) == "kernel: input 'B' is declared csf but given sss:1,0,2");
  // Views (the Python module's path) are csr or dense.
  TensorViews views;
  for (const auto& [name, value] : c.inputs) views[name].shape = shapeOf(value);
  CHECK(errorOf([&] { k.sizesFor(views); }) == "kernel: input 'B' is csf; views are csr or dense");
  // The ABI passes REACT_MAX_LEVELS levels (the interpreter takes any rank).
  Environment env;
  env.declare("X", std::vector<int64_t>(REACT_MAX_LEVELS + 1, 2), Format::csf(REACT_MAX_LEVELS + 1));
  const Program wide = parseIndexNotation("a(i) = X(i,j,k,l,m,n,o,p,q)", env);
  CHECK(errorOf([&] { lowerToLoops(fuse(wide, FusionMode::None)); }) ==
        "lowering: tensor 'X' of format csf has 9 levels; the kernel ABI passes at most 8");
}

TEST_CASE("tensors: a coo input is read as given and converted to csf once, when the kernel is bound") {
  TensorCase c = mttkrpCases(Format::coo(3), 7)[0];
  const SparseTensor& coo = std::get<SparseTensor>(c.inputs.at("B"));
  const Program p = c.program();
  CHECK(p.tensor("B").format == Format::csf(3));
  CHECK(p.tensor("B").declaredFormat() == Format::coo(3));
  CompileOptions o;
  o.fusion = FusionMode::React;
  o.jit = testCache();
  Kernel k = Kernel::compile(p, o);
  // The same entries given as coo or as csf give the same result, exactly (the same kernel).
  TensorValues asCsf = c.inputs;
  asCsf["B"] = convertFormat(coo, Format::csf(3));
  BoundKernel bound = k.bind(c.inputs);
  REQUIRE(bound.converted);
  CHECK(std::get<SparseTensor>(bound.converted->at("B")) == std::get<SparseTensor>(asCsf.at("B")));
  bound.run();
  CHECK(fuzz::relativeError(bound.results().at("A"), k.run(asCsf).at("A")) == 0);
  // A coo tensor is checked before it is converted; other formats are still refused by name.
  TensorValues broken = c.inputs;
  std::get<SparseTensor>(broken.at("B")).levels[1].crd.back() = 99;
  CHECK(errorOf([&] { k.run(broken); }).rfind("kernel: input 'B': invalid sparse tensor: ", 0) == 0);
  TensorValues other = c.inputs;
  other["B"] = convertFormat(coo, parseFormat("sss:1,0,2", 3));
  CHECK(errorOf([&] { k.run(other); }) == "kernel: input 'B' is declared coo but given sss:1,0,2");
  // auto counts the levels kernels iterate: coo's statistics are csf's.
  CHECK(inputStats(c.inputs).sparse.at("B").levelPositions == inputStats(asCsf).sparse.at("B").levelPositions);
}

TEST_CASE("tensors: an input whose unique form is csr (a singleton under a dense level) is bound as csr data") {
  // One entry in each row: `dq` stores it; kernels iterate csr, whose data is a CsrMatrix.
  CooTensor one;
  one.shape = {4, 5};
  one.crd = {{0, 1, 2, 3}, {4, 0, 2, 1}};
  one.val = {1.5, -2, 3, 0.5};
  const Format dq = parseFormat("dq", 2);
  CHECK(dq.iterated() == Format::csr());
  Environment env;
  env.declare("S", {4, 5}, dq);
  env.declare("C", {5, 3}, Format::dense(2));
  const Program p = parseOperatorForm("A = S * 2; B = S @ C", env);
  TensorValues given{{"S", cooToSparse(one, dq)}, {"C", randomPositive({5, 3}, 9)}};
  TensorValues asCsr{{"S", sparseToCsr(cooToSparse(one, Format::csr()))}, {"C", given.at("C")}};
  CompileOptions o;
  o.fusion = FusionMode::React;
  o.jit = testCache();
  Kernel k = Kernel::compile(p, o);
  const TensorValues got = k.run(given), want = k.run(asCsr);
  for (const char* name : {"A", "B"}) CHECK(fuzz::relativeError(got.at(name), want.at(name)) == 0);
  CHECK(fuzz::relativeError(interpret(fuse(p, FusionMode::React), given).at("B"), want.at("B")) == 0);
}
