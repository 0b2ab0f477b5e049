// Fusion mode auto: product chains and their associations, the order it picks as the sizes
// change, its kernels against the interpreter (random programs and random chains), caching per
// decision, the -print-decisions report and the errors.
#include "fusion/fusion.hpp"
#include "lower/ir/ir.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

using namespace react;
using namespace react::test;

namespace {

// A = S @ C @ D with S n x m (csr unless given), C m x nh, D nh x nj.
Program spmmChain(const std::string& text, int64_t n, int64_t m, int64_t nh, int64_t nj, const Format& s = Format::csr()) {
  Environment env;
  env.declare("S", {n, m}, s);
  env.declare("C", {m, nh}, Format::dense(2));
  env.declare("D", {nh, nj}, Format::dense(2));
  return parseProgram(text, env);
}

InputStats statsOf(int64_t n, int64_t m, int64_t nnz) {
  InputStats s;
  s.sparse["S"] = {n, m, nnz, std::min<int64_t>(m, nnz)};
  return s;
}

// "A(i0,iN) = F0(i0,i1) * F1(i1,i2) * ...": 3-5 matrix factors, the first csr half of the time,
// sometimes also an element-wise csr mask or dense factor over the result's indices.
RandomProgram randomChain(uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](int lo, int hi) { return static_cast<int64_t>(std::uniform_int_distribution<int>(lo, hi)(rng)); };
  RandomProgram r;
  int factors = static_cast<int>(pick(3, 5));
  std::vector<int64_t> extent;
  for (int f = 0; f <= factors; ++f) extent.push_back(pick(1, 6));
  std::string rhs;
  for (int f = 0; f < factors; ++f) {
    std::string name = std::string(1, static_cast<char>('B' + f));
    bool csr = (f == 0 || f == factors - 1) && pick(0, 1);
    std::vector<int64_t> shape{extent[f], extent[f + 1]};
    if (csr) {
      r.env.declare(name, shape, Format::csr());
      r.inputs[name] = randomCsr(shape[0], shape[1], 0.5, seed * 7 + f);
    } else {
      r.env.declare(name, shape, Format::dense(2));
      r.inputs[name] = randomPositive(shape, seed * 7 + f);
    }
    rhs += (rhs.empty() ? "" : " * ") + name + "(i" + std::to_string(f) + ",i" + std::to_string(f + 1) + ")";
  }
  std::string out = "i0,i" + std::to_string(factors);
  if (int64_t extra = pick(0, 2); extra > 0) {
    std::vector<int64_t> shape{extent[0], extent[static_cast<size_t>(factors)]};
    if (extra == 1) {
      r.env.declare("M", shape, Format::csr());
      r.inputs["M"] = randomCsr(shape[0], shape[1], 0.5, seed * 7 + 99);
    } else {
      r.env.declare("M", shape, Format::dense(2));
      r.inputs["M"] = randomPositive(shape, seed * 7 + 99);
    }
    rhs = pick(0, 1) ? "M(" + out + ") * " + rhs : rhs + " * M(" + out + ")";
  }
  r.text = "A(" + out + ") = " + rhs;
  return r;
}

}  // namespace

// --- association -------------------------------------------------------------------------------

TEST_CASE("association: product chains are free unless parenthesised in the operator form") {
  CHECK(productChains(spmmChain("A = S @ C @ D", 6, 6, 4, 3)).size() == 1);
  CHECK(productChains(spmmChain("A = (S @ C) @ D", 6, 6, 4, 3)).empty());
  CHECK(productChains(spmmChain("A = S @ (C @ D)", 6, 6, 4, 3)).empty());
  CHECK(productChains(spmmChain("A(i,j) = S(i,k) * C(k,h) * D(h,j)", 6, 6, 4, 3)).size() == 1);
  // Index notation: parentheses do not fix the order.
  CHECK(productChains(spmmChain("A(i,j) = S(i,k) * (C(k,h) * D(h,j))", 6, 6, 4, 3)).size() == 1);
  // A grouped operand of a longer chain is one factor: (S @ C) @ D @ D.T has three.
  Environment env;
  env.declare("S", {6, 6}, Format::csr());
  env.declare("C", {6, 4}, Format::dense(2));
  env.declare("D", {4, 4}, Format::dense(2));
  std::vector<ProductChain> chains = productChains(parseProgram("A = (S @ C) @ D @ D.T", env));
  REQUIRE(chains.size() == 1);
  CHECK(chains[0].factors.size() == 3);
}

TEST_CASE("association: Catalan many trees, the written one first") {
  CHECK(allAssociations(3).size() == 2);
  CHECK(allAssociations(4).size() == 5);
  CHECK(allAssociations(6).size() == 42);
  Program p = spmmChain("A = S @ C @ D", 6, 6, 4, 3);
  ProductChain c = productChains(p).at(0);
  CHECK(c.str() == "S(i,k) * C(k,h) * D(h,j)");
  CHECK(currentAssociation(p, c).str(c) == "(S(i,k) * C(k,h)) * D(h,j)");
  CHECK(allAssociations(3)[0].str(c) == "(S(i,k) * C(k,h)) * D(h,j)");
  CHECK(allAssociations(3)[1].str(c) == "S(i,k) * (C(k,h) * D(h,j))");
}

TEST_CASE("association: the right association computes C @ D first and gives the same values") {
  Program p = spmmChain("A = S @ C @ D", 7, 5, 4, 3);
  std::vector<ProductChain> chains = productChains(p);
  Program right = associate(p, chains, {allAssociations(3)[1]});
  CHECK(right.str() == "T0(k,j) = C(k,h) * D(h,j)\nA(i,j) = S(i,k) * T0(k,j)\n");
  CHECK(right.tensor("T0").role == TensorRole::Temporary);
  TensorValues in{{"S", randomCsr(7, 5, 0.4, 1)}, {"C", randomPositive({5, 4}, 2)}, {"D", randomPositive({4, 3}, 3)}};
  requireClose(p, interpret(buildIndexTree(right), in), interpret(buildIndexTree(p), in), "right association");
}

TEST_CASE("association: errors") {
  Program p = spmmChain("A = S @ C @ D", 6, 6, 4, 3);
  std::vector<ProductChain> chains = productChains(p);
  Association leaf;
  leaf.factor = 0;
  CHECK_THROWS_AS(associate(p, chains, {}), UserError);
  CHECK_THROWS_AS(associate(p, chains, {leaf}), UserError);
  Association twice;
  twice.parts = {leaf, leaf};
  CHECK_THROWS_AS(associate(p, chains, {twice}), UserError);
}

// --- the choice ----------------------------------------------------------------------------------

TEST_CASE("auto: the order of S @ C @ D flips with NH and NJ as the flop counts say") {
  // (S@C)@D: 2*nnz*NH + 2*n*NH*NJ; S@(C@D): 2*m*NH*NJ + 2*nnz*NJ (n = m here).
  AutoDecision wide = decideFusion(spmmChain("A = S @ C @ D", 2000, 2000, 256, 16), statsOf(2000, 2000, 20000), testMachine());
  CHECK(wide.choice().associations.at(0) == "S(i,k) * (C(k,h) * D(h,j))");
  CHECK_FALSE(wide.choice().asWritten);
  AutoDecision narrow = decideFusion(spmmChain("A = S @ C @ D", 2000, 2000, 16, 256), statsOf(2000, 2000, 20000), testMachine());
  CHECK(narrow.choice().associations.at(0) == "(S(i,k) * C(k,h)) * D(h,j)");
  CHECK(narrow.choice().asWritten);
  // Same sizes, the order flips with nnz when S is short and wide:
  // left - right = 2*nnz*(NH - NJ) + 2*NH*NJ*(n - m).
  Program p = spmmChain("A = S @ C @ D", 10, 1000, 8, 4);
  CHECK(decideFusion(p, statsOf(10, 1000, 100), flopBoundMachine()).choice().asWritten);
  CHECK_FALSE(decideFusion(p, statsOf(10, 1000, 9000), flopBoundMachine()).choice().asWritten);
  // A forced order is kept: only the three modes are candidates.
  AutoDecision forced = decideFusion(spmmChain("A = (S @ C) @ D", 2000, 2000, 256, 16), statsOf(2000, 2000, 20000), testMachine());
  CHECK(forced.candidates.size() == 3);
  CHECK(forced.chains.empty());
}

TEST_CASE("auto: SDDMM keeps react's sparse propagation, the dense product is far costlier") {
  Environment env;
  env.declare("S", {3000, 3000}, Format::csr());
  env.declare("B", {3000, 64}, Format::dense(2));
  env.declare("C", {64, 3000}, Format::dense(2));
  AutoDecision d = decideFusion(parseProgram("A(i,j) = S(i,j) * B(i,k) * C(k,j)", env), statsOf(3000, 3000, 30000), testMachine());
  CHECK(d.choice().label() == "react");
  CHECK(d.choice().asWritten);
  // As written: react, react fusing only the outer loop, react leaving the sparse-propagated
  // product's edge unfused, none, maximal; the other association would compute the csr result
  // densely and is rejected.
  REQUIRE(d.candidates.size() == 8);
  CHECK(d.candidates[1].label() == "react (prefix 1)");
  CHECK(d.candidates[2].label() == "react (T0 -> A unfused)");
  CHECK(d.candidates[3].label() == "none");
  CHECK(d.candidates[7].rejected == "1:1: 'A' is declared csr but its value is dense here");
}

TEST_CASE("partial fusion with a limited prefix depth merges only the outer loops") {
  Environment env;
  env.declare("S", {30, 30}, Format::csr());
  env.declare("B", {30, 8}, Format::dense(2));
  env.declare("C", {8, 30}, Format::dense(2));
  Program p = parseProgram("A(i,j) = S(i,j) * B(i,k) * C(k,j)", env);
  auto count = [](const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  CHECK(count(printTree(fuse(p, FusionMode::React)), "j (S: S row i)") == 1);
  CHECK(count(printTree(fuse(p, FusionMode::React, 1)), "j (S: S row i)") == 2);
  CHECK(count(printTree(fuse(p, FusionMode::React, 1)), "i (D)") == 1);
  TensorValues in{{"S", randomCsr(30, 30, 0.3, 1)}, {"B", randomPositive({30, 8}, 2)}, {"C", randomPositive({8, 30}, 3)}};
  requireClose(p, interpret(fuse(p, FusionMode::React, 1), in), interpret(buildIndexTree(p), in), "prefix 1");
}

TEST_CASE("estimate: one long row bounds a row-parallel nest, every nest pays a parallel region") {
  Environment env;
  env.declare("S", {1000, 1000}, Format::csr());
  IndexTree t = fuse(parseProgram("A = S / sum(S, axis=1)", env), FusionMode::React);
  MachineModel m = flopBoundMachine();
  InputStats even = statsOf(1000, 1000, 100000), skewed = even;
  even.sparse["S"].longestRow = 100;
  skewed.sparse["S"].longestRow = 90000;  // one row holds 90% of the entries
  double balanced = estimateCost(t, even, m).seconds, imbalanced = estimateCost(t, skewed, m).seconds;
  // Two threads share the balanced work; the long row's 90% runs on one of them.
  CHECK(imbalanced == doctest::Approx(balanced * 0.9 / 0.5).epsilon(0.01));
  m.regionSeconds = 1e-3;
  CHECK(estimateCost(t, even, m).seconds == doctest::Approx(balanced + 1e-3 * estimateCost(t, even, m).nests));
}

// On Kokkos a dense sum of a warp's width under each stored entry spreads the entries over team
// threads whatever their rows (dense-lanes): a long row no longer bounds the nest, for the
// target's lowering only (modelForLowering), and under the reassociated order only. On the H200's
// model the bound had made auto choose the unfused SDDMM on cora and wiki-Vote (2.8x and 17x
// react's time there).
TEST_CASE("estimate: a long row bounds SDDMM's nest unless the target spreads its entries") {
  Environment env;
  env.declare("S", {1000, 1000}, Format::csr());
  env.declare("B", {1000, 64}, Format::dense(2));
  env.declare("C", {64, 1000}, Format::dense(2));
  const IndexTree t = fuse(parseProgram("A = S * (B @ C)", env), FusionMode::React);
  InputStats even = statsOf(1000, 1000, 100000), skewed = even;
  even.sparse["S"].longestRow = 100;
  skewed.sparse["S"].longestRow = 90000;
  MachineModel m = flopBoundMachine();
  CHECK(estimateCost(t, skewed, m).seconds > 1.5 * estimateCost(t, even, m).seconds);
  EmitOptions reassociate, written;
  written.floatOrder = FloatOrder::Written;
  CHECK(modelForLowering(m, Target::OpenMP, reassociate).splitRowsFrom == 0);
  CHECK(modelForLowering(m, Target::Kokkos, written).splitRowsFrom == 0);
  const MachineModel kokkos = modelForLowering(m, Target::Kokkos, reassociate);
  CHECK(kokkos.splitRowsFrom == 32);
  CHECK(estimateCost(t, skewed, kokkos).seconds == doctest::Approx(estimateCost(t, even, kokkos).seconds));
  // Rows the lowering does not spread keep their bound: K = 16 (too narrow for the lanes), an
  // entry whose product is then summed over the row (into A(i,l), or a row sum).
  Environment more = env;
  more.declare("N", {1000, 16}, Format::dense(2));
  more.declare("M", {16, 1000}, Format::dense(2));
  more.declare("D", {1000, 8}, Format::dense(2));
  for (const char* text : {"A = S * (N @ M)", "A = (S * (B @ C)) @ D", "a = sum(S * (B @ C), axis=1)"}) {
    INFO(text);
    const IndexTree n = fuse(parseProgram(text, more), FusionMode::React);
    CHECK(estimateCost(n, skewed, kokkos).seconds > 1.5 * estimateCost(n, even, kokkos).seconds);
  }
}

TEST_CASE("estimate: a nest whose outer iterations write shared memory runs on one thread") {
  // S @ C with S in csc: the nest's outer loop is S's columns k, each scattering into rows i of
  // A, so lowering runs it serially; in csr its outer loop is the rows, one thread each.
  auto tree = [](const Format& f) {
    Environment env;
    env.declare("S", {1000, 1000}, f);
    env.declare("C", {1000, 16}, Format::dense(2));
    return fuse(parseProgram("A = S @ C", env), FusionMode::React);
  };
  InputStats stats = statsOf(1000, 1000, 100000);
  stats.sparse["S"].longestRow = 100;
  stats.sparse["S"].levelPositions = {1000, 100000};
  MachineModel one = flopBoundMachine(), many = one;
  one.threads = 1;
  many.threads = 16;
  const IndexTree csc = tree(Format::csc()), csr = tree(Format::csr());
  CHECK(estimateCost(csc, stats, many).seconds == doctest::Approx(estimateCost(csc, stats, one).seconds));
  CHECK(estimateCost(csr, stats, many).seconds < estimateCost(csr, stats, one).seconds / 8);
  // What lowering does: the csc nest's loop is serial, the csr one's parallel.
  auto outerSchedule = [](const IndexTree& t) {
    std::string loops = ir::print(lowerToLoops(t));
    return loops.find("parallel") != std::string::npos;
  };
  CHECK_FALSE(outerSchedule(csc));
  CHECK(outerSchedule(csr));
}

TEST_CASE("estimate: exp at its loop's length, and at the long rate on every thread in OpenMP's loop over all stored entries") {
  MachineModel m = flopBoundMachine();
  m.regionSeconds = 0;
  m.vectorFlops = m.reductionFlops = {1e15, 1e15, 1e15, 1e15, 1e15};
  m.expRate = 4e8;
  CHECK(m.expRateAt(4) == m.expRate);  // not measured in short rows: one rate
  m.shortRowExpRate = 1e8;
  CHECK(m.expRateAt(2) == doctest::Approx(1e8));
  CHECK(m.expRateAt(4) == doctest::Approx(1e8));
  CHECK(m.expRateAt(32) == doctest::Approx(2.5e8));  // halfway from 4 to 256 on log scale
  CHECK(m.expRateAt(1000) == doctest::Approx(4e8));
  // Softmax of a csc S (columns of 4 entries): react stores exp(S) at S's entries, computed in
  // the flat loop before the serial column loop; maximal computes exp twice in columns of 4.
  Environment env;
  env.declare("S", {1000, 1000}, Format::csc());
  Program p = parseProgram("A = exp(S) / sum(exp(S), axis=1)", env);
  InputStats stats = statsOf(1000, 1000, 4000);
  stats.sparse["S"].longestRow = 4;
  stats.sparse["S"].levelPositions = {1000, 4000};
  const IndexTree react = fuse(p, FusionMode::React), maximal = fuse(p, FusionMode::Maximal);
  CHECK(estimateCost(react, stats, m).seconds == doctest::Approx(4000 / 4e8 / m.threads));
  // Serial columns scatter the sum, then parallel columns divide.
  CHECK(estimateCost(maximal, stats, m).seconds == doctest::Approx(4000 / 1e8 + 4000 / 1e8 / m.threads));
  CHECK((decideFusion(p, stats, m).choice().mode == FusionMode::React));
  // A device's lowering has no flat loop: react's exp runs in the serial columns.
  MachineModel device = m;
  device.device = "test device";
  CHECK(estimateCost(react, stats, device).seconds == doctest::Approx(4000 / 1e8));
  // What lowering does: the flat loop is there on OpenMP.
  CHECK(ir::print(scheduleLoops(lowerToLoops(react), Target::OpenMP)).find("react_entries") != std::string::npos);
}

TEST_CASE("estimate: a plain dense product is priced at the library's rate, on every thread") {
  Environment env;
  env.declare("C", {4096, 256}, Format::dense(2));
  env.declare("D", {256, 16}, Format::dense(2));
  env.declare("S", {4096, 4096}, Format::csr());
  const IndexTree product = fuse(parseProgram("A = C @ D", env), FusionMode::None);
  const IndexTree sparse = fuse(parseProgram("A = S @ C", env), FusionMode::None);
  InputStats stats = statsOf(4096, 4096, 40960);
  stats.sparse["S"].longestRow = 10;
  MachineModel loops = flopBoundMachine();
  loops.regionSeconds = 0;
  MachineModel library = loops;
  library.productFlops = 50e9;
  const double flops = 2.0 * 4096 * 256 * 16;
  CHECK(estimateCost(product, stats, loops).seconds == doctest::Approx(flops / (4e9 * loops.threads)));
  CHECK(estimateCost(product, stats, library).seconds == doctest::Approx(flops / (50e9 * library.threads)));
  // Another nest keeps react's loop rates.
  CHECK(estimateCost(sparse, stats, library).seconds == doctest::Approx(estimateCost(sparse, stats, loops).seconds));
  // A nest with anything beside the product is react's loops too: maximal fusion's C @ D @ E.
  env.declare("E", {16, 16}, Format::dense(2));
  const IndexTree fused = fuse(parseProgram("A = C @ D @ E", env), FusionMode::Maximal);
  REQUIRE(fused.root.children.size() == 1);
  CHECK(estimateCost(fused, stats, library).seconds == doctest::Approx(estimateCost(fused, stats, loops).seconds));
}

TEST_CASE("auto: the library product's rate counts only where kernels call it, csc takes C @ D apart") {
  // S @ C @ D with S in csc: react fuses C(k,:) @ D into S's column loop, a serial nest of
  // react's loops; unfused, C @ D is the library's product on every thread, then S scatters.
  Program p = spmmChain("A = S @ C @ D", 2000, 2000, 256, 16, Format::csc());
  InputStats stats = statsOf(2000, 2000, 20000);
  stats.sparse["S"].longestRow = 20;
  stats.sparse["S"].levelPositions = {2000, 20000};
  MachineModel m = flopBoundMachine();
  m.threads = 16;
  m.productFlops = 40e9;
  CompileOptions options;
  options.stats = stats;
  options.machine = m;
  AutoDecision reassociated, written;
  fusedTree(p, options, &reassociated);
  CHECK(reassociated.machine.productFlops == 40e9);
  CHECK_FALSE(reassociated.choice().asWritten);
  CHECK(toString(reassociated.choice().mode) == std::string("none"));
  options.emit.floatOrder = FloatOrder::Written;
  fusedTree(p, options, &written);
  CHECK(written.machine.productFlops == 0);
  options.emit.floatOrder = FloatOrder::Reassociate;
  options.emit.libraryProducts = false;
  AutoDecision noLibrary;
  fusedTree(p, options, &noLibrary);
  CHECK(noLibrary.machine.productFlops == 0);
}

TEST_CASE("auto: errors") {
  Program p = spmmChain("A = S @ C @ D", 6, 6, 4, 3);
  CHECK_THROWS_WITH_AS(decideFusion(p, InputStats{}, testMachine()),
                       "auto: no statistics for csr input 'S' (give its values, or its nnz)", UserError);
  CHECK_THROWS_WITH_AS(fuse(p, FusionMode::Auto),
                       "fusion mode auto needs the inputs' statistics: decide with decideFusion, then fuse its choice", UserError);
  CHECK_THROWS_AS(decideFusion(p, statsOf(6, 6, 10), MachineModel{}), UserError);
  CHECK(toString(parseFusionMode("auto")) == "auto");
}

TEST_CASE("auto: the candidates of a long chain of statements do not grow with its length") {
  // Every edge of `X1(i) = B(i) * 2 + 1; X2(i) = X1(i) * 2 + 1; ...` unfused alone gives another
  // tree: one candidate per edge made auto quadratic in the statements (400 took minutes).
  auto candidates = [](int statements) {
    Environment env;
    env.declare("B", {4}, Format::dense(1));
    std::string text = "X1(i) = B(i) * 2 + 1";
    for (int k = 2; k <= statements; ++k)
      text += "; X" + std::to_string(k) + "(i) = X" + std::to_string(k - 1) + "(i) * 2 + 1";
    return decideFusion(parseProgram(text, env), InputStats{}, testMachine()).candidates.size();
  };
  // Each statement splits into `Tk(i) = X(i) * 2` and `Xk+1(i) = Tk(i) + 1`: one edge per
  // statement. react, 64 single-edge plans (kMaxEdgePlans), none, maximal:
  CHECK(candidates(100) == 67);
  CHECK(candidates(300) == 67);
  CHECK(candidates(10) == 13);  // fewer edges: every one varies alone (react, 10 edges, none, maximal)
}

// --- differential --------------------------------------------------------------------------------

TEST_CASE("differential: every auto candidate equals the unfused tree (random programs and chains)") {
  int chainsSeen = 0, reassociated = 0, perEdge = 0;
  const int programs = scaled(400);
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(programs); ++seed) {
    RandomProgram r = seed % 2 ? randomProgram(seed + 9000, 4) : randomChain(seed);
    INFO("seed " << seed << "\n" << r.text);
    Program p = parseProgram(r.text, r.env);
    TensorValues want = interpret(buildIndexTree(p), r.inputs);
    AutoDecision d = decideFusion(p, inputStats(r.inputs), testMachine());
    chainsSeen += !d.chains.empty();
    reassociated += !d.choice().asWritten;
    for (const AutoCandidate& c : d.candidates) {
      if (!c.rejected.empty()) continue;
      INFO(c.label() << "\n" << c.program.str());
      perEdge += !c.plan.edgeDepth.empty();
      requireClose(p, interpret(c.tree, r.inputs), want, "candidate");
    }
  }
  MESSAGE(chainsSeen << " programs with chains, " << reassociated << " re-associated, " << perEdge
                     << " per-edge candidates");
  CHECK(chainsSeen * 400 > 150 * programs);
  CHECK(reassociated * 400 > 10 * programs);
  CHECK(perEdge * 400 > 100 * programs);
}

TEST_CASE("differential: auto's OpenMP kernels equal the interpreter (random programs and chains)") {
  std::map<FusionMode, std::vector<Program>> programs;
  std::map<FusionMode, std::vector<RandomProgram>> cases;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    RandomProgram r = seed % 2 ? randomProgram(seed + 7000, 4) : randomChain(seed + 500);
    AutoDecision d = decideFusion(parseProgram(r.text, r.env), inputStats(r.inputs), testMachine());
    programs[d.choice().mode].push_back(d.choice().program);
    cases[d.choice().mode].push_back(r);
  }
  for (const auto& [mode, ps] : programs) {
    CompileOptions o;
    o.fusion = mode;
    o.jit = testCache();
    std::vector<Kernel> kernels = Kernel::compileBatch(ps, o);
    for (size_t n = 0; n < ps.size(); ++n) {
      const RandomProgram& r = cases[mode][n];
      INFO(toString(mode) << "\n" << r.text << "\n" << kernels[n].source());
      Program original = parseProgram(r.text, r.env);
      requireClose(original, kernels[n].run(r.inputs), interpret(buildIndexTree(original), r.inputs), "auto kernel");
    }
  }
}

// --- caching per decision --------------------------------------------------------------------------

TEST_CASE("auto: kernels are cached per decision, new statistics recompile only when it changes") {
  namespace fs = std::filesystem;
  std::string dir = (fs::temp_directory_path() / ("react-auto-cache-" + std::to_string(getpid()))).string();
  fs::remove_all(dir);
  CompileOptions o;
  o.fusion = FusionMode::Auto;
  o.jit.cacheDir = dir;
  o.machine = flopBoundMachine();
  Program p = spmmChain("A = S @ C @ D", 10, 1000, 8, 4);
  o.stats = statsOf(10, 1000, 100);
  Kernel first = Kernel::compile(p, o);
  CHECK_FALSE(first.library().cacheHit);
  o.stats = statsOf(10, 1000, 300);  // other statistics, same decision: the same kernel
  Kernel same = Kernel::compile(p, o);
  CHECK(same.library().cacheHit);
  CHECK(same.source() == first.source());
  o.stats = statsOf(10, 1000, 9000);  // the order flips: a new kernel
  Kernel flipped = Kernel::compile(p, o);
  CHECK_FALSE(flipped.library().cacheHit);
  CHECK(flipped.source() != first.source());
  // Statistics from the inputs themselves (Kernel::compile with inputs), and the result.
  TensorValues in{{"S", randomCsr(10, 1000, 0.9, 4)}, {"C", randomPositive({1000, 8}, 5)}, {"D", randomPositive({8, 4}, 6)}};
  o.stats.reset();
  Kernel fromInputs = Kernel::compile(p, o, in);
  o.stats = inputStats(in);
  CHECK(fromInputs.source() == Kernel::compile(p, o).source());
  requireClose(p, fromInputs.run(in), interpret(buildIndexTree(p), in), "auto kernel");
  fs::remove_all(dir);
}

// --- react-gen -------------------------------------------------------------------------------------

TEST_CASE("react-gen -fusion=auto -print-decisions: candidates, costs, the choice") {
  std::string gen = std::string(REACT_BINARY_DIR) + "/bin/react-gen";
  std::string cache = " -cache-dir=" + testCache().cacheDir;
  std::string cora = " -i=S:" + sharedMatrixDir() + "/cora.mtx";
  CommandResult r = runCommand(gen + " 'A = S @ C @ D'" + cora + " -g=C:u -g=D:u -d=h:256 -d=j:16 -fusion=auto -print-decisions" +
                               cache + " 2>/dev/null");  // stderr: the calibration's progress, on first use
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(r.output.find("auto: 6 candidates\n") == 0);  // react's per-edge choice here is none's tree
  CHECK(r.output.find("inputs:  S: 2708x2708, nnz 10556, longest row 168") != std::string::npos);
  CHECK(r.output.find("machine: ") != std::string::npos);
  CHECK(r.output.find("chain 1: S(i,k) * C(k,h) * D(h,j)\n") != std::string::npos);
  CHECK(r.output.find("(S(i,k) * C(k,h)) * D(h,j) (as written)") != std::string::npos);
  CHECK(r.output.find("\n*") != std::string::npos);
  CHECK(r.output.find("S(i,k) * (C(k,h) * D(h,j))  ") != std::string::npos);
  // Which association wins at NH = 256, NJ = 16 depends on the calibrated machine (on a 2-core CI
  // machine the two are within a few percent); the -machine=FILE test below pins it with stored models.
  CHECK(r.output.find("\nchoice: ") != std::string::npos);
  // Runs, and agrees with react mode on the result.
  std::string out = testCache().cacheDir + "/auto-a.mtx", ref = testCache().cacheDir + "/react-a.mtx";
  CHECK(runCommand(gen + " 'A = S @ C @ D'" + cora + " -g=C:u -g=D:u -d=h:32 -d=j:4 -fusion=auto -o=A:" + out + cache).status == 0);
  CHECK(runCommand(gen + " 'A = S @ C @ D'" + cora + " -g=C:u -g=D:u -d=h:32 -d=j:4 -fusion=react -o=A:" + ref + cache).status == 0);
  CHECK(relativeError(toTensorData(readMatrixMarket(out)), toTensorData(readMatrixMarket(ref))) < 1e-12);
}

TEST_CASE("react-gen: auto's errors name the cause") {
  std::string gen = std::string(REACT_BINARY_DIR) + "/bin/react-gen";
  CommandResult a = runCommand(gen + " 'A = S @ C' -f=S:csr -f=C:dense -d=i:4 -d=k:4 -d=j:4 -print-decisions 2>&1");
  CHECK(a.status == 1);
  CHECK(a.output == "react-gen: argument '-print-decisions': needs fusion mode auto (-fusion=auto; the default when every sparse input "
                    "has data)\n");
  CommandResult b = runCommand(gen + " 'A = S @ C' -f=S:csr -f=C:dense -d=i:4 -d=k:4 -d=j:4 -fusion=auto -print-tree -cache-dir=" +
                               testCache().cacheDir + " 2>&1");
  CHECK(b.status == 1);
  CHECK(b.output == "react-gen: auto: no statistics for csr input 'S' (give its values, or its nnz)\n");
}

TEST_CASE("react-gen -machine=FILE decides for a stored model of another machine and names a bad file") {
  namespace fs = std::filesystem;
  std::string gen = std::string(REACT_BINARY_DIR) + "/bin/react-gen";
  std::string dir = testCache().cacheDir + "/machine-" + std::to_string(getpid());
  fs::create_directories(dir);
  // Two machines that differ only in the rate of long dense loops: on the first, C @ D (a dense
  // 256 x 16 product per row of C) is cheap and the right association wins at NH = 256, NJ = 16;
  // on the second it is 100 times slower and the sparse rows of S @ C come first.
  auto write = [&](const std::string& name, double denseRate) {
    std::ofstream f(dir + "/" + name);
    f << "threads=2\nbandwidth1=1e10\nbandwidth=2e10\ncache_bytes=3e7\nregion_seconds=1e-5\nexp_rate=2e8\n";
    for (int l : MachineModel::kRateLengths)
      f << "vector_flops_" << l << "=" << denseRate << "\nreduction_flops_" << l << "=2e9\nsparse_scratch_flops_" << l
        << "=5e9\nsparse_row_flops_" << l << "=5e9\n";
  };
  write("fast.txt", 1e10);
  write("slow.txt", 1e8);
  std::string cmd = gen + " 'A = S @ C @ D' -i=S:" + sharedMatrixDir() + "/cora.mtx -g=C:u -g=D:u -d=h:256 -d=j:16 -fusion=auto -print-decisions ";
  CommandResult fast = runCommand(cmd + "-machine=" + dir + "/fast.txt 2>&1");
  CommandResult slow = runCommand(cmd + "-machine=" + dir + "/slow.txt 2>&1");
  INFO(fast.output);
  INFO(slow.output);
  CHECK(fast.status == 0);
  CHECK(slow.status == 0);
  CHECK(fast.output.find("machine: 2 threads; copy 20.0 GB/s") != std::string::npos);
  CHECK(fast.output.find(dir + "/fast.txt") != std::string::npos);
  CHECK(fast.output.find("re-associated), estimated") != std::string::npos);
  CHECK(slow.output.find("re-associated), estimated") == std::string::npos);
  // A missing file, and one without a field.
  CommandResult missing = runCommand(cmd + "-machine=" + dir + "/none.txt 2>&1");
  CHECK(missing.status == 1);
  CHECK(missing.output == "react-gen: machine model '" + dir + "/none.txt': no such file\n");
  { std::ofstream(dir + "/part.txt") << "threads=2\nbandwidth=2e10\n"; }
  CommandResult partial = runCommand(cmd + "-machine=" + dir + "/part.txt 2>&1");
  CHECK(partial.status == 1);
  CHECK(partial.output.find("react-gen: machine model '" + dir + "/part.txt': a field is missing") == 0);
  fs::remove_all(dir);
}

TEST_CASE("the default fusion mode: auto where it can decide, react where a csr input has no statistics") {
  Program p = spmmChain("A = S @ C @ D", 10, 1000, 8, 4);
  CompileOptions o;  // fusion unset: the default
  CHECK((fusionModeOf(p, o) == FusionMode::React));  // S's statistics are unknown
  o.stats = statsOf(10, 1000, 9000);
  CHECK((fusionModeOf(p, o) == FusionMode::Auto));
  o.machine = flopBoundMachine();
  // Auto's choice here is the right association (see the test above): the default compiles it.
  CHECK(printTree(fusedTree(p, o)) == printTree(decideFusion(p, *o.stats, *o.machine).choice().tree));
  CHECK_FALSE(decideFusion(p, *o.stats, *o.machine).choice().asWritten);
  o.fusion = FusionMode::None;  // a mode given is kept
  CHECK((fusionModeOf(p, o) == FusionMode::None));
  // Without csr inputs auto needs no statistics.
  Environment env;
  env.declare("B", {4, 5}, Format::dense(2));
  env.declare("C", {5, 6}, Format::dense(2));
  CHECK((fusionModeOf(parseProgram("A = B @ C", env), CompileOptions{}) == FusionMode::Auto));
}

TEST_CASE("react-gen's default is auto when every sparse input has data, react otherwise") {
  std::string gen = std::string(REACT_BINARY_DIR) + "/bin/react-gen";
  std::string cache = " -cache-dir=" + testCache().cacheDir;
  std::string cora = " -i=S:" + sharedMatrixDir() + "/cora.mtx";
  // With data: -print-decisions needs no -fusion, and the tree is auto's.
  // stderr apart: the first use of auto in a suite prints the calibration's progress there.
  CommandResult withData = runCommand(gen + " 'A = S @ C @ D'" + cora + " -g=C:u -g=D:u -d=h:256 -d=j:16 -print-decisions -print-tree" + cache + " 2>/dev/null");
  CommandResult autoTree = runCommand(gen + " 'A = S @ C @ D'" + cora + " -g=C:u -g=D:u -d=h:256 -d=j:16 -fusion=auto -print-tree" + cache + " 2>/dev/null");
  INFO(withData.output);
  CHECK(withData.status == 0);
  CHECK(withData.output.find("choice: ") != std::string::npos);
  CHECK(withData.output.find(autoTree.output) != std::string::npos);
  // Without data for S: react's tree.
  std::string shape = " -f=S:csr -f=C:dense -f=D:dense -d=i:8 -d=k:8 -d=h:4 -d=j:4";
  CommandResult noData = runCommand(gen + " 'A = S @ C @ D'" + shape + " -print-tree 2>&1");
  CommandResult react = runCommand(gen + " 'A = S @ C @ D'" + shape + " -fusion=react -print-tree 2>&1");
  CHECK(noData.status == 0);
  CHECK(noData.output == react.output);
}

TEST_CASE("react-gen compiles, writes and runs the kernel auto chose, re-associated") {
  // A machine where arithmetic decides: S @ (C @ D) costs far fewer flops on cora at h=256, j=4.
  MachineModel machine = flopBoundMachine();
  machine.scratchRowFlops = machine.rowFlops = machine.vectorFlops;
  machine.regionSeconds = 1e-6;
  machine.expRate = 1e8;
  JitOptions modelDir;
  modelDir.cacheDir = std::string(REACT_BINARY_DIR) + "/auto-executed-test";
  std::filesystem::remove_all(modelDir.cacheDir);
  std::filesystem::create_directories(modelDir.cacheDir);
  std::string modelFile = storeMachineModel(machine, modelDir);
  std::string written = modelDir.cacheDir + "/written.cpp";
  std::string cora = sharedMatrixDir() + "/cora.mtx";
  CommandResult r = runCommand(std::string(REACT_BINARY_DIR) + "/bin/react-gen 'A = S @ C @ D' -i=S:" + cora +
                               " -g=C:u -g=D:u -d=h:256 -d=j:4 -machine=" + modelFile + " -print-decisions -time=1" +
                               " -write-source=" + written + " -cache-dir=" + testCache().cacheDir + " 2>&1");
  INFO(r.output);
  REQUIRE(r.status == 0);
  REQUIRE(r.output.find("re-associated") != std::string::npos);

  // What auto chose, computed here: the written source is that tree's.
  Environment env;
  CsrMatrix s = readMatrixMarketCsr(cora);
  env.declare("S", {s.rows, s.cols}, Format::csr());
  env.declare("C", {-1, -1}, Format::dense(2));
  env.declare("D", {-1, -1}, Format::dense(2));
  env.indexSizes = {{"h", 256}, {"j", 4}};
  Program p = parseProgram("A = S @ C @ D", env);
  AutoDecision d = decideFusion(p, inputStats({{"S", s}}), readMachineModel(modelFile));
  REQUIRE_FALSE(d.choice().asWritten);
  std::ifstream in(written);
  std::string writtenSource((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(writtenSource == emitSource(lowerToLoops(d.choice().tree), Target::OpenMP));
  CHECK(writtenSource != emitSource(lowerToLoops(fuse(p, d.choice().mode)), Target::OpenMP));

  // The library that ran was compiled from exactly that source ("compile: ... (compiled|cached PATH.so)").
  size_t at = r.output.find(".so)");
  REQUIRE(at != std::string::npos);
  size_t from = r.output.rfind(' ', at) + 1;
  std::ifstream executedFile(r.output.substr(from, at - from) + ".cpp");
  std::string executed((std::istreambuf_iterator<char>(executedFile)), std::istreambuf_iterator<char>());
  CHECK(executed.compare(0, writtenSource.size(), writtenSource) == 0);
  CHECK(executed.find("react_cache_key") != std::string::npos);
}
