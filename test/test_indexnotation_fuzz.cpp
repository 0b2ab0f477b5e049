// Parsing never crashes or hangs: random bytes, random token soups and mutated kernels. Only
// react::UserError may escape, and whatever parses also round-trips through the printer.
#include "indexnotation_test_util.hpp"

#include <random>

using namespace react;
using react::test::kernelEnv;

namespace {

// Runs every front end on `text`; returns how many accepted it.
int parseAll(const std::string& text, const Environment& env) {
  int accepted = 0;
  for (int front = 0; front < 3; ++front) {
    try {
      Program p = front == 0 ? parseProgram(text, env) : front == 1 ? parseIndexNotation(text, env)
                                                                    : parseOperatorForm(text, env);
      ++accepted;
      Environment decls;  // everything: outputs declared in `env` (dense D = ...) keep their format
      decls.tensors = p.tensors;
      Program q = parseIndexNotation(p.str(), decls);
      if (!(q == p)) FAIL_CHECK("round trip changed the program:\n" << text << "\n->\n" << p.str());
    } catch (const UserError&) {
    } catch (const std::exception& e) {
      FAIL_CHECK("non-react exception '" << e.what() << "' for: " << text);
    }
  }
  return accepted;
}

}  // namespace

TEST_CASE("fuzz: random bytes") {
  std::mt19937 rng(7);
  Environment env = kernelEnv();
  for (int n = 0; n < 3000; ++n) {
    std::string text(rng() % 64, '\0');
    for (char& c : text) c = static_cast<char>(n % 2 ? rng() % 256 : 32 + rng() % 95);
    parseAll(text, env);
  }
}

TEST_CASE("fuzz: token soups") {
  const std::vector<std::string> tokens = {
      "A", "S", "R", "B", "C", "D", "E", "u", "v", "col", "alpha", "X", "T0", "i", "j", "k", "h",
      "exp", "sqrt", "max", "min", "where", "sum", "axis", "(", ")", "(", ")", ",", "=", "==", "!=", "<",
      "<=", ">", ">=", "+", "-", "*", "/", "@", ".T", ".", ";", "\n", "0", "1", "-1", "0.5", "2e3", " ", "axis=1",
  };
  std::mt19937 rng(11);
  Environment env = kernelEnv();
  int accepted = 0;
  for (int n = 0; n < 4000; ++n) {
    std::string text = n % 2 ? "A(i,j) = " : "A = ";
    size_t length = 1 + rng() % 24;
    for (size_t t = 0; t < length; ++t) text += tokens[rng() % tokens.size()];
    accepted += parseAll(text, env);
  }
  MESSAGE("token soups accepted: " << accepted);
}

TEST_CASE("fuzz: mutated kernels") {
  const std::vector<std::string> kernels = {
      "A(i,j) = S(i,j) * B(i,k) * C(k,j)", "A = S * (B @ C)", "A = S / sum(S, axis=1)",
      "A = exp(S) / sum(exp(S), axis=1)",  "A = where(S < 0, 0.5 * S, S)", "m(i) = max(S(i,j), j)",
      "c = col * sum(D, axis=1)",          "T = B @ C\nA = S * T; n = sum(A, axis=1)",
      "y(i) = S(i,j) * u(j) + v(i)",       "A = D.T.T - max(D, E) * (u @ S.T @ v)",
  };
  const std::string alphabet = "()=,;.*+-/@<>!T0123456789ijkhSBCDEuv \n";
  std::mt19937 rng(3);
  Environment env = kernelEnv();
  int accepted = 0;
  for (int n = 0; n < 4000; ++n) {
    std::string text = kernels[rng() % kernels.size()];
    for (int edits = 1 + static_cast<int>(rng() % 3); edits > 0 && !text.empty(); --edits) {
      size_t at = rng() % text.size();
      char c = alphabet[rng() % alphabet.size()];
      switch (rng() % 3) {
        case 0: text.erase(at, 1); break;
        case 1: text.insert(at, 1, c); break;
        default: text[at] = c;
      }
    }
    accepted += parseAll(text, env);
  }
  MESSAGE("mutated kernels accepted: " << accepted);
}

TEST_CASE("fuzz: long and deep inputs stay bounded") {
  Environment env = kernelEnv();
  std::string chain = "a() = alpha";
  for (int n = 0; n < 900; ++n) chain += n % 2 ? " * alpha" : " - 1";
  CHECK(parseAll(chain, env) == 2);  // index notation (twice); the operator form wants 'a = ...'
  std::string many;
  for (int n = 0; n < 2000; ++n) many += "X" + std::to_string(n) + "(i,j) = D(i,j) * " + std::to_string(n) + "\n";
  CHECK(parseAll(many, env) == 2);
  CHECK(parseAll(std::string(100000, '('), env) == 0);
  CHECK(parseAll(std::string(100000, '-'), env) == 0);
  CHECK(parseAll("a() = " + std::string(100000, '-') + "1", env) == 0);
}
