// Sizes from user input that do not fit: every one is a react::UserError naming what needed the memory
// and how much (formats.hpp, "Sizes"), never a crash, a wrapped-around size or an uncaught
// std::bad_alloc (in an OpenMP region, std::terminate).
#include "support.hpp"

#include "formats/formats.hpp"

#include "indexnotation_test_util.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

using namespace react;
using react::test::errorOf;

namespace {

test::CommandResult reactGen(const std::string& args, const std::string& before = "") {
  return test::runCommand(before + std::string(REACT_BINARY_DIR) + "/bin/react-gen " + args + " -cache-dir=" +
                          REACT_BINARY_DIR + "/jit-cache 2>&1");
}

// AddressSanitizer aborts on an allocation it cannot serve instead of throwing std::bad_alloc, and
// reserves more address space than a `ulimit -v` leaves: the cases that really fail to allocate
// run in the release build only.
#ifdef __SANITIZE_ADDRESS__
constexpr bool kAllocationFailuresThrow = false;
#else
constexpr bool kAllocationFailuresThrow = true;
#endif

}  // namespace

TEST_CASE("sizes: element and byte counts are checked for overflow") {
  CHECK(checkedElementCount({3, 4}, 8, "x") == 12);
  CHECK(checkedElementCount({int64_t{1} << 62, 0}, 8, "x") == 0);  // empty, however large the rest
  CHECK(errorOf([] { checkedElementCount({int64_t{1} << 30, int64_t{1} << 30}, 8, "tensor 'X'"); }) ==
        "tensor 'X' needs more than 2^63 bytes");
  CHECK(bytesText(24) == "24 bytes");
  CHECK(bytesText(int64_t{16} << 30) == "16 GiB");
  CHECK(bytesText(int64_t{3} << 19) == "1.5 MiB");
}

TEST_CASE("sizes: a dense tensor whose size overflows, or cannot be allocated, names itself") {
  CHECK(errorOf([] { DenseTensor({int64_t{1} << 32, int64_t{1} << 32}, 0.0, "B"); }) ==
        "tensor 'B' (4294967296 x 4294967296 doubles) needs more than 2^63 bytes");
  CHECK(errorOf([] { randomDense({int64_t{1} << 32, int64_t{1} << 32}, 1); }) ==
        "a dense tensor (4294967296 x 4294967296 doubles) needs more than 2^63 bytes");
  if (kAllocationFailuresThrow)  // 2^60 bytes: more than any address space
    CHECK(errorOf([] { randomDense({int64_t{1} << 27, int64_t{1} << 30}, 1, "C"); }) ==
          "tensor 'C' (134217728 x 1073741824 doubles) needs 1.0 EiB: cannot allocate");
}

TEST_CASE("sizes: a Matrix Market array larger than 2^63 bytes is an error at its size line") {
  CHECK(errorOf([] { parseMatrixMarket("%%MatrixMarket matrix array real general\n2147483647 2147483647\n", "a.mtx"); }) ==
        "tensor 'a.mtx' (2147483647 x 2147483647 doubles) needs more than 2^63 bytes");
}

TEST_CASE("sizes: an empty matrix of many rows needs only its row positions") {
  const int64_t rows = 20000000;  // 160 MB of row positions
  MarketData d = parseMatrixMarket("%%MatrixMarket matrix coordinate real general\n" + std::to_string(rows) + " 3 1\n" +
                                       std::to_string(rows) + " 2 5\n",
                                   "tall.mtx");
  const CsrMatrix& m = std::get<CsrMatrix>(d);
  CHECK(m.rows == rows);
  CHECK(m.rowptr.size() == static_cast<size_t>(rows + 1));
  CHECK(m.rowptr[rows - 1] == 0);
  CHECK(m.rowptr[rows] == 1);
  CHECK(m.col == std::vector<int32_t>{1});
}

TEST_CASE("react-gen: a 2^31-row matrix that does not fit is an error naming the file") {
  if (!kAllocationFailuresThrow) return;
  const std::string path = std::string(REACT_BINARY_DIR) + "/sizes-2g-rows.mtx";
  std::ofstream(path) << "%%MatrixMarket matrix coordinate real general\n2147483647 2147483647 0\n";
  // 8 GB of address space: the 16 GiB of row positions cannot be allocated on any machine.
  test::CommandResult r = reactGen("'A = S * (B @ C)' -i=S:" + path + " -g=B:u -g=C:u -d=k:4", "ulimit -v 8000000; ");
  INFO(r.output);
  CHECK(r.status == 1);
  CHECK(r.output.find("react-gen: argument '-i=S:" + path + "': " + path + ": the row position array of 2147483647 rows needs 16 GiB: cannot allocate") !=
        std::string::npos);
  std::filesystem::remove(path);
}

TEST_CASE("react-gen: dense sizes that overflow or cannot be allocated name the tensor") {
  test::CommandResult r = reactGen("'A(i,j) = B(i,j) * 2' -g=B:u -d=i:4294967296 -d=j:4294967296");
  INFO(r.output);
  CHECK(r.status == 1);
  CHECK(r.output.find("react-gen: tensor 'B' (4294967296 x 4294967296 doubles) needs more than 2^63 bytes") !=
        std::string::npos);
  if (!kAllocationFailuresThrow) return;
  test::CommandResult big = reactGen("'A(i,j) = B(i,k) * C(k,j)' -g=B:u -g=C:u -d=i:10000000 -d=j:10 -d=k:99999999999");
  INFO(big.output);
  CHECK(big.status == 1);
  CHECK(big.output.find("react-gen: tensor 'B' (10000000 x 99999999999 doubles) needs 6.9 EiB: cannot allocate") !=
        std::string::npos);
}
