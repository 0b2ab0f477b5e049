// react._react: the C++ half of the Python module (docs/python.md). It compiles programs through
// react's C++ API and runs kernels on Python's arrays in place (arguments.hpp), or on copies where
// a kernel assembles a result's pattern (runOnCopies); the package python/react/ wraps it.
#include "arguments.hpp"
#include "dlpack.hpp"

#include <pybind11/stl.h>

#include <chrono>
#include <tuple>

namespace react::python {

namespace {

// An input as Python declares it to the compiler: its shape, format and value type.
using Declaration = std::tuple<std::string, std::vector<int64_t>, bool, std::string>;  // name, shape, csr, dtype
using CsrStatistics = std::tuple<int64_t, int64_t, int64_t, int64_t>;               // rows, cols, nnz, longest row

// A compiled kernel as the Python side holds it.
struct CompiledKernel {
  Kernel kernel;
  std::string decisions;            // auto's report (react-gen -print-decisions); "" for a fixed mode
  std::vector<std::string> inputs;  // in argument order

  // Runs on `args` (one per input, in `inputs` order): the results in Kernel::resultsFor's order
  // (CallArguments::allocateResults) and the bytes of the conversions the inputs needed.
  py::tuple run(const py::list& args, bool copyPatterns) const {
    CallArguments call = bind(args);
    if (!kernel.loops().assembledPatterns.empty()) return runOnCopies(call);
    py::list results = call.allocateResults(copyPatterns);
    BoundKernel bound = kernel.bindViews(call.views());
    {
      py::gil_scoped_release release;  // other Python threads run meanwhile
      bound.run();
    }
    return py::make_tuple(results, call.copiedBytes());
  }

  // A kernel that assembles a result's pattern from two operands (co-iteration) allocates that
  // result when it is bound to its inputs (Kernel::bind, which merges their patterns); views
  // cannot hold it before. It runs on copies of the inputs, and its results come back as new
  // arrays: dense ones as NumPy arrays, csr ones as (values, indices, indptr).
  py::tuple runOnCopies(CallArguments& call) const {
    const TensorValues inputs = call.inputCopies();
    BoundKernel bound;
    {
      py::gil_scoped_release release;
      bound = kernel.bind(inputs);
      bound.run();
    }
    const TensorValues& results = bound.results();
    py::list out;
    for (const auto& [name, csr, pattern, type, assembled] : this->results()) {
      const TensorData& r = results.at(name);
      auto values = [&](const std::vector<double>& v, std::vector<py::ssize_t> shape) -> py::object {
        if (type == "float32") return py::array_t<float>(shape, std::vector<float>(v.begin(), v.end()).data());
        return py::array_t<double>(shape, v.data());
      };
      if (const CsrMatrix* m = std::get_if<CsrMatrix>(&r)) {
        out.append(py::make_tuple(values(m->val, {static_cast<py::ssize_t>(m->nnz())}),
                                  py::array_t<int32_t>(static_cast<py::ssize_t>(m->col.size()), m->col.data()),
                                  py::array_t<int64_t>(static_cast<py::ssize_t>(m->rowptr.size()), m->rowptr.data())));
      } else {
        const DenseTensor& d = std::get<DenseTensor>(r);
        out.append(values(d.data, std::vector<py::ssize_t>(d.shape.begin(), d.shape.end())));
      }
    }
    return py::make_tuple(out, call.copiedBytes());
  }

  // The kernel's own time on these arguments, without Python (what a Python call's overhead is
  // measured against): the seconds of each of `calls` calls of Kernel::runRaw after a warm-up.
  std::vector<double> timeRaw(const py::list& args, int calls) const {
    CallArguments call = bind(args);
    py::list results = call.allocateResults(false);
    BoundKernel bound = kernel.bindViews(call.views());
    py::gil_scoped_release release;
    bound.run();
    std::vector<double> seconds;
    for (int n = 0; n < calls; ++n) {
      auto start = std::chrono::steady_clock::now();
      kernel.runRaw(bound.args.data(), bound.sizes.data());
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return seconds;
  }

  // name, csr, pattern, value type of each result, in Kernel::resultsFor's order, and whether the
  // kernel assembles its pattern from two operands: the pattern named is then the first operand,
  // of the same shape.
  using Result = std::tuple<std::string, bool, std::string, std::string, bool>;
  std::vector<Result> results() const {
    std::vector<Result> out;
    const LoopProgram& loops = kernel.loops();
    for (const std::string& name : loops.args) {
      const TensorDecl& d = loops.tensors.at(name).decl;
      if (d.role != TensorRole::Output) continue;
      auto merged = loops.assembledPatterns.find(d.pattern);
      const bool assembled = d.format.hasSparseLevel() && merged != loops.assembledPatterns.end();
      out.emplace_back(name, d.format.hasSparseLevel(), assembled ? merged->second.operands.at(0) : d.pattern,
                       toString(d.valueType), assembled);
    }
    return out;
  }

  std::string inputType(const std::string& name) const { return toString(kernel.tree().tensor(name).decl.valueType); }

  CallArguments bind(const py::list& args) const {
    if (args.size() != inputs.size())
      internalError("the kernel takes " + std::to_string(inputs.size()) + " inputs, given " + std::to_string(args.size()));
    CallArguments call(kernel);
    for (size_t n = 0; n < inputs.size(); ++n) call.addInput(inputs[n], args[n]);
    return call;
  }
};

CompiledKernel compile(const std::string& text, const std::vector<Declaration>& declarations,
                       const std::map<std::string, int64_t>& sizes, const std::string& resultType,
                       const std::string& fusion, const std::string& target, const std::string& cacheDir,
                       const std::map<std::string, CsrStatistics>& statistics) {
  Environment env;
  env.indexSizes = sizes;
  for (const auto& [name, shape, csr, type] : declarations)
    env.declare(name, shape, csr ? Format::csr() : Format::dense(static_cast<int>(shape.size())),
                parseValueType(type, "input '" + name + "'"));
  Program p = parseProgram(text, env);
  std::map<std::string, ValueType> types;
  for (const std::string& name : p.outputs()) types[name] = parseValueType(resultType, "dtype");
  p = withValueTypes(p, types);

  CompileOptions options;
  options.fusion = parseFusionMode(fusion);
  options.target = parseTarget(target);
  options.jit.cacheDir = cacheDir;
  InputStats stats;
  for (const auto& [name, s] : statistics) {
    auto [rows, cols, nnz, longestRow] = s;
    stats.sparse[name] = {rows, cols, nnz, longestRow};
  }
  options.stats = stats;
  AutoDecision decision;
  IndexTree tree = fusedTree(p, options, &decision);
  CompiledKernel k{Kernel::compile(tree, options), "", {}};
  if (*options.fusion == FusionMode::Auto) k.decisions = decision.str();
  for (const std::string& name : k.kernel.loops().args)
    if (k.kernel.loops().tensors.at(name).decl.role == TensorRole::Input) k.inputs.push_back(name);
  return k;
}

}  // namespace

}  // namespace react::python

using namespace react;
using namespace react::python;

PYBIND11_MODULE(_react, m) {
  m.doc() = "react's compiler and kernels (the C++ half of the react package)";
  py::register_exception<UserError>(m, "Error", PyExc_ValueError);
  py::register_exception<InternalError>(m, "InternalError", PyExc_RuntimeError);

  py::class_<DLPackCsr>(m, "DLPackCsr", "a csr matrix as DLPack capsules: int64 positions, int32 coordinates, values")
      .def(py::init([](int64_t rows, int64_t cols, py::object positions, py::object coordinates, py::object values) {
             return DLPackCsr{rows, cols, std::move(positions), std::move(coordinates), std::move(values)};
           }),
           py::arg("rows"), py::arg("cols"), py::arg("positions"), py::arg("coordinates"), py::arg("values"));

  // Compiling takes a compiler run (seconds): other Python threads run meanwhile.
  m.def("compile", &compile, py::arg("text"), py::arg("declarations"), py::arg("sizes"), py::arg("result_dtype"),
        py::arg("fusion"), py::arg("target"), py::arg("cache_dir"), py::arg("statistics"),
        py::call_guard<py::gil_scoped_release>());
  m.def("cache_dir", [](const std::string& dir) { return jitCacheDirectory(JitOptions{dir, "", false}); }, py::arg("dir") = "",
        "the JIT cache kernels are compiled into: dir, else $REACT_CACHE_DIR, else ~/.cache/react");

  py::class_<CompiledKernel>(m, "Kernel")
      .def("run", &CompiledKernel::run, py::arg("args"), py::arg("copy_patterns"))
      .def("time_raw", &CompiledKernel::timeRaw, py::arg("args"), py::arg("calls"))
      .def_readonly("inputs", &CompiledKernel::inputs)
      .def_property_readonly("results", &CompiledKernel::results)
      .def("input_dtype", &CompiledKernel::inputType, py::arg("name"))
      .def_readonly("decisions", &CompiledKernel::decisions)
      .def_property_readonly("tree", [](const CompiledKernel& k) { return printTree(k.kernel.tree()); })
      .def_property_readonly("loops", [](const CompiledKernel& k) { return k.kernel.loops().str(); })
      .def_property_readonly("source", [](const CompiledKernel& k) { return k.kernel.source(); })
      .def_property_readonly("library", [](const CompiledKernel& k) { return k.kernel.library().libraryPath; });
}
