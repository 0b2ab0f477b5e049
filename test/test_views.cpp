// Kernels run in place on caller-held arrays (TensorView, Kernel::bindViews; the Python module's
// path): the benchmark kernels agree with Kernel::run in float64 and float32, and every check
// names the tensor it refuses.
#include "indexnotation_test_util.hpp"
#include "support.hpp"

using namespace react;
using react::test::errorOf;

namespace {

// Views of host tensors, as the kernel takes them: values copied into arrays of the tensor's
// value type (floats for float32), positions and coordinates borrowed.
struct HostViews {
  TensorViews views;
  std::map<std::string, std::vector<float>> floats;
  std::map<std::string, std::vector<double>> doubles;

  void add(const std::string& name, const TensorData& value) {
    TensorView v;
    v.valueType = valueTypeOf(value);
    const std::vector<double>* values = nullptr;
    if (const CsrMatrix* m = std::get_if<CsrMatrix>(&value)) {
      v.csr = true;
      v.shape = {m->rows, m->cols};
      v.data.pos[1] = m->rowptr.data();
      v.data.crd[1] = m->col.data();
      values = &m->val;
    } else {
      v.shape = std::get<DenseTensor>(value).shape;
      values = &std::get<DenseTensor>(value).data;
    }
    v.data.nnz = static_cast<int64_t>(values->size());
    if (v.valueType == ValueType::Float32) v.data.vals = (floats[name] = {values->begin(), values->end()}).data();
    else v.data.vals = (doubles[name] = *values).data();
    views[name] = v;
  }
  // An array for each result, laid out as the kernel says.
  void addResults(const Kernel& k) {
    for (const ResultLayout& r : k.resultsFor(k.sizesFor(views))) {
      TensorView v;
      v.shape = r.shape;
      v.csr = r.sparse;
      v.valueType = r.valueType;
      int64_t n = r.sparse ? views.at(r.pattern).data.nnz : checkedElementCount(r.shape, 8, r.name);
      if (r.valueType == ValueType::Float32) v.data.vals = (floats[r.name] = std::vector<float>(static_cast<size_t>(n), -1)).data();
      else v.data.vals = (doubles[r.name] = std::vector<double>(static_cast<size_t>(n), -1)).data();
      v.data.nnz = n;
      views[r.name] = v;
    }
  }
  std::vector<double> values(const std::string& name) const {
    if (floats.count(name)) return {floats.at(name).begin(), floats.at(name).end()};
    return doubles.at(name);
  }
};

}  // namespace

TEST_CASE("views: the benchmark kernels in place agree with Kernel::run, float64 and float32") {
  CompileOptions options;
  options.jit = test::testCache();
  options.fusion = FusionMode::React;
  for (ValueType type : {ValueType::Float64, ValueType::Float32}) {
    for (test::KernelCase c : test::benchmarkKernels(test::randomCsr(9, 7, 0.4, 3), 4, 11)) {
      INFO(c.name << " " << toString(type));
      std::map<std::string, ValueType> types{{"A", type}};
      for (auto& [name, value] : c.inputs) {
        setValueType(value, type);
        types[name] = type;
      }
      Kernel k = Kernel::compile(withValueTypes(parseProgram(c.text, c.env), types), options);
      TensorValues want = k.run(c.inputs);
      HostViews h;
      for (const auto& [name, value] : c.inputs) h.add(name, value);
      h.addResults(k);
      k.bindViews(h.views).run();
      CHECK(h.values("A") == valuesOf(want.at("A")));
    }
  }
}

TEST_CASE("views: results laid out for the run's sizes (a csr input's rows are a run-time size)") {
  CompileOptions options;
  options.jit = test::testCache();
  options.fusion = FusionMode::React;
  Environment env;
  env.declare("S", {4, 6}, Format::csr());
  env.declare("B", {6, 3}, Format::dense(2));
  Kernel k = Kernel::compile(parseProgram("A = S @ B; r = sum(S, axis=1); P = S * 2", env), options);
  TensorViews shapes;
  shapes["S"].csr = true;
  shapes["S"].shape = {5, 6};
  shapes["B"].shape = {6, 3};
  std::vector<ResultLayout> results = k.resultsFor(k.sizesFor(shapes));
  REQUIRE(results.size() == 3);
  std::map<std::string, ResultLayout> byName;
  for (const ResultLayout& r : results) byName[r.name] = r;
  CHECK(byName["A"].shape == std::vector<int64_t>{5, 3});
  CHECK(!byName["A"].sparse);
  CHECK(byName["r"].shape == std::vector<int64_t>{5});
  CHECK(byName["P"].sparse);
  CHECK(byName["P"].pattern == "S");
  CHECK(byName["P"].shape == std::vector<int64_t>{5, 6});
}

TEST_CASE("views: refused views name the tensor") {
  CompileOptions options;
  options.jit = test::testCache();
  options.fusion = FusionMode::React;
  test::KernelCase c = test::benchmarkKernels(test::randomCsr(6, 5, 0.5, 4), 3, 2)[0];  // sddmm
  Kernel k = Kernel::compile(parseProgram(c.text, c.env), options);
  HostViews h;
  for (const auto& [name, value] : c.inputs) h.add(name, value);
  h.addResults(k);
  REQUIRE(errorOf([&] { k.bindViews(h.views).run(); }) == "");

  auto refused = [&](const std::function<void(TensorViews&)>& change) {
    TensorViews views = h.views;
    change(views);
    return errorOf([&] { k.bindViews(views).run(); });
  };
  CHECK(refused([](TensorViews& v) { v.erase("B"); }) == "kernel: no value given for input 'B'");
  CHECK(refused([](TensorViews& v) { v.erase("A"); }) == "kernel: no array given for result 'A'");
  CHECK(refused([](TensorViews& v) { v["B"].valueType = ValueType::Float32; }) ==
        "kernel: input 'B' is float32, the kernel takes float64");
  CHECK(refused([](TensorViews& v) { v["C"].memory = MemorySpace::Device; }) ==
        "kernel: input 'C' is in device memory, the kernel runs in host memory");
  CHECK(refused([](TensorViews& v) { v["B"].data.nnz -= 1; }) == "kernel: input 'B' has 17 values for shape 6x3");
  CHECK(refused([](TensorViews& v) { v["B"].shape = {6, 4}; }) ==
        "kernel: input 'B' dimension 1 is 4 but index 'k' has size 3");
  CHECK(refused([](TensorViews& v) { v["S"].csr = false; }) == "kernel: input 'S' is declared csr but given dense");
  CHECK(refused([](TensorViews& v) { v["S"].data.pos[1] = nullptr; }) ==
        "kernel: input 'S' is csr without positions or coordinates");
  CHECK(refused([](TensorViews& v) { v["A"].data.nnz += 1; }) ==
        "kernel: result 'A' has " + std::to_string(h.views["S"].data.nnz + 1) + " values, its pattern 'S' " +
            std::to_string(h.views["S"].data.nnz) + " stored entries");
  CHECK(refused([](TensorViews& v) { v["A"].csr = false; }) == "kernel: result 'A' is given as dense 6x5, the kernel writes csr 6x5");
  BoundKernel b = k.bindViews(h.views);
  b.run();
  CHECK(errorOf([&] { b.results(); }) == "kernel: a kernel bound to views writes its results into their arrays");
}

TEST_CASE("views: checkCsrView finds broken csr arrays, names the tensor, and skips device views") {
  CsrMatrix m;  // [[1, 0, 2], [0, 3, 0]]
  m.rows = 2;
  m.cols = 3;
  m.rowptr = {0, 2, 3};
  m.col = {0, 2, 1};
  m.val = {1, 2, 3};
  TensorView v;
  v.csr = true;
  v.shape = {m.rows, m.cols};
  v.data = ReactTensor{m.val.data(), m.nnz(), {}, {}, nullptr};
  v.data.pos[1] = m.rowptr.data();
  v.data.crd[1] = m.col.data();
  CHECK(errorOf([&] { checkCsrView("S", v); }) == "");
  m.col = {2, 0, 1};
  CHECK(errorOf([&] { checkCsrView("S", v); }) == "tensor 'S': invalid CSR matrix: unsorted column 0 in row 0 (after column 2)");
  m.col = {0, 3, 1};
  CHECK(errorOf([&] { checkCsrView("S", v); }) == "tensor 'S': invalid CSR matrix: column 3 in row 0 is outside 0..2");
  v.memory = MemorySpace::Device;  // the host cannot read it
  CHECK(errorOf([&] { checkCsrView("S", v); }) == "");
  v.memory = MemorySpace::Host;
  m.col = {0, 2, 1};
  v.data.nnz = 2;
  CHECK(errorOf([&] { checkCsrView("S", v); }) == "tensor 'S': invalid CSR matrix: rowptr[rows] is 3, expected nnz = 2");
}

TEST_CASE("views: a transposed input is made once by bind, and at every run by a kernel bound to views") {
  // K = 32: on Kokkos too the lanes run along k (dense-lanes) and read the copy.
  const int64_t K = 32;
  for (Target target : {Target::OpenMP, Target::Kokkos}) {
    INFO(toString(target));
    CompileOptions options;
    options.jit = test::testCache();
    options.fusion = FusionMode::React;
    options.target = target;
    Environment env;
    env.declare("S", {5, 7}, Format::csr());
    env.declare("B", {5, K}, Format::dense(2));
    env.declare("C", {K, 7}, Format::dense(2));  // read C(k,j) over k for each stored entry: transposed
    Program program = parseProgram("A = S * (B @ C)", env);
    Kernel k = Kernel::compile(program, options);
    REQUIRE(k.loops().transposedInputs.size() == 1);
    const std::string prepared = k.loops().transposedInputs.begin()->first;
    TensorValues inputs{{"S", test::randomCsr(5, 7, 0.5, 8)}, {"B", randomDense({5, K}, 9)}, {"C", randomDense({K, 7}, 10)}};

    BoundKernel bound = k.bind(inputs);
    REQUIRE(bound.prepared);
    const DenseTensor& made = std::get<DenseTensor>(bound.prepared->at(prepared));
    const DenseTensor& c = std::get<DenseTensor>(inputs.at("C"));
    CHECK(made.shape == std::vector<int64_t>{7, K});
    for (int64_t kk = 0; kk < K; ++kk)
      for (int64_t j = 0; j < 7; ++j) CHECK(made.at({j, kk}) == c.at({kk, j}));
    CHECK(bound.preparedBytes == 7 * K * 8);
    bound.run();
    test::requireClose(program, bound.results(), interpret(k.tree(), inputs), "bound");

    HostViews h;
    for (const auto& [name, value] : inputs) h.add(name, value);
    h.addResults(k);
    BoundKernel inPlace = k.bindViews(h.views);
    inPlace.run();
    std::get<DenseTensor>(inputs.at("C")).data.assign(static_cast<size_t>(K * 7), 0.5);
    std::fill(h.doubles.at("C").begin(), h.doubles.at("C").end(), 0.5);  // seen by the next run
    inPlace.run();
    const CsrMatrix want = std::get<CsrMatrix>(interpret(k.tree(), inputs).at("A"));
    CHECK(h.values("A").size() == want.val.size());
    for (size_t q = 0; q < want.val.size(); ++q) CHECK(h.values("A")[q] == doctest::Approx(want.val[q]).epsilon(1e-12));
  }
}

// A csr S whose rows crowd more than its columns (a power-law graph's) is walked by its columns:
// bind makes the walk (its csc copy and each entry's csr position) and the results land at the
// csr positions; its transpose, and the same kernel bound to views (given no walk), walk the rows.
TEST_CASE("views: SDDMM walks a csr S by its columns where bound, by its rows through views") {
  const CsrMatrix crowded = powerLaw(600, 6, 12);
  CHECK(walksByColumns(crowded));
  ColumnOrder byColumns = csrByColumns(crowded);
  CsrMatrix transposed;  // the csc arrays of S are the csr arrays of its transpose
  transposed.rows = crowded.cols;
  transposed.cols = crowded.rows;
  transposed.rowptr = byColumns.byColumns.levels[1].pos;
  transposed.col = byColumns.byColumns.levels[1].crd;
  transposed.val = byColumns.byColumns.val;
  CHECK(!walksByColumns(transposed));
  CsrMatrix wide;  // the rows crowd, but a position per column would outnumber the entries
  wide.rows = 2;
  wide.cols = 1000;
  wide.rowptr = {0, 6, 6};
  wide.col = {0, 1, 2, 3, 4, 5};
  wide.val = {1, 1, 1, 1, 1, 1};
  CHECK(!walksByColumns(wide));
  wide.cols = 6;
  CHECK(walksByColumns(wide));
  CHECK(!walksByColumns(CsrMatrix{}));
  for (ValueType type : {ValueType::Float64, ValueType::Float32})
    for (const CsrMatrix* s : std::vector<const CsrMatrix*>{&crowded, &transposed}) {
      INFO(toString(type) << (s == &crowded ? " crowded rows" : " crowded columns"));
      CompileOptions options;
      options.jit = test::testCache();
      options.fusion = FusionMode::React;
      options.target = Target::Kokkos;
      Environment env;
      env.declare("S", {s->rows, s->cols}, Format::csr(), type);
      env.declare("B", {s->rows, 48}, Format::dense(2), type);
      env.declare("C", {48, s->cols}, Format::dense(2), type);
      const Program program = parseProgram("A = S * (B @ C)", env);
      const Kernel k = Kernel::compile(program, options);
      REQUIRE(k.loops().columnWalks.size() == 1);
      const std::string walk = k.loops().columnWalks.begin()->first;
      CsrMatrix stored = *s;
      stored.setValueType(type);
      TensorValues inputs{{"S", stored}, {"B", randomDense({s->rows, 48}, 13)}, {"C", randomDense({48, s->cols}, 14)}};
      for (auto& [name, value] : inputs) setValueType(value, type);
      const TensorValues want = interpret(k.tree(), inputs);

      BoundKernel bound = k.bind(inputs);
      const bool walked = bound.prepared && bound.prepared->count(walk);
      CHECK(walked == (s == &crowded));
      bound.run();
      bound.run();  // the walk's stores land where the first run's did
      test::requireClose(program, bound.results(), want, "bound");
      const CsrMatrix& a = std::get<CsrMatrix>(want.at("A"));
      if (walked && type == ValueType::Float64) {
        // The column form runs: it reads S's values from the walk (the host's own array here), so
        // doubling them there doubles every result.
        for (double& v : std::get<SparseTensor>(bound.prepared->at(walk)).val) v *= 2;
        bound.run();
        const CsrMatrix& doubled = std::get<CsrMatrix>(bound.results().at("A"));
        REQUIRE(doubled.val.size() == a.val.size());
        for (size_t q = 0; q < a.val.size(); ++q) CHECK(doubled.val[q] == doctest::Approx(2 * a.val[q]).epsilon(1e-12));
      }

      HostViews h;
      for (const auto& [name, value] : inputs) h.add(name, value);
      h.addResults(k);
      k.bindViews(h.views).run();
      REQUIRE(h.values("A").size() == a.val.size());
      const double tolerance = type == ValueType::Float32 ? 1e-5 : 1e-12;
      for (size_t q = 0; q < a.val.size(); ++q) CHECK(h.values("A")[q] == doctest::Approx(a.val[q]).epsilon(tolerance));
    }
}
