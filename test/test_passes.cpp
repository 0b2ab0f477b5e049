// Golden tests of the loop-IR passes, one pass at a time (in the manner of MLIR's sparse_tensor
// tests, which run one pass on a file): each file in test/golden/passes/ holds a program, the IR
// its target's pipeline hands to the pass (text in) and the IR the pass gives (text out). The test
// rebuilds the input from the program, requires it to equal the file's, runs the one pass and
// compares. The files were reviewed by hand; REACT_UPDATE_GOLDEN=1 rewrites them (review the diff).
#include "lower/ir/ir.hpp"
#include "lower/ir/names.hpp"
#include "lower/passes/passes.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

using namespace react;

namespace {

struct PassExample {
  std::string pass, name, text;
  std::vector<std::tuple<std::string, std::vector<int64_t>, Format>> tensors;
  FusionMode mode = FusionMode::React;
  Target target = Target::OpenMP;
  EmitOptions options;
  std::map<std::string, ValueType> types;  // value types other than float64 (withValueTypes)
};

std::vector<PassExample> examples() {
  Format csr = Format::csr(), d1 = Format::dense(1), d2 = Format::dense(2);
  std::vector<std::tuple<std::string, std::vector<int64_t>, Format>> sddmm{{"S", {6, 5}, csr}, {"B", {6, 3}, d2}, {"C", {3, 5}, d2}},
      sddmmWide{{"S", {6, 5}, csr}, {"B", {6, 64}, d2}, {"C", {64, 5}, d2}},
      twoSums{{"S", {6, 5}, csr}, {"B", {6, 64}, d2}, {"C", {64, 5}, d2}, {"D", {6, 32}, d2}, {"E", {32, 5}, d2}},
      spmm{{"S", {6, 6}, csr}, {"C", {6, 4}, d2}, {"D", {4, 3}, d2}}, rowSums{{"S", {6, 5}, csr}, {"B", {6, 7}, d2}},
      norm{{"S", {6, 5}, csr}},
      // MTTKRP on a csf 3-tensor; row normalisation of a dcsr matrix (its result declared dense).
      mttkrp{{"B", {6, 5, 7}, Format::csf(3)}, {"C", {5, 4}, d2}, {"D", {7, 4}, d2}},
      mttkrpWide{{"B", {6, 5, 7}, Format::csf(3)}, {"C", {5, 16}, d2}, {"D", {7, 16}, d2}},
      spmmWide{{"S", {6, 6}, csr}, {"C", {6, 16}, d2}, {"D", {16, 16}, d2}},
      normDcsr{{"S", {6, 5}, Format::dcsr()}, {"A", {6, 5}, d2}}, coiter{{"S", {6, 5}, csr}, {"T", {6, 5}, csr}},
      coiterDcsr{{"S", {6, 5}, Format::dcsr()}, {"T", {6, 5}, Format::dcsr()}},
      // row normalisation of a csc matrix, its result at S's entries (csc): the columns scatter serially.
      normCsc{{"S", {6, 5}, Format::csc()}};
  EmitOptions checked;
  checked.boundsCheck = true;
  EmitOptions written;
  written.floatOrder = FloatOrder::Written;
  EmitOptions forced;
  forced.laneLoopsOutermost = true;
  const std::string sddmmText = "A = S * (B @ C)", spmmText = "A = S @ C @ D", rowSumsText = "r(i) = sum(S(i,j), j) * sum(B(i,k), k)";
  const std::string mttkrpText = "A(i,j) = B(i,k,l) * C(k,j) * D(l,j)", mttkrpFibreText = "A(i,j) = B(i,k,l) * D(l,j) * C(k,j)";
  const ValueType f32 = ValueType::Float32;
  auto typed = [](PassExample e, std::map<std::string, ValueType> types) {
    e.types = std::move(types);
    return e;
  };
  return {
      {"lane-mapping", "sddmm", sddmmText, sddmm, FusionMode::React, Target::Kokkos, {}, {}},
      {"lane-mapping", "spmm_mm", spmmText, spmm, FusionMode::React, Target::Kokkos, {}, {}},
      {"lane-mapping", "row_sums", rowSumsText, rowSums, FusionMode::React, Target::Kokkos, {}, {}},
      // A team's rows are the positions of B's first level; the lanes run j under the fibres' loops
      // (under the written order: with reassociation fibre-chunks places the lanes).
      {"lane-mapping", "mttkrp_csf", mttkrpText, mttkrp, FusionMode::Maximal, Target::Kokkos, written, {}},
      // The fibres in chunks, A's updates atomic. Maximal: a row's fibres on one lane (a chain down
      // to j); react: each fibre's three loops over j on the lanes, its T0 row reset last. S @ C @ D
      // as written: a row holds a private row and three statements, left as it is; S @ (C @ D): the
      // second nest's rows (a dense loop under each stored entry) in chunks, C @ D's left alone.
      {"fibre-chunks", "mttkrp_csf", mttkrpText, mttkrp, FusionMode::Maximal, Target::Kokkos, {}, {}},
      typed({"fibre-chunks", "mttkrp_fibre_float32", mttkrpFibreText, mttkrp, FusionMode::React, Target::Kokkos, {}, {}},
            {{"B", f32}, {"C", f32}, {"D", f32}, {"A", f32}}),
      {"fibre-chunks", "spmm_mm", spmmText, spmm, FusionMode::React, Target::Kokkos, {}, {}},
      {"fibre-chunks", "spmm_mm_right", "A = S @ (C @ D)", spmm, FusionMode::React, Target::Kokkos, {}, {}},
      // softmax's exp(S) computed at both of its reads, its temporary gone; the stable softmax's
      // exp reads the row's maximum and stays stored; unfused, T0 is another nest's and stays.
      {"recompute-entries", "softmax", "A = exp(S) / sum(exp(S), axis=1)", norm, FusionMode::React, Target::Kokkos, {}, {}},
      {"recompute-entries", "stable_softmax", "A = softmax(S, axis=1)", norm, FusionMode::React, Target::Kokkos, {}, {}},
      {"recompute-entries", "softmax_unfused", "A = exp(S) / sum(exp(S), axis=1)", norm, FusionMode::None, Target::Kokkos, {}, {}},
      // A row's sum and its use, each a loop over the stored entries in runs; the sum an array of
      // the rows, each run's part of a row added into it. The stable softmax's rows: a maximum, a
      // sum that reads it and the use, three loops in runs, the first recording the runs' rows.
      {"reduction-runs", "norm_row", "A = S / sum(S, axis=1)", norm, FusionMode::React, Target::Kokkos, {}, {}},
      {"reduction-runs", "softmax", "A = exp(S) / sum(exp(S), axis=1)", norm, FusionMode::React, Target::Kokkos, {}, {}},
      {"reduction-runs", "stable_softmax", "A = softmax(S, axis=1)", norm, FusionMode::React, Target::Kokkos, {}, {}},
      // C @ D, a plain dense product, records what it computes (a library may compute it); S's
      // product with C, a sparse one, is left as it is.
      {"dense-product", "spmm_mm_right", "A = S @ (C @ D)", spmm, FusionMode::React, Target::Kokkos, {}, {}},
      // The register's sum added atomically, once per row of a chunk.
      {"register-accumulation", "mttkrp_csf", mttkrpText, mttkrp, FusionMode::Maximal, Target::Kokkos, {}, {}},
      // float32 accumulators, privates and identities.
      typed({"lane-mapping", "row_sums_float32", rowSumsText, rowSums, FusionMode::React, Target::Kokkos, {}, {}},
            {{"S", f32}, {"B", f32}, {"r", f32}}),
      // K = 64: entry lanes (an entry per lane, then the lanes along k); two sums under an entry:
      // the lanes along each, entries in chunks of equal length; K = 3: left to lane mapping.
      {"dense-lanes", "sddmm", sddmmText, sddmmWide, FusionMode::React, Target::Kokkos, {}, {}},
      {"dense-lanes", "two_sums", "A(i,j) = S(i,j) * B(i,k) * C(k,j) * D(i,l) * E(l,j)", twoSums, FusionMode::React, Target::Kokkos, {}, {}},
      {"dense-lanes", "sddmm_narrow", sddmmText, sddmm, FusionMode::React, Target::Kokkos, {}, {}},
      // Entry lanes over S in csr: the walk of S's entries by columns too, where the kernel is given it.
      {"column-walks", "sddmm", sddmmText, sddmmWide, FusionMode::React, Target::Kokkos, {}, {}},
      // C(k,j) read along k by the lanes: a transposed copy, filled a row per team thread.
      {"operand-layout", "sddmm_kokkos", sddmmText, sddmmWide, FusionMode::React, Target::Kokkos, {}, {}},
      {"interchange", "spmm_mm", spmmText, spmm, FusionMode::React, Target::Kokkos, {}, {}},
      {"interchange", "spmm_mm_forced", spmmText, spmm, FusionMode::React, Target::Kokkos, forced, {}},
      {"register-accumulation", "spmm_mm", spmmText, spmm, FusionMode::React, Target::Kokkos, {}, {}},
      {"hoist-reads", "spmm_mm", spmmText, spmm, FusionMode::React, Target::OpenMP, {}, {}},
      {"hoist-reads", "norm_row_kokkos", "A = S / sum(S, axis=1)", norm, FusionMode::React, Target::Kokkos, {}, {}},
      // A float64 result of a float32 input: float64 temporaries, the input widened (f64(...)).
      typed({"hoist-reads", "softmax_float64_of_float32", "A = softmax(S, axis=1)", norm, FusionMode::React, Target::OpenMP, {}, {}},
            {{"S", f32}}),
      {"vectorize", "spmm_mm", spmmText, spmm, FusionMode::React, Target::OpenMP, {}, {}},
      {"vectorize", "sddmm_unfused", sddmmText, sddmm, FusionMode::None, Target::OpenMP, {}, {}},
      {"vectorize-reductions", "sddmm", sddmmText, sddmm, FusionMode::React, Target::OpenMP, {}, {}},
      // Four stored entries at once, their dot products in one lane loop; the row's last entries
      // (fewer than four) after them, as before.
      {"jam-entries", "sddmm", sddmmText, sddmmWide, FusionMode::React, Target::OpenMP, {}, {}},
      // A row's sum over its stored entries (a position loop) stays serial.
      {"vectorize-reductions", "norm_row", "A = S / sum(S, axis=1)", norm, FusionMode::React, Target::OpenMP, {}, {}},
      // Over a row's stored entries only where the body calls exp (the vector math library).
      {"vectorize-reductions", "softmax", "A = softmax(S, axis=1)", norm, FusionMode::React, Target::OpenMP, {}, {}},
      // A float32 lane accumulator.
      typed({"vectorize-reductions", "sddmm_float32", sddmmText, sddmm, FusionMode::React, Target::OpenMP, {}, {}},
            {{"S", f32}, {"B", f32}, {"C", f32}, {"A", f32}}),
      // exp of every stored entry in one loop over all of them, before the rows; its storage unfilled.
      {"flatten-entries", "softmax", "A = exp(S) / sum(exp(S), axis=1)", norm, FusionMode::React, Target::OpenMP, {}, {}},
      // The stable softmax's exp reads the row's maximum (a local by then): it stays in the row.
      {"flatten-entries", "stable_softmax", "A = softmax(S, axis=1)", norm, FusionMode::React, Target::OpenMP, {}, {}},
      // dcsr: the rows are the positions of level 0, the stored entries level 1's.
      {"flatten-entries", "softmax_dcsr", "A = exp(S) / sum(exp(S), axis=1)", normDcsr, FusionMode::React, Target::OpenMP, {}, {}},
      {"flatten-entries", "softmax_csc", "A = exp(S) / sum(exp(S), axis=1)", normCsc, FusionMode::React, Target::OpenMP, {}, {}},
      // The division by the row's sum, a multiplication by its reciprocal.
      {"reciprocal-divisions", "norm_row", "A = S / sum(S, axis=1)", norm, FusionMode::React, Target::OpenMP, {}, {}},
      // A row's sum in a local, stored once.
      {"register-reductions", "norm_row", "A = S / sum(S, axis=1)", norm, FusionMode::React, Target::OpenMP, {}, {}},
      // Rows weighed by their stored entries, and by the dense work per row (spmm_mm's T0 @ D).
      {"balance-rows", "norm_row", "A = S / sum(S, axis=1)", norm, FusionMode::React, Target::OpenMP, {}, {}},
      // MTTKRP's T0 row zeroed in the loop reading it, written B * D * C (a row of j per fibre) and
      // B * C * D (an (l, j) plane per slice: the nested reset joins both loops); spmm_mm's T0 read
      // by a nest over (h, j).
      {"merge-resets", "mttkrp_fibre", mttkrpFibreText, mttkrp, FusionMode::React, Target::OpenMP, {}, {}},
      {"merge-resets", "mttkrp_csf", mttkrpText, mttkrp, FusionMode::React, Target::OpenMP, {}, {}},
      {"merge-resets", "spmm_mm", spmmText, spmm, FusionMode::React, Target::OpenMP, {}, {}},
      {"balance-rows", "spmm_mm", spmmText, spmm, FusionMode::React, Target::OpenMP, {}, {}},
      // A dot product of 64, or a row of C @ D of 16, under each stored entry: the rows in chunks
      // handed out as threads finish. A csf tensor's slices keep their shares (its fibres hold
      // loops over their entries), rows of 16 under each or not.
      {"balance-rows", "sddmm", sddmmText, sddmmWide, FusionMode::React, Target::OpenMP, {}, {}},
      {"balance-rows", "spmm_mm_right_wide", "A = S @ (C @ D)", spmmWide, FusionMode::React, Target::OpenMP, {}, {}},
      {"balance-rows", "mttkrp_csf_wide", mttkrpText, mttkrpWide, FusionMode::React, Target::OpenMP, {}, {}},
      // The slices of a csf tensor (its first level's positions), weighed by their fibres.
      {"balance-rows", "mttkrp_csf", mttkrpText, mttkrp, FusionMode::Maximal, Target::OpenMP, {}, {}},
      {"operand-layout", "sddmm", sddmmText, sddmm, FusionMode::React, Target::OpenMP, {}, {}},
      // The transposed copy of a float32 input is float32.
      typed({"operand-layout", "sddmm_float32", sddmmText, sddmm, FusionMode::React, Target::OpenMP, {}, {}},
            {{"S", f32}, {"B", f32}, {"C", f32}, {"A", f32}}),
      // C(k,j) read along its stride, each element once: left as it is.
      {"operand-layout", "read_once", "d(k) = sum(B(j,k) * C(k,j), j)", {{"B", {5, 3}, d2}, {"C", {3, 5}, d2}}, FusionMode::React,
       Target::OpenMP, {}, {}},
      {"lower-accesses", "sddmm", sddmmText, sddmm, FusionMode::React, Target::OpenMP, {}, {}},
      {"lower-accesses", "spmm_mm_unfused", spmmText, spmm, FusionMode::None, Target::OpenMP, {}, {}},
      // Nested position loops over B's three levels; B's values at the last level's position.
      {"lower-accesses", "mttkrp_csf", mttkrpText, mttkrp, FusionMode::Maximal, Target::OpenMP, {}, {}},
      // A float32 statement reading float64 tensors converts them (f32(...)), loads keep their types.
      typed({"lower-accesses", "sddmm_float32_of_float64", sddmmText, sddmm, FusionMode::React, Target::OpenMP, {}, {}},
            {{"S", f32}, {"A", f32}}),
      {"bounds-check", "sddmm", sddmmText, sddmm, FusionMode::React, Target::OpenMP, checked, {}},
      // A row's sum and its division in masked vector blocks, the coordinate's unused binding gone;
      // in float32 blocks of floats.
      {"masked-blocks", "norm_row", "A = S / sum(S, axis=1)", norm, FusionMode::React, Target::OpenMP, {}, {}},
      typed({"masked-blocks", "softmax_float32", "A = exp(S) / sum(exp(S), axis=1)", norm, FusionMode::React, Target::OpenMP, {}, {}},
            {{"S", f32}, {"A", f32}}),
      // The stable softmax: the row's maximum, the shifted exp (a local) stored and summed, and the
      // division, all on the lanes. SDDMM's entries read C's row at their column: left as they are.
      {"masked-blocks", "stable_softmax", "A = softmax(S, axis=1)", norm, FusionMode::React, Target::OpenMP, {}, {}},
      {"masked-blocks", "sddmm", sddmmText, sddmm, FusionMode::React, Target::OpenMP, {}, {}},
      // Co-iteration: S's, T's and A's values at the merge's fingers (p1_S, p1_T, p1_A); the
      // union's cases read a missing operand as 0. On Kokkos a csr row's entries go to its lanes.
      {"lower-accesses", "coiter_mul", "A = S * T", coiter, FusionMode::React, Target::OpenMP, {}, {}},
      {"lower-accesses", "coiter_add", "A = S + T", coiter, FusionMode::React, Target::OpenMP, {}, {}},
      {"lane-mapping", "coiter_sub", "A = S - T", coiter, FusionMode::React, Target::Kokkos, {}, {}},
      // A csr row's merge into the assembled pattern: a loop over its entries, the operands' found
      // (a union's reads 0 where not); under dcsr's merge of first levels, rows counted by p_i.
      {"search-merged-entries", "coiter_add", "A = S + T", coiter, FusionMode::React, Target::Kokkos, {}, {}},
      {"search-merged-entries", "coiter_mul", "A = S * T", coiter, FusionMode::React, Target::Kokkos, {}, {}},
      {"search-merged-entries", "coiter_add_dcsr", "A = S + T", coiterDcsr, FusionMode::React, Target::Kokkos, {}, {}},
      // The sum over every row on one thread, in order; on Kokkos the same, and no lane reduction.
      {"written-order", "sum", "a = sum(S)", norm, FusionMode::React, Target::OpenMP, written, {}},
      {"written-order", "row_sums_kokkos", rowSumsText, rowSums, FusionMode::React, Target::Kokkos, written, {}},
  };
}

// The program, then the pass's input and output.
std::string render(const PassExample& e) {
  Environment env;
  for (const auto& [n, shape, f] : e.tensors) env.declare(n, shape, f);
  std::string types;
  for (const auto& [name, type] : e.types) types += ", " + name + " " + toString(type);
  LoopProgram ir = lowerToLoops(fuse(withValueTypes(parseProgram(e.text, env), e.types), e.mode));
  for (const passes::Pass& pass : passes::pipeline(e.target, e.options)) {
    if (pass.name != e.pass) {
      ir = pass.run(ir);
      continue;
    }
    LoopProgram out = pass.run(ir);
    ir::verify(out);
    return "// " + e.text + "  (fusion " + toString(e.mode) + ", target " + toString(e.target) + types + ")\n// input\n" +
           ir.str() + "// output\n" + out.str();
  }
  FAIL("pass " << e.pass << " is not in the " << toString(e.target) << " pipeline");
  return "";
}

}  // namespace

TEST_CASE("golden: every loop-IR pass, one at a time") {
  std::set<std::string> covered;
  for (const PassExample& e : examples()) {
    covered.insert(e.pass);
    std::string path = std::string(REACT_SOURCE_DIR) + "/test/golden/passes/" + e.pass + "." + e.name + ".txt";
    std::string got = render(e), want = test::goldenText(path, got);
    INFO(path);
    // Text in: the pipeline still hands the pass what the file shows.
    CHECK(got.substr(0, got.find("// output\n")) == want.substr(0, want.find("// output\n")));
    // Text out.
    CHECK(got.substr(got.find("// output\n")) == want.substr(want.find("// output\n")));
  }
  // Every pass of every pipeline has a golden test.
  for (Target t : {Target::OpenMP, Target::Kokkos}) {
    EmitOptions all;
    all.boundsCheck = true;
    for (const passes::Pass& pass : passes::pipeline(t, all)) CHECK_MESSAGE(covered.count(pass.name), pass.name);
  }
}

TEST_CASE("loop IR verifier: a pass that breaks a rule is an internal error") {
  Environment env;
  env.declare("S", {6, 5}, Format::csr());
  LoopProgram p = lowerToLoops(fuse(parseProgram("A = S / sum(S, axis=1)", env), FusionMode::React));
  LoopProgram broken = p;
  broken.body.push_back(ir::assign(ir::var(ir::Name{ir::Role::Scalar, "undeclared"}, ir::Type::Float64), ir::floatImm(1.0)));
  CHECK_THROWS_WITH_AS(ir::verify(broken), doctest::Contains("internal compiler error: loop IR verifier"), InternalError);
  LoopProgram unbound = p;
  unbound.body.push_back(ir::assign(ir::access("A", {"i", "j"}), ir::floatImm(1.0)));
  CHECK_THROWS_WITH_AS(ir::verify(unbound), doctest::Contains("index 'i' is not bound here"), InternalError);
  CHECK_NOTHROW(ir::verify(p));
}

TEST_CASE("loop IR verifier: a value changes type only through a cast") {
  Environment env;
  env.declare("S", {6, 5}, Format::csr());
  LoopProgram p = lowerToLoops(fuse(parseProgram("A = S / sum(S, axis=1)", env), FusionMode::React));
  using ir::Type;
  const ir::Name x{ir::Role::Generated, "x"};
  auto withStatement = [&](const ir::Stmt& s) {
    LoopProgram q = p;
    q.body.push_back(s);
    return q;
  };
  const ir::Expr one32 = ir::floatImm(1.0, Type::Float32), one64 = ir::floatImm(1.0);
  CHECK_THROWS_WITH_AS(ir::verify(withStatement(ir::let(x, Type::Float64, one32))),
                       doctest::Contains("a value of type f32 where 'x' has type f64"), InternalError);
  CHECK_THROWS_WITH_AS(ir::verify(withStatement(ir::let(x, Type::Float64, ir::binary(ir::BinOp::Add, one64, one32)))),
                       doctest::Contains("a value of type f32 where the operation (1.0 + 1.0f) has type f64"), InternalError);
  CHECK_THROWS_WITH_AS(ir::verify(withStatement(ir::fill("A", Type::Float32, 0.0))),
                       doctest::Contains("a value of type f32 where tensor 'A' has type f64"), InternalError);
  CHECK_NOTHROW(ir::verify(withStatement(ir::let(x, Type::Float64, ir::binary(ir::BinOp::Add, one64, ir::cast(one32, Type::Float64))))));
  CHECK(ir::print(ir::cast(one32, Type::Float64)) == "f64(1.0f)");
  CHECK(ir::cast(one64, Type::Float64) == one64);  // no cast to the type a value has
}

// Row normalisation's loop IR and the parts of entry runs over S's stored entries.
struct EntryRunsParts {
  EntryRunsParts() {
    Environment env;
    env.declare("S", {6, 5}, Format::csr());
    p = lowerToLoops(fuse(parseProgram("A = S / sum(S, axis=1)", env), FusionMode::React));
  }
  LoopProgram p;
  const ir::Name entry{ir::Role::Position, "j"}, row{ir::Role::Index, "i"}, positions{ir::Role::Positions, "S", 1},
      acc{ir::Role::Generated, "acc"};
  const ir::Expr rows = ir::var(ir::Name{ir::Role::Extent, "i"}, ir::Type::Int64),
                 entries = ir::var(ir::Name{ir::Role::StoredEntries, "S"}, ir::Type::Int64);
  const ir::Stmt coordinate = ir::let(ir::Name{ir::Role::Index, "j"}, ir::Type::Int64,
                                      ir::load(ir::Name{ir::Role::Coordinates, "S", 1}, ir::var(entry, ir::Type::Int64), ir::Type::Int64));
  const ir::Stmt sum = ir::assign(ir::var(acc, ir::Type::Float64), ir::access("S", {"i", "j"}), ir::Update::Add);
};

TEST_CASE_FIXTURE(EntryRunsParts, "loop IR verifier: entry runs add into an element at the row, through an accumulator of their own") {
  using ir::Name;
  using ir::Role;
  auto withRuns = [&](std::vector<ir::Stmt> body, ir::Expr target, Name accumulator = Name{Role::Generated, "acc"}, Name counter = Name{Role::Position, "j"}) {
    LoopProgram q = p;
    q.body.push_back(ir::entryRuns(counter, row, positions, rows, entries, 8, std::move(body), std::move(target), accumulator));
    return q;
  };
  const ir::Expr atRow = ir::access("T0", {"i"});
  const LoopProgram good = withRuns({coordinate, sum}, atRow);
  CHECK_NOTHROW(ir::verify(good));
  CHECK(good.str().find("for p_j in [0, nnz_S) in runs of 8, ix_i its row of ptr1_S[0..ext_i], rows' parts of acc into T0(i) {") !=
        std::string::npos);
  CHECK_THROWS_WITH_AS(ir::verify(withRuns({coordinate, sum}, ir::access("A", {"i", "j"}))),
                       doctest::Contains("entry runs that add into something other than an element at the row"), InternalError);
  CHECK_THROWS_WITH_AS(ir::verify(withRuns({coordinate, sum, ir::assign(atRow, ir::floatImm(0.0))}, atRow)),
                       doctest::Contains("entry runs whose body writes the tensor the runs add into"), InternalError);
  CHECK_THROWS_WITH_AS(ir::verify(withRuns({coordinate, sum}, atRow, Name{})),
                       doctest::Contains("entry runs without an accumulator of their own"), InternalError);
  CHECK_THROWS_WITH_AS(ir::verify(withRuns({coordinate, sum}, atRow, acc, row)),
                       doctest::Contains("an entry or row counter that is already bound"), InternalError);
  const ir::Stmt lanes = ir::forLoop(Name{Role::Generated, "q"}, ir::intImm(0), ir::intImm(4), {}, ir::Schedule::Vector);
  CHECK_THROWS_WITH_AS(ir::verify(withRuns({coordinate, sum, lanes}, atRow)),
                       doctest::Contains("entry runs with lanes or co-iteration inside"), InternalError);
}

// An array of the rows that alternates between two halves from call to call is added into by one
// entry-runs loop (which restores the other half) and written by nothing else.
TEST_CASE_FIXTURE(EntryRunsParts, "loop IR verifier: an alternating array is added into by one entry runs loop and nothing else") {
  auto sums = ir::copy(ir::allocate("T0", ir::Type::Float64, rows, 0.0, true));
  sums->alternating = true;
  const ir::Stmt adding = ir::entryRuns(entry, row, positions, rows, entries, 8, {coordinate, sum}, ir::access("T0", {"i"}), acc);
  auto program = [&](std::vector<ir::Stmt> statements) {
    LoopProgram q = p;
    q.body.push_back(sums);
    for (ir::Stmt& s : statements) q.body.push_back(std::move(s));
    return q;
  };
  const LoopProgram good = program({adding});
  CHECK_NOTHROW(ir::verify(good));
  CHECK(good.str().find("allocate val_T0[ext_i] = 0.0 (alternating halves)") != std::string::npos);
  CHECK_THROWS_WITH_AS(ir::verify(program({})), doctest::Contains("alternating array 'T0' added into by 0 entry runs, not one"), InternalError);
  CHECK_THROWS_WITH_AS(ir::verify(program({adding, adding})), doctest::Contains("added into by 2 entry runs"), InternalError);
  CHECK_THROWS_WITH_AS(ir::verify(program({adding, ir::fill("T0", ir::Type::Float64, 0.0)})), doctest::Contains("a fill of alternating array 'T0'"),
                       InternalError);
  const ir::Stmt reset = ir::forLoop(ir::Name{ir::Role::Index, "i"}, ir::intImm(0), rows, {ir::assign(ir::access("T0", {"i"}), ir::floatImm(0.0))});
  CHECK_THROWS_WITH_AS(ir::verify(program({adding, reset})), doctest::Contains("an assignment to alternating array 'T0'"), InternalError);
  // A store as lower-accesses leaves it: a load of the array's values.
  const ir::Stmt lowered = ir::forLoop(ir::Name{ir::Role::Index, "i"}, ir::intImm(0), rows,
                                       {ir::assign(ir::load(ir::Name{ir::Role::Values, "T0"}, ir::var(row, ir::Type::Int64), ir::Type::Float64),
                                                   ir::floatImm(0.0))});
  CHECK_THROWS_WITH_AS(ir::verify(program({adding, lowered})), doctest::Contains("an assignment to alternating array 'T0'"), InternalError);
  // The adding runs once a call, in the allocation's block: not in another branch, not in a loop.
  LoopProgram branches = p;
  branches.body.push_back(ir::ifLongRows(positions, rows, 1024, ir::block({sums}), ir::block({adding})));
  CHECK_THROWS_WITH_AS(ir::verify(branches), doctest::Contains("outside the block that allocates it"), InternalError);
  CHECK_THROWS_WITH_AS(ir::verify(program({ir::forLoop(ir::Name{ir::Role::Index, "k"}, ir::intImm(0), ir::intImm(2), {adding})})),
                       doctest::Contains("outside the block that allocates it"), InternalError);
}

// Runs that read first rows need earlier runs over the same entries, of the length they name, to
// have recorded them into an index array allocated for that; the array is no variable.
TEST_CASE_FIXTURE(EntryRunsParts, "loop IR verifier: entry runs read first rows only where earlier runs recorded them") {
  using ir::Name;
  using ir::Role;
  using ir::Type;
  const Name runRows{Role::Generated, "react_run_rows"};
  const ir::Stmt use = ir::assign(ir::access("A", {"i", "j"}), ir::access("S", {"i", "j"}));
  auto runs = [&](int64_t length, bool summing, bool records, int64_t every, Name array) {
    auto r = ir::copy(summing ? ir::entryRuns(entry, row, positions, rows, entries, length, {coordinate, sum}, ir::access("T0", {"i"}), acc)
                              : ir::entryRuns(entry, row, positions, rows, entries, length, {coordinate, use}));
    r->runRows = array;
    r->runRowsEvery = every;
    r->recordsRunRows = records;
    return ir::Stmt(r);
  };
  auto program = [&](std::vector<ir::Stmt> statements) {
    LoopProgram q = p;
    q.body.push_back(ir::allocateIndices(runRows, ir::binary(ir::BinOp::Div, entries, ir::intImm(8))));
    for (ir::Stmt& s : statements) q.body.push_back(std::move(s));
    return q;
  };
  const LoopProgram good = program({runs(8, true, true, 8, runRows), runs(4, false, false, 8, runRows)});
  CHECK_NOTHROW(ir::verify(good));
  CHECK(good.str().find("first rows into react_run_rows (runs of 8)") != std::string::npos);
  CHECK(good.str().find("first rows from react_run_rows (runs of 8)") != std::string::npos);
  const char* unrecorded = "entry runs that read first rows no earlier runs over the same entries recorded";
  CHECK_THROWS_WITH_AS(ir::verify(program({runs(4, false, false, 8, runRows)})), doctest::Contains(unrecorded), InternalError);
  CHECK_THROWS_WITH_AS(ir::verify(program({runs(8, true, true, 8, runRows), runs(4, false, false, 4, runRows)})),
                       doctest::Contains(unrecorded), InternalError);
  CHECK_THROWS_WITH_AS(ir::verify(program({runs(8, true, true, 4, runRows)})),
                       doctest::Contains("entry runs that record first rows of runs of another length"), InternalError);
  CHECK_THROWS_WITH_AS(ir::verify(program({runs(8, true, true, 8, Name{})})),
                       doctest::Contains("without an array for them"), InternalError);
  CHECK_THROWS_WITH_AS(ir::verify(program({runs(8, true, true, 8, Name{Role::Generated, "other"})})),
                       doctest::Contains("entry runs whose first rows go to no allocated index array"), InternalError);
  // The array is not a variable: assigning it, or declaring a local of its name, does not verify.
  CHECK_THROWS_AS(ir::verify(program({ir::assign(ir::var(runRows, Type::Int64), ir::intImm(0))})), InternalError);
  CHECK_THROWS_WITH_AS(ir::verify(program({ir::let(runRows, Type::Int64, ir::intImm(0))})), doctest::Contains("is declared twice"),
                       InternalError);
}

// Entry lanes over SDDMM's stored entries: the coordinate first, a sum from 0 over a constant range
// of a term at the row, the coordinate and the sum's index (what the lanes share among entries),
// then stores at the entry.
TEST_CASE("loop IR verifier: entry lanes sum a term the lanes can share and store at the entry") {
  using ir::Name;
  using ir::Role;
  using ir::Type;
  Environment env;
  env.declare("S", {6, 5}, Format::csr());
  env.declare("B", {6, 64}, Format::dense(2));
  env.declare("C", {64, 5}, Format::dense(2));
  const LoopProgram p = lowerToLoops(fuse(parseProgram("A = S * (B @ C)", env), FusionMode::React));
  const Name entry{Role::Position, "j"}, row{Role::Index, "i"}, k{Role::Index, "k"}, acc{Role::Generated, "acc"};
  const ir::Stmt coordinate = ir::let(Name{Role::Index, "j"}, Type::Int64,
                                      ir::load(Name{Role::Coordinates, "S", 1}, ir::var(entry, Type::Int64), Type::Int64));
  const ir::Expr term = ir::binary(ir::BinOp::Mul, ir::access("B", {"i", "k"}), ir::access("C", {"k", "j"}));
  auto dotOf = [&](ir::Expr t, int64_t trips) {
    auto d = ir::copy(ir::forLoop(k, ir::intImm(0), ir::intImm(trips), {ir::assign(ir::var(acc, Type::Float64), t, ir::Update::Add)},
                                  ir::Schedule::LaneReduce));
    d->reduceVar = acc;
    return ir::Stmt(d);
  };
  const ir::Stmt store = ir::assign(ir::access("A", {"i", "j"}), ir::binary(ir::BinOp::Mul, ir::access("S", {"i", "j"}), ir::var(acc, Type::Float64)));
  auto withLanes = [&](ir::Stmt first, ir::Stmt dot, ir::Stmt use) {
    LoopProgram q = p;
    q.body.push_back(ir::entryLanes(entry, row, Name{Role::Positions, "S", 1}, ir::var(Name{Role::Extent, "i"}, Type::Int64),
                                    ir::var(Name{Role::StoredEntries, "S"}, Type::Int64), first, dot, {use}, acc, Type::Float64));
    return q;
  };
  const LoopProgram good = withLanes(coordinate, dotOf(term, 64), store);
  CHECK_NOTHROW(ir::verify(good));
  CHECK(good.str().find("for p_j in [0, nnz_S) on lanes in chunks of 32, ix_i its row of ptr1_S[0..ext_i], sum acc {") != std::string::npos);
  CHECK_THROWS_WITH_AS(ir::verify(withLanes(store, dotOf(term, 64), store)),
                       doctest::Contains("entry lanes that do not bind the entry's coordinate first"), InternalError);
  CHECK_THROWS_WITH_AS(ir::verify(withLanes(coordinate, ir::forLoop(k, ir::intImm(0), ir::intImm(64), {}), store)),
                       doctest::Contains("not a sum over a constant range into their accumulator"), InternalError);
  // A sparse tensor's value at the entry differs among the entries whose terms the lanes share.
  CHECK_THROWS_WITH_AS(ir::verify(withLanes(coordinate, dotOf(ir::binary(ir::BinOp::Mul, term, ir::access("S", {"i", "j"})), 64), store)),
                       doctest::Contains("entry lanes whose sum reads the sparse 'S'"), InternalError);
  CHECK_THROWS_WITH_AS(ir::verify(withLanes(coordinate, dotOf(ir::binary(ir::BinOp::Mul, term, ir::var(acc, Type::Float64)), 64), store)),
                       doctest::Contains("entry lanes whose sum reads the entry's position or the accumulator"), InternalError);
  CHECK_THROWS_WITH_AS(ir::verify(withLanes(coordinate, dotOf(term, 64), ir::assign(ir::access("A", {"j", "i"}), ir::var(acc, Type::Float64)))),
                       doctest::Contains("entry lanes that do more with an entry's sum than store at the entry"), InternalError);

  // S and A in csc: the lanes run over columns j, the coordinate is i, and A(i,j) is at the entry.
  Environment cscEnv;
  cscEnv.declare("S", {6, 5}, Format::csc());
  cscEnv.declare("B", {6, 64}, Format::dense(2));
  cscEnv.declare("C", {64, 5}, Format::dense(2));
  const LoopProgram pc = lowerToLoops(fuse(parseProgram("A = S * (B @ C)", cscEnv), FusionMode::React));
  const Name columnEntry{Role::Position, "i"}, column{Role::Index, "j"};
  auto byColumns = [&](ir::Stmt use) {
    LoopProgram q = pc;
    const ir::Stmt rowOfEntry = ir::let(Name{Role::Index, "i"}, Type::Int64,
                                        ir::load(Name{Role::Coordinates, "S", 1}, ir::var(columnEntry, Type::Int64), Type::Int64));
    q.body.push_back(ir::entryLanes(columnEntry, column, Name{Role::Positions, "S", 1}, ir::var(Name{Role::Extent, "j"}, Type::Int64),
                                    ir::var(Name{Role::StoredEntries, "S"}, Type::Int64), rowOfEntry, dotOf(term, 64), {use}, acc,
                                    Type::Float64));
    return q;
  };
  CHECK_NOTHROW(ir::verify(byColumns(store)));
  CHECK_THROWS_WITH_AS(ir::verify(byColumns(ir::assign(ir::access("A", {"j", "i"}), ir::var(acc, Type::Float64)))),
                       doctest::Contains("entry lanes that do more with an entry's sum than store at the entry"), InternalError);

  // The csr S walked by columns (passes/column_walks.cpp): lanes over the walk's columns whose
  // uses store at S's entries, A(i,j), the coordinate i first; an IfColumnWalk names a walk.
  const LoopProgram walked = passes::walkColumns(good);
  CHECK_NOTHROW(ir::verify(walked));
  CHECK(walked.columnWalks.at("S_cols") == "S");
  LoopProgram unknown = walked;
  unknown.columnWalks.clear();
  CHECK_THROWS_WITH_AS(ir::verify(unknown), doctest::Contains("an IfColumnWalk over 'nnz_S_cols', not a column walk's stored entries"),
                       InternalError);
}

TEST_CASE("loop IR: an atomic update is an addition into memory, printed by both emitters") {
  Environment env;
  env.declare("S", {6, 5}, Format::csr());
  LoopProgram p = lowerToLoops(fuse(parseProgram("A = S / sum(S, axis=1)", env), FusionMode::React));
  auto withStatement = [&](const ir::Stmt& s) {
    LoopProgram q = p;
    q.body.push_back(s);
    return q;
  };
  const ir::Expr a = ir::load(ir::Name{ir::Role::Values, "A"}, ir::intImm(0), ir::Type::Float64), one = ir::floatImm(1.0);
  const LoopProgram atomic = withStatement(ir::atomicAdd(a, one));
  CHECK_NOTHROW(ir::verify(atomic));
  CHECK(atomic.str().find("atomic val_A[0] += 1.0") != std::string::npos);
  auto set = ir::copy(ir::assign(a, one));
  set->atomic = true;
  CHECK_THROWS_WITH_AS(ir::verify(withStatement(set)), doctest::Contains("an atomic update that is not an addition into memory"),
                       InternalError);
  const ir::Name x{ir::Role::Generated, "x"};
  auto intoVariable = ir::copy(ir::atomicAdd(ir::var(x, ir::Type::Float64), one));
  CHECK_THROWS_WITH_AS(ir::verify(withStatement(ir::block({ir::let(x, ir::Type::Float64, one, true), intoVariable}))),
                       doctest::Contains("an atomic update that is not an addition into memory"), InternalError);
  auto printed = [&](Target t) {
    LoopProgram scheduled = scheduleLoops(p, t);
    scheduled.body.push_back(ir::atomicAdd(a, one));
    return printSource(scheduled, t);
  };
  CHECK(printed(Target::OpenMP).find("#pragma omp atomic\n  val_A[0] += 1.0;") != std::string::npos);
  CHECK(printed(Target::Kokkos).find("Kokkos::atomic_add(&val_A[0], 1.0);") != std::string::npos);
}

// dense-product (passes/dense_product.cpp): which nests are plain dense products, and what the
// printers make of one; the verifier holds a product to row-major matrices.
TEST_CASE("dense product: only a plain product of row-major matrices is marked, and printed with its nest") {
  auto marked = [](const std::string& text, const std::vector<std::tuple<std::string, std::vector<int64_t>, Format>>& tensors,
                   FloatOrder order = FloatOrder::Reassociate, Target target = Target::Kokkos) {
    Environment env;
    for (const auto& [name, shape, format] : tensors) env.declare(name, shape, format);
    EmitOptions o;
    o.floatOrder = order;
    std::vector<std::string> products;
    for (const ir::Stmt& s : scheduleLoops(lowerToLoops(fuse(parseProgram(text, env), FusionMode::React)), target, o).body)
      if (s->product) products.push_back(s->product->out + "=" + s->product->a + "@" + s->product->b);
    return products;
  };
  const Format csr = Format::csr(), d2 = Format::dense(2);
  using Products = std::vector<std::string>;
  CHECK(marked("A(i,j) = C(i,k) * D(k,j)", {{"C", {6, 4}, d2}, {"D", {4, 3}, d2}}) == Products{"A=C@D"});
  // Loops k, j, i (the order the indices appear in), none of them parallel: the same product.
  CHECK(marked("A(i,j) = D(k,j) * C(i,k)", {{"C", {6, 4}, d2}, {"D", {4, 3}, d2}}) == Products{"A=C@D"});
  // A sum to sum in its own order, under the written order; a transposed operand; a product
  // with a third factor; a sparse factor: none.
  CHECK(marked("A(i,j) = C(i,k) * D(k,j)", {{"C", {6, 4}, d2}, {"D", {4, 3}, d2}}, FloatOrder::Written).empty());
  CHECK(marked("A(i,j) = C(k,i) * D(k,j)", {{"C", {4, 6}, d2}, {"D", {4, 3}, d2}}).empty());
  CHECK(marked("A(i,j) = C(i,k) * D(k,j) * C(i,k)", {{"C", {6, 4}, d2}, {"D", {4, 3}, d2}}).empty());
  CHECK(marked("A(i,j) = S(i,k) * D(k,j)", {{"S", {6, 4}, csr}, {"D", {4, 3}, d2}}).empty());
  // S @ (C @ D): the temporary C @ D is one; S @ C @ D as written fuses S @ C's row into D's product: none.
  const std::vector<std::tuple<std::string, std::vector<int64_t>, Format>> spmm{{"S", {6, 6}, csr}, {"C", {6, 4}, d2}, {"D", {4, 3}, d2}};
  CHECK(marked("A = S @ (C @ D)", spmm).size() == 1u);
  CHECK(marked("A = S @ C @ D", spmm).empty());
  // The OpenMP target marks the same nests.
  CHECK(marked("A = S @ (C @ D)", spmm, FloatOrder::Reassociate, Target::OpenMP) == Products{"T0=C@D"});
  CHECK(marked("A(i,j) = C(i,k) * D(k,j)", {{"C", {6, 4}, d2}, {"D", {4, 3}, d2}}, FloatOrder::Written, Target::OpenMP).empty());

  Environment env;
  for (const auto& [name, shape, format] : spmm) env.declare(name, shape, format);
  const LoopProgram lowered = lowerToLoops(fuse(parseProgram("A = S @ (C @ D)", env), FusionMode::React));
  const std::string source = emitSource(lowered, Target::Kokkos);
  // T0's zeros were its allocation's, for the product alone: the library writes T0 (`false`: it
  // does not add into it); the nest, where no library computes it, fills T0 first.
  const size_t call = source.find("#if defined(REACT_DENSE_PRODUCT)\n  react_dense_product(val_C, val_D, val_T0, ext_k, 3, 4, false);\n  #else\n"
                                  "  react_fill(val_T0, ");
  CHECK(call != std::string::npos);
  CHECK(source.find("Kokkos::parallel_for(\"T0\"", call) != std::string::npos);  // the nest, where no library computes it
  CHECK(source.rfind("react_fill(", call) == source.rfind("react_fill(", source.find("reserve(static_cast<size_t>(len_T0))")));  // no fill at the allocation
  // OpenMP: Eigen's product, defined after the prelude only where a kernel has a product.
  const std::string openmp = emitSource(lowered, Target::OpenMP);
  const size_t eigen = openmp.find("#include <Eigen/Core>");
  CHECK(eigen != std::string::npos);
  CHECK(openmp.find("#if defined(REACT_DENSE_PRODUCT)\n  react_dense_product(val_C, val_D, val_T0, ext_k, 3, 4, false);\n  #else\n"
                    "  #pragma omp parallel for schedule(static)\n  for (int64_t q = 0; q < len_T0; ++q) val_T0[q] = 0.0;\n",
                    eigen) != std::string::npos);
  CHECK(emitSource(lowerToLoops(fuse(parseProgram("A = S @ C @ D", env), FusionMode::React)), Target::OpenMP).find("Eigen") ==
        std::string::npos);
  LoopProgram sparseOperand = scheduleLoops(lowered, Target::Kokkos);
  for (ir::Stmt& s : sparseOperand.body)
    if (s->product) {
      auto wrong = ir::copy(s);
      wrong->product->a = "S";
      s = wrong;
    }
  CHECK_THROWS_WITH_AS(ir::verify(sparseOperand), doctest::Contains("a dense product of 'S', not a row-major matrix"), InternalError);
}

// A product writes its X without reading it only where X's zeros are there for it alone: a result's
// fill goes with the first product into it; a second product into the same X adds.
TEST_CASE("dense product: the zeros a product overwrites, and only those") {
  Environment env;
  env.declare("C", {6, 4}, Format::dense(2));
  env.declare("D", {4, 3}, Format::dense(2));
  LoopProgram lowered = lowerToLoops(fuse(parseProgram("A(i,j) = C(i,k) * D(k,j)", env), FusionMode::React));
  auto fills = [](const LoopProgram& p) {
    return std::count_if(p.body.begin(), p.body.end(), [](const ir::Stmt& s) { return s->kind == ir::StmtKind::Fill; });
  };
  REQUIRE(fills(lowered) == 1);
  LoopProgram once = passes::markDenseProducts(lowered);
  CHECK(fills(once) == 0);
  REQUIRE(once.body.back()->product);
  CHECK(once.body.back()->product->overwrites);

  LoopProgram twice = lowered;
  twice.body.push_back(twice.body.back());  // A = C @ D, then A += C @ D
  LoopProgram marked = passes::markDenseProducts(twice);
  CHECK(fills(marked) == 0);
  REQUIRE(marked.body.size() == twice.body.size() - 1);
  REQUIRE((marked.body.end()[-2]->product && marked.body.back()->product));
  CHECK(marked.body.end()[-2]->product->overwrites);
  CHECK_FALSE(marked.body.back()->product->overwrites);
  ir::verify(marked);
  // Printed: the first writes A (or, where no library computes it, fills A and runs its nest),
  // the second adds into it.
  const std::string source = emitSource(twice, Target::OpenMP);
  const size_t first = source.find("react_dense_product(val_C, val_D, val_A, 6, 3, 4, false);\n  #else\n  #pragma omp parallel for");
  CHECK(first != std::string::npos);
  CHECK(source.find("react_dense_product(val_C, val_D, val_A, 6, 3, 4, true);\n  #else\n  {", first) != std::string::npos);

  // A statement between the zeros and the product that touches X keeps them, and the product adds:
  // a result's fill, and a temporary's allocation (T0 = C @ D in S @ (C @ D)).
  const ir::Stmt touchA = ir::nest("touches A", {ir::assign(ir::access("A", {"i", "j"}), ir::floatImm(1), ir::Update::Add)});
  LoopProgram between = lowered;
  between.body.insert(between.body.end() - 1, touchA);
  LoopProgram kept = passes::markDenseProducts(between);
  CHECK(fills(kept) == 1);
  REQUIRE(kept.body.back()->product);
  CHECK_FALSE(kept.body.back()->product->overwrites);

  env.declare("S", {6, 6}, Format::csr());
  env.declare("E", {6, 4}, Format::dense(2));
  const LoopProgram right = lowerToLoops(fuse(parseProgram("A = S @ (E @ D)", env), FusionMode::React));
  auto allocation = [](const LoopProgram& p) {
    for (size_t k = 0; k < p.body.size(); ++k)
      if (p.body[k]->kind == ir::StmtKind::Allocate && p.body[k]->name.text == "T0") return k;
    return p.body.size();
  };
  const size_t at = allocation(right);
  REQUIRE(at + 1 < right.body.size());
  LoopProgram temporary = passes::markDenseProducts(right);
  CHECK(temporary.body[at]->uninitialized);
  REQUIRE(temporary.body[at + 1]->product);
  CHECK(temporary.body[at + 1]->product->overwrites);
  LoopProgram touched = right;
  touched.body.insert(touched.body.begin() + static_cast<std::ptrdiff_t>(at) + 1,
                      ir::nest("touches T0", {ir::assign(ir::access("T0", {"k", "j"}), ir::floatImm(1), ir::Update::Add)}));
  LoopProgram filled = passes::markDenseProducts(touched);
  CHECK_FALSE(filled.body[at]->uninitialized);
  REQUIRE(filled.body[at + 2]->product);
  CHECK_FALSE(filled.body[at + 2]->product->overwrites);
}

TEST_CASE("loop IR literals: of their type, reading back as the same value") {
  using ir::Type;
  CHECK(ir::literalText(0.1, Type::Float64) == "0.10000000000000001");
  CHECK(ir::literalText(0.1, Type::Float32) == "0.100000001f");
  CHECK(ir::literalText(2, Type::Float32) == "2.0f");
  CHECK(ir::literalText(1e30, Type::Float32) == "1.00000002e+30f");
  CHECK(ir::literalText(1e300, Type::Float32) == "HUGE_VALF");  // rounds to float32's infinity
  CHECK(ir::literalText(-std::numeric_limits<double>::infinity(), Type::Float64) == "(-HUGE_VAL)");
  CHECK(ir::literalText(-std::numeric_limits<double>::infinity(), Type::Float32) == "(-HUGE_VALF)");
  CHECK(ir::literalText(std::nan(""), Type::Float64) == "static_cast<double>(NAN)");
  CHECK(ir::literalText(std::nan(""), Type::Float32) == "NAN");
  CHECK(ir::floatImm(0.1, Type::Float32)->floatValue == static_cast<double>(0.1f));
}

TEST_CASE("merge-resets: a reset joins only a loop that reads the element it sets and no other") {
  using ir::Expr;
  using ir::Stmt;
  auto loop = [](const std::string& index, std::vector<Stmt> body) {
    return ir::forLoop(ir::Name{ir::Role::Index, index}, ir::intImm(0), ir::intImm(4), std::move(body));
  };
  auto add = [](const Expr& target, const Expr& value) { return ir::assign(target, value, ir::Update::Add); };
  const Expr tj = ir::access("T", {"j"}), th = ir::access("T", {"h"}), aj = ir::access("A", {"j"});
  const Stmt reset = loop("j", {ir::assign(tj, ir::floatImm(0.0))});
  auto joined = [&](const Stmt& reader) {
    LoopProgram p;
    p.body = {reader, reset};
    return passes::mergeResets(p).body.size() == 1;
  };
  // A(j) += T(j) * C(j): iteration j is the last to read T(j).
  CHECK(joined(loop("j", {add(aj, ir::binary(ir::BinOp::Mul, tj, ir::access("C", {"j"})))})));
  // A(j) += T(h) over h: iteration 1 still reads T(0), which iteration 0 would have reset.
  CHECK_FALSE(joined(loop("j", {loop("h", {add(aj, th)})})));
  // A reader that writes T.
  CHECK_FALSE(joined(loop("j", {add(tj, ir::floatImm(1.0))})));
  // Another counter.
  CHECK_FALSE(joined(loop("h", {add(ir::access("A", {"h"}), th)})));
}
