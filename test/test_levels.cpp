// Level formats: the levels' properties, the named configurations, printing and parsing; the
// index tree asks the levels (csc, dcsr and coo build and verify); formats that do not run yet
// are user errors from the C++ API and the interpreter.
#include "lower/lower.hpp"

#include "indexnotation_test_util.hpp"

#include <doctest/doctest.h>

using namespace react;
using react::test::errorOf;

namespace {

std::string parseError(const std::string& text, int rank = 2) {
  return errorOf([&] { parseFormat(text, rank); });
}

// A(i,j) = P(i,j) * 2 with P stored in `format`, as a one-statement tree.
// A = P * 2 built by hand, P in `format` and A at P's positions, in `resultFormat` (P's by default).
IndexTree scaled(const Format& format, const Format& resultFormat = Format()) {
  IndexTree t;
  t.indexSizes = {{"i", 4}, {"j", 5}};
  for (const auto& [name, role] : {std::pair{"P", TensorRole::Input}, std::pair{"A", TensorRole::Output}}) {
    TensorDecl d;
    d.name = name;
    d.shape = {4, 5};
    d.format = role == TensorRole::Output && resultFormat.rank() > 0 ? resultFormat : format;
    d.role = role;
    d.pattern = "P";
    t.tensors[name] = TensorStorage{d, {true, true}};
  }
  Statement s{"A", {"i", "j"}, apply(Op::Mul, {access("P", {"i", "j"}), literal(2)}), ReduceOp::Sum, {}};
  t.root.children.push_back(buildChain(s, t.tensors));
  return t;
}

}  // namespace

TEST_CASE("levels: what each kind answers") {
  Level d = Level::dense(), s = Level::compressed(), u = Level::compressed(false), q = Level::singleton();
  CHECK((d.full() && d.locatable() && !d.iteratedByPosition() && !d.storesPositions() && !d.storesCoordinates()));
  CHECK((!s.full() && !s.locatable() && s.iteratedByPosition() && s.storesPositions() && s.storesCoordinates()));
  CHECK((!q.full() && q.iteratedByPosition() && !q.storesPositions() && q.storesCoordinates()));
  CHECK((s.unique && !u.unique && u.kind == LevelKind::Compressed && u != s));
  CHECK(std::string{d.letter(), s.letter(), u.letter(), q.letter(), Level::singleton(false).letter()} == "dsuqc");
  CHECK(u.str() == "compressed-nonunique");
  CHECK(q.str() == "singleton");
}

TEST_CASE("levels: the named configurations' levels and ordering") {
  auto levels = [](const Format& f) {
    std::string s;
    for (const Level& l : f.levels()) s += l.letter();
    return s;
  };
  CHECK(levels(Format::dense(3)) == "ddd");
  CHECK(Format::dense(3).ordering() == std::vector<int>{0, 1, 2});
  CHECK(levels(Format::csr()) == "ds");
  CHECK(Format::csr().ordering() == std::vector<int>{0, 1});
  CHECK(levels(Format::csc()) == "ds");
  CHECK(Format::csc().ordering() == std::vector<int>{1, 0});
  CHECK(levels(Format::dcsr()) == "ss");
  CHECK(levels(Format::coo(2)) == "uq");
  CHECK(levels(Format::coo(3)) == "ucq");
  CHECK(levels(Format::coo(1)) == "s");
  CHECK(levels(Format::csf(3)) == "sss");
  CHECK(Format::csf(3).ordering() == std::vector<int>{0, 1, 2});
  // csc stores columns first: dimension 1 at level 0, and asks level 1 for its rows.
  CHECK(Format::csc().dimension(0) == 1);
  CHECK(Format::csc().levelOf(0) == 1);
  CHECK(Format::csc().level(Format::csc().levelOf(0)) == Level::compressed());
  CHECK(!Format::dense(2).hasSparseLevel());
  CHECK(Format::csr().hasSparseLevel());
  CHECK(Format::coo(2).hasSparseLevel());
  CHECK(Format() == Format::dense(0));  // no levels: a scalar, or a format not given
  CHECK(errorOf([] { Format({Level::dense(), Level::dense()}, {0, 0}); }) ==
        "mode ordering 0,0 is not a permutation of the 2 dimensions 0..1");
  CHECK(errorOf([] { Format::coo(0); }) == "format coo needs a tensor of rank 1 or more, not 0");
}

TEST_CASE("levels: the levels that hold a pattern, and dense levels under them") {
  const std::pair<const char*, int> cases[] = {{"dense", 0}, {"csr", 2}, {"csc", 2}, {"dcsr", 2}, {"ssd", 2}, {"dsd", 2}, {"sdd", 1}};
  for (const auto& [text, levels] : cases) {
    const int rank = std::string(text) == "csr" || std::string(text) == "csc" || std::string(text) == "dcsr" ? 2 : 3;
    const Format f = parseFormat(text, rank);
    INFO(text);
    CHECK(f.patternLevels() == levels);
    CHECK(f.storesPatternPrefix() == (levels > 0 && levels < rank));
  }
  CHECK(Format::csf(3).patternLevels() == 3);
  CHECK_FALSE(Format::csf(3).storesPatternPrefix());
}

TEST_CASE("levels: str prints the name, else the levels and the ordering, and parses back") {
  CHECK(Format::dense(2).str() == "dense");
  CHECK(Format::dense(0).str() == "dense");
  CHECK(Format::csr().str() == "csr");
  CHECK(Format::csc().str() == "csc");
  CHECK(Format::dcsr().str() == "dcsr");
  CHECK(Format::coo(2).str() == "coo");
  CHECK(Format::coo(3).str() == "coo");
  CHECK(Format::csf(3).str() == "csf");
  CHECK(Format::csf(2).str() == "dcsr");  // the same levels
  CHECK(Format::csf(1).str() == "s");
  CHECK(Format({Level::compressed(), Level::dense()}).str() == "sd");
  CHECK(Format({Level::dense(), Level::dense()}, {1, 0}).str() == "dd:1,0");
  CHECK(Format({Level::compressed(), Level::compressed()}, {1, 0}).str() == "ss:1,0");  // dcsc
  CHECK(Format(std::vector<Level>(3, Level::compressed()), {1, 0, 2}).str() == "sss:1,0,2");
  for (const Format& f : {Format::dense(0), Format::dense(1), Format::dense(3), Format::csr(), Format::csc(), Format::dcsr(),
                          Format::coo(1), Format::coo(2), Format::coo(4), Format::csf(1), Format::csf(3),
                          Format({Level::singleton(false), Level::dense()}, {1, 0}),
                          Format(std::vector<Level>(3, Level::compressed()), {2, 0, 1})}) {
    INFO(f.str());
    CHECK(parseFormat(f.str(), f.rank()) == f);
  }
}

TEST_CASE("levels: parsing names and TACO's level letters") {
  CHECK(parseFormat("dense", 3) == Format::dense(3));
  CHECK(parseFormat("coo", 3) == Format::coo(3));
  CHECK(parseFormat("csf", 3) == Format::csf(3));
  CHECK(parseFormat("csr", 7) == Format::csr());  // fixed rank: the checker compares it with the tensor's
  CHECK(parseFormat("ds", 2) == Format::csr());
  CHECK(parseFormat("ds:1,0", 2) == Format::csc());
  CHECK(parseFormat("dd", 5) == Format::dense(2));
  CHECK(parseFormat("uq", 2) == Format::coo(2));
  CHECK(parseFormat("ucq", 3) == Format::coo(3));
  CHECK(parseFormat("sss:1,0,2", 3) == Format(std::vector<Level>(3, Level::compressed()), {1, 0, 2}));

  std::string expected = "(expected dense, csr, csc, dcsr, coo, csf, or one level letter per dimension (d dense, s compressed, "
                         "u compressed non-unique, q singleton, c singleton non-unique) with an optional :ORDERING such as sss:1,0,2)";
  CHECK(parseError("") == "unknown format '' " + expected);
  CHECK(parseError("CSR") == "unknown format 'CSR' " + expected);
  CHECK(parseError("dx") == "unknown format 'dx' " + expected);
  CHECK(parseError(":1,0") == "unknown format ':1,0' " + expected);
  CHECK(parseError("ds:1") == "format 'ds:1': the ordering names 1 dimensions but there are 2 levels");
  CHECK(parseError("ds:1,1") == "format 'ds:1,1': mode ordering 1,1 is not a permutation of the 2 dimensions 0..1");
  CHECK(parseError("ds:0,2") == "format 'ds:0,2': mode ordering 0,2 is not a permutation of the 2 dimensions 0..1");
  CHECK(parseError("ds:") == "format 'ds:': ordering '' is not a list of dimensions such as 1,0,2");
  CHECK(parseError("ds:1,0,") == "format 'ds:1,0,': ordering '1,0,' is not a list of dimensions such as 1,0,2");
  CHECK(parseError("ds:-1,0") == "format 'ds:-1,0': ordering '-1,0' is not a list of dimensions such as 1,0,2");
  CHECK(parseError("ds:99999999999,0") == "format 'ds:99999999999,0': ordering '99999999999,0' is not a list of dimensions such as 1,0,2");
  CHECK(parseError("csf", 0) == "format csf needs a tensor of rank 1 or more, not 0");
}

TEST_CASE("levels: the tree builder asks the levels (csc, dcsr, coo build and verify)") {
  // csr: the compressed level 1 stores dimension 1 under the row.
  CHECK(printTree(scaled(Format::csr())) == "root\n└─ i (D)\n   └─ j (S: P row i)   A(i,j) = P(i,j) * 2\n");
  // csc: level 0 (dense) stores j, level 1 (compressed) stores i under it.
  CHECK(printTree(scaled(Format::csc())) == "root\n└─ j (D)\n   └─ i (S: P row j)   A(i,j) = P(i,j) * 2\n");
  // dcsr and coo: both levels iterated by position, the first under the root.
  for (const Format& f : {Format::dcsr(), Format::coo(2)}) {
    INFO(f.str());
    IndexTree t = scaled(f);
    CHECK(printTree(t) == "root\n└─ i (S: P level 0)\n   └─ j (S: P row i)   A(i,j) = P(i,j) * 2\n");
    CHECK_NOTHROW(verifyTree(t));
    CHECK(t.root.children[0].loop == IndexLoop::sparse("i", "P", 0, ""));
    CHECK(t.root.children[0].children[0].loop == IndexLoop::sparse("j", "P", 1, "i"));
  }
  CHECK_NOTHROW(verifyTree(scaled(Format::csc())));
}

TEST_CASE("levels: an access is at its pattern's positions only under the loops of every sparse level") {
  IndexTree t = scaled(Format::dcsr());
  const TreeNode& i = t.root.children[0];
  const TreeNode& j = i.children[0];
  CHECK(atPatternPositions({&t.root, &i, &j}, "P", Format::dcsr(), {"i", "j"}));
  CHECK(!atPatternPositions({&t.root, &i, &j}, "P", Format::dcsr(), {"j", "i"}));
  CHECK(!atPatternPositions({&t.root, &i, &j}, "Q", Format::dcsr(), {"i", "j"}));
  CHECK(!atPatternPositions({&t.root, &i, &j}, "P", Format::dcsr(), {"i"}));
  TreeNode denseI = TreeNode::index(IndexLoop::dense("i"));
  CHECK(!atPatternPositions({&t.root, &denseI, &j}, "P", Format::dcsr(), {"i", "j"}));
  // csr's dense first level may be bound by a plain loop.
  CHECK(atPatternPositions({&t.root, &denseI, &j}, "P", Format::csr(), {"i", "j"}));

  IndexTree moved = t;  // j's loop taken out of i's: the access is no longer at P's positions
  moved.root.children[0] = TreeNode::index(IndexLoop::dense("i"));
  moved.root.children[0].children.push_back(j);
  CHECK(errorOf([&] { verifyTree(moved); }) ==
        "index tree verifier: node 'root/i (D)/j (S: P row i)/A(i,j) = P(i,j) * 2': dcsr tensor 'A' is accessed outside a "
        "sparse loop over its pattern 'P'");
}

TEST_CASE("levels: formats that do not run yet are user errors") {
  IndexVar i("i"), j("j"), k("k");
  // Dense levels under another level. (Levels that repeat coordinates, coo's, run as their unique
  // form: Format::iterated.)
  const std::pair<Format, std::string> refused[] = {
      {parseFormat("sd", 2), "level 1 is dense under a sparse level, which runs in a result only (stored at a prefix of a sparse "
                            "factor's pattern)"}};
  for (const auto& [f, why] : refused) {
    TensorVar S("S", {4, 5}, f), A("A", {4}, Format::dense(1));
    ProgramBuilder prog;
    prog.add(A(i) = S(i, j));
    CHECK(errorOf([&] { prog.build(); }) == "format " + f.str() + " of tensor 'S' is not supported yet: " + why);
  }
  for (const Format& f : {Format::csc(), Format::dcsr(), Format::csr(), Format::coo(2)}) {
    TensorVar S("S", {4, 5}, f), A("A", {4}, Format::dense(1));
    ProgramBuilder prog;
    prog.add(A(i) = S(i, j));
    CHECK_NOTHROW(prog.build());
  }
  TensorVar X("X", {3, 4, 5}, Format::csf(3)), a("a", {3}, Format::dense(1));
  ProgramBuilder prog;
  prog.add(a(i) = X(i, j, k));
  CHECK_NOTHROW(prog.build());
  CHECK(*unsupportedFormat("B", Format({Level::dense(), Level::dense()}, {1, 0})) ==
        "format dd:1,0 of tensor 'B' is not supported yet: a dense tensor is stored row-major (no mode ordering)");
  CHECK(!unsupportedFormat("B", Format::dense(4)));
  CHECK(!unsupportedFormat("S", Format::csr()));
  CHECK(!unsupportedFormat("S", parseFormat("dss:2,0,1", 3)));
  CHECK(*unsupportedFormat("S", Format::coo(2)) ==
        "format coo of tensor 'S' is not supported yet: level 0 is compressed-nonunique; the levels run are dense and compressed");
  // coo iterated as its unique form, the mode ordering kept; the formats that run are their own.
  CHECK(Format::coo(2).iterated() == Format::dcsr());
  CHECK(Format::coo(3).iterated() == Format::csf(3));
  CHECK(parseFormat("ucq:2,0,1", 3).iterated() == parseFormat("sss:2,0,1", 3));
  CHECK(parseFormat("sq", 2).iterated() == Format::dcsr());
  for (const Format& f : {Format::csr(), Format::csc(), Format::dense(2), parseFormat("dss:1,2,0", 3)}) CHECK(f.iterated() == f);

  // A tree built by hand reaches the interpreter: csc data is a SparseTensor.
  CHECK(errorOf([] { interpret(scaled(Format::csc()), {{"P", CsrMatrix{}}}); }) ==
        "interpreter: input 'P' is declared csc but given csr");
  // A result at a dcsr pattern is dcsr; one of other levels is refused where a tree built by hand
  // reaches the lowering and the interpreter.
  CHECK_NOTHROW(lowerToLoops(scaled(Format::dcsr())));
  const std::string mismatch = "result 'A' is declared csr but is stored at the positions of 'P', which is dcsr: declare it dcsr, or dense";
  CHECK(errorOf([] { lowerToLoops(scaled(Format::dcsr(), Format::csr())); }) == "lowering: " + mismatch);
  const SparseTensor dcsr = convertFormat(csrToSparse(CsrMatrix{4, 5, {0, 1, 1, 1, 2}, {0, 3}, {1.0, 2.0}}), Format::dcsr());
  CHECK(errorOf([&] { interpret(scaled(Format::dcsr(), Format::csr()), {{"P", dcsr}}); }) == "interpreter: " + mismatch);
}
