// The benchmark kernels as operator-form programs, their inputs and their useful work.
#include "bench/bench.hpp"

#include <algorithm>
#include <cstdio>

namespace react::bench {

std::string BenchKernel::label() const { return dims.empty() ? name : name + " " + dims; }

const std::vector<std::string>& kernelNames() {
  static const std::vector<std::string> names{"sddmm", "spmm_mm", "norm_row", "softmax", "mttkrp", "ttm"};
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
      throw UserError("unknown kernel '" + n + "' (expected sddmm, spmm_mm, norm_row, softmax, mttkrp, ttm or all)");
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
    } else if (name == "mttkrp" || name == "ttm") {
      // MTTKRP written with D first: react's fusion then sums B(i,k,l) * D(l,j) over each (i,k)
      // fibre and multiplies C(k,j) once per fibre (docs/formats.md); B is the harness's S.
      const char* text = name == "mttkrp" ? "A(i,j) = S(i,k,l) * D(l,j) * C(k,j)" : "A(i,j,l) = S(i,j,k) * C(k,l)";
      for (int64_t r : sizes.ranks) {
        BenchKernel k{name, "R=" + std::to_string(r), text};
        k.rank = r;
        kernels.push_back(k);
      }
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

std::vector<DenseInput> denseInputs(const BenchKernel& k, const TensorData& s) {
  const std::vector<int64_t> shape = shapeOf(s);
  if (k.name == "sddmm") return {{"B", {shape[0], k.k}, 1}, {"C", {k.k, shape[1]}, 2}};
  if (k.name == "spmm_mm") return {{"C", {shape[1], k.nh}, 3}, {"D", {k.nh, k.nj}, 4}};
  if (k.name == "mttkrp") return {{"C", {shape[1], k.rank}, 6}, {"D", {shape[2], k.rank}, 7}};
  if (k.name == "ttm") return {{"C", {shape[2], k.rank}, 8}};
  return {};
}

void requireFits(const BenchKernel& k, const TensorData& s) {
  if (std::string why = inputMismatch(k, s); !why.empty()) throw UserError(why);
}

std::string describedInput(const TensorData& s) {
  std::string text = formatOf(s).str() + " ";
  const std::vector<int64_t> shape = shapeOf(s);
  for (size_t d = 0; d < shape.size(); ++d) text += (d ? "x" : "") + std::to_string(shape[d]);
  return text;
}

// S read once: the values (8 bytes), every compressed level's positions (8 bytes) and coordinates
// (4 bytes); csr: 12 nnz + 8 (NI + 1), as before the tensor kernels.
double sparseBytes(const TensorData& s) {
  double bytes = 8.0 * static_cast<double>(valuesOf(s).size());
  if (const CsrMatrix* m = std::get_if<CsrMatrix>(&s)) return bytes + 4.0 * static_cast<double>(m->nnz()) + 8.0 * static_cast<double>(m->rows + 1);
  for (const LevelArrays& l : std::get<SparseTensor>(s).levels)
    bytes += 8.0 * static_cast<double>(l.pos.size()) + 4.0 * static_cast<double>(l.crd.size());
  return bytes;
}

}  // namespace

std::string inputMismatch(const BenchKernel& k, const TensorData& s) {
  if (!k.tensor() && !std::holds_alternative<CsrMatrix>(s))
    return k.label() + " takes a csr matrix S (--matrix FILE.mtx or --synthetic), got " + describedInput(s);
  if (k.tensor() && !(std::holds_alternative<SparseTensor>(s) && formatOf(s) == Format::csf(3)))
    return k.label() + " takes a csf 3-tensor S (--tensor or --matrix FILE.tns), got " + describedInput(s);
  return "";
}

TensorValues kernelInputs(const BenchKernel& k, const TensorData& input) {
  requireFits(k, input);
  TensorValues inputs;
  if (k.name == "norm_row" || k.name == "softmax") {
    const CsrMatrix& s = std::get<CsrMatrix>(input);
    // Row sums of signed values cancel (bayer10 has rows summing to rounding noise) and exp
    // overflows on large entries (bcsstk16): no two summation orders would agree. The kernels'
    // cost does not depend on the values, so these two read S's pattern with values in [0.5, 1.5).
    CsrMatrix positive = s;
    std::vector<double> u = randomDense({s.nnz()}, 5).data;
    for (int64_t p = 0; p < s.nnz(); ++p) positive.val[p] = 0.5 + u[p];
    inputs["S"] = std::move(positive);
  } else {
    inputs["S"] = input;
  }
  for (const DenseInput& d : denseInputs(k, input)) inputs[d.name] = randomDense(d.shape, d.seed);
  return inputs;
}

Program kernelProgram(const BenchKernel& k, const TensorData& s) {
  requireFits(k, s);
  Environment env;
  env.declare("S", shapeOf(s), formatOf(s));
  for (const DenseInput& d : denseInputs(k, s)) env.declare(d.name, d.shape, Format::dense(2));
  return parseProgram(k.text, env);
}

std::map<std::string, double> levelSymbols(const TensorData& s) {
  std::map<std::string, double> symbols;
  if (const SparseTensor* t = std::get_if<SparseTensor>(&s))
    for (int l = 0; l + 1 < t->rank(); ++l)
      symbols["nnz" + std::to_string(l) + "(S)"] = static_cast<double>(t->levels[l].crd.size());
  return symbols;
}

FibreStats fibreStats(const SparseTensor& csf) {
  FibreStats f;
  f.slices = static_cast<int64_t>(csf.levels[0].crd.size());
  f.fibres = static_cast<int64_t>(csf.levels[1].crd.size());
  f.entries = csf.nnz();
  const std::vector<int64_t>& pos = csf.levels[2].pos;
  for (size_t p = 0; p + 1 < pos.size(); ++p) f.longestFibre = std::max(f.longestFibre, pos[p + 1] - pos[p]);
  return f;
}

std::string FibreStats::str() const {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%lld slices, %lld fibres (mean length %.2f, longest %lld)", (long long)slices,
                (long long)fibres, meanFibre(), (long long)longestFibre);
  return buf;
}

double denseOutputBytes(const BenchKernel& k, const TensorData& s) {
  const std::vector<int64_t> shape = shapeOf(s);
  if (k.name == "ttm") return 8.0 * static_cast<double>(shape[0]) * static_cast<double>(shape[1]) * static_cast<double>(k.rank);
  if (k.name == "mttkrp") return 8.0 * static_cast<double>(shape[0]) * static_cast<double>(k.rank);
  return 0;
}

WorkModel usefulWork(const BenchKernel& k, const TensorData& input) {
  requireFits(k, input);
  const double sparseRead = sparseBytes(input);
  if (k.tensor()) {
    const SparseTensor& t = std::get<SparseTensor>(input);
    const double nnz = static_cast<double>(t.nnz()), r = static_cast<double>(k.rank);
    const double ni = static_cast<double>(t.shape[0]), n1 = static_cast<double>(t.shape[1]), n2 = static_cast<double>(t.shape[2]);
    if (k.name == "mttkrp") {  // the sum over l per fibre (2R per entry), times C(k,j) once per fibre (2R)
      const double fibres = static_cast<double>(fibreStats(t).fibres);
      return {2 * r * (nnz + fibres), sparseRead + 8 * r * (n1 + n2) + 8 * ni * r};
    }
    return {2 * r * nnz, sparseRead + 8 * r * n2 + denseOutputBytes(k, input)};  // ttm: A dense NI x NJ x R
  }
  const CsrMatrix& s = std::get<CsrMatrix>(input);
  const double nnz = static_cast<double>(s.nnz()), ni = static_cast<double>(s.rows), nj = static_cast<double>(s.cols);
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
