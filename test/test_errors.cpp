// User errors apart from internal compiler errors (docs/reliability.md, "Errors"): an
// InternalError names where react broke its rules and no `catch (const UserError&)` takes it; legality
// questions answer with a reason instead of an exception; auto lets an internal error out.
#include "fusion/internal.hpp"
#include "internal_error_report.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <type_traits>

using namespace react;
using namespace react::test;

namespace {

// what() of the InternalError `f` throws ("" when it throws none).
template <typename F>
std::string internalMessage(F&& f) {
  try {
    f();
  } catch (const InternalError& e) {
    return e.what();
  }
  return "";
}

// Whether `f`'s exception got past a handler for user errors.
template <typename F>
bool passesUserErrorHandler(F&& f) {
  try {
    try {
      f();
    } catch (const UserError&) {
      return false;
    }
  } catch (const InternalError&) {
    return true;
  }
  return false;
}

// A = S / sum(S, axis=1): T0 = the row sums, then A reads T0.
Program normRow() {
  Environment env;
  env.declare("S", {6, 5}, Format::csr());
  return parseProgram("A = S / sum(S, axis=1)", env);
}

// The same program with its statements swapped, so that A reads T0 before it is written: a
// checked program broken afterwards, the way only a bug in react could make one.
Program normRowConsumerFirst() {
  Program p = normRow();
  REQUIRE(p.statements.size() == 2);
  std::swap(p.statements[0], p.statements[1]);
  return p;
}

MachineModel someMachine() {
  MachineModel m;
  m.bandwidth1 = m.bandwidth = 1e10;
  m.vectorFlops = m.reductionFlops = {1e9, 1e9, 1e9, 1e9, 1e9};
  m.cacheBytes = 1e7;
  return m;
}

}  // namespace

TEST_CASE("internal errors: the message names the file, the line and the function") {
  int line = 0;
  std::string what = internalMessage([&] { line = __LINE__, internalError("a pass lost a loop"); });
  CHECK(what == "internal compiler error: a pass lost a loop (at test/test_errors.cpp:" + std::to_string(line) +
                    " in operator())");
  // REACT_ASSERT reports where it is written; a message of several lines keeps the tree below.
  auto assertFalse = [](int value) { REACT_ASSERT(value == 1, "value " + std::to_string(value) + "\nroot\n└─ i (D)"); };
  CHECK_NOTHROW(assertFalse(1));
  what = internalMessage([&] { assertFalse(2); });
  INFO(what);
  CHECK(what.rfind("internal compiler error: value 2 (at test/test_errors.cpp:", 0) == 0);
  CHECK(what.find(" in operator())\nroot\n└─ i (D)") != std::string::npos);
}

TEST_CASE("internal errors: a handler for user errors does not take one") {
  static_assert(!std::is_base_of_v<UserError, InternalError>, "catch (const UserError&) must not take react's bugs");
  CHECK(passesUserErrorHandler([] { internalError("impossible state"); }));
  CHECK_FALSE(passesUserErrorHandler([] { throw UserError("bad input"); }));
}

TEST_CASE("legality: a re-association of SDDMM that would make the csr result dense is rejected with its reason") {
  // test_auto.cpp's SDDMM: auto lists this association as rejected.
  Environment env;
  env.declare("S", {30, 30}, Format::csr());
  env.declare("B", {30, 8}, Format::dense(2));
  env.declare("C", {8, 30}, Format::dense(2));
  Program p = parseProgram("A(i,j) = S(i,j) * B(i,k) * C(k,j)", env);
  std::vector<ProductChain> chains = productChains(p);
  REQUIRE(chains.size() == 1);
  Association asWritten = currentAssociation(p, chains[0]);  // S(i,j) * (B(i,k) * C(k,j))
  CHECK(reassociate(p, chains, {asWritten}).legality.ok());
  Association sFirst = allAssociations(3)[0];  // (S(i,j) * B(i,k)) * C(k,j): A sums a dense temporary
  REQUIRE_FALSE(sFirst == asWritten);
  Reassociation other = reassociate(p, chains, {sFirst});
  CHECK_FALSE(other.legality.ok());
  CHECK(other.legality.why == "1:1: 'A' is declared csr but its value is dense here");
  CHECK_THROWS_WITH_AS(associate(p, chains, {sFirst}), other.legality.why.c_str(), UserError);
}

TEST_CASE("legality: one loop nest cannot iterate two sparse patterns on one index") {
  std::map<std::string, TensorStorage> tensors;
  auto declare = [&](const std::string& name, Format format) {
    TensorDecl d;
    d.name = name;
    d.shape = {4, 4};
    d.format = format;
    d.pattern = format.hasSparseLevel() ? name : "";
    tensors[name] = TensorStorage{d, {true, true}};
  };
  declare("S", Format::csr());
  declare("R", Format::csr());
  declare("A", Format::dense(2));
  // Two patterns meet only in a co-iteration (`*`, `+`, `-`: a merge loop); under any other operator they cannot.
  Statement s{"A", {"i", "j"}, apply(Op::Div, {access("S", {"i", "j"}), access("R", {"i", "j"})}), ReduceOp::Sum, {}};
  Legality legality = chainLegality(s, tensors);
  CHECK_FALSE(legality.ok());
  CHECK(legality.why.find("index 'j' would iterate two sparse patterns ('S' and 'R')") != std::string::npos);
  // A pass that builds it without asking is react's bug.
  CHECK(internalMessage([&] { buildChain(s, tensors); }).find("no loop nest can iterate") != std::string::npos);
  Statement one{"A", {"i", "j"}, apply(Op::Mul, {access("S", {"i", "j"}), access("S", {"i", "j"})}), ReduceOp::Sum, {}};
  CHECK(chainLegality(one, tensors).ok());
  Statement merged{"A", {"i", "j"}, apply(Op::Mul, {access("S", {"i", "j"}), access("R", {"i", "j"})}), ReduceOp::Sum, {}};
  CHECK(chainLegality(merged, tensors).ok());
  CHECK(buildChain(merged, tensors).children.at(0).loop == IndexLoop::merge("j", {"S", "R"}, false, "", 1, "i"));
}

TEST_CASE("internal errors: the verifier after a pass throws one, naming the pass") {
  IndexTree before = fusion::reactBeforePlan(normRow());
  REQUIRE(before.root.children.size() == 2);
  std::swap(before.root.children[0], before.root.children[1]);  // the consumer before its producer
  std::string what = internalMessage([&] { fusion::reactWithPlan(before, {}); });
  INFO(what);
  CHECK(what.rfind("internal compiler error: after pass partial-fusion: index tree verifier: ", 0) == 0);
  CHECK(what.find("is read before it is written") != std::string::npos);
  // The same tree handed to react by a user is a user error.
  CHECK_THROWS_AS(interpret(before, {{"S", randomCsr(6, 5, 0.5, 1)}}), UserError);
}

TEST_CASE("internal errors: auto's search lets one out instead of rejecting the candidate") {
  Program broken = normRowConsumerFirst();
  InputStats stats;
  stats.sparse["S"] = {6, 5, 12, 4};
  std::string what = internalMessage([&] { decideFusion(broken, stats, someMachine()); });
  INFO(what);
  CHECK(what.rfind("internal compiler error: the tree built from the program: ", 0) == 0);
  CHECK(what.find("tensor 'T0' is read before it is written") != std::string::npos);
  CHECK(passesUserErrorHandler([&] { decideFusion(broken, stats, someMachine()); }));
  // The intact program decides without a rejected candidate.
  for (const AutoCandidate& c : decideFusion(normRow(), stats, someMachine()).candidates) CHECK(c.rejected.empty());
}

TEST_CASE("internal errors: the apps ask for a report with a command line that pastes back into a shell") {
  std::vector<std::string> args{"react-gen", "A = S * (B @ C)", "-i=S:it's.mtx", "-d=k:8", ""};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  CHECK(apps::commandLine(static_cast<int>(argv.size()), argv.data()) ==
        "react-gen 'A = S * (B @ C)' '-i=S:it'\\''s.mtx' -d=k:8 ''");
}
