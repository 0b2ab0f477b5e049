// Co-iteration of two csr patterns (docs/semantics.md, "Two sparse patterns"): `A = S * T` stores
// the intersection of the operands' stored entries, `A = S + T` and `A = S - T` their union. The
// interpreter against a reference written here entry by entry, and the OpenMP and Kokkos kernels
// of every fusion mode, float64 and float32, against the interpreter: patterns and values exactly
// (each entry is one operation, computed alike everywhere). test/scipy_coiteration.py compares
// react-gen with SciPy.
#include "support.hpp"

#include <doctest/doctest.h>


using namespace react;
using test::randomCsr;
using test::testCache;

namespace {

// The operand pairs: random (with empty rows), disjoint, one pattern with other values, explicit
// zeros, one operand without entries, a row full in one and empty in the other.
struct Operands {
  std::string what;
  CsrMatrix s, t;
};

CsrMatrix withValues(CsrMatrix m, double scale, double shift) {
  for (size_t k = 0; k < m.val.size(); ++k) m.val[k] = scale * static_cast<double>(k % 7) + shift;
  return m;
}

// The entries of `m` whose column has parity `parity`.
CsrMatrix columnsOfParity(const CsrMatrix& m, int parity) {
  CsrMatrix out;
  out.rows = m.rows;
  out.cols = m.cols;
  for (int64_t r = 0; r < m.rows; ++r) {
    for (int64_t p = m.rowptr[r]; p < m.rowptr[r + 1]; ++p)
      if (m.col[p] % 2 == parity) {
        out.col.push_back(m.col[p]);
        out.val.push_back(m.val[p]);
      }
    out.rowptr.push_back(out.nnz());
  }
  return out;
}

std::vector<Operands> operandPairs() {
  std::vector<Operands> pairs;
  pairs.push_back({"random", randomCsr(13, 11, 0.3, 1), randomCsr(13, 11, 0.3, 2)});
  pairs.push_back({"random, dense rows", randomCsr(7, 19, 0.7, 3, false), randomCsr(7, 19, 0.2, 4)});
  const CsrMatrix full = randomCsr(9, 8, 0.9, 5, false);
  pairs.push_back({"disjoint", columnsOfParity(full, 0), columnsOfParity(full, 1)});
  const CsrMatrix one = randomCsr(10, 10, 0.4, 6);
  pairs.push_back({"one pattern", one, withValues(one, -0.5, 0.25)});
  CsrMatrix zeros = randomCsr(12, 9, 0.5, 7), others = randomCsr(12, 9, 0.5, 8);
  for (size_t k = 0; k < zeros.val.size(); k += 3) zeros.val[k] = 0.0;
  for (size_t k = 1; k < others.val.size(); k += 4) others.val[k] = 0.0;
  pairs.push_back({"explicit zeros", zeros, others});
  CsrMatrix empty;
  empty.rows = 6;
  empty.cols = 5;
  empty.rowptr.assign(7, 0);
  pairs.push_back({"no entries", randomCsr(6, 5, 0.5, 9), empty});
  pairs.push_back({"no entries, first", empty, randomCsr(6, 5, 0.5, 10)});
  // Row 0 full in S and empty in T, row 1 the other way.
  CsrMatrix a, b;
  a.rows = b.rows = 2;
  a.cols = b.cols = 4;
  a.rowptr = {0, 4, 4};
  a.col = {0, 1, 2, 3};
  a.val = {1, 2, 3, 4};
  b.rowptr = {0, 0, 4};
  b.col = {0, 1, 2, 3};
  b.val = {5, 6, 7, 8};
  pairs.push_back({"complementary rows", a, b});
  return pairs;
}

// The reference, entry by entry: the stored entries of either operand (union) or both
// (intersection), in order, each `op` of the operands' values, a missing one read as 0.
CsrMatrix expected(const CsrMatrix& s, const CsrMatrix& t, char op) {
  CsrMatrix out;
  out.rows = s.rows;
  out.cols = s.cols;
  for (int64_t r = 0; r < s.rows; ++r) {
    std::map<int32_t, std::pair<std::optional<double>, std::optional<double>>> row;
    for (int64_t p = s.rowptr[r]; p < s.rowptr[r + 1]; ++p) row[s.col[p]].first = s.val[p];
    for (int64_t p = t.rowptr[r]; p < t.rowptr[r + 1]; ++p) row[t.col[p]].second = t.val[p];
    for (const auto& [c, v] : row) {
      if (op == '*' && !(v.first && v.second)) continue;
      const double x = v.first.value_or(0.0), y = v.second.value_or(0.0);
      out.col.push_back(c);
      out.val.push_back(op == '*' ? x * y : op == '+' ? x + y : x - y);
    }
    out.rowptr.push_back(out.nnz());
  }
  return out;
}

Program program(char op, const Operands& o, ValueType type = ValueType::Float64) {
  Environment env;
  env.declare("S", {o.s.rows, o.s.cols}, Format::csr(), type);
  env.declare("T", {o.t.rows, o.t.cols}, Format::csr(), type);
  Program p = parseProgram(std::string("A = S ") + op + " T", env);
  return type == ValueType::Float64 ? p : withValueTypes(p, {{"A", type}});
}

TensorValues inputsOf(const Operands& o, ValueType type = ValueType::Float64) {
  CsrMatrix s = o.s, t = o.t;
  s.setValueType(type);
  t.setValueType(type);
  return {{"S", s}, {"T", t}};
}

void requireSameCsr(const TensorData& got, const CsrMatrix& want) {
  const CsrMatrix& m = std::get<CsrMatrix>(got);
  CHECK(m.rows == want.rows);
  CHECK(m.cols == want.cols);
  CHECK(m.rowptr == want.rowptr);
  CHECK(m.col == want.col);
  test::requireEqualValues(m.val, want.val);
}

constexpr FusionMode kModes[] = {FusionMode::None, FusionMode::Maximal, FusionMode::React};
constexpr char kOps[] = {'*', '+', '-'};

}  // namespace

TEST_CASE("co-iteration: the interpreter assembles the intersection for '*', the union for '+' and '-'") {
  for (const Operands& o : operandPairs())
    for (char op : kOps)
      for (FusionMode mode : kModes) {
        INFO(o.what << ", A = S " << op << " T, fusion " << toString(mode));
        Program p = program(op, o);
        CHECK(p.tensor("A").format == Format::csr());
        CHECK(p.tensor("A").pattern == "A");
        requireSameCsr(interpret(fuse(p, mode), inputsOf(o)).at("A"), expected(o.s, o.t, op));
      }
}

TEST_CASE("co-iteration: OpenMP and Kokkos kernels equal the interpreter, float64 and float32, every fusion mode") {
  std::vector<Operands> pairs = operandPairs();
  std::vector<Program> programs;
  std::vector<std::pair<const Operands*, ValueType>> cases;
  for (ValueType type : {ValueType::Float64, ValueType::Float32})
    for (const Operands& o : pairs)
      for (char op : kOps) {
        programs.push_back(program(op, o, type));
        cases.emplace_back(&o, type);
      }
  test::forEachKernelBatch(programs, [&](Target target, FusionMode mode, const std::vector<Kernel>& kernels) {
      for (size_t n = 0; n < programs.size(); ++n) {
        const auto& [o, type] = cases[n];
        INFO(o->what << ", " << programs[n].statements.back().str() << ", " << toString(type) << ", " << toString(target)
                     << ", fusion " << toString(mode) << "\n" << kernels[n].loops().str());
        const TensorValues inputs = inputsOf(*o, type);
        const CsrMatrix want = std::get<CsrMatrix>(interpret(fuse(programs[n], mode), inputs).at("A"));
        requireSameCsr(kernels[n].run(inputs).at("A"), want);
        // A bound kernel runs again on the pattern it assembled once.
        BoundKernel b = kernels[n].bind(inputs);
        b.run();
        b.run();
        requireSameCsr(b.results().at("A"), want);
      }
  });
}

TEST_CASE("co-iteration: a result declared dense, and a program with other statements") {
  const Operands o = operandPairs().front();
  Environment env;
  env.declare("S", {o.s.rows, o.s.cols}, Format::csr());
  env.declare("T", {o.t.rows, o.t.cols}, Format::csr());
  env.declare("A", {o.s.rows, o.s.cols}, Format::dense(2));
  env.declare("C", {o.s.cols, 3}, Format::dense(2));
  TensorValues inputs = inputsOf(o);
  inputs["C"] = test::randomPositive({o.s.cols, 3}, 11);
  const Program dense = parseProgram("A = S + T", env);
  const Program mixed = parseProgram("B = S - T\nD = S @ C\nE = T * 2", env);
  CHECK(dense.tensor("A").format == Format::dense(2));
  CHECK(mixed.tensor("B").pattern == "B");
  const DenseTensor want = csrToDense(expected(o.s, o.t, '+'));
  for (FusionMode mode : kModes) {
    INFO("fusion " << toString(mode));
    CHECK(std::get<DenseTensor>(interpret(fuse(dense, mode), inputs).at("A")).data == want.data);
    TensorValues m = interpret(fuse(mixed, mode), inputs);
    requireSameCsr(m.at("B"), expected(o.s, o.t, '-'));
    for (Target target : {Target::OpenMP, Target::Kokkos}) {
      CompileOptions options;
      options.fusion = mode;
      options.target = target;
      options.jit = testCache();
      std::vector<Kernel> k = Kernel::compileBatch({dense, mixed}, options);
      INFO(toString(target) << "\n" << k[1].loops().str());
      CHECK(std::get<DenseTensor>(k[0].run(inputs).at("A")).data == want.data);
      TensorValues got = k[1].run(inputs);
      requireSameCsr(got.at("B"), std::get<CsrMatrix>(m.at("B")));
      test::requireClose(mixed, got, m, "mixed program");
    }
  }
}

TEST_CASE("co-iteration: auto costs the merge with upper bounds of the merged pattern, and its kernel runs") {
  // One operation per visited entry: the union's estimate visits nnz(S) + nnz(T) entries, no more
  // than the matrix's coordinates; the intersection's the fewer of the two.
  const CsrMatrix full = randomCsr(9, 8, 0.9, 5, false);
  for (const Operands& o : {operandPairs().front(), Operands{"full", full, withValues(full, 2, 1)}}) {
    INFO(o.what);
    const double nnzS = static_cast<double>(o.s.nnz()), nnzT = static_cast<double>(o.t.nnz());
    for (char op : {'*', '+'}) {
      INFO(op);
      const Program p = program(op, o);
      CompileOptions options;
      options.stats = inputStats(inputsOf(o));
      CHECK((fusionModeOf(p, options) == FusionMode::Auto));
      const AutoDecision d = decideFusion(p, *options.stats, test::testMachine());
      const double visited = op == '*' ? std::min(nnzS, nnzT) : std::min(nnzS + nnzT, double(o.s.rows * o.s.cols));
      CHECK(d.choice().cost.flops == doctest::Approx(visited));
      options.machine = test::testMachine();
      options.jit = testCache();
      requireSameCsr(Kernel::compile(p, options).run(inputsOf(o)).at("A"), expected(o.s, o.t, op));
    }
  }
}

TEST_CASE("co-iteration: auto's merge of csf tensors from statistics given by hand, without their shapes") {
  Environment env;
  env.declare("B", {4, 5, 3}, Format::csf(3));
  env.declare("E", {4, 5, 3}, Format::csf(3));
  const Program p = parseProgram("A(i,j,k) = B(i,j,k) + E(i,j,k)", env);
  InputStats stats;
  stats.sparse["B"] = SparseStats{4, 5, 20, 9, {3, 8, 20}};
  stats.sparse["E"] = SparseStats{4, 5, 50, 20, {4, 16, 50}};
  // The union's entries: at most 20 + 50, and no more than the 60 coordinates.
  CHECK(decideFusion(p, stats, test::testMachine()).choice().cost.flops == doctest::Approx(60));
  stats.sparse.erase("E");
  CHECK_THROWS_WITH_AS(decideFusion(p, stats, test::testMachine()), "auto: no statistics for csf input 'E' (give its values, or its nnz)",
                       UserError);
}

TEST_CASE("co-iteration: mergedPattern of two csr matrices, and the checks of what it reads") {
  for (const Operands& o : operandPairs())
    for (char op : {'*', '+'}) {
      INFO(o.what << " " << op);
      CsrMatrix want = expected(o.s, o.t, op);
      std::fill(want.val.begin(), want.val.end(), 0.0);
      CHECK(std::get<CsrMatrix>(mergedPattern(TensorData(o.s), TensorData(o.t), op == '+')) == want);
    }
  const Operands o = operandPairs().front();
  CHECK_THROWS_WITH_AS(mergedPattern(TensorData(o.s), TensorData(randomCsr(4, 11, 0.3, 1)), true),
                       "merging the patterns of 13 x 11 and 4 x 11 matrices", UserError);
  CsrMatrix unsorted = o.t;
  size_t row = 0;  // the first with two entries, whose first two columns are swapped
  while (row < static_cast<size_t>(unsorted.rows) && unsorted.rowptr[row + 1] - unsorted.rowptr[row] < 2) ++row;
  REQUIRE(row < static_cast<size_t>(unsorted.rows));
  const size_t first = static_cast<size_t>(unsorted.rowptr[row]);
  std::swap(unsorted.col[first], unsorted.col[first + 1]);
  CHECK_THROWS_AS(mergedPattern(TensorData(o.s), TensorData(unsorted), false), UserError);
}

TEST_CASE("co-iteration: what is not supported is a user error naming the operands") {
  Environment env;
  env.declare("S", {4, 5}, Format::csr());
  env.declare("T", {4, 5}, Format::csr());
  env.declare("U", {5, 4}, Format::csr());
  env.declare("K", {4, 5}, Format::csc());
  env.declare("D", {4, 5}, Format::dcsr());
  env.declare("E", {4, 5}, Format::dcsr());
  auto error = [&](const std::string& text) {
    try {
      parseProgram(text, env);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error("A = S / T") == "1:7: '/' combines csr operands with different patterns: 'S' and 'T' (two patterns meet only in "
                              "'*', '+' and '-')");
  CHECK(error("A = S + K") == "1:7: '+' of csr and csc operands 'S' and 'K' is not supported: their levels store the dimensions "
                              "in different orders (convert one)");
  CHECK(error("A = D * S") == "1:7: '*' of dcsr and csr operands 'D' and 'S' is not supported: their levels differ (convert one)");
  CHECK(error("A(i,j) = S(i,j) + U(j,i)") == "1:17: '+' of csr operands with different patterns ('S' and 'U') needs both "
                                             "operands and the result accessed with the same indices");
  CHECK(error("A = (S + T) * 2") == "1:8: '+' of csr operands with different patterns ('S' and 'T') is supported only as a whole "
                                    "statement whose result is the program's, not inside a larger expression yet");
  CHECK(error("A = S * T\nB = A * 2") == "2:5: 'A' is stored at the pattern its statement assembles from two patterns; reading "
                                         "it in a later statement is not supported yet");
  CHECK(error("a = sum(S * T)").find("contraction of two csr operands") != std::string::npos);
}

TEST_CASE("co-iteration: views of an assembled result are refused") {
  const Operands o = operandPairs().front();
  CompileOptions options;
  options.fusion = FusionMode::React;
  options.jit = testCache();
  Kernel k = Kernel::compile(program('*', o), options);
  TensorViews views;
  for (const char* name : {"S", "T"}) {
    const CsrMatrix& m = name[0] == 'S' ? o.s : o.t;
    TensorView v;
    v.shape = {m.rows, m.cols};
    v.csr = true;
    v.data.vals = const_cast<double*>(m.val.data());
    v.data.nnz = m.nnz();
    v.data.pos[1] = m.rowptr.data();
    v.data.crd[1] = m.col.data();
    views[name] = v;
  }
  CHECK_THROWS_WITH_AS(k.bindViews(views),
                       "kernel: result 'A' is stored at a pattern the kernel assembles from two patterns (co-iteration); "
                       "views of it are not supported yet (run the kernel on react tensors)",
                       UserError);
}
