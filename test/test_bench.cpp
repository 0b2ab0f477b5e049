// react-bench's harness: the agreement check rejects variants that disagree (directly and end to
// end), the library pipelines agree with react, refusals name their reason, the work model and
// timing statistics; data/suitesparse_fetch.sh verifies archives and fails cleanly offline.
#include "bench/bench.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

using namespace react;
using namespace react::bench;

namespace {

DenseSizes smallSizes() {
  DenseSizes d;
  d.sddmmK = {8};
  d.nh = 12;
  d.nj = 5;
  d.ranks = {3, 8};
  return d;
}

// A small csf 3-tensor with power-law slices and fibres (some empty).
SparseTensor smallTensor(const std::vector<int64_t>& shape, int64_t entries, uint64_t seed) {
  return convertFormat(powerLawTensor(shape, entries, seed), Format::csf(3));
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A fresh folder of the build tree for one test's files.
std::string testDir(const std::string& name) {
  const std::string dir = std::string(REACT_BINARY_DIR) + "/" + name;
  std::filesystem::create_directories(dir);
  return dir;
}

// react-bench with the tests' JIT cache.
const std::string kBench = std::string(REACT_BINARY_DIR) + "/bin/react-bench --cache-dir " + REACT_BINARY_DIR + "/jit-cache";

// The lines of a file (a react-bench CSV) that contain `part`.
int linesContaining(const std::string& path, const std::string& part) {
  std::ifstream file(path);
  int found = 0;
  for (std::string line; std::getline(file, line);) found += contains(line, part) ? 1 : 0;
  return found;
}

// A react-bench command line refused as bad arguments (exit status 1), saying `message`.
void checkRefused(const std::string& command, const std::string& message) {
  test::CommandResult r = test::runCommand(command + " 2>&1");
  INFO(command << "\n" << r.output);
  CHECK(r.status == 1);
  CHECK(contains(r.output, message));
}

}  // namespace

TEST_CASE("bench: compareResults accepts rounding and rejects a changed value, pattern, shape or NaN") {
  CsrMatrix a = test::randomCsr(20, 15, 0.3, 5);
  CsrMatrix noisy = a;
  for (double& v : noisy.val) v *= 1 + 1e-13;
  CHECK(compareResults(noisy, a).ok);

  CsrMatrix changed = a;
  changed.val[3] += 1e-6;
  Agreement bad = compareResults(changed, a);
  CHECK_FALSE(bad.ok);
  CHECK(bad.relativeError > 1e-9);
  CHECK(contains(bad.detail, "largest difference at value 3"));
  CHECK(compareResults(changed, a, 1e-3).ok);

  CsrMatrix other = test::randomCsr(20, 15, 0.3, 6);
  CHECK(contains(compareResults(other, a).detail, "structure differs"));
  CHECK_FALSE(compareResults(csrToDense(a), a).ok);

  DenseTensor d({3, 4}, 1.0), e({4, 3}, 1.0);
  CHECK_FALSE(compareResults(d, e).ok);
  DenseTensor nan = d;
  nan.data[5] = std::nan("");
  CHECK_FALSE(compareResults(nan, d).ok);
  CHECK(compareResults(nan, nan).ok);
}

TEST_CASE("bench: library pipelines, auto and the right-associated variants agree with react-openmp on every kernel") {
  CsrMatrix s = test::randomCsr(40, 30, 0.2, 11);  // every third row empty
  ReactKernels kernels(test::testCache());
  Limits limits;
  for (const BenchKernel& k : benchmarkKernels({"all"}, smallSizes())) {
    if (k.tensor()) continue;  // "bench: mttkrp and ttm ..." below
    TensorValues inputs = kernelInputs(k, s);
    Prepared ref = prepareVariant(parseVariants("react-openmp")[0], k, inputs, kernels, limits);
    REQUIRE(ref.instance);
    ref.instance->run();
    TensorData want = ref.instance->result();
    for (const VariantSpec& v : parseVariants("library-eigen,library-kokkoskernels,auto-openmp,auto-kokkos,react-openmp-right,maximal-openmp-right,react-kokkos-right")) {
      INFO(k.label() << " " << v.name);
      Prepared p = prepareVariant(v, k, inputs, kernels, limits);
      if (v.rightAssociated && k.name != "spmm_mm") {  // only spmm_mm has a product chain
        CHECK(p.cannotRun == "cannot run: no product chain to associate otherwise");
        continue;
      }
      REQUIRE_MESSAGE(p.instance, p.cannotRun);
      p.instance->run();
      p.instance->run();  // outputs are reused: a second run gives the same result
      Agreement a = compareResults(p.instance->result(), want);
      CHECK_MESSAGE(a.ok, a.detail);
    }
  }
}

TEST_CASE("bench: the taco variants agree with react-openmp, or say why they cannot run") {
  CsrMatrix s = test::randomCsr(40, 30, 0.2, 11);  // every third row empty
  ReactKernels kernels(test::testCache());
  for (const BenchKernel& k : benchmarkKernels({"all"}, smallSizes())) {
    if (k.tensor()) continue;  // "bench: mttkrp and ttm ..." below
    TensorValues inputs = kernelInputs(k, s);
    Prepared ref = prepareVariant(parseVariants("react-openmp")[0], k, inputs, kernels, {});
    REQUIRE(ref.instance);
    ref.instance->run();
    TensorData want = ref.instance->result();
    for (const VariantSpec& v : parseVariants("taco-default,taco-best")) {
      INFO(k.label() << " " << v.name);
      Prepared p = prepareVariant(v, k, inputs, kernels, {});
      CHECK(p.performedFlops > 0);
      if (!tacoAvailable()) {
        CHECK(contains(p.cannotRun, "react-bench was built without TACO (configure react with -DREACT_TACO_DIR="));
        continue;
      }
      if (k.name == "sddmm" && v.name == "taco-default") {  // TACO's i,k,j order appends per k
        CHECK(contains(p.cannotRun, "(TACO issue #73)"));
        continue;
      }
      REQUIRE_MESSAGE(p.instance, p.cannotRun);
      CHECK(contains(p.note, "taco "));
      p.instance->run();
      p.instance->run();  // results are overwritten, not accumulated
      Agreement a = compareResults(p.instance->result(), want);
      CHECK_MESSAGE(a.ok, a.detail);
    }
  }
  std::vector<VariantSpec> all = parseVariants("all");
  CHECK(std::any_of(all.begin(), all.end(), [](const VariantSpec& v) { return v.taco; }) == tacoAvailable());
}

TEST_CASE("bench: variants over the memory or flop limit cannot run, and say why") {
  CsrMatrix s = test::randomCsr(40, 30, 0.2, 12);
  ReactKernels kernels(test::testCache());
  BenchKernel sddmm = benchmarkKernels({"sddmm"}, smallSizes())[0];
  TensorValues inputs = kernelInputs(sddmm, s);
  Limits tight;
  tight.maxTemporaryBytes = 1000;  // the 40 x 30 dense product needs 9600 bytes
  Prepared lib = prepareVariant(parseVariants("library-eigen")[0], sddmm, inputs, kernels, tight);
  CHECK_FALSE(lib.instance);
  CHECK(contains(lib.cannotRun, "cannot run: needs 0.0 GB for the dense NI x NJ product B @ C"));
  Prepared none = prepareVariant(parseVariants("none-openmp")[0], sddmm, inputs, kernels, tight);
  CHECK_FALSE(none.instance);
  CHECK(contains(none.cannotRun, "cannot run: needs 0.0 GB for temporaries of NI*NJ doubles"));
  CHECK(none.performedFlops == doctest::Approx(2.0 * 40 * 30 * 8 + s.nnz()));
  Prepared react = prepareVariant(parseVariants("react-openmp")[0], sddmm, inputs, kernels, tight);
  CHECK(react.instance);  // no dense temporary

  Limits fewFlops;
  fewFlops.maxFlops = 10;
  Prepared slow = prepareVariant(parseVariants("react-openmp")[0], sddmm, inputs, kernels, fewFlops);
  CHECK(contains(slow.cannotRun, "cannot run: performs"));
}

TEST_CASE("bench: names, work model and timing statistics") {
  CHECK(parseVariants("all").size() == (tacoAvailable() ? 16u : 14u));
  CHECK(parseVariants("library-eigen,react-openmp")[0].name == "react-openmp");  // report order
  CHECK_THROWS_WITH_AS(parseVariants("react-cuda"), doctest::Contains("unknown variant 'react-cuda'"), UserError);
  CHECK_THROWS_WITH_AS(benchmarkKernels({"spmv"}, {}), doctest::Contains("unknown kernel 'spmv'"), UserError);
  std::vector<BenchKernel> all = benchmarkKernels({"all"}, {});
  REQUIRE(all.size() == 5 + 3 + 3);  // sddmm twice, spmm_mm, norm_row, softmax; mttkrp and ttm at R = 16, 32, 64
  CHECK(all[5].label() == "mttkrp R=16");
  CHECK(all[10].label() == "ttm R=64");
  CHECK(all[0].label() == "sddmm K=64");
  CHECK(all[1].label() == "sddmm K=256");
  CHECK(all[2].label() == "spmm_mm NH=256 NJ=16");

  CsrMatrix s = test::randomCsr(10, 6, 0.5, 3, false);
  const double nnz = static_cast<double>(s.nnz());
  WorkModel w = usefulWork(all[0], s);
  CHECK(w.flops == nnz * 129);
  CHECK(w.bytes == nnz * 20 + 11 * 8 + 16 * 64 * 8);
  WorkModel m = usefulWork(all[2], s);
  CHECK(m.flops == 2 * nnz * 256 + 2 * 10 * 256 * 16);
  CHECK(usefulWork(all[4], s).flops == 3 * nnz);

  CsrMatrix signedS = s;
  signedS.val[0] = -3;
  CHECK(std::get<CsrMatrix>(kernelInputs(all[0], signedS).at("S")) == signedS);
  TensorValues normRowInputs = kernelInputs(all[3], signedS);
  const CsrMatrix& positive = std::get<CsrMatrix>(normRowInputs.at("S"));  // norm_row
  CHECK(positive.col == signedS.col);
  CHECK(*std::min_element(positive.val.begin(), positive.val.end()) >= 0.5);

  Timing t = summarize({3, 1, 2, 10});
  CHECK(t.runs == 4);
  CHECK(t.median == 2.5);
  CHECK(t.min == 1);
  CHECK(t.max == 10);
  CHECK(plannedRuns(10, 2.0, 0.001) == 10);
  CHECK(plannedRuns(10, 2.0, 0.5) == 4);
  CHECK(plannedRuns(10, 2.0, 30) == 1);
}

TEST_CASE("bench: mttkrp and ttm: every variant agrees with react-openmp on small tensors, or says why it cannot run") {
  ReactKernels kernels(test::testCache());  // one kernel per (kernel, variant) serves both shapes
  for (const SparseTensor& s : {smallTensor({12, 9, 10}, 150, 3), smallTensor({7, 11, 5}, 60, 4)}) {
    for (const BenchKernel& k : benchmarkKernels({"mttkrp", "ttm"}, smallSizes())) {
      TensorValues inputs = kernelInputs(k, s);
      Prepared ref = prepareVariant(parseVariants("react-openmp")[0], k, inputs, kernels, {});
      REQUIRE_MESSAGE(ref.instance, ref.cannotRun);
      ref.instance->run();
      TensorData want = ref.instance->result();
      CHECK(shapeOf(want) == (k.name == "mttkrp" ? std::vector<int64_t>{s.shape[0], k.rank}
                                                 : std::vector<int64_t>{s.shape[0], s.shape[1], k.rank}));
      for (const VariantSpec& v : parseVariants("all")) {
        INFO(k.label() << " " << v.name);
        Prepared p = prepareVariant(v, k, inputs, kernels, {});
        if (v.library) {
          CHECK(contains(p.cannotRun, "has no sparse 3-tensor kernels"));
          continue;
        }
        if (v.fusion == FusionMode::Auto && !v.taco) CHECK(contains(p.note, "auto chose "));  // on csf statistics
        if (v.rightAssociated && k.name == "ttm") {
          CHECK(p.cannotRun == "cannot run: no product chain to associate otherwise");
          continue;
        }
        if (v.taco && v.tacoSchedule == TacoSchedule::Best && k.name == "ttm") {
          CHECK(contains(p.cannotRun, "taco-best has no ttm schedule of its own"));
          continue;
        }
        REQUIRE_MESSAGE(p.instance, p.cannotRun);
        if (v.taco) CHECK(contains(p.note, "S {Sparse,Sparse,Sparse}, A dense"));
        p.instance->run();
        p.instance->run();  // outputs are overwritten, not accumulated
        Agreement a = compareResults(p.instance->result(), want);
        CHECK_MESSAGE(a.ok, a.detail);
      }
    }
  }
}

TEST_CASE("bench: mttkrp and ttm work model, fibre statistics and the flops each mode performs, on a hand-checked tensor") {
  // Entries (0,0,1), (0,0,3), (0,2,0), (1,1,2) of a 2 x 3 x 4 tensor: 2 slices, 3 (i,k) fibres.
  CooTensor coo;
  coo.shape = {2, 3, 4};
  coo.crd = {{0, 0, 0, 1}, {0, 0, 2, 1}, {1, 3, 0, 2}};
  coo.val = {1, 2, 3, 4};
  const SparseTensor s = cooToSparse(coo, Format::csf(3));
  FibreStats f = fibreStats(s);
  CHECK(f.slices == 2);
  CHECK(f.fibres == 3);
  CHECK(f.entries == 4);
  CHECK(f.longestFibre == 2);
  CHECK(f.str() == "2 slices, 3 fibres (mean length 1.33, longest 2)");

  DenseSizes sizes;
  sizes.ranks = {2};
  const BenchKernel mttkrp = benchmarkKernels({"mttkrp"}, sizes)[0], ttm = benchmarkKernels({"ttm"}, sizes)[0];
  // S: values 4 x 8, level 0 positions 2 x 8 and coordinates 2 x 4, level 1 3 x 8 and 3 x 4, level 2 4 x 8 and 4 x 4.
  const double sparse = 32 + 16 + 8 + 24 + 12 + 32 + 16;
  WorkModel m = usefulWork(mttkrp, s);
  CHECK(m.flops == 2 * 2 * (4 + 3));                    // 2R per entry, 2R per fibre
  CHECK(m.bytes == sparse + 8 * 2 * (3 + 4) + 8 * 2 * 2);  // C (3 x R), D (4 x R), A (2 x R)
  WorkModel t = usefulWork(ttm, s);
  CHECK(t.flops == 2 * 2 * 4);
  CHECK(t.bytes == sparse + 8 * 4 * 2 + 8 * 3 * 2);  // C (4 x R), A a row of R per (i,j) fibre (3 of them)
  CHECK(outputBytes(ttm, s) == 8 * 3 * 2);
  CHECK(outputBytes(ttm, s, true) == 8 * 2 * 3 * 2);  // TACO's A, dense 2 x 3 x R
  CHECK(levelSymbols(s) == std::map<std::string, double>{{"nnz0(S)", 2}, {"nnz1(S)", 3}});

  // react performs the model's flops (C(k,j) once per fibre); maximal multiplies it in per entry.
  ReactKernels kernels(test::testCache());
  TensorValues inputs = kernelInputs(mttkrp, s);
  CHECK(prepareVariant(parseVariants("react-openmp")[0], mttkrp, inputs, kernels, {}).performedFlops == m.flops);
  CHECK(prepareVariant(parseVariants("maximal-openmp")[0], mttkrp, inputs, kernels, {}).performedFlops == 3 * 2 * 4);
  CHECK(tacoFlops(mttkrp, s, TacoSchedule::Default) == 3 * 2 * 4);
  CHECK(tacoFlops(mttkrp, s, TacoSchedule::Best) == m.flops);

  // A result checked against the dense product by hand: A(i,j) = sum S(i,k,l) C(k,j) D(l,j).
  Prepared p = prepareVariant(parseVariants("react-openmp")[0], mttkrp, inputs, kernels, {});
  REQUIRE(p.instance);
  p.instance->run();
  const DenseTensor a = std::get<DenseTensor>(p.instance->result());
  const DenseTensor& c = std::get<DenseTensor>(inputs.at("C"));
  const DenseTensor& d = std::get<DenseTensor>(inputs.at("D"));
  for (int64_t j = 0; j < 2; ++j) {
    const double a0 = 1 * c.data[0 * 2 + j] * d.data[1 * 2 + j] + 2 * c.data[0 * 2 + j] * d.data[3 * 2 + j] +
                      3 * c.data[2 * 2 + j] * d.data[0 * 2 + j];
    const double a1 = 4 * c.data[1 * 2 + j] * d.data[2 * 2 + j];
    CHECK(a.data[0 * 2 + j] == doctest::Approx(a0));
    CHECK(a.data[1 * 2 + j] == doctest::Approx(a1));
  }
}

TEST_CASE("bench: a tensor kernel refuses a matrix and a matrix kernel a tensor, ttm's dense output over the limit cannot run") {
  const BenchKernel mttkrp = benchmarkKernels({"mttkrp"}, smallSizes())[0];
  const BenchKernel sddmm = benchmarkKernels({"sddmm"}, smallSizes())[0];
  const SparseTensor t = smallTensor({12, 9, 10}, 150, 3);
  CHECK_THROWS_WITH_AS(kernelInputs(mttkrp, test::randomCsr(10, 6, 0.5, 3)),
                       "mttkrp R=3 takes a csf 3-tensor S (--tensor or --matrix FILE.tns), got csr 10x6", UserError);
  CHECK_THROWS_WITH_AS(kernelProgram(mttkrp, convertFormat(t, parseFormat("sss:1,0,2", 3))),
                       "mttkrp R=3 takes a csf 3-tensor S (--tensor or --matrix FILE.tns), got sss:1,0,2 12x9x10", UserError);
  CHECK_THROWS_WITH_AS(usefulWork(sddmm, t), "sddmm K=8 takes a csr matrix S (--matrix FILE.mtx or --synthetic), got csf 12x9x10",
                       UserError);

  const BenchKernel ttm = benchmarkKernels({"ttm"}, smallSizes())[1];  // R = 8: A is 12 x 9 x 8 doubles, 6912 bytes
  ReactKernels kernels(test::testCache());
  TensorValues inputs = kernelInputs(ttm, t);
  // TACO's A is dense (12 x 9 x 8), react's a row of 8 per (i,j) fibre (ssd): fewer bytes.
  const double fibreRows = outputBytes(ttm, t);
  REQUIRE(fibreRows < 6000);
  Limits tight;
  tight.maxTemporaryBytes = 6000;
  Prepared taco = prepareVariant(parseVariants("taco-default")[0], ttm, inputs, kernels, tight);
  CHECK_FALSE(taco.instance);
  CHECK(taco.cannotRun == "cannot run: needs 0.0 GB for the dense output A (limit 0.0 GB)");
  CHECK(prepareVariant(parseVariants("react-openmp")[0], ttm, inputs, kernels, tight).instance);
  tight.maxTemporaryBytes = fibreRows - 1;
  Prepared react = prepareVariant(parseVariants("react-openmp")[0], ttm, inputs, kernels, tight);
  CHECK_FALSE(react.instance);
  CHECK(react.cannotRun == "cannot run: needs 0.0 GB for the output A (limit 0.0 GB)");
}

TEST_CASE("react-bench: tensor kernels on --tensor and .tns inputs, and the errors of pairing kernels with inputs") {
  const std::string dir = testDir("bench-tensor-test"), bench = kBench;
  std::ofstream(dir + "/tiny.tns") << "# i k l value\n1 1 2 1.5\n1 1 4 2\n1 3 1 -1\n2 2 3 0.5\n";
  std::string base = bench + " --tensor powerlaw:30x20x25:400 --matrix " + dir + "/tiny.tns --rank 4 --threads 1 --reps 2" +
                     " --variants react-openmp,maximal-openmp,taco-default";
  test::CommandResult good = test::runCommand(base + " --csv " + dir + "/good.csv 2>&1");
  INFO(good.output);
  CHECK(good.status == 0);
  CHECK(contains(good.output, "powerlaw-30x20x25-400: 30 x 20 x 25, "));
  CHECK(contains(good.output, "tiny: 2 x 3 x 4, 4 stored entries, 2 slices, 3 fibres (mean length 1.33, longest 2)"));
  CHECK(linesContaining(dir + "/good.csv", ",ok,") == 2 * 2 * (tacoAvailable() ? 3 : 2));  // tensors x kernels x variants that run

  const std::pair<std::string, std::string> refused[] = {
      {" --synthetic powerlaw:300:4 --kernel mttkrp",
       "input 'powerlaw-300-4' is a matrix: none of the kernels given (--kernel) takes one"},
      {" --tensor powerlaw:30x20x25:400 --kernel mttkrp,sddmm",
       "kernel 'sddmm' takes a csr matrix: give one with --matrix FILE.mtx or --synthetic"},
      {" --matrix " + dir + "/tiny.tns --kernel sddmm", "input 'tiny' is a 3-tensor: none of the kernels given (--kernel) takes one"},
      {" --tensor powerlaw:30x20:400", "argument '--tensor powerlaw:30x20:400': expected three dimensions IxJxK, got '30x20'"},
      {" --tensor powerlaw:30x20x25:400:1", "the exponent must be > 1"},
  };
  for (const auto& [args, message] : refused) checkRefused(bench + args, message);
}

TEST_CASE("react-bench: checks variants before timing, rejects one that disagrees") {
  const std::string dir = testDir("bench-test");
  std::string base = kBench + " --matrix " + test::sharedMatrixDir() +
                     "/cora.mtx --synthetic powerlaw:300:4 --kernel sddmm,norm_row --sddmm-k 8 --threads 1,2 --reps 2"
                     " --variants react-openmp,maximal-openmp,library-eigen";
  test::CommandResult good = test::runCommand(base + " --csv " + dir + "/good.csv 2>&1");
  INFO(good.output);
  CHECK(good.status == 0);
  CHECK(contains(good.output, "threads 1 2"));
  CHECK(contains(good.output, "copy bandwidth at 2 threads"));
  CHECK(contains(good.output, "powerlaw-300-4: 300 x 300"));
  CHECK(contains(good.output, "geometric-mean speedup of react"));
  CHECK(linesContaining(dir + "/good.csv", ",ok,") == 2 * 2 * 3 * 2);  // matrices x kernels x variants x thread counts

  test::CommandResult bad = test::runCommand(base + " --testing-perturb library-eigen 2>&1");
  INFO(bad.output);
  CHECK(bad.status == 3);
  CHECK(contains(bad.output, "cora, sddmm K=8, S csr float64: variant library-eigen disagrees with react-openmp on csr float64: "
                             "largest difference"));

  test::CommandResult arg = test::runCommand(base + " --variants react-opnemp 2>&1");
  CHECK(arg.status == 1);
  CHECK(contains(arg.output, "unknown variant 'react-opnemp'"));
}

TEST_CASE("bench: S in csc and dcsr, and every tensor in float32, agree with react-openmp on csr float64") {
  CsrMatrix s = test::randomCsr(40, 30, 0.2, 13);
  s.val[2] = -s.val[2];  // a negative entry: the float32 bound's magnitude is then the result on |S|
  ReactKernels kernels(test::testCache());
  for (const BenchKernel& k : inStorages(benchmarkKernels({"sddmm", "spmm_mm", "norm_row", "softmax"}, smallSizes()),
                                         parseMatrixFormats("csr,csc,dcsr", "f"), parseValueTypes("float64,float32", "t"))) {
    INFO(k.label() << " " << k.storage());
    BenchKernel onCsr = k;
    onCsr.format = Format::csr();
    onCsr.valueType = ValueType::Float64;
    TensorValues refInputs = kernelInputs(onCsr, s), inputs = kernelInputs(k, s);
    CHECK(formatOf(inputs.at("S")).str() == k.format.str());
    CHECK(toString(valueTypeOf(inputs.at("S"))) == toString(k.valueType));
    CHECK(toString(valueTypeOf(inputs.at(k.name == "sddmm" ? "B" : k.name == "spmm_mm" ? "D" : "S"))) == toString(k.valueType));
    // The same entries in every format (rounded in float32).
    DenseTensor want = csrToDense(std::get<CsrMatrix>(refInputs.at("S")));
    if (k.valueType == ValueType::Float32) want.setValueType(ValueType::Float32);
    const TensorData& stored = inputs.at("S");
    CHECK(valuesOf(TensorData(std::holds_alternative<CsrMatrix>(stored) ? csrToDense(std::get<CsrMatrix>(stored))
                                                                        : sparseToDense(std::get<SparseTensor>(stored)))) == want.data);
    Prepared ref = prepareVariant(parseVariants("react-openmp")[0], onCsr, refInputs, kernels, {});
    REQUIRE(ref.instance);
    ref.instance->run();
    for (const VariantSpec& v : parseVariants("react-openmp,maximal-openmp,auto-openmp,library-eigen")) {
      INFO(v.name);
      Prepared p = prepareVariant(v, k, inputs, kernels, {});
      if (v.library && k.format != Format::csr()) {
        CHECK(p.cannotRun == "cannot run: library-eigen reads S in csr only (not " + k.format.str() + ")");
        continue;
      }
      if (v.library && k.valueType == ValueType::Float32) {
        CHECK(p.cannotRun == "cannot run: library-eigen computes in float64 only");
        continue;
      }
      REQUIRE_MESSAGE(p.instance, p.cannotRun);
      p.instance->run();
      TensorData got = p.instance->result();
      // A at S's pattern is in S's format (csc, dcsr): the same entries, compared in csr's order.
      if (k.name != "spmm_mm" && k.format != Format::csr()) {
        REQUIRE(std::holds_alternative<SparseTensor>(got));
        CHECK(formatOf(got) == k.format);
        got = sparseToCsr(std::get<SparseTensor>(got));
      }
      double tolerance = 1e-9;
      if (k.valueType == ValueType::Float32) {
        // The magnitude: react-openmp on |S| (norm_row and softmax read positive values already).
        TensorValues absolute = refInputs;
        for (double& x : valuesOf(absolute.at("S"))) x = std::abs(x);
        Prepared m = prepareVariant(parseVariants("react-openmp")[0], onCsr, absolute, kernels, {});
        m.instance->run();
        tolerance = float32Tolerance(k, s, ref.instance->result(), m.instance->result());
        CHECK(tolerance < 1e-4);
        CHECK(tolerance > 1e-7);
        // A float32 value one bound away from the reference fails.
        TensorData off = got;
        std::vector<double>& v = valuesOf(off);
        double largest = 0;
        const TensorData want = ref.instance->result();  // result() is a copy: keep it for the loop
        for (double x : valuesOf(want)) largest = std::max(largest, std::abs(x));
        v[v.size() / 2] += 2 * tolerance * largest;
        CHECK_FALSE(compareResults(off, ref.instance->result(), tolerance).ok);
      }
      Agreement a = compareResults(got, ref.instance->result(), tolerance);
      CHECK_MESSAGE(a.ok, a.detail);
    }
  }
}

TEST_CASE("bench: the float32 bound counts the roundings of the longest reduction") {
  // Rows of 1, 3 and 2 entries; a 2 x 2 x 2 csf tensor with slices of 3 and 1 entries, fibres up to 2.
  CsrMatrix s = test::randomCsr(3, 4, 0.0, 1);
  s.rowptr = {0, 1, 4, 6};
  s.col = {0, 0, 1, 3, 1, 2};
  s.val = {1, 2, 3, 4, 5, 6};
  CooTensor coo;
  coo.shape = {2, 2, 2};
  coo.crd = {{0, 0, 0, 1}, {0, 0, 1, 1}, {0, 1, 0, 1}};
  coo.val = {1, 2, 3, 4};
  const SparseTensor t = cooToSparse(coo, Format::csf(3));
  DenseSizes sizes = smallSizes();
  sizes.ranks = {3};
  auto roundings = [&](const std::string& name) {
    const BenchKernel k = benchmarkKernels({name}, sizes)[0];
    return float32Roundings(k, k.tensor() ? TensorData(t) : TensorData(s));
  };
  CHECK(roundings("sddmm") == 8 + 4);        // K = 8 terms of 3 factors
  CHECK(roundings("spmm_mm") == 12 * 3 + 4);  // NH x the longest row (3) terms of 3 factors
  CHECK(roundings("norm_row") == 3 + 2);
  CHECK(roundings("softmax") == 3 + 20);
  CHECK(roundings("mttkrp") == 3 + 4);  // slice 0's 3 entries
  CHECK(roundings("ttm") == 2 + 2);     // the longest fibre, (0,0): 2 entries of 2 factors
  // gamma_m (m u / (1 - m u)) of the largest value, relative to the reference's largest.
  const BenchKernel sddmm = benchmarkKernels({"sddmm"}, sizes)[0];
  const double u = 0x1p-24 + 0x1p-53, gamma = 12 * u / (1 - 12 * u);
  DenseTensor want({2}, 2.0), magnitude({2}, 6.0);
  CHECK(float32Tolerance(sddmm, s, want, magnitude) == doctest::Approx(gamma * 3));
  CHECK(float32Tolerance(sddmm, s, want, want) == doctest::Approx(gamma));
}

TEST_CASE("react-bench: --format and --value-type run, name the storage, compare with csr, bad values, auto on a tensor") {
  const std::string dir = testDir("bench-storage-test"), bench = kBench;
  std::string base = bench + " --synthetic powerlaw:200:4 --kernel spmm_mm,norm_row --nh 8 --nj 4 --threads 1 --reps 2" +
                     " --variants react-openmp,maximal-openmp";
  test::CommandResult formats = test::runCommand(base + " --format csr,csc,dcsr --csv " + dir + "/formats.csv 2>&1");
  INFO(formats.output);
  CHECK(formats.status == 0);
  CHECK(contains(formats.output, "cost of S in another format: median over the same (matrix, kernel, variant, threads, type) on csr"));
  CHECK_FALSE(contains(formats.output, "cannot run"));
  // The last two columns: "format,value_type" (appended: earlier columns keep their places).
  auto storage = [](const std::string& line) { return line.substr(line.rfind(',', line.rfind(',') - 1) + 1); };
  std::ifstream csv(dir + "/formats.csv");
  std::string header;
  std::getline(csv, header);
  CHECK(contains(header, ",machine_gbs,note,format,value_type"));
  CHECK(header.rfind("matrix,rows,cols,nnz,kernel,dims,variant,threads,", 0) == 0);
  std::map<std::string, int> ran;  // storage -> rows that ran
  for (std::string line; std::getline(csv, line);)
    if (contains(line, ",ok,")) ++ran[storage(line)];
  // Both kernels on every format (norm_row's result in S's format).
  CHECK(ran == std::map<std::string, int>{{"csc,float64", 4}, {"csr,float64", 4}, {"dcsr,float64", 4}});
  CHECK(contains(formats.output, "spmm_mm NH=8 NJ=4    react-openmp           csc   float64       1"));

  test::CommandResult narrow = test::runCommand(base + " --value-type float32 --testing-perturb maximal-openmp 2>&1");
  INFO(narrow.output);
  CHECK(narrow.status == 3);
  CHECK(contains(narrow.output, "spmm_mm NH=8 NJ=4, S csr float32: variant maximal-openmp disagrees with react-openmp on csr float64"));
  test::CommandResult checked = test::runCommand(base + " --value-type float32 --csv " + dir + "/float32.csv 2>&1");
  INFO(checked.output);
  CHECK(checked.status == 0);
  CHECK(linesContaining(dir + "/float32.csv", "float32 result within ") == 2 * 2);  // both variants on both kernels, against react-openmp on csr float64 (run untimed)

  const std::pair<std::string, std::string> refused[] = {
      {" --format coo", "argument '--format coo': unknown format 'coo' (expected a comma list of csr, csc, dcsr)"},
      {" --value-type int8", "argument '--value-type int8': unknown value type 'int8' (expected float32 or float64)"},
  };
  for (const auto& [args, message] : refused) checkRefused(base + args, message);

  test::CommandResult tensor = test::runCommand(bench + " --tensor powerlaw:20x15x10:200 --rank 4 --threads 1 --reps 2" +
                                                " --variants react-openmp,auto-openmp --testing-perturb auto-openmp 2>&1");
  INFO(tensor.output);
  CHECK(tensor.status == 3);  // auto-openmp ran and was checked
  CHECK(contains(tensor.output, "mttkrp R=4, S csf float64: variant auto-openmp disagrees with react-openmp on csf float64"));
}

TEST_CASE("suitesparse_fetch.sh: verifies and unpacks, skips what is there, fails cleanly offline") {
  namespace fs = std::filesystem;
  std::string dir = std::string(REACT_BINARY_DIR) + "/fetch-test";
  fs::remove_all(dir);
  fs::create_directories(dir + "/server/G/Good");
  fs::create_directories(dir + "/server/G/Bad");
  std::ofstream(dir + "/server/G/Good/Good.mtx") << "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 3.0\n";
  std::ofstream(dir + "/server/G/Bad/Bad.mtx") << "not a matrix\n";
  REQUIRE(test::runCommand("cd " + dir + "/server/G && tar -czf Good.tar.gz Good && tar -czf Bad.tar.gz Bad").status == 0);
  std::string script = "bash " + std::string(REACT_SOURCE_DIR) + "/data/suitesparse_fetch.sh";
  std::string env = "SUITESPARSE_DIR=" + dir + "/out ";

  auto start = std::chrono::steady_clock::now();
  test::CommandResult offline = test::runCommand(env + "SUITESPARSE_URL=http://127.0.0.1:9/ " + script + " 2>&1");
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(offline.output);
  CHECK(offline.status == 1);
  CHECK(seconds < 30);
  CHECK(contains(offline.output, "cannot fetch HB/bcsstk17: no server answered (no network?)"));
  CHECK(contains(offline.output, "no network: not trying the other 9"));
  CHECK(contains(offline.output, "10 of 10 matrices missing"));
  CHECK((!fs::exists(dir + "/out") || fs::is_empty(dir + "/out")));

  std::string local = env + "SUITESPARSE_URL=file://" + dir + "/server " + script;
  test::CommandResult fetched = test::runCommand(local + " G/Good 2>&1");
  INFO(fetched.output);
  CHECK(fetched.status == 0);
  CHECK(fs::exists(dir + "/out/Good/Good.mtx"));
  CHECK(contains(test::runCommand(local + " G/Good 2>&1").output, "G/Good: already in"));

  test::CommandResult bad = test::runCommand(local + " G/Bad G/Missing 2>&1");
  INFO(bad.output);
  CHECK(bad.status == 1);
  CHECK(contains(bad.output, "Bad/Bad.mtx has no Matrix Market banner"));
  CHECK(contains(bad.output, "2 of 2 matrices missing"));
  CHECK_FALSE(fs::exists(dir + "/out/Bad"));
  CHECK(test::runCommand(script + " notaspec 2>&1").status == 1);
}

TEST_CASE("frostt_fetch.sh: verifies and unpacks, skips what is there, fails cleanly offline") {
  namespace fs = std::filesystem;
  std::string dir = std::string(REACT_BINARY_DIR) + "/frostt-fetch-test";
  fs::remove_all(dir);
  fs::create_directories(dir + "/server/nell");
  fs::create_directories(dir + "/server/bad");
  std::ofstream(dir + "/server/nell/nell-2.tns") << "# a comment\n1 2 3 1.5\n2 2 2 -1\n";
  std::ofstream(dir + "/server/bad/garbage.tns") << "not a tensor\n";
  std::ofstream(dir + "/server/bad/truncated.tns.gz") << "\x1f\x8b truncated";
  REQUIRE(test::runCommand("gzip " + dir + "/server/nell/nell-2.tns " + dir + "/server/bad/garbage.tns").status == 0);
  std::string script = "bash " + std::string(REACT_SOURCE_DIR) + "/data/frostt_fetch.sh";
  std::string env = "FROSTT_DIR=" + dir + "/out ";

  auto start = std::chrono::steady_clock::now();
  test::CommandResult offline = test::runCommand(env + "FROSTT_URL=http://127.0.0.1:9/ " + script + " 2>&1");
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(offline.output);
  CHECK(offline.status == 1);
  CHECK(seconds < 30);
  CHECK(contains(offline.output, "cannot fetch vast-2015-mc1-3d: no server answered (no network?)"));
  CHECK(contains(offline.output, "no network: not trying the other 1"));
  CHECK(contains(offline.output, "2 of 2 tensors missing"));
  CHECK((!fs::exists(dir + "/out") || fs::is_empty(dir + "/out")));

  std::string local = env + "FROSTT_URL=file://" + dir + "/server " + script;
  test::CommandResult fetched = test::runCommand(local + " nell-2 2>&1");
  INFO(fetched.output);
  CHECK(fetched.status == 0);
  CHECK(react::readFrostt(dir + "/out/nell-2.tns", react::Format::csf(3)).nnz() == 2);
  CHECK(contains(test::runCommand(local + " nell-2 2>&1").output, "nell-2: already in"));

  test::CommandResult bad = test::runCommand(local + " bad/garbage bad/truncated bad/missing 2>&1");
  INFO(bad.output);
  CHECK(bad.status == 1);
  CHECK(contains(bad.output, "garbage.tns does not start with an entry (1-based coordinates and a value)"));
  CHECK(contains(bad.output, "truncated.tns.gz: not a complete gzip file"));
  CHECK(contains(bad.output, "3 of 3 tensors missing"));
  CHECK_FALSE(fs::exists(dir + "/out/garbage.tns"));
  CHECK_FALSE(fs::exists(dir + "/out/truncated.tns"));
  CHECK(std::distance(fs::directory_iterator(dir + "/out"), fs::directory_iterator()) == 1);  // no temporaries
  CHECK(test::runCommand(script + " 'not a name' 2>&1").status == 1);
}
