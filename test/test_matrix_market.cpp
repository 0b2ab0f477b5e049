// Matrix Market reader and writer: the real matrices of ../shared/data/matrices, every field and
// symmetry on small inline files, and one test per kind of malformed input.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "formats/formats.hpp"

namespace fs = std::filesystem;
using react::CsrMatrix;
using react::DenseTensor;

namespace {

const std::string kMatrices = REACT_SOURCE_DIR "/../shared/data/matrices";

fs::path scratchDir() {
  const fs::path d = fs::path(REACT_BINARY_DIR) / "test-scratch";
  fs::create_directories(d);
  return d;
}

CsrMatrix csr(const std::string& text) { return std::get<CsrMatrix>(react::parseMatrixMarket(text, "inline.mtx")); }
DenseTensor dense(const std::string& text) {
  return std::get<DenseTensor>(react::parseMatrixMarket(text, "inline.mtx"));
}

// The message of the react::UserError that parsing `text` as file `name` raises.
std::string errorOf(const std::string& text, const std::string& name = "bad.mtx") {
  try {
    react::parseMatrixMarket(text, name);
  } catch (const react::UserError& e) {
    return e.what();
  }
  FAIL("no error for " << name);
  return {};
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// For each (tail, part): parsing head + tail fails with a message that contains part.
void expectErrors(const std::string& head, std::initializer_list<std::pair<std::string, std::string>> cases,
                  const std::string& name = "bad.mtx") {
  for (const auto& [tail, part] : cases) {
    const std::string message = errorOf(head + tail, name);
    CHECK_MESSAGE(contains(message, part), "message: " << message << "\nexpected to contain: " << part);
  }
}

const std::string kGeneral = "%%MatrixMarket matrix coordinate real general\n";

CsrMatrix make(int64_t rows, int64_t cols, std::vector<int64_t> rowptr, std::vector<int32_t> col,
               std::vector<double> val) {
  CsrMatrix m;
  m.rows = rows;
  m.cols = cols;
  m.rowptr = std::move(rowptr);
  m.col = std::move(col);
  m.val = std::move(val);
  return m;
}

// rows, cols, nnz with both triangles (from ../shared/data/README.md)
const std::map<std::string, std::tuple<int64_t, int64_t, int64_t>> kExpected = {
    {"cora", {2708, 2708, 10556}},          {"citeseer", {3327, 3327, 9104}},
    {"pubmed", {19717, 19717, 88648}},      {"ego-Facebook", {4039, 4039, 176468}},
    {"wiki-Vote", {8297, 8297, 103689}},    {"email-Enron", {36692, 36692, 367662}},
    {"ca-CondMat", {23133, 23133, 186936}}, {"power", {4941, 4941, 13188}},
    {"polblogs", {1490, 1490, 33430}},      {"wave", {156317, 156317, 2118662}},
    {"bcsstk13", {2003, 2003, 83883}},      {"bcsstk16", {4884, 4884, 290378}},
    {"bayer10", {13436, 13436, 94926}},     {"lp_maros_r7", {3136, 9408, 144848}},
};

}  // namespace

// ---------------------------------------------------------------------------------------------
TEST_CASE("every real matrix reads with the documented size and round-trips exactly") {
  REQUIRE_MESSAGE(fs::is_directory(kMatrices),
                  kMatrices << " is missing (CI must provide ../shared beside the checkout)");
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(kMatrices))
    if (e.path().extension() == ".mtx") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() == kExpected.size());
  for (const fs::path& f : files) {
    CAPTURE(f.string());
    const CsrMatrix a = react::readMatrixMarketCsr(f.string());
    CHECK_NOTHROW(a.validate());
    const auto it = kExpected.find(f.stem().string());
    REQUIRE(it != kExpected.end());
    CHECK(a.rows == std::get<0>(it->second));
    CHECK(a.cols == std::get<1>(it->second));
    CHECK(a.nnz() == std::get<2>(it->second));
    const std::string out = (scratchDir() / f.filename()).string();
    react::writeMatrixMarket(out, a);
    CHECK(react::readMatrixMarketCsr(out) == a);
    fs::remove(out);
  }
}

TEST_CASE("a real symmetric file equals its transpose") {
  const CsrMatrix a = react::readMatrixMarketCsr(kMatrices + "/bcsstk13.mtx");
  react::CooMatrix t = react::csrToCoo(a);
  std::swap(t.row, t.col);
  CHECK(react::cooToCsr(t) == a);
}

TEST_CASE("bayer10 keeps its 23332 explicit zeros") {
  const CsrMatrix a = react::readMatrixMarketCsr(kMatrices + "/bayer10.mtx");
  CHECK(std::count(a.val.begin(), a.val.end(), 0.0) == 23332);
  CHECK(a.nnz() == 94926);
}

TEST_CASE("rectangular lp_maros_r7 is 3136 x 9408") {
  const CsrMatrix a = react::readMatrixMarketCsr(kMatrices + "/lp_maros_r7.mtx");
  CHECK(a.rows == 3136);
  CHECK(a.cols == 9408);
  CHECK(a.nnz() == 144848);
  CHECK(*std::max_element(a.col.begin(), a.col.end()) == 9407);
}

// ---------------------------------------------------------------------------------------------
TEST_CASE("symmetric: the lower triangle is expanded to both triangles") {
  const CsrMatrix a =
      csr("%%MatrixMarket matrix coordinate real symmetric\n"
          "3 3 4\n"
          "1 1 2.0\n"
          "2 1 -1.5\n"
          "3 2 4\n"
          "3 3 5e-1\n");
  // [ 2   -1.5  .  ]
  // [-1.5  .    4  ]
  // [ .    4    0.5]
  CHECK(a == make(3, 3, {0, 2, 4, 6}, {0, 1, 0, 2, 1, 2}, {2.0, -1.5, -1.5, 4.0, 4.0, 0.5}));
}

TEST_CASE("skew-symmetric: mirrored entries are negated") {
  const CsrMatrix a =
      csr("%%MatrixMarket matrix coordinate real skew-symmetric\n"
          "3 3 2\n"
          "2 1 3\n"
          "3 1 -2\n");
  CHECK(a == make(3, 3, {0, 2, 3, 4}, {1, 2, 0, 0}, {-3.0, 2.0, 3.0, -2.0}));
  expectErrors("", {{"%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 7\n",
                     "bad.mtx:3: expected zero on the diagonal of a skew-symmetric matrix, got '7'"}});
}

TEST_CASE("pattern: every stored entry is 1.0, symmetric patterns are expanded") {
  CHECK(csr("%%MatrixMarket matrix coordinate pattern general\n2 3 3\n1 3\n2 1\n1 1\n") ==
        make(2, 3, {0, 2, 3}, {0, 2, 0}, {1.0, 1.0, 1.0}));
  CHECK(csr("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n") ==
        make(3, 3, {0, 1, 2, 3}, {1, 0, 2}, {1.0, 1.0, 1.0}));
  expectErrors("", {{"%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1.0\n",
                     "bad.mtx:3: expected end of line after the row and column, got '1.0'"}});
}

TEST_CASE("integer values") {
  CHECK(csr("%%MatrixMarket matrix coordinate integer general\n2 2 3\n1 1 -7\n2 2 +3\n1 2 12\n") ==
        make(2, 2, {0, 2, 3}, {0, 1, 1}, {-7.0, 12.0, 3.0}));
  expectErrors("", {{"%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n",
                     "bad.mtx:3: expected an integer value, got '1.5'"}});
}

TEST_CASE("array: column-major values, general, symmetric and skew-symmetric") {
  DenseTensor g = dense("%%MatrixMarket matrix array real general\n% comment\n2 3\n1\n2\n3\n4\n5\n6\n");
  CHECK(g.shape == std::vector<int64_t>{2, 3});
  CHECK(g.data == std::vector<double>{1, 3, 5, 2, 4, 6});
  DenseTensor s = dense("%%MatrixMarket matrix array integer symmetric\n3 3\n1\n2\n3\n4\n5\n6\n");
  CHECK(s.data == std::vector<double>{1, 2, 3, 2, 4, 5, 3, 5, 6});
  DenseTensor k = dense("%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n");
  CHECK(k.data == std::vector<double>{0, -1, -2, 1, 0, -3, 2, 3, 0});
  expectErrors("", {{"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n",
                     "bad.mtx:6: expected 4 entries (as the size line says), got end of file after 3"}});
  expectErrors("", {{"%%MatrixMarket matrix array pattern general\n1 1\n",
                     "bad.mtx:1: expected field 'real' or 'integer' for an array matrix, got 'pattern'"}});
}

TEST_CASE("array files round-trip through the dense writer, readMatrixMarketCsr refuses them") {
  const std::string path = (scratchDir() / "dense.mtx").string();
  DenseTensor t({3, 2});
  for (int64_t i = 0; i < t.size(); ++i) t.data[i] = 0.1 * static_cast<double>(i) - 0.25;
  react::writeMatrixMarket(path, t);
  CHECK(std::get<DenseTensor>(react::readMatrixMarket(path)).data == t.data);
  react::writeMatrixMarket(path, DenseTensor({4}, 2.5));  // a vector is a 4 x 1 matrix
  CHECK(std::get<DenseTensor>(react::readMatrixMarket(path)).shape == std::vector<int64_t>{4, 1});
  CHECK_THROWS_WITH_AS(react::readMatrixMarketCsr(path), doctest::Contains("expected a 'coordinate'"), react::UserError);
  CHECK_THROWS_AS(react::writeMatrixMarket(path, DenseTensor({2, 2, 2})), react::UserError);
  fs::remove(path);
}

TEST_CASE("duplicates are summed in input order, rows are sorted") {
  CHECK(csr("%%MatrixMarket matrix coordinate real general\n2 2 5\n1 2 -1\n1 1 1.5\n2 2 1\n1 1 2.5\n1 2 1\n") ==
        make(2, 2, {0, 2, 3}, {0, 1, 1}, {4.0, 0.0, 1.0}));
}

TEST_CASE("explicit zeros are kept") {
  CHECK(csr("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 0\n2 1 -0.0\n") ==
        make(2, 2, {0, 1, 2}, {0, 0}, {0.0, 0.0}));
}

TEST_CASE("comments, blank lines, tabs, CRLF and a missing final newline are accepted") {
  CHECK(csr("%%MatrixMarket Matrix Coordinate Real General\r\n"
            "% a comment\r\n"
            "\r\n"
            "  % an indented comment\n"
            "2 2 2\r\n"
            "\n"
            "% between entries\n"
            "1\t1\t+1.5\r\n"
            "   \n"
            "2 2 -2E+3") == make(2, 2, {0, 1, 2}, {0, 1}, {1.5, -2000.0}));
}

TEST_CASE("a file that cannot be opened names the file") {
  CHECK_THROWS_WITH_AS(react::readMatrixMarket("/nonexistent/x.mtx"), doctest::Contains("/nonexistent/x.mtx"),
                       react::UserError);
  CHECK_THROWS_WITH_AS(react::writeMatrixMarket("/nonexistent/y.mtx", CsrMatrix{}),
                       doctest::Contains("/nonexistent/y.mtx"), react::UserError);
}

// ---------------------------------------------------------------------------------------------
// Malformed input: every error names the file, the line and what was expected.
TEST_CASE("malformed: bad banner") {
  expectErrors("",
               {{"%%MatrixMarkt matrix coordinate real general\n1 1 0\n",
                 "banner.mtx:1: expected the banner '%%MatrixMarket matrix coordinate|array"}},
               "banner.mtx");
  expectErrors("", {{"1 1 1\n1 1 1.0\n", "bad.mtx:1: expected the banner"},
                    {"%%MatrixMarket matrix coordinate real\n1 1 0\n", "with 5 words, got end of line"},
                    {"%%MatrixMarket vector coordinate real general\n1 1 0\n",
                     "bad.mtx:1: expected object 'matrix' in the banner, got 'vector'"},
                    {"%%MatrixMarket matrix sparse real general\n1 1 0\n",
                     "bad.mtx:1: expected format 'coordinate' or 'array' in the banner, got 'sparse'"}});
}

TEST_CASE("malformed: complex and hermitian are not supported") {
  expectErrors("",
               {{"%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
                 "c.mtx:1: expected field 'real', 'integer' or 'pattern' (complex is not supported), got 'complex'"}},
               "c.mtx");
  expectErrors("",
               {{"%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n",
                 "h.mtx:1: expected symmetry 'general', 'symmetric' or 'skew-symmetric' (hermitian is not "
                 "supported), got 'hermitian'"}},
               "h.mtx");
}

TEST_CASE("malformed: empty file") {
  expectErrors("", {{"", "empty.mtx:1: expected the banner"}}, "empty.mtx");
  expectErrors("", {{"", "got end of file"}}, "empty.mtx");
}

TEST_CASE("malformed: missing size line") {
  expectErrors("",
               {{"%%MatrixMarket matrix coordinate real general\n% only a comment\n\n",
                 "nosize.mtx:4: expected the size line 'rows cols entries', got end of file"}},
               "nosize.mtx");
  expectErrors("", {{"%%MatrixMarket matrix coordinate real general\n3 3\n1 1 1\n",
                     "bad.mtx:2: expected the number of entries (a non-negative integer) on the size line"}});
  expectErrors(
      "", {{"%%MatrixMarket matrix coordinate real symmetric\n3 4 0\n",
            "bad.mtx:2: expected a square matrix for a symmetric or skew-symmetric file, got 3 rows and 4 columns"}});
}

TEST_CASE("malformed: too many entries") {
  expectErrors(kGeneral, {{"3 3 2\n1 1 1\n2 2 2\n% fine\n3 3 3\n",
                           "bad.mtx:6: expected 2 entries (as the size line says), got more"}});
}

TEST_CASE("malformed: too few entries") {
  expectErrors(kGeneral, {{"3 3 3\n1 1 1\n2 2 2\n",
                           "bad.mtx:5: expected 3 entries (as the size line says), got end of file after 2"}});
}

TEST_CASE("malformed: index out of range") {
  expectErrors(kGeneral + "3 4 2\n1 1 1\n",
               {{"4 1 1\n", "bad.mtx:4: expected a row index in 1..3, got '4'"},
                {"1 5 1\n", "bad.mtx:4: expected a column index in 1..4, got '5'"},
                {"0 1 1\n", "bad.mtx:4: expected a row index in 1..3, got '0'"},
                {"-1 1 1\n", "bad.mtx:4: expected a row index (a positive integer), got '-1'"}});
}

TEST_CASE("malformed: non-numeric field") {
  expectErrors(kGeneral + "3 3 2\n1 1 1\n",
               {{"2 x 1\n", "bad.mtx:4: expected a column index (a positive integer), got 'x'"},
                {"2 2 abc\n", "bad.mtx:4: expected a real number, got 'abc'"},
                {"2 2 1.5x\n", "bad.mtx:4: expected a real number, got '1.5x'"},
                {"2 2 1e999\n", "bad.mtx:4: expected a real number within the range of double"},
                {"2 2 1 7\n", "bad.mtx:4: expected end of line after the row, column and value, got '7'"}});
  expectErrors(kGeneral,
               {{"three 3 0\n", "bad.mtx:2: expected the number of rows (a non-negative integer) on the size line"}});
}

TEST_CASE("malformed: truncated file") {
  expectErrors(kGeneral + "3 3 3\n1 1 1\n",
               {{"2 2 2.5\n3 ", "bad.mtx:5: expected a column index (a positive integer), got end of file"},
                {"2 2", "bad.mtx:4: expected a real number, got end of file"},
                {"2 2 1.5e", "bad.mtx:4: expected a real number, got '1.5e'"}});
}

TEST_CASE("errors in large inputs are reported at the same line whatever the thread count") {
  // Large enough (about 2 MB) to be parsed in several chunks.
  const int n = 200000;
  std::string body;
  for (int i = 1; i <= n; ++i) body += std::to_string(i) + " " + std::to_string(i) + " 0.5\n";
  const std::string head =
      "%%MatrixMarket matrix coordinate real general\n" + std::to_string(n) + " " + std::to_string(n) + " ";
  CHECK(csr(head + std::to_string(n) + "\n" + body).nnz() == n);
  expectErrors("", {{head + std::to_string(n / 3) + "\n" + body,
                     "bad.mtx:" + std::to_string(n / 3 + 3) + ": expected " + std::to_string(n / 3) + " entries"}});
  std::string broken = body;
  broken.replace(broken.find("\n150000 150000 "), 15, "\n150000 15x000 ");
  expectErrors("", {{head + std::to_string(n) + "\n" + broken, "bad.mtx:150002: expected a column index"}});
  expectErrors("", {{head + std::to_string(n + 1) + "\n" + body,
                     "bad.mtx:" + std::to_string(n + 3) + ": expected " + std::to_string(n + 1) + " entries"}});
}
