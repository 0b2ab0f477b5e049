// FROSTT .tns reader and writer: the rank from the first entry, the format or the shape; any
// format and ordering; one test per kind of malformed input, with the exact message.
#include "formats/formats.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

using react::DenseTensor;
using react::Format;
using react::SparseTensor;

namespace {

SparseTensor tns(const std::string& text, const Format& format = Format(), const std::vector<int64_t>& shape = {},
                 react::ValueType type = react::ValueType::Float64) {
  return react::parseFrostt(text, "t.tns", format, type, shape);
}

std::string errorOf(const std::string& text, const Format& format = Format(), const std::vector<int64_t>& shape = {},
                    react::ValueType type = react::ValueType::Float64) {
  try {
    tns(text, format, shape, type);
  } catch (const react::UserError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string scratch(const std::string& name) {
  const std::filesystem::path d = std::filesystem::path(REACT_BINARY_DIR) / "test-scratch";
  std::filesystem::create_directories(d);
  return (d / name).string();
}

}  // namespace

TEST_CASE("frostt: coordinates and a value a line, comments, blank lines, tabs, CRLF, no final newline") {
  const SparseTensor t = tns("# a 3-tensor\n1 1 1 1.5\n\n  # indented\r\n2\t3 1 -2\r\n1 2 4 +3e2");
  CHECK(t.format == Format::coo(3));
  CHECK(t.shape == std::vector<int64_t>{2, 3, 4});  // the largest coordinate of each mode
  CHECK_NOTHROW(t.validate());
  const DenseTensor d = react::sparseToDense(t);
  CHECK(d.at({0, 0, 0}) == 1.5);
  CHECK(d.at({1, 2, 0}) == -2.0);
  CHECK(d.at({0, 1, 3}) == 300.0);
  CHECK(t.nnz() == 3);
  // Any rank: a vector, a matrix, a 5-tensor.
  CHECK(tns("3 7\n1 1\n").shape == std::vector<int64_t>{3});
  CHECK(tns("3 2 7\n").format == Format::coo(2));
  CHECK(tns("1 2 3 4 5 0.5\n").shape == std::vector<int64_t>{1, 2, 3, 4, 5});
}

TEST_CASE("frostt: into any format and ordering, duplicates summed in file order, explicit zeros kept") {
  const std::string text = "2 1 3 1\n1 2 1 0\n2 1 3 2.5\n1 1 2 -1\n2 2 2 4\n1 1 2 1\n";
  const SparseTensor coo = tns(text);
  CHECK(coo.nnz() == 4);  // (2,1,3) = 3.5 and (1,1,2) = -1 + 1 = 0; (1,2,1) = 0 is kept
  for (const char* f : {"csf", "coo", "dense", "sss:1,0,2", "ucq:2,0,1", "dsd:2,1,0"}) {
    CAPTURE(f);
    const Format format = react::parseFormat(f, 3);
    const SparseTensor t = tns(text, format);
    CHECK(t.format == format);
    CHECK(t == react::convertFormat(coo, format));
    CHECK(react::sparseToDense(t).at({1, 0, 2}) == 3.5);
  }
  CHECK_FALSE(react::sparseToDense(coo).data == std::vector<double>(12, 0.0));
}

TEST_CASE("frostt: a given shape bounds the coordinates, a format gives the rank of an empty file") {
  const SparseTensor t = tns("1 2 1\n", Format::csr(), {4, 5});
  CHECK(t.shape == std::vector<int64_t>{4, 5});
  CHECK(t.levels[1].pos == std::vector<int64_t>{0, 1, 1, 1, 1});
  CHECK(tns("", Format(), {2, 3}).shape == std::vector<int64_t>{2, 3});
  CHECK(tns("# no entries\n", Format::csf(3)).shape == std::vector<int64_t>{0, 0, 0});
  CHECK(tns("1 1 1\n", Format(), {1, 1}).format == Format::coo(2));
}

TEST_CASE("frostt: written and read back in any format, float32 values exactly") {
  const std::string path = scratch("roundtrip.tns");
  for (const char* f : {"coo", "csf", "sss:2,1,0", "dss"}) {
    CAPTURE(f);
    const Format format = react::parseFormat(f, 3);
    SparseTensor t = tns("1 1 1 0.1\n3 2 1 1e-30\n2 2 5 -7\n3 1 1 0\n", format, {4, 2, 6});
    react::writeFrostt(path, t);
    CHECK(react::readFrostt(path, format, react::ValueType::Float64, t.shape) == t);
    t.setValueType(react::ValueType::Float32);
    react::writeFrostt(path, t);
    CHECK(react::readFrostt(path, format, react::ValueType::Float32, t.shape) == t);
  }
  std::remove(path.c_str());
  CHECK_THROWS_WITH_AS(react::readFrostt("/nonexistent/x.tns", Format()), doctest::Contains("/nonexistent/x.tns"),
                       react::UserError);
  CHECK_THROWS_WITH_AS(react::writeFrostt("/nonexistent/y.tns", tns("1 1\n")), doctest::Contains("/nonexistent/y.tns"),
                       react::UserError);
}

// ---------------------------------------------------------------------------------------------
// Malformed input: every error names the file, the line and what was expected.
TEST_CASE("frostt malformed: no entry to take the rank from") {
  CHECK(errorOf("") == "t.tns:1: expected an entry (1-based coordinates and a value), got end of file");
  CHECK(errorOf("# only\n\n  \n") == "t.tns:4: expected an entry (1-based coordinates and a value), got end of file");
  CHECK(errorOf("\n5\n") == "t.tns:2: expected at least one coordinate and a value, got 1 field");
}

TEST_CASE("frostt malformed: a line of another rank") {
  CHECK(errorOf("1 1 1 1\n# c\n1 1 1\n") ==
        "t.tns:3: expected 3 coordinates and a value (as the first entry, line 1, has), got 3 fields");
  CHECK(errorOf("\n1 1 1\n1 1 1 1 1\n") ==
        "t.tns:3: expected 2 coordinates and a value (as the first entry, line 2, has), got 5 fields");
  CHECK(errorOf("1 1 1 1\n2 2", Format()) ==
        "t.tns:2: expected 3 coordinates and a value (as the first entry, line 1, has), got 2 fields");
  CHECK(errorOf("1 1 1 1\n1 1 1 1 # a comment\n") ==
        "t.tns:2: expected 3 coordinates and a value (as the first entry, line 1, has), got 7 fields");
  CHECK(errorOf("1 1 1 # a comment\n") == "t.tns:1: expected coordinate 4 of 5 (a positive integer), got '#'");
  CHECK(errorOf("1 1 2.5\n", Format::csf(3)) ==
        "t.tns:1: expected 3 coordinates and a value (format csf is of rank 3), got 3 fields");
  CHECK(errorOf("1 1 1 2.5\n", Format(), {2, 2}) ==
        "t.tns:1: expected 2 coordinates and a value (the given shape is 2 x 2), got 4 fields");
  CHECK(errorOf("1 1 1\n", Format::coo(1)) ==
        "t.tns:1: expected 1 coordinate and a value (format s is of rank 1), got 3 fields");
}

TEST_CASE("frostt malformed: coordinates zero, negative, not integers, beyond the range") {
  CHECK(errorOf("1 1 1 1\n1 0 1 1\n") == "t.tns:2: expected coordinate 2 of 3 in 1..2147483647, got '0'");
  CHECK(errorOf("1 -1 1 1\n") == "t.tns:1: expected coordinate 2 of 3 (a positive integer), got '-1'");
  CHECK(errorOf("1 1.0 1 1\n") == "t.tns:1: expected coordinate 2 of 3 (a positive integer), got '1.0'");
  CHECK(errorOf("1 1 x 1\n") == "t.tns:1: expected coordinate 3 of 3 (a positive integer), got 'x'");
  CHECK(errorOf("1 1 1e3 1\n") == "t.tns:1: expected coordinate 3 of 3 (a positive integer), got '1e3'");
  CHECK(errorOf("2147483648 1 1\n") == "t.tns:1: expected coordinate 1 of 2 in 1..2147483647, got '2147483648'");
  CHECK(errorOf("99999999999999999999 1 1\n") ==
        "t.tns:1: expected coordinate 1 of 2 in 1..2147483647, got '99999999999999999999'");
  CHECK(errorOf("1 1 1\n3 4 1\n", Format(), {3, 3}) == "t.tns:2: expected coordinate 2 of 2 in 1..3, got '4'");
  CHECK(errorOf("1 1 1\n", Format(), {0, 3}) ==
        "t.tns:1: expected coordinate 1 of 2 (none: mode 1 of the given shape is empty), got '1'");
  CHECK(tns("2147483647 1\n").shape == std::vector<int64_t>{2147483647});
}

TEST_CASE("frostt malformed: values that are not numbers, beyond double or float32") {
  CHECK(errorOf("1 1 abc\n") == "t.tns:1: expected a real number, got 'abc'");
  CHECK(errorOf("1 1 1.5x\n") == "t.tns:1: expected a real number, got '1.5x'");
  CHECK(errorOf("1 1 1e999\n") == "t.tns:1: expected a real number within the range of double, got '1e999'");
  CHECK(errorOf("1 1 1e39\n", Format(), {}, react::ValueType::Float32) ==
        "t.tns:1: expected a real number within the range of float32, got '1e39'");
  CHECK(tns("1 1 1e39\n").val == std::vector<double>{1e39});
  CHECK(tns("1 1 1e-999\n").val == std::vector<double>{0.0});  // underflow is zero, as in Matrix Market
}

TEST_CASE("frostt malformed: a shape or format that disagrees, entries the format cannot store") {
  CHECK(errorOf("1 1 1 1\n", Format::csr(), {2, 3, 4}) ==
        "t.tns: format csr is of rank 2, the given shape 2 x 3 x 4 of rank 3");
  CHECK(errorOf("1 1 1\n", Format(), {-1, 2}) ==
        "t.tns: mode 1 of the given shape -1 x 2 is -1, expected 0..2147483647");
  CHECK(errorOf("1 1 1\n1 2 1\n", react::parseFormat("sq", 2)) ==
        "t.tns: format sq cannot store these entries: its level 1 (singleton) needs exactly one entry under each "
        "position of the level above, and (0, *) has 2");
  CHECK(errorOf("2000000000 2000000000 2000000000 1\n", Format::dense(3)) ==
        "t.tns: level 1 (dense) of 2000000000 x 2000000000 positions needs more than 2^63 bytes");
}

TEST_CASE("frostt: a line of thousands of coordinates among many blank lines takes memory in proportion to the text") {
  std::string line;
  for (int d = 0; d < 3000; ++d) line += "1 ";
  const SparseTensor t = tns(line + "2.5\n" + std::string(200000, '\n') + line + "1\n");
  CHECK(t.rank() == 3000);
  CHECK(t.nnz() == 1);  // the two entries are one, summed
  CHECK(t.val == std::vector<double>{3.5});
}

TEST_CASE("frostt: errors in large inputs are reported at the same line whatever the thread count") {
  // About 2 MB: parsed in several chunks where there are several threads.
  const int n = 150000;
  std::string body;
  for (int i = 1; i <= n; ++i) body += std::to_string(i) + " " + std::to_string(i % 7 + 1) + " 0.5\n";
  CHECK(tns(body).nnz() == n);
  std::string broken = body;
  broken.replace(broken.find("\n120000 "), 8, "\n12x000 ");
  CHECK(errorOf(broken) == "t.tns:120000: expected coordinate 1 of 2 (a positive integer), got '12x000'");
  CHECK(errorOf("1 1 1 1\n" + body) ==
        "t.tns:2: expected 3 coordinates and a value (as the first entry, line 1, has), got 3 fields");
  CHECK(errorOf(body + "1 1 1 1\n") == "t.tns:" + std::to_string(n + 1) +
                                          ": expected 2 coordinates and a value (as the first entry, line 1, has), "
                                          "got 4 fields");
}
