// Shapes, roles, formats and temporaries' value types of a split program (docs/semantics.md, "Sparse operands").
#include "indexnotation/internal.hpp"

namespace react::detail {
namespace {

// Stored at a pattern's positions: the stored-entry semantics apply.
bool atPattern(const TensorDecl& d) { return d.format.hasSparseLevel(); }

// Stored at a pattern of its own that its statement assembles (co-iteration).
bool assembles(const TensorDecl& d) { return atPattern(d) && d.role != TensorRole::Input && d.pattern == d.name; }

class FormatInference {
 public:
  FormatInference(Program& out, const Program& declared) : out_(out), declared_(declared) {}

  // Infers the format of the statement's result; or why its operands' formats are not supported.
  Legality statement(const Statement& s) {
    const Expr& rhs = s.rhs;
    bool copy = rhs->op == Op::Access || rhs->op == Op::Literal;
    SourcePos where = copy ? s.pos : rhs->pos;
    std::string what = quoted(opName(rhs->op));
    std::vector<const ExprNode*> sparse, dense;
    for (const ExprNode* a : accesses(rhs)) (atPattern(out_.tensors.at(a->tensor)) ? sparse : dense).push_back(a);
    for (const ExprNode* a : sparse) {
      const TensorDecl& d = out_.tensors.at(a->tensor);
      if (auto refused = patternFormatMismatch(d, out_.tensors.at(d.pattern))) return illegal(a->pos, *refused);
    }
    for (const ExprNode* a : sparse)
      if (assembles(out_.tensors.at(a->tensor)))
        return illegal(a->pos, quoted(a->tensor) + " is stored at the pattern its statement assembles from two patterns; "
                                                   "reading it in a later statement is not supported yet");
    // Messages name the operands' format: "csr", "csf"; "sparse" for two of different formats.
    auto formatOf = [&](const ExprNode* a) { return out_.tensors.at(a->tensor).format.str(); };
    auto formatsOf = [&](const ExprNode* a, const ExprNode* b) { return formatOf(a) == formatOf(b) ? formatOf(a) : "sparse"; };

  std::string pattern;  // empty: the result is dense
    Format patternFormat;  // else it is stored as its pattern is
    if (sparse.size() == 2 && out_.tensors.at(sparse[0]->tensor).pattern != out_.tensors.at(sparse[1]->tensor).pattern &&
        !reducedOrCopy(s)) {
      if (auto why = coIterationIllegal(s, *sparse[0], *sparse[1])) return illegal(where, *why);
      const Format& operands = out_.tensors.at(sparse[0]->tensor).format;
      if (auto why = assembledResultIllegal(s, operands)) return illegal(s.pos, *why);
      return result(s, s.lhs, operands);
    }
    if (!sparse.empty()) {
      const ExprNode* first = sparse[0];
      const std::string& p0 = out_.tensors.at(first->tensor).pattern;
      bool reduced = !s.reductionIndices().empty();
      for (const ExprNode* c : sparse) {
        bool samePattern = out_.tensors.at(c->tensor).pattern == p0;
        if (reduced && !(samePattern && c->indices == first->indices))
          return illegal(where, "contraction of two " + formatsOf(first, c) + " operands (" + quoted(first->tensor) + " and " +
                                    quoted(c->tensor) + ") is not supported");
        if (!samePattern)
          return illegal(where, what + " combines " + formatsOf(first, c) + " operands with different patterns: " +
                                    quoted(first->tensor) + " and " + quoted(c->tensor));
        if (c->indices != first->indices)
          return illegal(where, formatsOf(first, c) + " operands of " + what + " are accessed with different indices");
      }
      if (!reduced && !copy && rhs->op != Op::Mul)
        for (const ExprNode* d : dense)
          if (coversResult(s, *d))
            return illegal(where, what + " of " + formatOf(first) + " " + quoted(first->tensor) + " and dense " + quoted(d->tensor) +
                                      " is not supported: it would need a dense result (only '*' keeps the pattern)");
      // A max over a sparse operand spread over more indices would have to include the implicit
      // zeros a product makes there; only sums (where they add nothing) may do that.
      if (reduced && s.reduce == ReduceOp::Max)
        for (const std::string& i : freeIndices(rhs))
          if (!contains(first->indices, i))
            return illegal(where, "max reduction over " + formatOf(first) + " " + quoted(first->tensor) + " broadcast over index " +
                                      quoted(i) + " is not supported");
      // Stored-entry semantics need a result at the pattern; only '*' may spread a sparse operand
      // over more indices (its result is exactly zero where the operand has no entry).
      if (!reduced && !copy && rhs->op != Op::Mul)
        for (const std::string& i : s.lhsIndices)
          if (!contains(first->indices, i))
            return illegal(where, what + " of " + formatOf(first) + " " + quoted(first->tensor) + " broadcast over index " +
                                      quoted(i) + " is not supported (only '*' may broadcast a " + formatOf(first) + " operand)");
      if (!reduced && s.lhsIndices == first->indices) {
        pattern = p0;
        patternFormat = out_.tensors.at(first->tensor).format;
      } else if (std::optional<Format> prefix = patternPrefix(s, *first)) {
        pattern = p0;
        patternFormat = *prefix;
      }
    }
    return result(s, pattern, patternFormat);
  }

  // A result declared with dense levels under its sparse ones (ssd) is stored at a prefix of the
  // pattern of `factor` when the statement is a product of it (a sum of products, reduced or not,
  // is zero wherever the factor is) and its pattern levels are the factor's first levels, over
  // the same indices: TTM's `A(i,j,l) = B(i,j,k) * C(k,l)` at B's (i,j) fibres. Its format then.
  std::optional<Format> patternPrefix(const Statement& s, const ExprNode& factor) const {
    auto decl = declared_.tensors.find(s.lhs);
    if (decl == declared_.tensors.end() || out_.tensors.at(s.lhs).role != TensorRole::Output) return std::nullopt;
    const Format& f = decl->second.format;
    const Format& p = out_.tensors.at(factor.tensor).format;
    const int prefix = f.patternLevels();
    if (!f.hasSparseLevel() || prefix == f.rank() || prefix > p.rank() || s.rhs->op != Op::Mul || s.reduce != ReduceOp::Sum)
      return std::nullopt;
    if (std::none_of(s.rhs->args.begin(), s.rhs->args.end(), [&](const Expr& a) { return a.get() == &factor; })) return std::nullopt;
    for (int l = 0; l < prefix; ++l)
      if (f.level(l) != p.level(l) || s.lhsIndices[f.dimension(l)] != factor.indices[p.dimension(l)]) return std::nullopt;
    return f;
  }

 private:
  static bool reducedOrCopy(const Statement& s) {
    return !s.reductionIndices().empty() || s.rhs->op == Op::Access || s.rhs->op == Op::Literal;
  }

  // Why `s`, an element-wise statement over the operands `a` and `b` stored at different patterns,
  // is not a co-iteration react runs (docs/semantics.md, "Two sparse patterns"); nothing when it is.
  std::optional<std::string> coIterationIllegal(const Statement& s, const ExprNode& a, const ExprNode& b) const {
    const Format& fa = out_.tensors.at(a.tensor).format;
    const Format& fb = out_.tensors.at(b.tensor).format;
    const std::string what = quoted(opName(s.rhs->op));
    const std::string operands = quoted(a.tensor) + " and " + quoted(b.tensor);
    const std::string formats = fa == fb ? fa.str() : fa.str() + " and " + fb.str();
    if (s.rhs->op != Op::Mul && s.rhs->op != Op::Add && s.rhs->op != Op::Sub)
      return what + " combines " + formats + " operands with different patterns: " + operands +
             " (two patterns meet only in '*', '+' and '-')";
    if (fa.ordering() != fb.ordering())
      return what + " of " + formats + " operands " + operands +
             " is not supported: their levels store the dimensions in different orders (convert one)";
    if (fa != fb)
      return what + " of " + formats + " operands " + operands + " is not supported: their levels differ (convert one)";
    if (a.indices != b.indices || s.lhsIndices != a.indices)
      return what + " of " + formats + " operands with different patterns (" + operands +
             ") needs both operands and the result accessed with the same indices";
    if (out_.tensors.at(s.lhs).role != TensorRole::Output)
      return what + " of " + formats + " operands with different patterns (" + operands +
             ") is supported only as a whole statement whose result is the program's, not inside a larger expression yet";
    return std::nullopt;
  }

  // Why the result of a co-iteration over two patterns in `operands`' format cannot be stored as
  // declared; nothing when it can. It is stored at the pattern its statement assembles, in that
  // format, or dense.
  std::optional<std::string> assembledResultIllegal(const Statement& s, const Format& operands) const {
    auto decl = declared_.tensors.find(s.lhs);
    if (decl == declared_.tensors.end() || decl->second.format.levels().empty()) return std::nullopt;
    const Format& f = decl->second.format;
    const std::string merged = quoted(opName(s.rhs->op)) + " of two " + operands.str() + " patterns";
    if (f.hasSparseLevel() && f != operands)
      return "result " + quoted(s.lhs) + " is declared " + f.str() + " but is stored at the pattern " + merged +
             " assembles: declare it " + operands.str() + ", or dense";
    return std::nullopt;
  }

  static Legality illegal(SourcePos pos, const std::string& message) { return Legality::illegal(messageAt(pos, message)); }

  static bool coversResult(const Statement& s, const ExprNode& d) {
    for (const std::string& i : s.lhsIndices)
      if (!contains(d.indices, i)) return false;
    return true;
  }

  Legality result(const Statement& s, const std::string& pattern, const Format& patternFormat) {
    TensorDecl& d = out_.tensors.at(s.lhs);
    auto decl = declared_.tensors.find(s.lhs);
    bool fixed = decl != declared_.tensors.end() && !decl->second.format.levels().empty();
    if (fixed && atPattern(d) && pattern.empty())
      return illegal(s.pos, quoted(s.lhs) + " is declared " + d.format.str() + " but its value is dense here");
    if (!fixed) d.format = pattern.empty() ? Format::dense(d.rank()) : patternFormat;
    d.pattern = atPattern(d) ? pattern : "";
    if (d.role == TensorRole::Output)  // a result declared coo is named so (it was not read as csf)
      if (auto unsupported = unsupportedFormat(s.lhs, d.declaredFormat())) return illegal(s.pos, *unsupported);
    if (atPattern(d) && d.pattern != d.name)
      if (auto mismatch = patternFormatMismatch(d, out_.tensors.at(d.pattern))) return illegal(s.pos, *mismatch);
    return {};
  }

  Program& out_;
  const Program& declared_;
};

}  // namespace

}  // namespace react::detail

namespace react {

std::optional<CoIteration> coIterationOf(const Statement& s, const std::function<const TensorDecl&(const std::string&)>& decl) {
  const Expr& rhs = s.rhs;
  if (rhs->op != Op::Mul && rhs->op != Op::Add && rhs->op != Op::Sub) return std::nullopt;
  CoIteration c;
  for (const Expr& a : rhs->args) {
    // sparse operands of one format accessed with the result's indices, nothing reduced
    if (a->op != Op::Access || a->indices != s.lhsIndices) return std::nullopt;
    const Format& f = decl(a->tensor).format;
    if (!f.hasSparseLevel() || f != decl(rhs->args[0]->tensor).format) return std::nullopt;
    c.operands.push_back(decl(a->tensor).pattern);
  }
  if (c.operands[0] == c.operands[1]) return std::nullopt;
  c.unite = rhs->op != Op::Mul;
  return c;
}

}  // namespace react

namespace react::detail {

InferredProgram inferProgram(const SplitResult& split) {
  const Program& p = split.program;
  CheckedProgram checked = checkProgram(p);
  Program out;
  out.indexSizes = checked.indexSizes;
  out.statements = p.statements;
  for (const auto& [name, shape] : checked.shapes) {
    auto it = p.tensors.find(name);
    TensorDecl d = it != p.tensors.end() ? it->second : TensorDecl{};
    bool declaredTemporary = it != p.tensors.end() && d.role == TensorRole::Temporary;
    d.name = name;
    d.shape = shape;
    if (d.format.levels().empty()) d.format = Format::dense(d.rank());
    if (split.temporaries.count(name) || (declaredTemporary && checked.assigned.count(name)))
      d.role = TensorRole::Temporary;
    else
      d.role = checked.assigned.count(name) ? TensorRole::Output : TensorRole::Input;
    d.pattern = d.role == TensorRole::Input && atPattern(d) ? name : "";
    d.grouped = d.role == TensorRole::Temporary && (split.grouped.count(name) || d.grouped);
    out.tensors[name] = d;
  }
  FormatInference formats(out, p);
  for (const Statement& s : out.statements) {
    Legality legality = formats.statement(s);
    if (!legality.ok()) return {Program{}, legality};
  }
  inferTemporaryTypes(out);
  return {out, {}};
}

Program finishProgram(const SplitResult& split) {
  InferredProgram inferred = inferProgram(split);
  if (!inferred.legality.ok()) throw UserError(inferred.legality.why);
  return inferred.program;
}

}  // namespace react::detail
