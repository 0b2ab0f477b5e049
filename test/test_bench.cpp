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
  return d;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

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
    TensorValues inputs = kernelInputs(k, s);
    Prepared ref = prepareVariant(parseVariants("react-openmp")[0], k, inputs, kernels, limits);
    REQUIRE(ref.instance);
    ref.instance->run();
    TensorData want = ref.instance->result();
    for (const VariantSpec& v : parseVariants("library-eigen,library-kokkoskernels,auto-openmp,react-openmp-right,maximal-openmp-right")) {
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
  CHECK(parseVariants("all").size() == (tacoAvailable() ? 14u : 12u));
  CHECK(parseVariants("library-eigen,react-openmp")[0].name == "react-openmp");  // report order
  CHECK_THROWS_WITH_AS(parseVariants("react-cuda"), doctest::Contains("unknown variant 'react-cuda'"), UserError);
  CHECK_THROWS_WITH_AS(benchmarkKernels({"mttkrp"}, {}), doctest::Contains("unknown kernel 'mttkrp'"), UserError);
  std::vector<BenchKernel> all = benchmarkKernels({"all"}, {});
  REQUIRE(all.size() == 5);
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

TEST_CASE("react-bench: checks variants before timing, rejects one that disagrees") {
  std::string dir = std::string(REACT_BINARY_DIR) + "/bench-test";
  std::filesystem::create_directories(dir);
  std::string base = std::string(REACT_BINARY_DIR) + "/bin/react-bench --matrix " + test::sharedMatrixDir() +
                     "/cora.mtx --synthetic powerlaw:300:4 --kernel sddmm,norm_row --sddmm-k 8 --threads 1,2 --reps 2"
                     " --variants react-openmp,maximal-openmp,library-eigen --cache-dir " + REACT_BINARY_DIR + "/jit-cache";
  test::CommandResult good = test::runCommand(base + " --csv " + dir + "/good.csv 2>&1");
  INFO(good.output);
  CHECK(good.status == 0);
  CHECK(contains(good.output, "threads 1 2"));
  CHECK(contains(good.output, "copy bandwidth at 2 threads"));
  CHECK(contains(good.output, "powerlaw-300-4: 300 x 300"));
  CHECK(contains(good.output, "geometric-mean speedup of react"));
  std::ifstream csv(dir + "/good.csv");
  std::string line;
  int rows = 0;
  while (std::getline(csv, line)) rows += contains(line, ",ok,") ? 1 : 0;
  CHECK(rows == 2 * 2 * 3 * 2);  // matrices x kernels x variants x thread counts

  test::CommandResult bad = test::runCommand(base + " --testing-perturb library-eigen 2>&1");
  INFO(bad.output);
  CHECK(bad.status == 3);
  CHECK(contains(bad.output, "cora, sddmm K=8: variant library-eigen disagrees with react-openmp: largest difference"));

  test::CommandResult arg = test::runCommand(base + " --variants react-opnemp 2>&1");
  CHECK(arg.status == 1);
  CHECK(contains(arg.output, "unknown variant 'react-opnemp'"));
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
