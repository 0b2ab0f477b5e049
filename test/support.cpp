// Test support: random inputs, random programs and the dense reference evaluator.
#include "support.hpp"

#include <doctest/doctest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <cmath>
#include <filesystem>
#include <limits>

namespace react::test {

std::string sharedMatrixDir() {
  std::string dir = std::string(REACT_SOURCE_DIR) + "/../shared/data/matrices";
  REQUIRE_MESSAGE(std::filesystem::is_directory(dir), "missing " << dir);
  return dir;
}

JitOptions testCache() {
  JitOptions o;
  o.cacheDir = std::string(REACT_BINARY_DIR) + "/jit-cache";
  return o;
}

CommandResult runCommand(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE_MESSAGE(pipe, "cannot run " << command);
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

CsrMatrix randomCsr(int64_t rows, int64_t cols, double density, uint64_t seed, bool emptyRows) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  CooMatrix coo;
  coo.rows = rows;
  coo.cols = cols;
  for (int64_t r = 0; r < rows; ++r) {
    if (emptyRows && r % 3 == 1) continue;
    for (int64_t c = 0; c < cols; ++c)
      if (u(rng) < density) {
        coo.row.push_back(r);
        coo.col.push_back(c);
        coo.val.push_back(0.5 + u(rng));
      }
  }
  return cooToCsr(coo);
}

DenseTensor randomPositive(std::vector<int64_t> shape, uint64_t seed) {
  DenseTensor t(std::move(shape));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  for (double& x : t.data) x = u(rng);
  return t;
}

// ---------------------------------------------------------------------------------------------
// Random programs

namespace {

struct Operand {
  std::string name;
  std::vector<std::string> indices;
  bool positive;  // safe as a denominator
};

class Generator {
 public:
  Generator(uint64_t seed, const std::vector<Operand>& operands) : rng_(seed), operands_(operands) {}

  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  Expr leaf() {
    if (pick(5) == 0) return literal(0.5 + 0.25 * pick(7));
    const Operand& o = operands_[static_cast<size_t>(pick(static_cast<int>(operands_.size())))];
    return access(o.name, o.indices);
  }

  Expr denominator(int depth) {
    switch (pick(3)) {
      case 0: return literal(0.5 + 0.5 * pick(4));
      case 1: return apply(Op::Exp, {gen(depth - 1)});
      default: {
        std::vector<const Operand*> positive;
        for (const Operand& o : operands_)
          if (o.positive) positive.push_back(&o);
        const Operand& o = *positive[static_cast<size_t>(pick(static_cast<int>(positive.size())))];
        return access(o.name, o.indices);
      }
    }
  }

  Expr gen(int depth) {
    if (depth <= 0 || pick(4) == 0) return leaf();
    switch (pick(12)) {
      case 0: return apply(Op::Neg, {gen(depth - 1)});
      case 1: return apply(Op::Exp, {apply(Op::Mul, {literal(0.25), gen(depth - 1)})});
      case 2: {  // sqrt(1 + x*x): finite, so rewrites that rely on distributivity stay exact
        Expr x = gen(depth - 1);
        return apply(Op::Sqrt, {apply(Op::Add, {literal(1.0), apply(Op::Mul, {x, x})})});
      }
      case 3: return apply(Op::Add, {gen(depth - 1), gen(depth - 1)});
      case 4: return apply(Op::Sub, {gen(depth - 1), gen(depth - 1)});
      case 5:
      case 6: return apply(Op::Mul, {gen(depth - 1), gen(depth - 1)});
      case 7: return apply(Op::Div, {gen(depth - 1), denominator(depth)});
      case 8: return apply(pick(2) ? Op::Max : Op::Min, {gen(depth - 1), gen(depth - 1)});
      case 9: {
        static const Op cmp[] = {Op::Lt, Op::Le, Op::Gt, Op::Ge, Op::Ne};
        return apply(Op::Where, {apply(cmp[pick(5)], {gen(depth - 1), literal(1.0)}), gen(depth - 1), gen(depth - 1)});
      }
      default: {
        Expr body = gen(depth - 1);
        std::vector<std::string> free = freeIndices(body);
        if (free.empty()) return body;
        std::string k = free[static_cast<size_t>(pick(static_cast<int>(free.size())))];
        if (pick(3)) return reduce(ReduceOp::Sum, {k}, body);
        // A max over an empty row is -inf; clamp it so that later products stay finite (IEEE
        // infinities would make exact rewrites such as distributivity disagree).
        return apply(Op::Max, {reduce(ReduceOp::Max, {k}, body), literal(-4.0)});
      }
    }
  }

 private:
  std::mt19937_64 rng_;
  const std::vector<Operand>& operands_;
};

}  // namespace

RandomProgram randomProgram(uint64_t seed, int maxStatements, int64_t ni, int64_t nj, int64_t nk) {
  RandomProgram p;
  p.env.declare("S", {ni, nj}, Format::csr());
  p.env.declare("B", {ni, nk}, Format::dense(2));
  p.env.declare("C", {nk, nj}, Format::dense(2));
  p.env.declare("D", {ni, nj}, Format::dense(2));
  p.env.declare("v", {ni}, Format::dense(1));
  p.env.declare("w", {nj}, Format::dense(1));
  p.env.declare("u", {nk}, Format::dense(1));
  p.inputs["S"] = randomCsr(ni, nj, 0.5, seed * 7 + 1);
  p.inputs["B"] = randomPositive({ni, nk}, seed * 7 + 2);
  p.inputs["C"] = randomPositive({nk, nj}, seed * 7 + 3);
  p.inputs["D"] = randomPositive({ni, nj}, seed * 7 + 4);
  p.inputs["v"] = randomPositive({ni}, seed * 7 + 5);
  p.inputs["w"] = randomPositive({nj}, seed * 7 + 6);
  p.inputs["u"] = randomPositive({nk}, seed * 7 + 7);
  std::vector<Operand> operands = {{"S", {"i", "j"}, true}, {"B", {"i", "k"}, true}, {"C", {"k", "j"}, true},
                                   {"D", {"i", "j"}, true}, {"v", {"i"}, true},      {"w", {"j"}, true},
                                   {"u", {"k"}, true}};
  std::mt19937_64 rng(seed);
  int count = 1 + static_cast<int>(rng() % static_cast<uint64_t>(maxStatements));
  static const std::vector<std::vector<std::string>> outputs = {{"i", "j"}, {"i", "j"}, {"i"}, {"j"}, {"i", "k"}, {}};
  for (int s = 0; s < count; ++s) {
    for (int attempt = 0; attempt < 200; ++attempt) {
      Generator g(rng(), operands);
      Statement st;
      st.lhs = "O" + std::to_string(s);
      st.lhsIndices = outputs[rng() % outputs.size()];
      st.rhs = g.gen(3);
      if (rng() % 4 == 0) st.reduce = ReduceOp::Max;
      std::string text = p.text + st.str() + "\n";
      try {
        parseIndexNotation(text, p.env);
      } catch (const Error&) {
        continue;  // not a valid program under react's semantics; draw another
      }
      p.statements.push_back(st);
      p.text = text;
      if (st.reduce == ReduceOp::Sum || st.reductionIndices().empty())
        operands.push_back({st.lhs, st.lhsIndices, false});  // max results may be -inf: not reused
      break;
    }
  }
  REQUIRE_MESSAGE(!p.statements.empty(), "no valid random statement for seed " << seed);
  return p;
}

// ---------------------------------------------------------------------------------------------
// Reference evaluation

namespace {

// A value at one index point: absent where a csr operand has no stored entry.
struct Point {
  double value;
  bool present;
};

class Reference {
 public:
  Reference(const Program& compiled, const TensorValues& inputs) : compiled_(compiled) {
    for (const auto& [name, v] : inputs) values_[name] = v;
  }

  void statement(const Statement& s) {
    const TensorDecl& d = compiled_.tensor(s.lhs);
    std::vector<std::string> reduced = s.reductionIndices();
    auto valueAt = [&]() {
      double acc = reduceIdentity(s.reduce);
      forAll(reduced, 0, [&] {
        Point p = eval(s.rhs);
        if (!p.present) return;
        acc = s.reduce == ReduceOp::Sum ? acc + p.value : std::max(acc, p.value);
      });
      return acc;
    };
    if (d.format.isSparse()) {
      CsrMatrix m = std::get<CsrMatrix>(values_.at(d.pattern));
      for (int64_t r = 0; r < m.rows; ++r)
        for (int64_t q = m.rowptr[r]; q < m.rowptr[r + 1]; ++q) {
          idx_[s.lhsIndices[0]] = r;
          idx_[s.lhsIndices[1]] = m.col[q];
          m.val[q] = valueAt();
        }
      values_[s.lhs] = m;
      return;
    }
    DenseTensor out(d.shape);
    int64_t flat = 0;
    forAll(s.lhsIndices, 0, [&] { out.data[static_cast<size_t>(flat++)] = valueAt(); });
    values_[s.lhs] = out;
  }

  const TensorValues& values() const { return values_; }

 private:
  void forAll(const std::vector<std::string>& indices, size_t d, const std::function<void()>& body) {
    if (d == indices.size()) return body();
    for (int64_t x = 0; x < compiled_.indexSizes.at(indices[d]); ++x) {
      idx_[indices[d]] = x;
      forAll(indices, d + 1, body);
    }
  }

  Point load(const ExprNode& a) {
    const MarketData& v = values_.at(a.tensor);
    if (const CsrMatrix* m = std::get_if<CsrMatrix>(&v)) {
      int64_t r = idx_.at(a.indices[0]), c = idx_.at(a.indices[1]);
      for (int64_t q = m->rowptr[r]; q < m->rowptr[r + 1]; ++q)
        if (m->col[q] == c) return {m->val[q], true};
      return {0.0, false};
    }
    const DenseTensor& t = std::get<DenseTensor>(v);
    int64_t off = 0;
    for (size_t d = 0; d < a.indices.size(); ++d) off = off * t.shape[d] + idx_.at(a.indices[d]);
    return {t.data[static_cast<size_t>(off)], true};
  }

  // Whether `e` keeps a csr operand's stored-entry pattern (docs/semantics.md): a csr access, or
  // an element-wise operator over one with the same indices. Anything else is dense: a product
  // that spreads a csr operand over more indices is exactly zero where the operand is absent.
  bool sparseTyped(const Expr& e) {
    auto it = sparseTyped_.find(e.get());
    if (it != sparseTyped_.end()) return it->second;
    bool typed = false;
    if (e->op == Op::Access) {
      typed = compiled_.tensor(e->tensor).format.isSparse();
    } else if (e->op == Op::Reduce) {
      typed = patternFactor(e) != nullptr;
    } else if (e->op != Op::Literal) {
      std::vector<std::string> mine = freeIndices(e);
      std::sort(mine.begin(), mine.end());
      for (const Expr& a : e->args) {
        std::vector<std::string> theirs = freeIndices(a);
        std::sort(theirs.begin(), theirs.end());
        typed = typed || (sparseTyped(a) && theirs == mine);
      }
    }
    return sparseTyped_[e.get()] = typed;
  }

  // A sum of a product keeps the pattern of a sparse factor that has exactly the sum's indices:
  // the factor is applied after the sum (docs/semantics.md, one-operator form).
  const Expr* patternFactor(const Expr& e) {
    if (e->op != Op::Reduce || e->reduceOp != ReduceOp::Sum) return nullptr;
    std::vector<Expr> factors;
    std::function<void(const Expr&)> flatten = [&](const Expr& x) {
      if (x->op != Op::Mul) return factors.push_back(x);
      flatten(x->args[0]);
      flatten(x->args[1]);
    };
    flatten(e->args[0]);
    std::vector<std::string> mine = freeIndices(e);
    std::sort(mine.begin(), mine.end());
    for (const Expr& f : factors) {
      std::vector<std::string> theirs = freeIndices(f);
      std::sort(theirs.begin(), theirs.end());
      if (theirs == mine && sparseTyped(f)) {
        patternFactors_.push_back(f);
        return &patternFactors_.back();
      }
    }
    return nullptr;
  }

  Point eval(const Expr& e) {
    Point p = evalPoint(e);
    if (!p.present && !sparseTyped(e)) return {0.0, true};
    return p;
  }

  Point evalPoint(const Expr& e) {
    if (e->op == Op::Access) return load(*e);
    if (e->op == Op::Literal) return {e->value, true};
    if (e->op == Op::Reduce) {
      if (sparseTyped(e) && !evalPoint(*patternFactor(e)).present) return {0.0, false};
      double acc = reduceIdentity(e->reduceOp);
      std::map<std::string, int64_t> saved = idx_;
      forAll(e->reduceIndices, 0, [&] {
        Point p = eval(e->args[0]);
        if (p.present) acc = e->reduceOp == ReduceOp::Sum ? acc + p.value : std::max(acc, p.value);
      });
      idx_ = saved;
      return {acc, true};
    }
    std::vector<Point> a;
    bool present = true;
    for (const Expr& x : e->args) {
      a.push_back(eval(x));
      present = present && a.back().present;
    }
    auto v = [&](size_t k) { return a[k].value; };
    double r = 0;
    switch (e->op) {
      case Op::Neg: r = -v(0); break;
      case Op::Exp: r = std::exp(v(0)); break;
      case Op::Sqrt: r = std::sqrt(v(0)); break;
      case Op::Add: r = v(0) + v(1); break;
      case Op::Sub: r = v(0) - v(1); break;
      case Op::Mul: r = v(0) * v(1); break;
      case Op::Div: r = v(0) / v(1); break;
      case Op::Max: r = std::max(v(0), v(1)); break;
      case Op::Min: r = std::min(v(0), v(1)); break;
      case Op::Lt: r = v(0) < v(1); break;
      case Op::Le: r = v(0) <= v(1); break;
      case Op::Gt: r = v(0) > v(1); break;
      case Op::Ge: r = v(0) >= v(1); break;
      case Op::Eq: r = v(0) == v(1); break;
      case Op::Ne: r = v(0) != v(1); break;
      case Op::Where: r = v(0) != 0.0 ? v(1) : v(2); break;
      default: FAIL("unexpected operator");
    }
    return {r, present};
  }

  const Program& compiled_;
  std::map<const ExprNode*, bool> sparseTyped_;
  std::deque<Expr> patternFactors_;
  TensorValues values_;
  std::map<std::string, int64_t> idx_;
};

}  // namespace

TensorValues referenceEvaluate(const std::vector<Statement>& statements, const Program& compiled,
                               const TensorValues& inputs) {
  Reference r(compiled, inputs);
  for (const Statement& s : statements) r.statement(s);
  return r.values();
}

double relativeError(const MarketData& a, const MarketData& b) {
  const std::vector<double>* va;
  const std::vector<double>* vb;
  if (a.index() != b.index()) return std::numeric_limits<double>::infinity();
  if (const CsrMatrix* ma = std::get_if<CsrMatrix>(&a)) {
    const CsrMatrix& mb = std::get<CsrMatrix>(b);
    if (ma->rowptr != mb.rowptr || ma->col != mb.col) return std::numeric_limits<double>::infinity();
    va = &ma->val;
    vb = &mb.val;
  } else {
    if (std::get<DenseTensor>(a).shape != std::get<DenseTensor>(b).shape) return std::numeric_limits<double>::infinity();
    va = &std::get<DenseTensor>(a).data;
    vb = &std::get<DenseTensor>(b).data;
  }
  double diff = 0, scale = 0;
  for (size_t k = 0; k < va->size(); ++k) {
    double x = (*va)[k], y = (*vb)[k];
    if (std::isnan(x) || std::isnan(y) || std::isinf(x) || std::isinf(y)) {
      bool same = (std::isnan(x) && std::isnan(y)) || x == y;
      if (!same) return std::numeric_limits<double>::infinity();
      continue;
    }
    diff = std::max(diff, std::abs(x - y));
    scale = std::max(scale, std::abs(y));
  }
  return scale > 0 ? diff / scale : diff;
}

void requireClose(const Program& program, const TensorValues& got, const TensorValues& want, const std::string& what) {
  for (const std::string& name : program.outputs()) {
    INFO(what << ": output " << name);
    REQUIRE(got.count(name));
    REQUIRE(want.count(name));
    CHECK(relativeError(got.at(name), want.at(name)) < 1e-12);
  }
}

std::vector<KernelCase> benchmarkKernels(const CsrMatrix& s, int64_t dense, uint64_t seed) {
  std::vector<KernelCase> cases;
  auto add = [&](std::string name, std::string text, std::vector<std::pair<std::string, std::vector<int64_t>>> dense_inputs) {
    KernelCase c;
    c.name = std::move(name);
    c.text = std::move(text);
    c.env.declare("S", {s.rows, s.cols}, Format::csr());
    c.inputs["S"] = s;
    uint64_t k = seed;
    for (auto& [n, shape] : dense_inputs) {
      c.env.declare(n, shape, Format::dense(static_cast<int>(shape.size())));
      c.inputs[n] = randomPositive(shape, ++k);
    }
    cases.push_back(std::move(c));
  };
  add("sddmm", "A = S * (B @ C)", {{"B", {s.rows, dense}}, {"C", {dense, s.cols}}});
  add("spmm_mm", "A = S @ C @ D", {{"C", {s.cols, dense}}, {"D", {dense, dense + 1}}});
  add("norm_row", "A = S / sum(S, axis=1)", {});
  add("softmax", "A = exp(S) / sum(exp(S), axis=1)", {});
  return cases;
}

}  // namespace react::test
