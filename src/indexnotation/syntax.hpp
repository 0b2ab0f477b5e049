// Internal: the tokens and the syntax tree shared by both text front ends. The grammar is the
// union of index notation and the operator form; each front end rejects what it does not accept.
//
//   program   := { separator } [ statement { separator { separator } statement } ] { separator }
//   separator := ';' | new line (outside parentheses)
//   statement := NAME [ '(' args ')' ] '=' expr
//   expr      := additive { ('<' | '<=' | '>' | '>=' | '==' | '!=') additive }
//   additive  := term { ('+' | '-') term }
//   term      := unary { ('*' | '/' | '@') unary }
//   unary     := '-' unary | postfix                 ('-' NUMBER is a negative number)
//   postfix   := primary { '.' 'T' }
//   primary   := NUMBER | NAME [ '(' args ')' ] | '(' expr ')'
//   args      := [ arg { ',' arg } ],  arg := NAME '=' expr | expr
// '#' starts a comment that runs to the end of the line.
#pragma once

#include "indexnotation/internal.hpp"

namespace react::detail {

enum class Tok {
  Name, Number, LParen, RParen, Comma, Semicolon, Newline, Assign,
  Plus, Minus, Star, Slash, At, Dot, Lt, Le, Gt, Ge, EqEq, Ne, End,
};

struct Token {
  Tok kind = Tok::End;
  std::string text;
  double value = 0.0;
  SourcePos pos;
};

std::vector<Token> lex(const std::string& text);  // ends with one End token
std::string describe(const Token& t);             // for "expected X but found Y"

struct Syntax {
  enum class Kind { Name, Number, Call, Unary, Binary, Transpose, Keyword };
  Kind kind = Kind::Name;
  std::string text;  // name, operator, called name or keyword
  double value = 0.0;
  SourcePos pos;     // of the name, number or operator token
  std::vector<Syntax> args;
  int height = 1;
  bool parenthesized = false;  // written inside '(' ')': the operator form keeps such products whole
};

struct SyntaxStatement {
  Syntax lhs;
  Syntax rhs;
};

std::vector<SyntaxStatement> parseSyntax(const std::string& text);

// Helpers for the front ends.
Op binaryOp(const std::string& token);  // "+" -> Add, ...; Op::Access for "@"
Op functionOp(const std::string& name);  // exp sqrt log max min where; Op::Access otherwise
// softmax and logsumexp: builtins that expand into other operators (StableBuiltins, internal.hpp).
bool isStableBuiltin(const std::string& name);
// Throws unless the call has between `least` and `most` arguments.
void checkArgCount(const Syntax& call, size_t least, size_t most);
// The argument `n` of `call` as a bare name (an index), or an error naming what was expected.
const std::string& indexArgument(const Syntax& call, size_t n);
// True when the first statement's left side is NAME '(' (index notation).
bool startsWithIndexNotation(const std::string& text);

}  // namespace react::detail
