// Tokens of the index-notation and operator-form text, with line:column positions.
#include "indexnotation/syntax.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace react::detail {
namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isNameChar(char c) { return isNameStart(c) || isDigit(c); }

class Lexer {
 public:
  explicit Lexer(const std::string& text) : s_(text) {}

  std::vector<Token> run() {
    while (at_ < s_.size()) {
      char c = s_[at_];
      if (c == '\n') {
        if (depth_ == 0) add(Tok::Newline, 1);
        else ++at_;
        ++line_;
        lineStart_ = at_;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++at_;
      } else if (c == '#') {
        while (at_ < s_.size() && s_[at_] != '\n') ++at_;
      } else if (isNameStart(c)) {
        size_t n = 1;
        while (at_ + n < s_.size() && isNameChar(s_[at_ + n])) ++n;
        add(Tok::Name, n);
      } else if (isDigit(c) || (c == '.' && at_ + 1 < s_.size() && isDigit(s_[at_ + 1]))) {
        number();
      } else {
        symbol(c);
      }
    }
    Token end;
    end.pos = here();
    tokens_.push_back(end);
    return std::move(tokens_);
  }

 private:
  SourcePos here() const { return {line_, static_cast<int>(at_ - lineStart_) + 1}; }

  void add(Tok kind, size_t length) {
    Token t;
    t.kind = kind;
    t.text = s_.substr(at_, length);
    t.pos = here();
    tokens_.push_back(t);
    at_ += length;
  }

  void number() {
    size_t n = 0;
    auto digits = [&] {
      while (at_ + n < s_.size() && isDigit(s_[at_ + n])) ++n;
    };
    digits();
    if (at_ + n < s_.size() && s_[at_ + n] == '.') {
      ++n;
      digits();
    }
    if (at_ + n < s_.size() && (s_[at_ + n] == 'e' || s_[at_ + n] == 'E')) {
      size_t m = n + 1;
      if (at_ + m < s_.size() && (s_[at_ + m] == '+' || s_[at_ + m] == '-')) ++m;
      if (at_ + m < s_.size() && isDigit(s_[at_ + m])) {
        n = m;
        digits();
      }
    }
    SourcePos pos = here();
    add(Tok::Number, n);
    Token& t = tokens_.back();
    t.value = std::strtod(t.text.c_str(), nullptr);
    if (std::isinf(t.value)) throw errorAt(pos, "number " + quoted(t.text) + " is out of range");
  }

  void symbol(char c) {
    char next = at_ + 1 < s_.size() ? s_[at_ + 1] : '\0';
    switch (c) {
      case '(': ++depth_; return add(Tok::LParen, 1);
      case ')': if (depth_ > 0) --depth_; return add(Tok::RParen, 1);
      case ',': return add(Tok::Comma, 1);
      case ';': return add(Tok::Semicolon, 1);
      case '+': return add(Tok::Plus, 1);
      case '-': return add(Tok::Minus, 1);
      case '*': return add(Tok::Star, 1);
      case '/': return add(Tok::Slash, 1);
      case '@': return add(Tok::At, 1);
      case '.': return add(Tok::Dot, 1);
      case '<': return next == '=' ? add(Tok::Le, 2) : add(Tok::Lt, 1);
      case '>': return next == '=' ? add(Tok::Ge, 2) : add(Tok::Gt, 1);
      case '=': return next == '=' ? add(Tok::EqEq, 2) : add(Tok::Assign, 1);
      case '!': if (next == '=') return add(Tok::Ne, 2); break;
      default: break;
    }
    unsigned char u = static_cast<unsigned char>(c);
    char buf[48];
    if (std::isprint(u)) std::snprintf(buf, sizeof buf, "unexpected character '%c'", c);
    else std::snprintf(buf, sizeof buf, "unexpected byte 0x%02x", u);
    throw errorAt(here(), buf);
  }

  const std::string& s_;
  size_t at_ = 0, lineStart_ = 0;
  int line_ = 1, depth_ = 0;
  std::vector<Token> tokens_;
};

}  // namespace

std::vector<Token> lex(const std::string& text) { return Lexer(text).run(); }

std::string describe(const Token& t) {
  if (t.kind == Tok::End) return "end of input";
  if (t.kind == Tok::Newline) return "a new line";
  return quoted(t.text);
}

}  // namespace react::detail
