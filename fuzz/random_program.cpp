// Random programs: random environments (indices, extents, sparse and dense inputs) and random
// statements under react's semantics, kept only when the front end accepts them and the value
// rules hold (random_program.hpp).
#include "fuzz/random_program.hpp"

#include "fuzz/reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>

namespace react::fuzz {

const std::vector<std::string> kUnusualNames = {
    "int", "double", "new", "for", "return", "auto", "class", "if", "while", "const", "void", "static", "struct",
    "template", "this", "delete", "operator", "namespace", "using", "typedef", "char", "long", "float", "true", "false",
    "nullptr", "and", "or", "not", "xor", "bitand", "register", "default", "case", "switch", "do", "else", "goto",
    "private", "sizeof", "union", "unsigned", "volatile", "inline", "virtual", "throw", "try", "catch", "constexpr",
    "decltype", "static_assert", "alignas", "noexcept", "main", "printf", "fprintf", "fflush", "abort", "exit",
    "size_t", "int64_t", "int32_t", "std", "INFINITY", "NAN", "NULL", "errno", "stdout", "stderr", "assert", "offsetof",
    "st_mtime", "va_arg", "si_pid", "d_fileno", "Kokkos", "KOKKOS_LAMBDA", "KOKKOS_INLINE_FUNCTION", "ReactTensor",
    "ReactLaunch", "ReactMax", "REACT_ABORT", "REACT_REPORT", "REACT_KERNEL_PRELUDE", "react_checked", "react_max",
    "react_min", "react_where", "react_launch", "react_on_device", "react_memory", "react_kernel", "lane_acc",
    "row_scratch_bytes", "policy_t", "scratch_t", "policy", "launch", "team", "row", "acc", "result", "q", "t",
    "sizes", "tensors", "hoisted0", "S_pos", "S_crd", "S_vals", "S_nnz", "S_size", "S_r0", "S_buffer", "S_view",
    "S_team", "N_i", "N_j", "p_i", "p_j", "T0", "T1", "T0_O0", "val_S", "ptr_S", "ix_i", "p_0", "ext_i", "len_S",
    "loc_T0", "_x", "__x", "_X", "x_", "a__b", "_", "__", "_0", "ix_0_ux", "x_u"};

const std::vector<std::string> kFunctionNames = {"exp", "sqrt", "max", "min", "where", "sum"};

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

GenerationCounts& GenerationCounts::operator+=(const GenerationCounts& o) {
  kept += o.kept;
  refused += o.refused;
  brokeValueRules += o.brokeValueRules;
  contractions += o.contractions;
  for (const auto& [format, n] : o.coIterations) coIterations[format] += n;
  for (const auto& [format, n] : o.reads) reads[format] += n;
  for (const auto& [format, n] : o.results) results[format] += n;
  return *this;
}

std::string GenerationCounts::str() const {
  std::string s = "statements kept " + std::to_string(kept) + " (" + std::to_string(contractions) +
                  " contractions of a 3-tensor), drawn and refused by the front end " + std::to_string(refused) +
                  ", breaking the value rules " + std::to_string(brokeValueRules) + "; kept statements reading";
  for (const auto& [format, n] : reads) s += " " + format + " " + std::to_string(n) + (&n == &reads.rbegin()->second ? "" : ",");
  s += "; co-iterations";
  for (const auto& [format, n] : coIterations) s += " " + format + " " + std::to_string(n) + (&n == &coIterations.rbegin()->second ? "" : ",");
  s += "; results";
  for (const auto& [format, n] : results) s += " " + format + " " + std::to_string(n) + (&n == &results.rbegin()->second ? "" : ",");
  return s;
}

std::string programText(const std::vector<Statement>& statements) {
  std::string text;
  for (const Statement& s : statements) text += s.str() + "\n";
  return text;
}

namespace {

constexpr double kMagnitudeRatio = 10;  // subexpressions at most this times the largest result

double largestFinite(const TensorData& v, bool& allFinite, bool& onlyNegInf) {
  const std::vector<double>& values = valuesOf(v);
  double largest = 0;
  allFinite = true;
  onlyNegInf = true;  // every non-finite value is -inf
  for (double x : values) {
    if (std::isfinite(x)) {
      largest = std::max(largest, std::abs(x));
    } else {
      allFinite = false;
      onlyNegInf = onlyNegInf && x < 0 && std::isinf(x);
    }
  }
  return largest;
}

double smallest(const TensorData& v) {
  const std::vector<double>& values = valuesOf(v);
  double m = std::numeric_limits<double>::infinity();
  for (double x : values) m = std::min(m, x);
  return m;
}

struct Operand {
  std::string name;
  std::vector<std::string> indices;
  bool positive;        // every value >= 0.25: safe as a denominator
  bool sparse = false;  // drawn more often: the stored-entry rules are where the bugs hide
};

class Generator {
 public:
  Generator(uint64_t seed, const std::vector<Operand>& operands) : rng_(seed), operands_(operands) {}

  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  Expr leaf() {
    static const double literals[] = {0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 0.0, -1.0};
    if (pick(5) == 0) return literal(literals[pick(pick(4) ? 6 : 8)]);
    std::vector<const Operand*> sparse;
    for (const Operand& o : operands_)
      if (o.sparse) sparse.push_back(&o);
    const Operand& o = !sparse.empty() && pick(3) == 0 ? *sparse[static_cast<size_t>(pick(static_cast<int>(sparse.size())))]
                                                       : operands_[static_cast<size_t>(pick(static_cast<int>(operands_.size())))];
    return access(o.name, o.indices);
  }

  Expr positiveLeaf() {
    std::vector<const Operand*> positive;
    for (const Operand& o : operands_)
      if (o.positive) positive.push_back(&o);
    if (positive.empty() || pick(4) == 0) return literal(0.5 + 0.5 * pick(4));
    const Operand& o = *positive[static_cast<size_t>(pick(static_cast<int>(positive.size())))];
    return access(o.name, o.indices);
  }

  Expr denominator(int depth) {
    if (pick(3) == 0) return apply(Op::Exp, {apply(Op::Mul, {literal(0.25), gen(depth - 1)})});
    return positiveLeaf();
  }

  Expr gen(int depth) {
    if (depth <= 0 || pick(4) == 0) return leaf();
    switch (pick(13)) {
      case 0: return apply(Op::Neg, {gen(depth - 1)});
      case 1: return apply(Op::Exp, {apply(Op::Mul, {literal(0.25), gen(depth - 1)})});
      case 2: {
        Op root = pick(2) ? Op::Sqrt : Op::Log;
        if (pick(2)) return apply(root, {positiveLeaf()});
        // sqrt(1 + x*x), log(1 + x*x): defined for every x
        Expr x = gen(depth - 1);
        return apply(root, {apply(Op::Add, {literal(1.0), apply(Op::Mul, {x, x})})});
      }
      case 3: return apply(Op::Add, {gen(depth - 1), gen(depth - 1)});
      case 4: return apply(Op::Sub, {gen(depth - 1), gen(depth - 1)});
      case 5:
      case 6: return apply(Op::Mul, {gen(depth - 1), gen(depth - 1)});
      case 7: return apply(Op::Div, {gen(depth - 1), denominator(depth)});
      case 8: return apply(pick(2) ? Op::Max : Op::Min, {gen(depth - 1), gen(depth - 1)});
      case 9: {
        static const Op cmp[] = {Op::Lt, Op::Le, Op::Gt, Op::Ge, Op::Ne, Op::Eq};
        Expr rhs = pick(3) ? literal(pick(4) ? 1.0 : 0.0) : gen(depth - 1);
        return apply(Op::Where, {apply(cmp[pick(6)], {gen(depth - 1), rhs}), gen(depth - 1), gen(depth - 1)});
      }
      case 10: {
        static const Op cmp[] = {Op::Lt, Op::Le, Op::Gt, Op::Ge, Op::Ne, Op::Eq};
        return apply(cmp[pick(6)], {gen(depth - 1), pick(2) ? literal(1.0) : gen(depth - 1)});
      }
      default: {
        Expr body = gen(depth - 1);
        std::vector<std::string> free = freeIndices(body);
        if (free.empty()) return body;
        std::shuffle(free.begin(), free.end(), rng_);
        free.resize(free.size() > 1 && pick(4) == 0 ? 2 : 1);
        if (pick(3)) return reduce(ReduceOp::Sum, free, body);
        // A max over an empty row is -inf: clamped, so that the expression stays finite.
        return apply(Op::Max, {reduce(ReduceOp::Max, free, body), literal(-4.0)});
      }
    }
  }

  // A product of a rank-3 operand and one or two dense matrices sharing its indices, the shared
  // indices summed: MTTKRP (X(i,k,l) * C(k,j) * D(l,j) into O(i,j)), TTM (X(i,j,k) * U(k,r) into
  // O(i,j,r)) and the like. Nothing when no such operands exist.
  std::optional<Statement> contraction(const std::string& lhs) {
    std::vector<const Operand*> tensors, factors;
    for (const Operand& o : operands_)
      if (o.indices.size() == 3) tensors.push_back(&o);
    if (tensors.empty()) return std::nullopt;
    const Operand& x = *tensors[static_cast<size_t>(pick(static_cast<int>(tensors.size())))];
    auto inX = [&](const std::string& i) { return std::find(x.indices.begin(), x.indices.end(), i) != x.indices.end(); };
    for (const Operand& o : operands_)
      if (o.indices.size() == 2 && !o.sparse && (inX(o.indices[0]) || inX(o.indices[1]))) factors.push_back(&o);
    if (factors.empty()) return std::nullopt;
    std::shuffle(factors.begin(), factors.end(), rng_);
    factors.resize(std::min<size_t>(factors.size(), 1 + static_cast<size_t>(pick(2))));
    std::vector<Expr> terms{access(x.name, x.indices)};
    std::set<std::string> summed;
    for (const Operand* f : factors) {
      terms.push_back(access(f->name, f->indices));
      for (const std::string& i : f->indices)
        if (inX(i)) summed.insert(i);
    }
    if (pick(4) == 0) std::rotate(terms.begin(), terms.begin() + 1, terms.end());  // the tensor last
    Statement st;
    st.lhs = lhs;
    st.rhs = terms[0];
    for (size_t t = 1; t < terms.size(); ++t) st.rhs = apply(Op::Mul, {st.rhs, terms[t]});
    for (const std::string& i : freeIndices(st.rhs))
      if (!summed.count(i)) st.lhsIndices.push_back(i);
    return st;
  }

  // `X(idx) op Y(idx)` of two sparse operands over the same indices (a co-iteration where their
  // formats agree), or nothing when there are no two.
  std::optional<Statement> coIteration(const std::string& lhs) {
    std::vector<std::pair<const Operand*, const Operand*>> pairs;
    for (const Operand& a : operands_)
      for (const Operand& b : operands_)
        if (a.sparse && b.sparse && a.name != b.name && a.indices == b.indices) pairs.emplace_back(&a, &b);
    if (pairs.empty()) return std::nullopt;
    const auto [a, b] = pairs[static_cast<size_t>(pick(static_cast<int>(pairs.size())))];
    static const Op ops[] = {Op::Mul, Op::Add, Op::Sub};
    Statement st;
    st.lhs = lhs;
    st.rhs = apply(ops[pick(3)], {access(a->name, a->indices), access(b->name, b->indices)});
    st.lhsIndices = a->indices;
    return st;
  }

  std::mt19937_64& rng() { return rng_; }

 private:
  std::mt19937_64 rng_;
  const std::vector<Operand>& operands_;
};

// The output names O0, O1, ...
std::vector<std::string> usualOutputs(int count) {
  std::vector<std::string> names;
  for (int s = 0; s < count; ++s) names.push_back("O" + std::to_string(s));
  return names;
}

// The name GenerationCounts::reads counts a format under: its name, dense with its rank.
std::string formatKey(const Format& f) { return f.hasSparseLevel() ? f.str() : "dense" + std::to_string(f.rank()); }

// The format of `st`'s result stored at a prefix of a sparse operand's pattern, with dense levels
// after it (TTM's `A(i,j,l) = B(i,j,k) * C(k,l)` at B's (i,j) fibres: ssd), where `st` is a
// product of two accesses, one sparse, whose first levels' indices are the result's and whose
// other levels' are summed.
std::optional<Format> prefixFormat(const Statement& st, const Environment& env) {
  if (st.rhs->op != Op::Mul || st.reduce != ReduceOp::Sum) return std::nullopt;
  for (const Expr& x : st.rhs->args) {
    auto d = env.tensors.find(x->tensor);
    if (x->op != Op::Access || d == env.tensors.end() || !d->second.format.hasSparseLevel()) continue;
    const Format& f = d->second.format;
    auto kept = [&](int l) {
      const std::string& i = x->indices[static_cast<size_t>(f.dimension(l))];
      return std::find(st.lhsIndices.begin(), st.lhsIndices.end(), i) - st.lhsIndices.begin();
    };
    int prefix = 0;
    while (prefix < f.rank() && kept(prefix) < static_cast<long>(st.lhsIndices.size())) ++prefix;
    bool summed = true;
    for (int l = prefix; l < f.rank(); ++l) summed = summed && kept(l) == static_cast<long>(st.lhsIndices.size());
    if (!summed || prefix == 0 || prefix == static_cast<int>(st.lhsIndices.size())) continue;
    std::vector<Level> levels;
    std::vector<int> ordering;
    for (int l = 0; l < prefix; ++l) {
      levels.push_back(f.level(l));
      ordering.push_back(static_cast<int>(kept(l)));
    }
    if (!Format(levels, {}).hasSparseLevel() || levels.back().full()) continue;
    for (int dim = 0; dim < static_cast<int>(st.lhsIndices.size()); ++dim)
      if (std::find(ordering.begin(), ordering.end(), dim) == ordering.end()) {
        levels.push_back(Level::dense());
        ordering.push_back(dim);
      }
    return Format(levels, ordering);
  }
  return std::nullopt;
}

// A random statement writing `output`: a contraction of a rank-3 operand now and then, or a
// co-iteration of two sparse operands, else a random expression whose free indices are kept or reduced at random.
std::pair<Statement, bool> drawStatement(Generator& g, const std::string& output) {
  if (g.pick(3) == 0)
    if (std::optional<Statement> c = g.contraction(output)) return {*c, true};
  if (g.pick(6) == 0)
    if (std::optional<Statement> c = g.coIteration(output)) return {*c, false};
  Statement st;
  st.lhs = output;
  st.rhs = g.gen(1 + g.pick(3));
  std::vector<std::string> free = freeIndices(st.rhs);
  if (g.pick(4) == 0) std::shuffle(free.begin(), free.end(), g.rng());
  const bool all = g.pick(2) == 0;  // else each index kept with probability 2/3, the rest reduced
  for (const std::string& x : free)
    if (all || g.pick(3)) st.lhsIndices.push_back(x);
  if (!st.reductionIndices().empty() && g.pick(4) == 0) st.reduce = ReduceOp::Max;
  return {st, false};
}

// Appends up to one statement per output name to `p` (whose env and inputs are set).
void addStatements(RandomProgram& p, std::vector<Operand> operands, std::mt19937_64& rng, const std::vector<std::string>& outputs) {
  TensorValues values = p.inputs;  // inputs and the results so far
  for (const std::string& output : outputs) {
    for (int attempt = 0; attempt < 200; ++attempt) {
      Generator g(rng(), operands);
      auto [st, contraction] = drawStatement(g, output);
      Environment env = p.env;
      // A declared dense output (-f=O:dense), its extents inferred, now and then: else a statement
      // over a sparse operand's stored entries stores its result there, in the operand's format.
      if (g.pick(10) == 0)
        env.declare(st.lhs, std::vector<int64_t>(st.lhsIndices.size(), -1), Format::dense(static_cast<int>(st.lhsIndices.size())));
      else if (std::optional<Format> prefix = prefixFormat(st, p.env); prefix && g.pick(2) == 0)
        env.declare(st.lhs, std::vector<int64_t>(st.lhsIndices.size(), -1), *prefix);
      std::string text = p.text + st.str() + "\n";
      Program compiled;
      try {
        compiled = parseIndexNotation(text, env);
      } catch (const UserError&) {
        ++p.counts.refused;
        continue;  // not a valid program under react's semantics; draw another
      }
      if (!keepsValueRules({st}, compiled, values)) {
        ++p.counts.brokeValueRules;
        continue;
      }
      ++p.counts.kept;
      ++p.counts.results[formatKey(compiled.tensor(st.lhs).format)];
      p.counts.contractions += contraction ? 1 : 0;
      if (auto c = coIterationOf(st, [&](const std::string& name) -> const TensorDecl& { return compiled.tensor(name); }))
        ++p.counts.coIterations[formatKey(compiled.tensor(c->operands.at(0)).format)];
      std::set<std::string> read;
      for (const ExprNode* a : accesses(st.rhs))
        if (p.inputs.count(a->tensor) && read.insert(a->tensor).second) ++p.counts.reads[formatKey(p.env.tensors.at(a->tensor).declaredFormat())];
      values = referenceEvaluate({st}, compiled, values);
      p.env = env;
      p.statements.push_back(st);
      p.text = text;
      bool allFinite = false, onlyNegInf = false;
      largestFinite(values.at(st.lhs), allFinite, onlyNegInf);
      if (allFinite)
        operands.push_back({st.lhs, st.lhsIndices, smallest(values.at(st.lhs)) >= 0.25, compiled.tensor(st.lhs).format.hasSparseLevel()});
      break;
    }
  }
}

}  // namespace

bool keepsValueRules(const std::vector<Statement>& statements, const Program& compiled, const TensorValues& inputs) {
  std::vector<ValueRange> ranges;
  TensorValues out = referenceEvaluate(statements, compiled, inputs, &ranges);
  for (size_t s = 0; s < statements.size(); ++s) {
    bool allFinite = false, onlyNegInf = false;
    double largest = largestFinite(out.at(statements[s].lhs), allFinite, onlyNegInf);
    if (ranges[s].nonFinite || !onlyNegInf) return false;
    if (ranges[s].maxAbs > kMagnitudeRatio * std::max(1.0, largest)) return false;
  }
  return true;
}

RandomProgram randomProgram(uint64_t seed, int maxStatements, int64_t ni, int64_t nj, int64_t nk) {
  RandomProgram p;
  auto declare = [&](const std::string& name, std::vector<std::string> idx, std::vector<int64_t> shape, TensorData value) {
    p.env.declare(name, shape, shape.size() == 2 && std::holds_alternative<CsrMatrix>(value) ? Format::csr()
                                                                                          : Format::dense(static_cast<int>(shape.size())));
    p.inputs[name] = std::move(value);
    p.inputIndices[name] = std::move(idx);
  };
  declare("S", {"i", "j"}, {ni, nj}, randomCsr(ni, nj, 0.5, seed * 7 + 1));
  declare("B", {"i", "k"}, {ni, nk}, randomPositive({ni, nk}, seed * 7 + 2));
  declare("C", {"k", "j"}, {nk, nj}, randomPositive({nk, nj}, seed * 7 + 3));
  declare("D", {"i", "j"}, {ni, nj}, randomPositive({ni, nj}, seed * 7 + 4));
  declare("v", {"i"}, {ni}, randomPositive({ni}, seed * 7 + 5));
  declare("w", {"j"}, {nj}, randomPositive({nj}, seed * 7 + 6));
  declare("u", {"k"}, {nk}, randomPositive({nk}, seed * 7 + 7));
  std::vector<Operand> operands;
  for (const auto& [name, idx] : p.inputIndices) operands.push_back({name, idx, true, name == "S"});
  std::mt19937_64 rng(seed);
  addStatements(p, operands, rng, usualOutputs(1 + static_cast<int>(rng() % static_cast<uint64_t>(maxStatements))));
  if (p.statements.empty()) throw std::runtime_error("no valid random statement for seed " + std::to_string(seed));
  return p;
}

// ---------------------------------------------------------------------------------------------
// Random environments

namespace {

// Entries of one of several kinds, values in [0.5, 1.5): none, every element, one, or each
// element with a random density, the slices of the first dimension whose index is 1 mod 3 left
// empty half the time; `positive` is cleared when every other entry is an explicit zero.
CooTensor randomEntries(const std::vector<int64_t>& shape, std::mt19937_64& rng, bool& positive) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  static const double densities[] = {0.2, 0.4, 0.7};
  const int kind = static_cast<int>(rng() % 8);
  const double density = kind == 0 ? 0.0 : kind == 1 ? 1.0 : densities[rng() % 3];
  const bool emptySlices = kind > 2 && rng() % 2 == 0;
  CooTensor coo;
  coo.shape = shape;
  coo.crd.resize(shape.size());
  int64_t elements = 1;
  for (int64_t n : shape) elements *= n;
  const int64_t only = static_cast<int64_t>(rng() % static_cast<uint64_t>(elements));  // kind 2's entry
  for (int64_t flat = 0; flat < elements; ++flat) {
    std::vector<int64_t> at(shape.size());
    for (size_t d = shape.size(), rest = static_cast<size_t>(flat); d-- > 0; rest /= static_cast<size_t>(shape[d]))
      at[d] = static_cast<int64_t>(rest % static_cast<size_t>(shape[d]));
    const bool stored = kind == 2 ? flat == only : !(emptySlices && at[0] % 3 == 1) && u(rng) < density;
    if (!stored) continue;
    for (size_t d = 0; d < shape.size(); ++d) coo.crd[d].push_back(at[d]);
    coo.val.push_back(kind == 2 ? 0.75 : 0.5 + u(rng));
  }
  positive = true;
  if (rng() % 6 == 0)
    for (size_t q = 0; q < coo.val.size(); q += 2) {
      coo.val[q] = 0.0;  // explicit zeros are stored entries
      positive = false;
    }
  return coo;
}

// A sparse format the front end runs: matrices csr (half the time), csc, dcsr or coo; 3-tensors
// compressed at every level, dense at the first, or coo, in a random mode ordering (csf: identity).
Format randomSparseFormat(int rank, std::mt19937_64& rng) {
  if (rank == 2) {
    static const Format matrices[] = {Format::csr(), Format::csr(), Format::csr(), Format::csc(), Format::dcsr(), Format::coo(2)};
    return matrices[rng() % 6];
  }
  std::vector<int> order(static_cast<size_t>(rank));
  for (int d = 0; d < rank; ++d) order[static_cast<size_t>(d)] = d;
  if (rng() % 3) std::shuffle(order.begin(), order.end(), rng);
  std::string text(static_cast<size_t>(rank), 's');
  const uint64_t levels = rng() % 6;
  if (levels < 2) text[0] = 'd';
  if (levels == 2) text = "u" + std::string(static_cast<size_t>(rank - 2), 'c') + "q";  // coo
  for (size_t l = 0; l < order.size(); ++l) text += (l ? "," : ":") + std::to_string(order[l]);
  return parseFormat(text, rank);
}

DenseTensor randomDenseKind(std::vector<int64_t> shape, std::mt19937_64& rng, bool& positive) {
  DenseTensor t = randomPositive(std::move(shape), rng());
  positive = rng() % 5 != 0;
  if (!positive)
    for (double& x : t.data) x = 2 * x - 2;  // [-1, 1)
  return t;
}

// A program's names: the usual ones, or in one program of three each with even odds an unusual
// one, so that unusual names meet usual ones (S_pos beside a csr S, an index N_i beside i). Drawn
// from their own stream: the program is the same whatever its names.
class Names {
 public:
  explicit Names(uint64_t seed) : rng_(seed), unusual_(rng_() % 3 == 0) {}
  std::string tensor(const std::string& usual) { return draw(usual, false, tensors_); }
  std::string index(const std::string& usual) { return draw(usual, true, indices_); }

 private:
  // kUnusualNames holds no usual name, so only unusual ones can repeat.
  std::string draw(const std::string& usual, bool functionNames, std::set<std::string>& taken) {
    if (!unusual_ || rng_() % 2) return usual;
    const size_t choices = kUnusualNames.size() + (functionNames ? kFunctionNames.size() : 0);
    std::string name;
    do {
      size_t at = static_cast<size_t>(rng_() % choices);
      name = at < kUnusualNames.size() ? kUnusualNames[at] : kFunctionNames[at - kUnusualNames.size()];
    } while (!taken.insert(name).second);
    return name;
  }

  std::mt19937_64 rng_;
  bool unusual_;
  std::set<std::string> tensors_, indices_;  // unusual names given so far
};

}  // namespace

RandomProgram randomFuzzProgram(uint64_t seed, int maxStatements) {
  for (uint64_t attempt = 0;; ++attempt) {
    std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + attempt);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
    Names names(~(seed * 0x9E3779B97F4A7C15ull + attempt));
    RandomProgram p;
    static const int indexCounts[] = {1, 2, 2, 2, 3, 3, 3, 3, 4, 4};
    static const char* indexNames[] = {"i", "j", "k", "l"};
    const int n = indexCounts[pick(10)];
    std::vector<std::string> indices;
    for (int x = 0; x < n; ++x) {
      indices.push_back(names.index(indexNames[x]));
      p.env.indexSizes[indices.back()] = pick(5) == 0 ? 1 : 2 + pick(6);
    }
    auto ext = [&](const std::string& x) { return p.env.indexSizes.at(x); };
    std::vector<Operand> operands;
    std::map<size_t, Format> drawnFormat;  // by rank: the last sparse format drawn
    auto randomPair = [&] {
      int a = pick(n), b = (a + 1 + pick(n - 1)) % n;
      return std::vector<std::string>{indices[static_cast<size_t>(a)], indices[static_cast<size_t>(b)]};
    };
    auto add = [&](const std::string& name, std::vector<std::string> idx, bool sparse) {
      std::vector<int64_t> shape;
      for (const std::string& x : idx) shape.push_back(ext(x));
      bool positive = true;
      if (sparse) {
        // Half the time the format of the last sparse tensor of that rank: two patterns of one
        // format meet in a co-iteration.
        auto last = drawnFormat.find(shape.size());
        const Format f = last != drawnFormat.end() && pick(2) ? last->second : randomSparseFormat(static_cast<int>(shape.size()), rng);
        drawnFormat[shape.size()] = f;
        SparseTensor t = cooToSparse(randomEntries(shape, rng, positive), f);
        p.inputs[name] = f == Format::csr() ? TensorData(sparseToCsr(t)) : TensorData(std::move(t));
        p.env.declare(name, shape, f);
      } else {
        p.inputs[name] = randomDenseKind(shape, rng, positive);
        p.env.declare(name, shape, Format::dense(static_cast<int>(shape.size())));
      }
      p.inputIndices[name] = idx;
      operands.push_back({name, idx, positive, sparse});
      // The same tensor accessed with other indices of the same extents (a transpose, ...).
      if (idx.size() == 2 && pick(4) == 0) {
        std::vector<std::string> other = randomPair();
        if (other != idx && ext(other[0]) == shape[0] && ext(other[1]) == shape[1]) operands.push_back({name, other, positive, sparse});
      }
    };
    static const int sparseCounts[] = {0, 1, 1, 1, 1, 2, 2, 3};
    static const char* sparseNames[] = {"S", "R", "Q"};
    static const char* denseNames[] = {"B", "C", "D"};
    static const char* vectorNames[] = {"u", "v", "w"};
    static const char* factorNames[] = {"F", "G"};
    if (n >= 2) {
      for (int c = sparseCounts[pick(8)]; c > 0; --c) add(names.tensor(sparseNames[c - 1]), randomPair(), true);
      for (int c = pick(4); c > 0; --c) add(names.tensor(denseNames[c - 1]), randomPair(), false);
    }
    if (n >= 3 && pick(2) == 0) {  // a 3-tensor and dense factor matrices over its indices
      std::vector<std::string> idx = indices, outside;
      std::shuffle(idx.begin(), idx.end(), rng);
      outside.assign(idx.begin() + 3, idx.end());
      idx.resize(3);
      add(names.tensor("X"), idx, pick(3) != 0);
      if (operands.back().sparse && pick(3) == 0) add(names.tensor("Y"), idx, true);  // co-iterates with X now and then
      for (int c = 1 + pick(2); c > 0; --c) {
        std::string shared = idx[static_cast<size_t>(pick(3))], other;
        if (!outside.empty() && pick(4)) other = outside[static_cast<size_t>(pick(static_cast<int>(outside.size())))];
        else do other = indices[static_cast<size_t>(pick(n))]; while (other == shared);
        add(names.tensor(factorNames[c - 1]), pick(4) ? std::vector<std::string>{shared, other} : std::vector<std::string>{other, shared}, false);
      }
    }
    for (int c = pick(4); c > 0; --c) add(names.tensor(vectorNames[c - 1]), {indices[static_cast<size_t>(pick(n))]}, false);
    if (pick(2) || operands.empty()) add(names.tensor("a"), {}, false);
    std::vector<std::string> outputs = usualOutputs(1 + pick(maxStatements));
    for (std::string& o : outputs) o = names.tensor(o);
    addStatements(p, operands, rng, outputs);
    if (!p.statements.empty()) return p;
  }
}

}  // namespace react::fuzz
