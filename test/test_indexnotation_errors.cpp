// Every user error: message and line:column.
#include "indexnotation_test_util.hpp"

using namespace react;
using react::test::indexError;
using react::test::kernelEnv;
using react::test::operatorError;

TEST_CASE("errors: unknown tensors, ranks, sizes") {
  CHECK(indexError("A(i,j) = S(i,j) * X(i,j)") == "1:19: unknown tensor 'X'");
  CHECK(indexError("A(i,j) = S(i,j)\nB2(i,j) = X(i,j)") == "2:11: unknown tensor 'X'");
  CHECK(indexError("X(i,j) = D(i,j) * 2; Y(i,j) = T0(i,j)") == "1:31: unknown tensor 'T0'");
  CHECK(operatorError("A = S * X") == "1:9: unknown tensor 'X'");
  CHECK(indexError("A(i) = S(i)") == "1:8: rank mismatch: 'S' has rank 2 but is used with 1 index");
  CHECK(indexError("A(i) = alpha(i)") == "1:8: rank mismatch: 'alpha' has rank 0 but is used with 1 index");
  CHECK(indexError("X(i,j) = D(i,j); Y(i) = X(i)") == "1:25: rank mismatch: 'X' has rank 2 but is used with 1 index");
  CHECK(indexError("A(i,j) = S(i,j) + B(i,j)") == "1:19: index 'j' has two sizes: 5 and 3");
  CHECK(indexError("A(i,j) = S(i,j) * B(j,i)") == "1:19: index 'j' has two sizes: 5 and 4");
  Environment env = kernelEnv();
  env.indexSizes["k"] = 64;
  CHECK(indexError("A(i,j) = B(i,k) * C(k,j)", env) == "1:10: index 'k' has two sizes: 64 and 3");
  env.indexSizes.clear();
  env.declare("A", {4, 5}, Format::dense(2));
  CHECK(indexError("A(i) = v(i)", env) == "1:1: rank mismatch: 'A' has rank 2 but is used with 1 index");
  CHECK(indexError("A(j,i) = D(i,j)", env) == "1:1: index 'j' has two sizes: 5 and 4");
  env.declare("Z", {3, -1}, Format::dense(2));
  CHECK(indexError("Y(i,j) = B(i,k) * Z(k,j)", env) == "1:19: size of index 'j' is unknown (dimension 2 of 'Z')");
  CHECK(operatorError("Y = B @ Z", env) == "1:9: size of index 'j' is unknown (dimension 2 of 'Z')");
  env.declare("Q", {4, 5, 6}, Format({Level::dense(), Level::compressed(), Level::dense()}));
  CHECK(indexError("a(i) = Q(i,j,k)", env) ==
        "1:8: format dsd of tensor 'Q' is not supported yet: level 2 is dense under a sparse level, which runs in a result only "
        "(stored at a prefix of a sparse factor's pattern)");
  env.declare("Q", {4, 5, 6}, Format({Level::compressed(), Level::dense(), Level::compressed()}));
  CHECK(indexError("a(i) = Q(i,j,k)", env) ==
        "1:8: format sds of tensor 'Q' is not supported yet: level 1 is dense under another level; a dense level runs as the "
        "first only");
  env.declare("Q", {4, 5, 6}, Format::csr());
  CHECK(indexError("a(i) = Q(i,j,k)", env) == "1:8: format csr of tensor 'Q' has 2 levels, but the tensor has rank 3");
}

TEST_CASE("errors: dimension mismatches in the operator form") {
  CHECK(operatorError("A = B @ D") == "1:7: dimension mismatch for '@': shapes (4,3) and (4,5) do not match");
  CHECK(operatorError("A = D + B") == "1:7: dimension mismatch for '+': shapes (4,5) and (4,3) do not match");
  CHECK(operatorError("A = D * v") == "1:7: dimension mismatch for '*': shapes (4,5) and (4) do not match");
  CHECK(operatorError("A = where(D < 0, B, D)") ==
        "1:5: dimension mismatch for 'where': shapes (4,5) and (4,3) and (4,5) do not match");
  CHECK(operatorError("A = sum(D, axis=1) @ D") == "1:20: dimension mismatch for '@': shapes (4,1) and (4,5) do not match");
  CHECK(operatorError("a = alpha @ S") == "1:11: '@' needs operands of rank 1 or 2, but the left one has rank 0");
  Environment env = kernelEnv();
  env.declare("A", {4}, Format::dense(1));
  CHECK(operatorError("A = D", env) == "1:1: rank mismatch: 'A' has rank 1 but is used with 2 indices");
}

TEST_CASE("errors: left-hand sides and assignments") {
  CHECK(indexError("A(i,j,k) = D(i,j)") == "1:1: index 'k' of 'A' appears nowhere on the right-hand side");
  CHECK(indexError("a(i) = 2") == "1:1: index 'i' of 'a' appears nowhere on the right-hand side");
  CHECK(indexError("A(i,i) = D(i,i)") == "1:10: index 'i' appears twice in 'D'");
  CHECK(indexError("A(i,i) = v(i)") == "1:1: index 'i' appears twice in 'A'");
  CHECK(indexError("A(i,j) = D(i,j); A(i,j) = E(i,j)") == "1:18: 'A' is assigned twice");
  CHECK(indexError("X(i,j) = D(i,j) * 2; D(i,j) = E(i,j)") ==
        "1:22: cannot assign 'D': it is an input (read before it is assigned)");
  CHECK(indexError("D(i,j) = D(i,j) * 2") == "1:1: cannot assign 'D': it is an input (read before it is assigned)");
  CHECK(operatorError("T = D * 2; T = E") == "1:12: 'T' is assigned twice");
  CHECK(indexError("exp(i) = v(i)") == "1:1: 'exp' is a function and cannot name a tensor");
  CHECK(operatorError("A(i,j) = D") ==
        "1:1: the operator form assigns whole tensors: write 'A = ...' (or index notation for every statement)");
}

TEST_CASE("errors: reductions and functions") {
  CHECK(indexError("a(i) = sum(D(i,j), k)") == "1:8: index 'k' of 'sum' does not appear in its argument");
  CHECK(indexError("a(i) = sum(D(i,j))") == "1:8: 'sum' takes at least 2 arguments, got 1");
  CHECK(indexError("a(i) = sum(D(i,j), 2)") == "1:20: expected an index name as argument 2 of 'sum'");
  CHECK(indexError("A(i,j) = exp(D(i,j), E(i,j))") == "1:10: 'exp' takes 1 argument, got 2");
  CHECK(indexError("A(i,j) = where(D(i,j), E(i,j))") == "1:10: 'where' takes 3 arguments, got 2");
  CHECK(indexError("A(i,j) = max(D(i,j), E(i,j), u(j))") == "1:10: 'max' takes 2 arguments, got 3");
  CHECK(indexError("A(i,j) = D(i,j) * exp") == "1:19: 'exp' is a function and needs arguments");
  CHECK(indexError("A(i,j) = S(i+1,j)") == "1:13: expected an index name as argument 1 of 'S'");
  CHECK(indexError("a(i) = sum(D(i,j), axis=1)") ==
        "1:20: a keyword argument belongs to the operator form; in index notation name the indices to reduce over: "
        "sum(expr, k)");
  CHECK(indexError("A(i,j) = B(i,k) @ C(k,j)") ==
        "1:17: '@' belongs to the operator form; in index notation write the product with indices: B(i,k) * C(k,j)");
  CHECK(indexError("A(j,i) = D(i,j).T") == "1:16: '.T' belongs to the operator form; in index notation swap the indices instead");
  CHECK(operatorError("A = foo(S)") == "1:5: unknown function 'foo'");
  CHECK(operatorError("A = S(i,j)") ==
        "1:5: 'S' is a tensor, not a function (index notation needs '(' on the left side of the first statement, "
        "e.g. 'y() = ...')");
  CHECK(operatorError("a = sum(S, axis=2)") == "1:17: axis 2 is out of range for an operand of rank 2");
  CHECK(operatorError("a = sum(S, axis=-3)") == "1:17: axis -3 is out of range for an operand of rank 2");
  CHECK(operatorError("a = sum(S, axis=0.5)") == "1:17: 'axis' must be an integer");
  CHECK(operatorError("a = sum(S, axis=u)") == "1:17: 'axis' must be an integer");
  CHECK(operatorError("a = sum(S, keepdims=1)") == "1:12: unknown keyword argument 'keepdims' (only 'axis=')");
  CHECK(operatorError("a = sum(S, D)") == "1:5: 'sum' takes one operand and an optional 'axis='");
  CHECK(operatorError("a = exp(S, axis=1)") == "1:17: 'exp' takes no 'axis='");
  CHECK(operatorError("A = exp") == "1:5: 'exp' is a function and needs arguments");
}

TEST_CASE("errors: softmax, logsumexp and log") {
  CHECK(operatorError("A = softmax(S, D)") == "1:5: 'softmax' takes one operand and an optional 'axis='");
  CHECK(operatorError("A = softmax(axis=1)") == "1:5: 'softmax' takes one operand and an optional 'axis='");
  CHECK(operatorError("a = logsumexp()") == "1:5: 'logsumexp' takes one operand and an optional 'axis='");
  CHECK(operatorError("A = softmax(S, axis=2)") == "1:21: axis 2 is out of range for an operand of rank 2");
  CHECK(operatorError("A = softmax(S, axis=-3)") == "1:21: axis -3 is out of range for an operand of rank 2");
  CHECK(operatorError("A = softmax(u, axis=1)") == "1:21: axis 1 is out of range for an operand of rank 1");
  CHECK(operatorError("a = logsumexp(S, axis=0.5)") == "1:23: 'axis' must be an integer");
  CHECK(operatorError("a = logsumexp(S, axis=D)") == "1:23: 'axis' must be an integer");
  CHECK(operatorError("A = softmax(S, dim=1)") == "1:16: unknown keyword argument 'dim' (only 'axis=')");
  CHECK(operatorError("A = S * softmax") == "1:9: 'softmax' is a function and needs arguments");
  CHECK(operatorError("A = log(S, D)") == "1:5: 'log' takes 1 argument, got 2");
  CHECK(operatorError("A = log(S, axis=1)") == "1:17: 'log' takes no 'axis='");
  CHECK(indexError("A(i,j) = softmax(S(i,j))") == "1:10: 'softmax' takes at least 2 arguments, got 1");
  CHECK(indexError("A(i,j) = softmax(S(i,j), k)") == "1:26: index 'k' of 'softmax' does not appear in its first argument");
  CHECK(indexError("a(i) = logsumexp(S(i,j), 1)") == "1:26: expected an index name as argument 2 of 'logsumexp'");
  CHECK(indexError("A(i,j) = softmax(S(i,j), axis=1)") ==
        "1:26: a keyword argument belongs to the operator form; in index notation name the indices to reduce over: "
        "sum(expr, k)");
  CHECK(indexError("logsumexp(i) = v(i)") == "1:1: 'logsumexp' is a function and cannot name a tensor");
  CHECK(indexError("A(i,j) = log(D(i,j), 2)") == "1:10: 'log' takes 1 argument, got 2");
}

TEST_CASE("errors: formats") {
  CHECK(operatorError("A = S + D") ==
        "1:7: '+' of csr 'S' and dense 'D' is not supported: it would need a dense result (only '*' keeps the pattern)");
  CHECK(indexError("A(i,j) = S(i,j) + D(i,j)") ==
        "1:17: '+' of csr 'S' and dense 'D' is not supported: it would need a dense result (only '*' keeps the pattern)");
  CHECK(indexError("A(i,j) = where(S(i,j) < 0, D(i,j), 0)") ==
        "1:10: 'where' of csr 'T0' and dense 'D' is not supported: it would need a dense result (only '*' keeps the pattern)");
  // Two patterns meet only in '*', '+' and '-' of a whole statement (co-iteration, test_coiteration.cpp).
  CHECK(operatorError("A = S / R") == "1:7: '/' combines csr operands with different patterns: 'S' and 'R' (two patterns meet "
                                      "only in '*', '+' and '-')");
  CHECK(operatorError("A = exp(S) + R") == "");  // exp(S)'s temporary T0 and R: a union
  CHECK(operatorError("A = (S + R) * 2") == "1:8: '+' of csr operands with different patterns ('S' and 'R') is supported only "
                                            "as a whole statement whose result is the program's, not inside a larger expression yet");
  CHECK(operatorError("A = S @ R.T") == "1:7: contraction of two csr operands ('S' and 'R') is not supported");
  Environment env = kernelEnv();
  env.declare("G", {5, 5}, Format::csr());
  CHECK(indexError("A(i,j) = G(i,k) * G(k,j)", env) == "1:17: contraction of two csr operands ('G' and 'G') is not supported");
  CHECK(indexError("A(i,j) = G(i,j) * G(j,i)", env) == "1:17: csr operands of '*' are accessed with different indices");
  env.declare("A", {4, 5}, Format::csr());
  CHECK(indexError("A(i,j) = B(i,k) * C(k,j)", env) == "1:1: 'A' is declared csr but its value is dense here");
  // Broadcast operands and '*' with a full dense operand are fine.
  CHECK(indexError("A(i,j) = S(i,j) + u(j) - v(i) * alpha") == "");
  CHECK(indexError("A(i,j) = S(i,j) + u(j) * v(i)") ==  // u(j) * v(i) is a full dense operand
        "1:17: '+' of csr 'S' and dense 'T0' is not supported: it would need a dense result (only '*' keeps the pattern)");
  CHECK(indexError("A(i,j) = S(i,j) * D(i,j)") == "");
}

TEST_CASE("errors: syntax") {
  CHECK(indexError("") == "1:1: expected a statement but found end of input");
  CHECK(indexError(" ;\n ; ") == "2:4: expected a statement but found end of input");
  CHECK(indexError("A(i,j) = S(i,j) *") == "1:18: expected an expression but found end of input");
  CHECK(indexError("A(i,j) = (S(i,j)") == "1:17: expected ')' but found end of input");
  CHECK(indexError("a() = (alpha, alpha)") == "1:13: expected ')' but found ','");
  CHECK(indexError("A(i,j) = S(i,j) $ 2") == "1:17: unexpected character '$'");
  CHECK(indexError("A(i,j) = S(i,j) \x01") == "1:17: unexpected byte 0x01");
  CHECK(indexError("A(i,j) = S(i,j) ! 2") == "1:17: unexpected character '!'");
  CHECK(indexError("A(i,j) S(i,j)") == "1:8: expected '=' but found 'S'");
  CHECK(indexError("A(i,j) = S(i,j) B(i,j)") == "1:17: expected ';' or a new line but found 'B'");
  CHECK(indexError("= S") == "1:1: expected a tensor name but found '='");
  // New lines inside parentheses are spaces; outside they end the statement.
  CHECK(indexError("A(i,j) = (D(i,j)\n + E(i,j)\n)\nB2(i,j) = A(i,j)") == "");
  CHECK(indexError("A(i,j) = S(i,j\n) +\n  * D(i,j)") == "2:4: expected an expression but found a new line");
  CHECK(indexError("A = S.X") == "1:7: expected 'T' after '.' but found 'X'");
  CHECK(indexError("a() = 1e999") == "1:7: number '1e999' is out of range");
  CHECK(operatorError("A = S *\nD") == "1:8: expected an expression but found a new line");
  std::string deep = "a() = " + std::string(300, '(') + "alpha" + std::string(300, ')');
  CHECK(indexError(deep) == "1:207: expression nested too deeply (more than 200 levels)");
  CHECK(indexError("a() = " + std::string(300, '-') + "alpha") ==
        "1:207: expression nested too deeply (more than 200 levels)");
  std::string chain = "a() = alpha";
  for (int n = 0; n < 1100; ++n) chain += " + alpha";
  // The 1000th '+' makes the tree 1001 levels high.
  CHECK(indexError(chain) == "1:" + std::to_string(13 + 8 * 999) + ": expression is too deep (more than 1000 levels)");
}
