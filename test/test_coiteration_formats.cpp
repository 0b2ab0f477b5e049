// Co-iteration of two patterns in formats other than csr (docs/semantics.md, "Two sparse
// patterns"): csc (a dense first level, as csr's), dcsr and csf (a merge of first levels, which
// kernels run over the first level of the pattern Kernel::bind assembles), a mode ordering, and a
// sparse vector. The interpreter against a reference written here entry by entry (the union or
// intersection of the stored entries, stored in the format: no row or fibre without entries) and
// against mergedPattern; the OpenMP and
// Kokkos kernels of every fusion mode, float64 and float32, against the interpreter, exactly.
#include "support.hpp"

#include "formats/random.hpp"

#include <doctest/doctest.h>

#include <functional>
#include <map>
#include <optional>

using namespace react;
using test::testCache;

namespace {

struct FormatCase {
  std::string what;
  Format format;
  std::vector<int64_t> shape;
  std::vector<std::string> indices;
};

std::vector<FormatCase> formatCases() {
  return {{"csc", Format::csc(), {9, 7}, {"i", "j"}},
          {"dcsr", Format::dcsr(), {11, 6}, {"i", "j"}},
          {"csf", Format::csf(3), {5, 4, 6}, {"i", "j", "k"}},
          {"sss:2,0,1", parseFormat("sss:2,0,1", 3), {4, 5, 3}, {"i", "j", "k"}},
          {"sparse vector", Format::csf(1), {17}, {"i"}}};
}

// Random entries of `shape`, at most one per coordinate, in about `density` of them; `skip`
// drops the entries whose first coordinate is a multiple of it (empty rows and slices).
CooTensor randomEntries(const std::vector<int64_t>& shape, double density, uint64_t seed, int64_t skip) {
  CooTensor c;
  c.shape = shape;
  c.crd.resize(shape.size());
  int64_t size = 1;
  for (int64_t d : shape) size *= d;
  Rng rng(seed);
  for (int64_t e = 0; e < size; ++e) {
    if (rng.uniform() >= density) continue;
    std::vector<int64_t> at(shape.size());
    int64_t rest = e;
    for (size_t d = shape.size(); d-- > 0;) {
      at[d] = rest % shape[d];
      rest /= shape[d];
    }
    if (skip > 0 && at[0] % skip == 0) continue;
    for (size_t d = 0; d < shape.size(); ++d) c.crd[d].push_back(at[d]);
    c.val.push_back(4 * rng.uniform() - 2);  // [-2, 2)
  }
  return c;
}

// Operand pairs: random (empty rows in one, others in the other), one pattern with other
// values, explicit zeros, and an operand without entries.
struct Operands {
  std::string what;
  SparseTensor s, t;
};

std::vector<Operands> operandPairs(const FormatCase& f) {
  std::vector<Operands> pairs;
  auto make = [&](const CooTensor& c) { return cooToSparse(c, f.format); };
  pairs.push_back({"random", make(randomEntries(f.shape, 0.3, 1, 3)), make(randomEntries(f.shape, 0.3, 2, 2))});
  SparseTensor one = make(randomEntries(f.shape, 0.4, 3, 0)), other = one;
  for (size_t k = 0; k < other.val.size(); ++k) other.val[k] = 0.25 - 0.5 * static_cast<double>(k % 7);
  pairs.push_back({"one pattern", one, other});
  SparseTensor zeros = make(randomEntries(f.shape, 0.5, 4, 0));
  for (size_t k = 0; k < zeros.val.size(); k += 3) zeros.val[k] = 0.0;
  pairs.push_back({"explicit zeros", zeros, make(randomEntries(f.shape, 0.5, 5, 0))});
  CooTensor none;
  none.shape = f.shape;
  none.crd.resize(f.shape.size());
  pairs.push_back({"no entries", make(randomEntries(f.shape, 0.4, 6, 0)), make(none)});
  pairs.push_back({"no entries, first", make(none), make(randomEntries(f.shape, 0.4, 7, 0))});
  return pairs;
}

using Entries = std::map<std::vector<int64_t>, double>;

Entries entriesOf(const SparseTensor& t) {
  const CooTensor c = sparseToCoo(t);
  Entries e;
  for (int64_t k = 0; k < c.entries(); ++k) {
    std::vector<int64_t> at;
    for (int d = 0; d < c.rank(); ++d) at.push_back(c.crd[static_cast<size_t>(d)][static_cast<size_t>(k)]);
    e[at] = c.val[static_cast<size_t>(k)];
  }
  return e;
}

// The reference, entry by entry: the stored entries of either operand (union) or both
// (intersection), each `op` of the operands' values, a missing one read as 0.
Entries expected(const SparseTensor& s, const SparseTensor& t, char op) {
  const Entries a = entriesOf(s), b = entriesOf(t);
  std::map<std::vector<int64_t>, std::pair<std::optional<double>, std::optional<double>>> both;
  for (const auto& [at, v] : a) both[at].first = v;
  for (const auto& [at, v] : b) both[at].second = v;
  Entries out;
  for (const auto& [at, v] : both) {
    if (op == '*' && !(v.first && v.second)) continue;
    const double x = v.first.value_or(0.0), y = v.second.value_or(0.0);
    out[at] = op == '*' ? x * y : op == '+' ? x + y : x - y;
  }
  return out;
}

// The same entries stored in `format` (of `shape`).
SparseTensor stored(const Entries& entries, const Format& format, const std::vector<int64_t>& shape) {
  CooTensor c;
  c.shape = shape;
  c.crd.resize(shape.size());
  for (const auto& [at, v] : entries) {
    for (size_t d = 0; d < at.size(); ++d) c.crd[d].push_back(at[d]);
    c.val.push_back(v);
  }
  return cooToSparse(c, format);
}

std::string statement(const FormatCase& f, char op) {
  std::string idx;
  for (const std::string& i : f.indices) idx += (idx.empty() ? "" : ",") + i;
  return "A(" + idx + ") = S(" + idx + ") " + op + " T(" + idx + ")";
}

Program program(const FormatCase& f, char op, ValueType type = ValueType::Float64) {
  Environment env;
  env.declare("S", f.shape, f.format, type);
  env.declare("T", f.shape, f.format, type);
  Program p = parseProgram(statement(f, op), env);
  return type == ValueType::Float64 ? p : withValueTypes(p, {{"A", type}});
}

TensorValues inputsOf(const Operands& o, ValueType type = ValueType::Float64) {
  SparseTensor s = o.s, t = o.t;
  s.setValueType(type);
  t.setValueType(type);
  return {{"S", s}, {"T", t}};
}

void requireSameTensor(const TensorData& got, const SparseTensor& want) {
  const SparseTensor& m = std::get<SparseTensor>(got);
  CHECK(m.format == want.format);
  CHECK(m.shape == want.shape);
  CHECK(m.levels == want.levels);
  test::requireEqualValues(m.val, want.val);
}

constexpr FusionMode kModes[] = {FusionMode::None, FusionMode::Maximal, FusionMode::React};
constexpr char kOps[] = {'*', '+', '-'};

// One program of the kernel tests: a format, an operand pair, an operator and a value type.
struct Case {
  const FormatCase* format;
  Operands operands;
  char op;
  ValueType type;
};

// Every case of `formats` (which outlive them), each operand pair and operator, in each of `types`,
// with the program `make` writes for it appended to `programs`.
std::vector<Case> everyCase(const std::vector<FormatCase>& formats, const std::vector<ValueType>& types,
                            const std::function<Program(const FormatCase&, char, ValueType)>& make, std::vector<Program>& programs) {
  std::vector<Case> cases;
  for (ValueType type : types)
    for (const FormatCase& f : formats)
      for (const Operands& o : operandPairs(f))
        for (char op : kOps) {
          programs.push_back(make(f, op, type));
          cases.push_back({&f, o, op, type});
        }
  return cases;
}

}  // namespace

TEST_CASE("co-iteration of other formats: the interpreter assembles the operands' format, level by level") {
  for (const FormatCase& f : formatCases())
    for (const Operands& o : operandPairs(f))
      for (char op : kOps) {
        const Program p = program(f, op);
        CHECK(p.tensor("A").format == f.format);
        CHECK(p.tensor("A").pattern == "A");
        TensorData merged = mergedPattern(TensorData(o.s), TensorData(o.t), op != '*');
        for (FusionMode mode : kModes) {
          INFO(f.what << ", " << o.what << ", " << statement(f, op) << ", fusion " << toString(mode));
          const SparseTensor got = std::get<SparseTensor>(interpret(fuse(p, mode), inputsOf(o)).at("A"));
          const SparseTensor want = stored(expected(o.s, o.t, op), f.format, f.shape);
          CHECK(got.levels == want.levels);
          CHECK(got.val == want.val);
          CHECK(got.levels == std::get<SparseTensor>(merged).levels);
        }
      }
}

TEST_CASE("co-iteration of other formats: mergedPattern keeps no row without entries") {
  // Row 0 in both, their columns disjoint; row 1 in S only; row 2 in both, column 1 in both.
  CooTensor s, t;
  s.shape = t.shape = {3, 4};
  s.crd = {{0, 1, 2}, {0, 2, 1}};
  s.val = {1, 2, 3};
  t.crd = {{0, 2}, {3, 1}};
  t.val = {4, 5};
  const SparseTensor a = cooToSparse(s, Format::dcsr()), b = cooToSparse(t, Format::dcsr());
  const SparseTensor meet = std::get<SparseTensor>(mergedPattern(TensorData(a), TensorData(b), false));
  CHECK(meet.levels[0].pos == std::vector<int64_t>{0, 1});
  CHECK(meet.levels[0].crd == std::vector<int32_t>{2});
  CHECK(meet.levels[1].pos == std::vector<int64_t>{0, 1});
  CHECK(meet.levels[1].crd == std::vector<int32_t>{1});
  const SparseTensor either = std::get<SparseTensor>(mergedPattern(TensorData(a), TensorData(b), true));
  CHECK(either.levels[0].crd == std::vector<int32_t>{0, 1, 2});
  CHECK(either.levels[1].pos == std::vector<int64_t>{0, 2, 3, 4});
  CHECK(either.levels[1].crd == std::vector<int32_t>{0, 3, 2, 1});
  CHECK_THROWS_AS(mergedPattern(TensorData(a), TensorData(cooToSparse(t, Format::csc())), true), UserError);
}

TEST_CASE("co-iteration of other formats: OpenMP and Kokkos kernels equal the interpreter, float64 and float32, every fusion mode") {
  const std::vector<FormatCase> formats = formatCases();
  std::vector<Program> programs;
  const std::vector<Case> cases = everyCase(formats, {ValueType::Float64, ValueType::Float32}, program, programs);
  test::forEachKernelBatch(programs, [&](Target target, FusionMode mode, const std::vector<Kernel>& kernels) {
    for (size_t n = 0; n < programs.size(); ++n) {
      const Case& c = cases[n];
      INFO(c.format->what << ", " << c.operands.what << ", " << programs[n].statements.back().str() << ", " << toString(c.type)
                          << ", " << toString(target) << ", fusion " << toString(mode) << "\n" << kernels[n].loops().str());
      const TensorValues inputs = inputsOf(c.operands, c.type);
      const SparseTensor want = std::get<SparseTensor>(interpret(fuse(programs[n], mode), inputs).at("A"));
      requireSameTensor(kernels[n].run(inputs).at("A"), want);
      BoundKernel b = kernels[n].bind(inputs);  // a bound kernel runs again on the pattern it assembled once
      b.run();
      b.run();
      requireSameTensor(b.results().at("A"), want);
    }
  });
}

TEST_CASE("co-iteration of other formats: a result declared dense, in every format, interpreter and kernels") {
  // A merge of first levels (dcsr, csf) then runs over every coordinate of the first level,
  // finding each operand's row by a search; the entries the merge visits are written, the rest 0.
  const std::vector<FormatCase> formats = formatCases();
  std::vector<Program> programs;
  const std::vector<Case> cases = everyCase(formats, {ValueType::Float64}, [](const FormatCase& f, char op, ValueType) {
    Environment env;
    env.declare("S", f.shape, f.format);
    env.declare("T", f.shape, f.format);
    env.declare("A", f.shape, Format::dense(static_cast<int>(f.shape.size())));
    return parseProgram(statement(f, op), env);
  }, programs);
  for (size_t n = 0; n < programs.size(); ++n) {
    const Case& c = cases[n];
    INFO(c.format->what << ", " << c.operands.what << ", " << c.op);
    DenseTensor want(c.format->shape, 0.0);
    for (const auto& [at, v] : expected(c.operands.s, c.operands.t, c.op)) {
      int64_t flat = 0;
      for (size_t d = 0; d < at.size(); ++d) flat = flat * c.format->shape[d] + at[d];
      want.data[static_cast<size_t>(flat)] = v;
    }
    for (FusionMode mode : kModes)
      CHECK(std::get<DenseTensor>(interpret(fuse(programs[n], mode), inputsOf(c.operands)).at("A")).data == want.data);
  }
  test::forEachKernelBatch(programs, [&](Target target, FusionMode mode, const std::vector<Kernel>& kernels) {
    for (size_t n = 0; n < programs.size(); ++n) {
      const Case& c = cases[n];
      INFO(c.format->what << ", " << c.operands.what << ", " << c.op << ", " << toString(target) << ", fusion "
                          << toString(mode) << "\n" << kernels[n].loops().str());
      const TensorValues inputs = inputsOf(c.operands);
      CHECK(std::get<DenseTensor>(kernels[n].run(inputs).at("A")).data ==
            std::get<DenseTensor>(interpret(fuse(programs[n], mode), inputs).at("A")).data);
    }
  });
}

TEST_CASE("co-iteration of other formats: a csc result declared dense, and the refusals name the tensors") {
  const FormatCase csc = formatCases().front();
  const Operands o = operandPairs(csc).front();
  Environment env;
  env.declare("S", csc.shape, Format::csc());
  env.declare("T", csc.shape, Format::csc());
  env.declare("A", csc.shape, Format::dense(2));
  const Program dense = parseProgram("A = S - T", env);
  DenseTensor want(csc.shape, 0.0);
  for (const auto& [at, v] : expected(o.s, o.t, '-')) want.data[static_cast<size_t>(at[0] * csc.shape[1] + at[1])] = v;
  for (FusionMode mode : kModes) {
    INFO("fusion " << toString(mode));
    CHECK(std::get<DenseTensor>(interpret(fuse(dense, mode), inputsOf(o)).at("A")).data == want.data);
  }

  Environment refused;
  refused.declare("S", {4, 5}, Format::dcsr());
  refused.declare("T", {4, 5}, Format::dcsr());
  refused.declare("R", {4, 5}, Format::csr());
  refused.declare("D", {4, 5}, Format::dense(2));
  refused.declare("C", {4, 5}, Format::csr());
  auto error = [&](const std::string& text) {
    try {
      parseProgram(text, refused);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error("R = S + T") == "1:1: result 'R' is declared csr but is stored at the pattern '+' of two dcsr patterns assembles: "
                              "declare it dcsr, or dense");
  CHECK(error("A = S * C") == "1:7: '*' of dcsr and csr operands 'S' and 'C' is not supported: their levels differ (convert one)");
}
