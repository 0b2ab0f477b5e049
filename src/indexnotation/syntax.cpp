// The shared recursive-descent parser: text -> syntax trees (grammar in syntax.hpp).
#include "indexnotation/syntax.hpp"

#include <algorithm>

namespace react::detail {
namespace {

bool isSeparator(Tok k) { return k == Tok::Semicolon || k == Tok::Newline; }

// Moves (a braced list would copy whole subtrees).
std::vector<Syntax> operands(Syntax a) {
  std::vector<Syntax> v;
  v.push_back(std::move(a));
  return v;
}
std::vector<Syntax> operands(Syntax a, Syntax b) {
  std::vector<Syntax> v = operands(std::move(a));
  v.push_back(std::move(b));
  return v;
}

class Parser {
 public:
  explicit Parser(const std::string& text) : toks_(lex(text)) {}

  std::vector<SyntaxStatement> program() {
    std::vector<SyntaxStatement> out;
    skipSeparators();
    if (peek().kind == Tok::End) throw expected("a statement");
    while (peek().kind != Tok::End) {
      out.push_back(statement());
      if (peek().kind != Tok::End && !isSeparator(peek().kind)) throw expected("';' or a new line");
      skipSeparators();
    }
    return out;
  }

 private:
  const Token& peek(size_t ahead = 0) const { return toks_[std::min(at_ + ahead, toks_.size() - 1)]; }
  const Token& take() { return toks_[at_ < toks_.size() - 1 ? at_++ : at_]; }
  bool accept(Tok k) {
    if (peek().kind != k) return false;
    take();
    return true;
  }
  UserError expected(const std::string& what) const {
    return errorAt(peek().pos, "expected " + what + " but found " + describe(peek()));
  }
  const Token& expect(Tok k, const std::string& what) {
    if (peek().kind != k) throw expected(what);
    return take();
  }
  void skipSeparators() {
    while (isSeparator(peek().kind)) take();
  }

  // Guards recursion depth (nesting of parentheses, calls, unary minus).
  struct Nest {
    explicit Nest(Parser& p) : p_(p) {
      if (++p_.nesting_ > kMaxNesting)
        throw errorAt(p_.peek().pos, "expression nested too deeply (more than " + std::to_string(kMaxNesting) + " levels)");
    }
    ~Nest() { --p_.nesting_; }
    Parser& p_;
  };

  static Syntax node(Syntax::Kind kind, const Token& t, std::vector<Syntax> args = {}) {
    Syntax s;
    s.kind = kind;
    s.text = t.text;
    s.value = t.value;
    s.pos = t.pos;
    for (const Syntax& a : args) s.height = std::max(s.height, a.height + 1);
    if (s.height > kMaxExprDepth)
      throw errorAt(t.pos, "expression is too deep (more than " + std::to_string(kMaxExprDepth) + " levels)");
    s.args = std::move(args);
    return s;
  }

  SyntaxStatement statement() {
    if (peek().kind != Tok::Name) throw expected("a tensor name");
    SyntaxStatement s;
    s.lhs = primary();
    expect(Tok::Assign, "'='");
    s.rhs = expr();
    return s;
  }

  // One level of left-associative binary operators.
  template <typename Next>
  Syntax binary(std::initializer_list<Tok> ops, Next next) {
    Syntax left = (this->*next)();
    while (std::find(ops.begin(), ops.end(), peek().kind) != ops.end()) {
      const Token& op = take();
      Syntax right = (this->*next)();
      left = node(Syntax::Kind::Binary, op, operands(std::move(left), std::move(right)));
    }
    return left;
  }

  Syntax expr() { return binary({Tok::Lt, Tok::Le, Tok::Gt, Tok::Ge, Tok::EqEq, Tok::Ne}, &Parser::additive); }
  Syntax additive() { return binary({Tok::Plus, Tok::Minus}, &Parser::term); }
  Syntax term() { return binary({Tok::Star, Tok::Slash, Tok::At}, &Parser::unary); }

  Syntax unary() {
    if (peek().kind != Tok::Minus) return postfix();
    Nest nest(*this);
    const Token& minus = take();
    if (peek().kind == Tok::Number) {
      Syntax s = node(Syntax::Kind::Number, take());
      s.value = -s.value;
      s.text = "-" + s.text;
      s.pos = minus.pos;
      return s;
    }
    return node(Syntax::Kind::Unary, minus, operands(unary()));
  }

  Syntax postfix() {
    Syntax s = primary();
    while (peek().kind == Tok::Dot) {
      const Token& dot = take();
      if (peek().kind != Tok::Name || peek().text != "T") throw expected("'T' after '.'");
      take();
      s = node(Syntax::Kind::Transpose, dot, operands(std::move(s)));
    }
    return s;
  }

  Syntax primary() {
    const Token& t = peek();
    if (t.kind == Tok::Number) return node(Syntax::Kind::Number, take());
    if (t.kind == Tok::LParen) {
      Nest nest(*this);
      take();
      Syntax inner = expr();
      expect(Tok::RParen, "')'");
      inner.parenthesized = true;
      return inner;
    }
    if (t.kind != Tok::Name) throw expected("an expression");
    const Token& name = take();
    if (peek().kind != Tok::LParen) return node(Syntax::Kind::Name, name);
    Nest nest(*this);
    take();
    std::vector<Syntax> args;
    if (!accept(Tok::RParen)) {
      do args.push_back(argument());
      while (accept(Tok::Comma));
      expect(Tok::RParen, "')'");
    }
    return node(Syntax::Kind::Call, name, std::move(args));
  }

  Syntax argument() {
    if (peek().kind == Tok::Name && peek(1).kind == Tok::Assign) {
      const Token& key = take();
      take();
      return node(Syntax::Kind::Keyword, key, operands(expr()));
    }
    return expr();
  }

  std::vector<Token> toks_;
  size_t at_ = 0;
  int nesting_ = 0;
};

}  // namespace

std::vector<SyntaxStatement> parseSyntax(const std::string& text) { return Parser(text).program(); }

bool startsWithIndexNotation(const std::string& text) {
  std::vector<Token> toks = lex(text);
  size_t n = 0;
  while (isSeparator(toks[n].kind)) ++n;
  return toks[n].kind == Tok::Name && toks[n + 1].kind == Tok::LParen;
}

}  // namespace react::detail

namespace react::detail {

Op binaryOp(const std::string& token) {
  static const std::map<std::string, Op> ops = {
      {"+", Op::Add}, {"-", Op::Sub}, {"*", Op::Mul}, {"/", Op::Div}, {"<", Op::Lt}, {"<=", Op::Le},
      {">", Op::Gt},  {">=", Op::Ge}, {"==", Op::Eq}, {"!=", Op::Ne}};
  auto it = ops.find(token);
  return it == ops.end() ? Op::Access : it->second;
}

Op functionOp(const std::string& name) {
  static const std::map<std::string, Op> ops = {
      {"exp", Op::Exp}, {"sqrt", Op::Sqrt}, {"log", Op::Log}, {"max", Op::Max}, {"min", Op::Min}, {"where", Op::Where}};
  auto it = ops.find(name);
  return it == ops.end() ? Op::Access : it->second;
}

bool isStableBuiltin(const std::string& name) { return name == "softmax" || name == "logsumexp"; }

void checkArgCount(const Syntax& call, size_t least, size_t most) {
  size_t n = call.args.size();
  if (n >= least && n <= most) return;
  std::string want = least == most ? std::to_string(least) : std::to_string(least) + " to " + std::to_string(most);
  if (most > 100) want = "at least " + std::to_string(least);
  throw errorAt(call.pos, quoted(call.text) + " takes " + want + (least == 1 && most == 1 ? " argument" : " arguments") +
                              ", got " + std::to_string(n));
}

const std::string& indexArgument(const Syntax& call, size_t n) {
  const Syntax& a = call.args[n];
  if (a.kind != Syntax::Kind::Name)
    throw errorAt(a.pos, "expected an index name as argument " + std::to_string(n + 1) + " of " + quoted(call.text));
  return a.text;
}

}  // namespace react::detail
