// The benchmark kernels as operator-form programs, their inputs and their useful work.
#include "bench/bench.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace react::bench {

std::string BenchKernel::label() const { return dims.empty() ? name : name + " " + dims; }
std::string BenchKernel::storage() const { return format.str() + " " + toString(valueType); }

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
        k.format = Format::csf(3);
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

std::vector<Format> parseMatrixFormats(const std::string& list, const std::string& argument) {
  std::vector<Format> formats;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    if (item != "csr" && item != "csc" && item != "dcsr")
      throw UserError(argument + ": unknown format '" + item + "' (expected a comma list of csr, csc, dcsr)");
    Format f = parseFormat(item, 2);
    if (std::find(formats.begin(), formats.end(), f) == formats.end()) formats.push_back(f);
  }
  if (formats.empty()) throw UserError(argument + ": expected a comma list of csr, csc, dcsr");
  return formats;
}

std::vector<ValueType> parseValueTypes(const std::string& list, const std::string& argument) {
  std::vector<ValueType> types;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    ValueType t = parseValueType(item, argument);
    if (std::find(types.begin(), types.end(), t) == types.end()) types.push_back(t);
  }
  if (types.empty()) throw UserError(argument + ": expected a comma list of float64, float32");
  return types;
}

std::vector<BenchKernel> inStorages(const std::vector<BenchKernel>& kernels, const std::vector<Format>& formats,
                                    const std::vector<ValueType>& types) {
  std::vector<BenchKernel> out;
  for (const BenchKernel& k : kernels) {
    const std::vector<Format> own = k.tensor() ? std::vector<Format>{k.format} : formats;
    for (const Format& f : own)
      for (ValueType t : types) {
        BenchKernel stored = k;
        stored.format = f;
        stored.valueType = t;
        out.push_back(stored);
      }
  }
  return out;
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

// S read once: the values (`valueBytes` each), every compressed level's positions (8 bytes) and
// coordinates (4 bytes); csr float64: 12 nnz + 8 (NI + 1), as before the tensor kernels.
double sparseBytes(const TensorData& s, double valueBytes) {
  double bytes = valueBytes * static_cast<double>(valuesOf(s).size());
  if (const CsrMatrix* m = std::get_if<CsrMatrix>(&s)) return bytes + 4.0 * static_cast<double>(m->nnz()) + 8.0 * static_cast<double>(m->rows + 1);
  for (const LevelArrays& l : std::get<SparseTensor>(s).levels)
    bytes += 8.0 * static_cast<double>(l.pos.size()) + 4.0 * static_cast<double>(l.crd.size());
  return bytes;
}

}  // namespace

std::string inputMismatch(const BenchKernel& k, const TensorData& s) {  // S as loaded
  if (!k.tensor() && !std::holds_alternative<CsrMatrix>(s))
    return k.label() + " takes a csr matrix S (--matrix FILE.mtx or --synthetic), got " + describedInput(s);
  if (k.tensor() && !(std::holds_alternative<SparseTensor>(s) && formatOf(s) == Format::csf(3)))
    return k.label() + " takes a csf 3-tensor S (--tensor or --matrix FILE.tns), got " + describedInput(s);
  return "";
}

TensorData storedAs(const BenchKernel& k, const TensorData& loaded) {
  requireFits(k, loaded);
  TensorData s = loaded;
  if (formatOf(s) != k.format) s = convertFormat(csrToSparse(std::get<CsrMatrix>(loaded)), k.format);
  setValueType(s, k.valueType);
  return s;
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
  // The values drawn in csr (the same in every format), then stored and rounded as k reads them.
  inputs["S"] = storedAs(k, inputs.at("S"));
  for (const DenseInput& d : denseInputs(k, input)) {
    DenseTensor dense = randomDense(d.shape, d.seed);
    dense.setValueType(k.valueType);
    inputs[d.name] = std::move(dense);
  }
  return inputs;
}

Program kernelProgram(const BenchKernel& k, const TensorData& s) {
  if (formatOf(s) != k.format) requireFits(k, s);  // S as loaded, else in k's storage
  Environment env;
  env.declare("S", shapeOf(s), k.format, k.valueType);
  for (const DenseInput& d : denseInputs(k, s)) env.declare(d.name, d.shape, Format::dense(2), k.valueType);
  const std::vector<int64_t> shape = shapeOf(s);
  if (k.name == "ttm") env.declare("A", {shape[0], shape[1], k.rank}, ttmResultFormat(), k.valueType);
  return withValueTypes(parseProgram(k.text, env), {{"A", k.valueType}});
}

std::string programRefusal(const BenchKernel& k, const TensorData& s) {
  try {
    kernelProgram(k, s);
    return "";
  } catch (const UserError& e) {
    return e.what();
  }
}

std::map<std::string, double> levelSymbols(const TensorData& s) {
  std::map<std::string, double> symbols;
  if (const SparseTensor* t = std::get_if<SparseTensor>(&s))
    for (int l = 0; l + 1 < t->rank(); ++l)
      if (t->format.levels()[l].storesCoordinates())  // csc's dense level 0 has none (the cost counts N)
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

Format ttmResultFormat() { return Format({Level::compressed(), Level::compressed(), Level::dense()}); }

double outputBytes(const BenchKernel& k, const TensorData& s, bool dense) {
  const std::vector<int64_t> shape = shapeOf(s);
  const double vb = static_cast<double>(valueBytes(k.valueType)), r = static_cast<double>(k.rank);
  if (k.name == "ttm" && dense) return vb * static_cast<double>(shape[0]) * static_cast<double>(shape[1]) * r;
  if (k.name == "ttm") return vb * static_cast<double>(fibreStats(std::get<SparseTensor>(s)).fibres) * r;
  if (k.name == "mttkrp") return vb * static_cast<double>(shape[0]) * r;
  return 0;
}

WorkModel usefulWork(const BenchKernel& k, const TensorData& input) {
  if (formatOf(input) != k.format) requireFits(k, input);  // S as loaded, else in k's storage
  const double vb = static_cast<double>(valueBytes(k.valueType));
  const double sparseRead = sparseBytes(input, vb);
  const std::vector<int64_t> shape = shapeOf(input);
  const double nnz = static_cast<double>(valuesOf(input).size()), ni = static_cast<double>(shape[0]);
  if (k.tensor()) {
    const SparseTensor& t = std::get<SparseTensor>(input);
    const double r = static_cast<double>(k.rank), n1 = static_cast<double>(shape[1]), n2 = static_cast<double>(shape[2]);
    if (k.name == "mttkrp") {  // the sum over l per fibre (2R per entry), times C(k,j) once per fibre (2R)
      const double fibres = static_cast<double>(fibreStats(t).fibres);
      return {2 * r * (nnz + fibres), sparseRead + vb * r * (n1 + n2) + vb * ni * r};
    }
    return {2 * r * nnz, sparseRead + vb * r * n2 + outputBytes(k, input)};  // ttm: a row of A per (i,j) fibre
  }
  const double nj = static_cast<double>(shape[1]);
  const double sparseWrite = nnz * vb;  // values of A (S's pattern)
  if (k.name == "sddmm") {
    double K = static_cast<double>(k.k);
    return {nnz * (2 * K + 1), sparseRead + (ni + nj) * K * vb + sparseWrite};
  }
  if (k.name == "spmm_mm") {
    double nh = static_cast<double>(k.nh), nJ = static_cast<double>(k.nj);
    return {2 * nnz * nh + 2 * ni * nh * nJ, sparseRead + (nj * nh + nh * nJ) * vb + ni * nJ * vb};
  }
  if (k.name == "norm_row") return {2 * nnz, sparseRead + sparseWrite};  // sum, divide
  return {3 * nnz, sparseRead + sparseWrite};                             // softmax: exp, sum, divide
}

}  // namespace react::bench
