// react/indexnotation: how users state what they want, and the program of statements it becomes.
//
// Three front ends (a C++ operator API, index-notation text in TACO's syntax, and a NumPy-like
// operator form) all produce a Program: tensor declarations plus statements in which each
// right-hand side is an expression tree. `splitStatements` (run by every front end) turns it into
// one-operator form with compiler temporaries T0, T1, ... (ReACT's step 1). Later stages
// (indextree, fusion) may build compound right-hand sides again (maximal fusion inlines them).
#pragma once

#include "formats/formats.hpp"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace react {

// Formats of a tensor variable: react::Format (formats/levels.hpp), levels and a mode ordering.
// Every format can be declared, printed and parsed; the stages after this one (index tree,
// fusion, interpreter, lowering) run row-major dense and the sparse formats whose levels are
// compressed (unique), with a dense level as the first only: csr, csc, dcsr, csf (any mode
// ordering). Returns the user error for any other ("format coo of tensor 'S' is not supported
// yet: level 0 is compressed-nonunique; ..."), or nothing. Every front end checks it
// (splitStatements); react-gen also for a tensor it loads.
std::optional<std::string> unsupportedFormat(const std::string& tensor, const Format& format);

enum class TensorRole { Input, Output, Temporary };

struct TensorDecl {
  std::string name;
  std::vector<int64_t> shape;  // -1 = not yet known (filled by shape inference)
  Format format;
  TensorRole role = TensorRole::Input;
  // For a format with a sparse level: the input whose structure (its levels' positions and
  // coordinates) this tensor shares, its values sitting at that pattern's positions. A result
  // computed at the stored entries of S has pattern "S"; an input's pattern is itself.
  std::string pattern;
  // An input declared in a format that kernels iterate through another (coo; Format::iterated):
  // the declared format, while `format` is the one iterated. Its data may come in either; data in
  // `given` is converted when bound (kernelInput). Empty otherwise.
  Format given;
  const Format& declaredFormat() const { return given.levels().empty() ? format : given; }
  // A compiler temporary holding a product the user grouped with parentheses (operator form):
  // re-association treats it as one factor. Not compared by operator== (the value is the same).
  bool grouped = false;
  // The type of its values (docs/semantics.md, "Value types"): given for inputs and outputs, the
  // widest of what reads them for temporaries. A statement computes in its left-hand side's type.
  ValueType valueType = ValueType::Float64;
  int rank() const { return static_cast<int>(shape.size()); }
};

// A tensor stored at the positions of another's pattern keeps that pattern's levels: its format
// must be the pattern's (a result of a csc S at S's entries is csc), or, for a result, a prefix
// of the pattern's levels with dense levels after them (TTM's ssd result at its csf operand's
// (i,j) fibres: Format::patternLevels). The user error when `d`, stored at `pattern`, is declared
// in another format ("result 'A' is declared csr but is stored at the positions of 'S', which is
// dcsr: declare it dcsr, or dense"), or when a tensor other than a result has dense levels under
// a sparse one; or nothing. Format inference checks every tensor at a pattern; lowering and the
// interpreter check trees built by hand.
std::optional<std::string> patternFormatMismatch(const TensorDecl& d, const TensorDecl& pattern);

// Position in the source text, for error messages. line/column are 1-based; 0 = unknown.
struct SourcePos {
  int line = 0, column = 0;
};

// ---------------------------------------------------------------------------------------------
// Expressions
enum class Op {
  // leaves
  Access, Literal,
  // unary
  Neg, Exp, Sqrt, Log,
  // binary
  Add, Sub, Mul, Div, Max, Min, Lt, Le, Gt, Ge, Eq, Ne,
  // ternary: where(cond, a, b) = cond != 0 ? a : b
  Where,
  // explicit reduction node: reduce(body) over `reduceIndices` with reduceOp (front ends only;
  // splitStatements removes them)
  Reduce,
};
enum class ReduceOp { Sum, Max };

int opArity(Op op);                 // 1, 2 or 3 for operators, 0 for leaves
const char* opName(Op op);          // "+", "exp", "where", ...
double reduceIdentity(ReduceOp r);  // 0 or -inf

struct ExprNode;
using Expr = std::shared_ptr<const ExprNode>;

struct ExprNode {
  Op op = Op::Literal;
  // Access
  std::string tensor;
  std::vector<std::string> indices;
  // Literal
  double value = 0.0;
  // operators and Reduce
  std::vector<Expr> args;
  ReduceOp reduceOp = ReduceOp::Sum;        // Reduce only
  std::vector<std::string> reduceIndices;   // Reduce only
  SourcePos pos;
  // Operator form: a product the user wrote in parentheses (`(B @ C) @ D`). Its temporary is
  // marked TensorDecl::grouped, which fixes the association (docs/semantics.md, "Association").
  bool grouped = false;
};

Expr access(std::string tensor, std::vector<std::string> indices, SourcePos pos = {});
Expr literal(double v, SourcePos pos = {});
Expr apply(Op op, std::vector<Expr> args, SourcePos pos = {});
Expr reduce(ReduceOp r, std::vector<std::string> indices, Expr body, SourcePos pos = {});

std::string toString(const Expr& e);  // index-notation text, minimal parentheses
// Free indices in first-appearance order (left to right); indices of Reduce nodes are bound.
std::vector<std::string> freeIndices(const Expr& e);
// Every tensor access in the expression, left to right.
std::vector<const ExprNode*> accesses(const Expr& e);
// A copy of `e` with every Access node replaced by onAccess(node) (which may return the node).
Expr mapAccesses(const Expr& e, const std::function<Expr(const ExprNode&)>& onAccess);
// Renames free indices (by name) throughout `e`, Reduce-bound ones included.
Expr renameIndices(const Expr& e, const std::map<std::string, std::string>& renaming);
// Structural equality (operators, names, indices, values); source positions are ignored.
bool sameExpr(const Expr& a, const Expr& b);

// ---------------------------------------------------------------------------------------------
// Statements and programs.
//
// `lhs(lhsIndices) = rhs` with an implicit reduction (`reduce`, Sum unless stated) over every index
// that is free in rhs but absent from lhsIndices (Einstein rule, over the whole right-hand side).
struct Statement {
  std::string lhs;
  std::vector<std::string> lhsIndices;
  Expr rhs;
  ReduceOp reduce = ReduceOp::Sum;
  SourcePos pos;

  std::vector<std::string> reductionIndices() const;  // free in rhs, not on the left, in order
  std::string str() const;  // "A(i,j) = S(i,j) * T0(i,j)"; a Max reduction prints as max(rhs, k)
};
// Same tensor, indices, reduction and right-hand side (sameExpr); positions are ignored.
bool operator==(const Statement& a, const Statement& b);
inline bool operator!=(const Statement& a, const Statement& b) { return !(a == b); }
bool operator==(const TensorDecl& a, const TensorDecl& b);
inline bool operator!=(const TensorDecl& a, const TensorDecl& b) { return !(a == b); }

struct Program {
  std::map<std::string, TensorDecl> tensors;
  std::map<std::string, int64_t> indexSizes;  // every index name used, program-wide
  std::vector<Statement> statements;

  const TensorDecl& tensor(const std::string& name) const;  // throws react::UserError if unknown
  std::vector<std::string> inputs() const;   // declared order = name order
  std::vector<std::string> outputs() const;
  std::string str() const;  // one statement per line; parseIndexNotation(str()) gives it back
};
// Same tensors (all fields but `grouped`), index sizes and statements.
bool operator==(const Program& a, const Program& b);
inline bool operator!=(const Program& a, const Program& b) { return !(a == b); }

// Co-iteration (docs/semantics.md, "Two sparse patterns"): `A(i,j) = S(i,j) * T(i,j)` (also `+`, `-`)
// whose two operands are stored at different patterns. A sparse result is stored at a pattern of
// its own, which the statement assembles (TensorDecl::pattern is the result's name): the intersection
// of the operands' patterns for `*`, their union for `+` and `-`, level by level (a
// row both store is kept by `*` even where their columns do not meet); a result declared dense
// holds the same values and zeros elsewhere. Format inference admits operands of one sparse format (csr,
// csc, dcsr, csf, ...) with the same indices as the result, for a program's result only, stored
// in that format (or dense where the first level is dense).
struct CoIteration {
  std::vector<std::string> operands;  // the operands' patterns, in operand order
  bool unite = false;                 // union (`+`, `-`), else intersection (`*`)
};
// The co-iteration `s` is (its right-hand side `*`, `+` or `-` of two accesses to sparse tensors
// of one format stored at different patterns, both with the left-hand side's indices), or nothing: the front
// end admits no other (and passes that rebuild statements may not make one). `decl` gives the
// declaration of a tensor by name.
std::optional<CoIteration> coIterationOf(const Statement& s, const std::function<const TensorDecl&(const std::string&)>& decl);

// Why `v` cannot be the data of input `d` (dataFormMismatch), or nothing: data in the declared
// format, or in the one iterated (TensorDecl::given, format), is its data.
std::optional<std::string> inputFormMismatch(const TensorData& v, const TensorDecl& d);
// The data a kernel reads for input `d` given a valid `v`: `v` itself, or, for `v` in the format
// `d` was declared in where kernels iterate another (coo), its entries converted into `converted`.
const TensorData& iteratedInput(const TensorDecl& d, const TensorData& v, std::optional<TensorData>& converted);

// ---------------------------------------------------------------------------------------------
// What a front end knows before parsing: declared tensors (shape entries may be -1) and sizes of
// index names (-d=INDEX:SIZE on the command line).
struct Environment {
  std::map<std::string, TensorDecl> tensors;
  std::map<std::string, int64_t> indexSizes;
  void declare(const std::string& name, std::vector<int64_t> shape, Format format,
               ValueType valueType = ValueType::Float64);
};

// Text front ends. Several statements may be separated by ';' or newlines. Throws react::UserError
// with "line:column: message" for syntax, unknown tensors, rank/dimension mismatches, an index
// with two sizes, a left-hand index absent on the right, unsupported format combinations.
// Undeclared tensors on a left-hand side are outputs (dense unless the semantics make them
// sparse); undeclared tensors on a right-hand side are errors unless defined by an earlier
// statement. The result is in one-operator form, with shapes and formats inferred.
Program parseIndexNotation(const std::string& text, const Environment& env = {});
Program parseOperatorForm(const std::string& text, const Environment& env = {});
// Picks the front end: operator form if the first statement's left side has no '('.
Program parseProgram(const std::string& text, const Environment& env = {});

// The statements of index-notation text as written (Reduce nodes kept), before splitting and
// checking: what parseIndexNotation passes to splitStatements. Throws react::UserError on syntax.
std::vector<Statement> parseIndexNotationStatements(const std::string& text);

// Splits every statement into one-operator statements with temporaries T0, T1, ..., then checks
// the program and infers shapes and formats (see docs/semantics.md). Throws react::UserError.
Program splitStatements(const Program& p);

// `p` with the value types of these inputs and outputs (by name) replaced, and its temporaries'
// types derived again (docs/semantics.md, "Value types"). A name that is not an input or output
// of `p` is a react::UserError naming it.
Program withValueTypes(const Program& p, const std::map<std::string, ValueType>& types);

// ---------------------------------------------------------------------------------------------
// Association of product chains (docs/semantics.md, "Association"). A product chain is a product
// of three or more factors that the split computes through compiler temporaries used once each:
// `A(i,j) = S(i,k) * C(k,h) * D(h,j)` splits into `T0(i,h) = S(i,k) * C(k,h); A(i,j) = T0(i,h) * D(h,j)`.
// The split associates left to right; every binary tree over the factors, in their order,
// computes the same sum of products. A temporary marked `grouped` (parentheses in the operator
// form) is one factor.
struct Association;
struct ProductChain {
  size_t root = 0;                  // the statement that assigns the chain's result
  std::vector<size_t> statements;   // every statement of the chain in program order (root last)
  std::vector<Expr> factors;        // the leaves, left to right
  std::string str() const;          // "S(i,k) * C(k,h) * D(h,j)"
};
// A binary tree over a chain's factors: a leaf is factor number `factor`; an inner node has two
// parts, each over a contiguous run of factors.
struct Association {
  int factor = -1;
  std::vector<Association> parts;  // empty for a leaf, else two
  std::string str(const ProductChain& chain) const;  // "(S(i,k) * C(k,h)) * D(h,j)"
  bool operator==(const Association& o) const { return factor == o.factor && parts == o.parts; }
};
// The product chains of a split program, in program order of their roots.
std::vector<ProductChain> productChains(const Program& p);
// How the program associates a chain now.
Association currentAssociation(const Program& p, const ProductChain& chain);
// Every association of `factors` factors (Catalan(factors - 1) trees), left-to-right one first.
std::vector<Association> allAssociations(int factors);
// `p` with chains[c] computed as orders[c]: the chains' temporaries are replaced by new ones,
// placed where the chain's root was; the result is checked and its formats inferred again. That
// program may not be supported (e.g. a csr operand spread over a temporary that would need a dense
// result): then `legality` says why, at the statement's position (auto rejects the candidate).
// Throws react::UserError for orders that do not fit the chains.
struct Reassociation {
  Program program;  // when legality.ok()
  Legality legality;
};
Reassociation reassociate(const Program& p, const std::vector<ProductChain>& chains, const std::vector<Association>& orders);
// reassociate's program; throws react::UserError with its reason when that program is not supported.
Program associate(const Program& p, const std::vector<ProductChain>& chains, const std::vector<Association>& orders);

// ---------------------------------------------------------------------------------------------
// C++ API in the spirit of TACO:
//   IndexVar i("i"), j("j"), k("k");
//   TensorVar A("A", {n, m}, Format::csr()), S(...), B(...), C(...);  // a 4th argument: ValueType::Float32
//   ProgramBuilder prog;  prog.add(A(i, j) = S(i, j) * B(i, k) * C(k, j));
//   Program p = prog.build();   // split + checked
class IndexVar {
 public:
  explicit IndexVar(std::string name) : name_(std::move(name)) {}
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

class IndexExpr {
 public:
  IndexExpr(double v);  // NOLINT: literals convert implicitly
  IndexExpr(Expr e, std::vector<TensorDecl> tensors) : e_(std::move(e)), tensors_(std::move(tensors)) {}
  const Expr& expr() const { return e_; }
  // Declarations of the TensorVars this expression mentions, so that ProgramBuilder knows them.
  const std::vector<TensorDecl>& tensors() const { return tensors_; }

 private:
  Expr e_;
  std::vector<TensorDecl> tensors_;
};

IndexExpr operator+(const IndexExpr& a, const IndexExpr& b);
IndexExpr operator-(const IndexExpr& a, const IndexExpr& b);
IndexExpr operator*(const IndexExpr& a, const IndexExpr& b);
IndexExpr operator/(const IndexExpr& a, const IndexExpr& b);
IndexExpr operator-(const IndexExpr& a);
IndexExpr operator<(const IndexExpr& a, const IndexExpr& b);
IndexExpr operator<=(const IndexExpr& a, const IndexExpr& b);
IndexExpr operator>(const IndexExpr& a, const IndexExpr& b);
IndexExpr operator>=(const IndexExpr& a, const IndexExpr& b);
IndexExpr operator==(const IndexExpr& a, const IndexExpr& b);
IndexExpr operator!=(const IndexExpr& a, const IndexExpr& b);
IndexExpr exp(const IndexExpr& a);
IndexExpr sqrt(const IndexExpr& a);
IndexExpr log(const IndexExpr& a);
IndexExpr max(const IndexExpr& a, const IndexExpr& b);
IndexExpr min(const IndexExpr& a, const IndexExpr& b);
IndexExpr where(const IndexExpr& c, const IndexExpr& a, const IndexExpr& b);
IndexExpr sum(const IndexExpr& body, const IndexVar& k);
IndexExpr max(const IndexExpr& body, const IndexVar& k);
// exp(body - max(body, k)) / sum(exp(body - max(body, k)), k) and
// max(body, k) + log(sum(exp(body - max(body, k)), k)): docs/semantics.md, "Softmax and logsumexp".
IndexExpr softmax(const IndexExpr& body, const IndexVar& k);
IndexExpr logsumexp(const IndexExpr& body, const IndexVar& k);

class TensorVar;
struct Assignment {
  TensorDecl lhs;
  std::vector<std::string> indices;
  IndexExpr rhs;
};

class TensorAccess : public IndexExpr {
 public:
  TensorAccess(const TensorVar& t, std::vector<std::string> idx);
  TensorAccess(const TensorAccess&) = default;
  Assignment operator=(const IndexExpr& rhs) const;  // NOLINT: builds, does not assign
  // `A(i,j) = B(i,j)`: without this the implicit copy assignment would be chosen.
  Assignment operator=(const TensorAccess& rhs) const;  // NOLINT: builds, does not assign
 private:
  TensorDecl decl_;
  std::vector<std::string> idx_;
};

class TensorVar {
 public:
  TensorVar(std::string name, std::vector<int64_t> shape, Format format, ValueType valueType = ValueType::Float64);
  template <typename... I>
  TensorAccess operator()(const I&... idx) const {
    return TensorAccess(*this, {idx.name()...});
  }
  const TensorDecl& decl() const { return decl_; }

 private:
  TensorDecl decl_;
};

class ProgramBuilder {
 public:
  void declare(const TensorVar& t);   // inputs; outputs may also be declared to fix their format
  void add(const Assignment& a);      // declares every TensorVar it has seen via accesses
  void setIndexSize(const IndexVar& i, int64_t size);  // like -d=INDEX:SIZE
  Program build() const;              // split + checked, throws react::UserError

 private:
  Environment env_;
  std::vector<Statement> statements_;
};

}  // namespace react
