// The benchmark kernels as operator-form programs, their inputs and their useful work.
#include "bench/bench.hpp"

#include <algorithm>

namespace react::bench {

std::string BenchKernel::label() const { return dims.empty() ? name : name + " " + dims; }

const std::vector<std::string>& kernelNames() {
  static const std::vector<std::string> names{"sddmm", "spmm_mm", "norm_row", "softmax"};
  return names;
}

std::vector<BenchKernel> benchmarkKernels(const std::vector<std::string>& names, const DenseSizes& sizes) {
  std::vector<std::string> wanted;
  for (const std::string& n : names) {
    if (n == "all") {
      wanted.insert(wanted.end(), kernelNames().begin(), kernelNames().end());
      continue;
    }
    if (std::find(kernelNames().begin(), kernelNames().end(), n) == kernelNames().end())
      throw UserError("unknown kernel '" + n + "' (expected sddmm, spmm_mm, norm_row, softmax or all)");
    wanted.push_back(n);
  }
  std::vector<BenchKernel> kernels;
  for (const std::string& name : kernelNames()) {
    if (std::find(wanted.begin(), wanted.end(), name) == wanted.end()) continue;
    if (name == "sddmm") {
      for (int64_t k : sizes.sddmmK) kernels.push_back({name, "K=" + std::to_string(k), "A = S * (B @ C)", k, 0, 0});
    } else if (name == "spmm_mm") {
      kernels.push_back({name, "NH=" + std::to_string(sizes.nh) + " NJ=" + std::to_string(sizes.nj), "A = S @ C @ D", 0,
                         sizes.nh, sizes.nj});
    } else if (name == "norm_row") {
      kernels.push_back({name, "", "A = S / sum(S, axis=1)", 0, 0, 0});
    } else {
      kernels.push_back({name, "", "A = exp(S) / sum(exp(S), axis=1)", 0, 0, 0});
    }
  }
  return kernels;
}

namespace {

// The dense inputs of a kernel: name, shape, seed.
struct DenseInput {
  std::string name;
  std::vector<int64_t> shape;
  uint64_t seed;
};

std::vector<DenseInput> denseInputs(const BenchKernel& k, const CsrMatrix& s) {
  if (k.name == "sddmm") return {{"B", {s.rows, k.k}, 1}, {"C", {k.k, s.cols}, 2}};
  if (k.name == "spmm_mm") return {{"C", {s.cols, k.nh}, 3}, {"D", {k.nh, k.nj}, 4}};
  return {};
}

}  // namespace

TensorValues kernelInputs(const BenchKernel& k, const CsrMatrix& s) {
  TensorValues inputs;
  if (k.name == "norm_row" || k.name == "softmax") {
    // Row sums of signed values cancel (bayer10 has rows summing to rounding noise) and exp
    // overflows on large entries (bcsstk16): no two summation orders would agree. The kernels'
    // cost does not depend on the values, so these two read S's pattern with values in [0.5, 1.5).
    CsrMatrix positive = s;
    std::vector<double> u = randomDense({s.nnz()}, 5).data;
    for (int64_t p = 0; p < s.nnz(); ++p) positive.val[p] = 0.5 + u[p];
    inputs["S"] = std::move(positive);
  } else {
    inputs["S"] = s;
  }
  for (const DenseInput& d : denseInputs(k, s)) inputs[d.name] = randomDense(d.shape, d.seed);
  return inputs;
}

Program kernelProgram(const BenchKernel& k, const CsrMatrix& s) {
  Environment env;
  env.declare("S", {s.rows, s.cols}, Format::csr());
  for (const DenseInput& d : denseInputs(k, s)) env.declare(d.name, d.shape, Format::dense(2));
  return parseProgram(k.text, env);
}

WorkModel usefulWork(const BenchKernel& k, const CsrMatrix& s) {
  const double nnz = static_cast<double>(s.nnz()), ni = static_cast<double>(s.rows), nj = static_cast<double>(s.cols);
  const double sparseRead = nnz * (8 + 4) + (ni + 1) * 8;  // values, columns, row positions
  const double sparseWrite = nnz * 8;                       // values of A (S's pattern)
  if (k.name == "sddmm") {
    double K = static_cast<double>(k.k);
    return {nnz * (2 * K + 1), sparseRead + (ni + nj) * K * 8 + sparseWrite};
  }
  if (k.name == "spmm_mm") {
    double nh = static_cast<double>(k.nh), nJ = static_cast<double>(k.nj);
    return {2 * nnz * nh + 2 * ni * nh * nJ, sparseRead + (nj * nh + nh * nJ) * 8 + ni * nJ * 8};
  }
  if (k.name == "norm_row") return {2 * nnz, sparseRead + sparseWrite};  // sum, divide
  return {3 * nnz, sparseRead + sparseWrite};                             // softmax: exp, sum, divide
}

}  // namespace react::bench
