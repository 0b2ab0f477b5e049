// libFuzzer target: parseMatrixMarket on arbitrary text. react::UserError is an expected outcome; a
// matrix that is returned must satisfy the CSR invariants (validate) or the declared dense shape.
#include "formats/formats.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

// A coordinate file declaring N rows makes the reader allocate N+1 row positions before it has
// seen one entry: that is CSR, not a bug, but N up to 2^31 exceeds the fuzzer's memory limit. The
// size line is found as the reader finds it (after the banner, comment and blank lines); inputs
// declaring more than 2^20 rows are skipped (every other value still reaches the reader).
bool declaresHugeRows(const std::string& text) {
  size_t p = text.find('\n');
  while (p != std::string::npos && p + 1 < text.size()) {
    size_t q = text.find_first_not_of(" \t\r", p + 1);
    if (q == std::string::npos) return false;
    if (text[q] != '%' && text[q] != '\n') {
      size_t end = text.find_first_not_of("0123456789", q);
      return (end == std::string::npos ? text.size() : end) - q > 7 || std::stoull("0" + text.substr(q, end - q)) > (1u << 20);
    }
    p = text.find('\n', q);
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (declaresHugeRows(text)) return 0;
  react::MarketData m;
  try {
    m = react::parseMatrixMarket(text, "fuzz");
  } catch (const react::UserError&) {
    return 0;
  }
  if (const react::CsrMatrix* csr = std::get_if<react::CsrMatrix>(&m)) {
    try {
      csr->validate();
    } catch (const react::UserError& e) {
      std::fprintf(stderr, "reader returned an invalid csr matrix: %s\n", e.what());
      std::abort();
    }
  } else {
    const react::DenseTensor& d = std::get<react::DenseTensor>(m);
    if (d.rank() != 2 || static_cast<int64_t>(d.data.size()) != d.shape[0] * d.shape[1]) {
      std::fprintf(stderr, "reader returned a dense tensor of the wrong size\n");
      std::abort();
    }
  }
  return 0;
}
