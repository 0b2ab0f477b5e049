// libFuzzer target: parseFrostt on arbitrary text. react::UserError is an expected outcome; a
// tensor that is returned must be valid, and the same tensor in csf of the reversed mode order
// (and, where it is small, as a dense tensor) must hold the same values.
#include "formats/formats.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

namespace {

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "%s\n", what.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  react::SparseTensor coo;
  try {
    coo = react::parseFrostt(text, "fuzz", react::Format());
  } catch (const react::UserError&) {
    return 0;
  }
  try {
    coo.validate();
    std::vector<int> reversed(static_cast<size_t>(coo.rank()));
    std::iota(reversed.rbegin(), reversed.rend(), 0);
    const react::Format csf(react::Format::csf(coo.rank()).levels(), reversed);
    const react::SparseTensor t = react::convertFormat(coo, csf);
    t.validate();
    if (t.nnz() != coo.nnz())
      finding("csf holds " + std::to_string(t.nnz()) + " values, coo " + std::to_string(coo.nnz()));
    // Every element's value, where there are few elements (the largest coordinate sets the size).
    int64_t elements = 1;
    for (int64_t n : coo.shape)
      if (__builtin_mul_overflow(elements, n, &elements) || elements > 4096) return 0;
    const react::DenseTensor d = react::sparseToDense(coo);
    for (const react::SparseTensor& s : {t, react::convertFormat(coo, react::Format::dense(coo.rank()))}) {
      const react::DenseTensor e = react::sparseToDense(s);
      for (size_t i = 0; i < d.data.size(); ++i)
        if (!(d.data[i] == e.data[i] || (d.data[i] != d.data[i] && e.data[i] != e.data[i])))
          finding("format " + s.format.str() + " changed element " + std::to_string(i));
    }
  } catch (const react::UserError& e) {
    finding(std::string("a tensor the reader returned was refused: ") + e.what());
  }
  return 0;
}
