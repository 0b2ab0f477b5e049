// react-gen: compile tensor expressions into kernels, print the trees and source, run and time them.
// Command-line conventions follow TACO's `taco` tool.
#include "lower/lower.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <regex>

using namespace react;

namespace {

const char* kUsage = R"(usage: react-gen "<statement>"... [options]

Statements are index notation (A(i,j) = S(i,j) * B(i,k) * C(k,j)) or operator form
(A = S * (B @ C)); several may be given, or separated by ';'.

options:
  -f=NAME:FORMAT     format of a tensor: dense, csr, or per level d/s (dd, ds, d, ...)
  -d=INDEX:SIZE      extent of an index (dense dimensions of generated or output tensors)
  -i=NAME:FILE.mtx   load an input (coordinate -> csr, array -> dense)
  -g=NAME:u[:SEED]   fill a dense input with uniform random values in [0,1) (seed default 1)
  -o=NAME:FILE.mtx   write a result as Matrix Market
  -fusion=MODE       none | maximal | react | auto; auto picks the association of product
                     chains and the fusion from a cost model on the inputs' statistics (default:
                     auto when every csr input has data (-i), else react)
  -print-decisions   print auto's candidates, their estimated costs and the choice
  -machine=FILE      auto decides for the machine model stored in FILE (a machine-<N>t.txt of
                     any machine's cache) instead of this machine's
  -target=TARGET     openmp | kokkos (default openmp)
  -threads=N         threads for the openmp target (default: all cores)
  -print-tree        print the index tree after fusion
  -print-after-all   print the index tree after every pass
  -print-loops       print the loop IR
  -print-source      print the generated source
  -explain           print the symbolic cost and the redundancies left
  -write-source=FILE write the generated source to FILE
  -bounds-check      generated code checks every access
  -team-size=N       rows per Kokkos team (default: chosen at run time from the input)
  -cache-dir=DIR     JIT cache (default $REACT_CACHE_DIR or ~/.cache/react)
  -time=N            run N times after one warm-up and print the median, min and max
  --help             this text
Printing options print without running unless -o or -time is also given.
)";

[[noreturn]] void argError(const std::string& arg, const std::string& what) {
  throw Error("argument '" + arg + "': " + what);
}

// NAME:VALUE of an option like -i=NAME:VALUE.
std::pair<std::string, std::string> nameValue(const std::string& arg, const std::string& value, const char* expected) {
  auto colon = value.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == value.size()) argError(arg, std::string("expected ") + expected);
  return {value.substr(0, colon), value.substr(colon + 1)};
}

int64_t positive(const std::string& arg, const std::string& text) {
  try {
    size_t used = 0;
    long long v = std::stoll(text, &used);
    if (used == text.size() && v > 0) return v;
  } catch (const std::exception&) {
  }
  argError(arg, "'" + text + "' is not a positive integer");
}

struct Options {
  std::vector<std::string> statements;
  std::map<std::string, std::string> formats, inputFiles, outputFiles;
  std::map<std::string, uint64_t> generated;
  std::map<std::string, int64_t> indexSizes;
  std::optional<FusionMode> fusion;  // unset: the default (fusionModeOf)
  Target target = Target::OpenMP;
  int threads = 0;
  std::string machineFile;
  bool printTree = false, printAfterAll = false, printLoops = false, printSource = false, explain = false;
  bool printDecisions = false;
  bool boundsCheck = false;
  int teamSize = 0;
  std::string writeSource, cacheDir;
  int time = 0;
};

Options parseArgs(int argc, char** argv) {
  Options o;
  for (int a = 1; a < argc; ++a) {
    std::string arg = argv[a];
    if (arg == "--help" || arg == "-help" || arg == "-h") {
      std::cout << kUsage;
      std::exit(0);
    }
    if (arg.empty() || arg[0] != '-') {
      o.statements.push_back(arg);
      continue;
    }
    auto eq = arg.find('=');
    std::string key = arg.substr(0, eq), value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    bool hasValue = eq != std::string::npos;
    auto need = [&] {
      if (!hasValue || value.empty()) argError(arg, "expected a value after '='");
    };
    if (key == "-f") {
      need();
      auto [n, f] = nameValue(arg, value, "NAME:FORMAT");
      o.formats[n] = f;
    } else if (key == "-d") {
      need();
      auto [n, s] = nameValue(arg, value, "INDEX:SIZE");
      o.indexSizes[n] = positive(arg, s);
    } else if (key == "-i") {
      need();
      auto [n, f] = nameValue(arg, value, "NAME:FILE.mtx");
      o.inputFiles[n] = f;
    } else if (key == "-o") {
      need();
      auto [n, f] = nameValue(arg, value, "NAME:FILE.mtx");
      o.outputFiles[n] = f;
    } else if (key == "-g") {
      need();
      auto [n, spec] = nameValue(arg, value, "NAME:u[:SEED]");
      if (spec != "u" && spec.rfind("u:", 0) != 0) argError(arg, "only 'u' (uniform [0,1)) fills are supported");
      o.generated[n] = spec == "u" ? 1 : static_cast<uint64_t>(positive(arg, spec.substr(2)));
    } else if (key == "-fusion") {
      need();
      try {
        o.fusion = parseFusionMode(value);
      } catch (const Error& e) {
        argError(arg, e.what());
      }
    } else if (key == "-target") {
      need();
      try {
        o.target = parseTarget(value);
      } catch (const Error& e) {
        argError(arg, e.what());
      }
    } else if (key == "-threads") {
      need();
      o.threads = static_cast<int>(positive(arg, value));
    } else if (key == "-machine") {
      need();
      o.machineFile = value;
    } else if (key == "-time") {
      need();
      o.time = static_cast<int>(positive(arg, value));
    } else if (key == "-team-size") {
      need();
      o.teamSize = static_cast<int>(positive(arg, value));
    } else if (key == "-write-source") {
      need();
      o.writeSource = value;
    } else if (key == "-cache-dir") {
      need();
      o.cacheDir = value;
    } else if (!hasValue && key == "-print-tree") {
      o.printTree = true;
    } else if (!hasValue && key == "-print-after-all") {
      o.printAfterAll = true;
    } else if (!hasValue && key == "-print-loops") {
      o.printLoops = true;
    } else if (!hasValue && key == "-print-source") {
      o.printSource = true;
    } else if (!hasValue && key == "-print-decisions") {
      o.printDecisions = true;
    } else if (!hasValue && key == "-explain") {
      o.explain = true;
    } else if (!hasValue && key == "-bounds-check") {
      o.boundsCheck = true;
    } else {
      argError(arg, "unknown option (see --help)");
    }
  }
  if (o.statements.empty()) throw Error("no statement given (see --help)");
  return o;
}

// "dense", "csr", or TACO's per-level letters ("dd", "ds").
Format parseFormat(const std::string& name, const std::string& text, int rank) {
  if (text == "dense") return Format::dense(rank);
  if (text == "csr" || text == "ds") return Format::csr();
  if (!text.empty() && text.find_first_not_of('d') == std::string::npos) return Format::dense(static_cast<int>(text.size()));
  throw Error("argument '-f=" + name + ":" + text + "': unsupported format (expected dense, csr, or d/ds levels)");
}

// The rank a tensor is used with in index notation text ("C(k,j)" -> 2), or 2 (operator form).
int rankInText(const std::string& text, const std::string& name) {
  std::smatch m;
  std::regex use("(^|[^A-Za-z0-9_])" + name + "\\s*\\(([^)]*)\\)");
  if (!std::regex_search(text, m, use)) return 2;
  std::string inside = m[2];
  if (inside.find_first_not_of(" \t") == std::string::npos) return 0;
  return static_cast<int>(std::count(inside.begin(), inside.end(), ',')) + 1;
}

Environment buildEnvironment(const Options& o, const std::string& text, TensorValues& inputs) {
  Environment env;
  env.indexSizes = o.indexSizes;
  for (const auto& [name, file] : o.inputFiles) {
    MarketData data = readMatrixMarket(file);
    if (const CsrMatrix* m = std::get_if<CsrMatrix>(&data)) {
      env.declare(name, {m->rows, m->cols}, Format::csr());
    } else {
      const DenseTensor& d = std::get<DenseTensor>(data);
      env.declare(name, d.shape, Format::dense(d.rank()));
    }
    inputs[name] = std::move(data);
  }
  for (const auto& [name, seed] : o.generated) {
    if (o.inputFiles.count(name)) throw Error("argument '-g=" + name + "': '" + name + "' is also loaded with -i");
    int rank = rankInText(text, name);
    auto f = o.formats.find(name);
    Format format = f == o.formats.end() ? Format::dense(rank) : parseFormat(name, f->second, rank);
    if (format.isSparse()) throw Error("argument '-g=" + name + "': generated inputs are dense");
    env.declare(name, std::vector<int64_t>(format.levels.size(), -1), format);
  }
  for (const auto& [name, f] : o.formats) {
    if (o.generated.count(name)) continue;
    auto it = env.tensors.find(name);
    int rank = it != env.tensors.end() ? it->second.rank() : rankInText(text, name);
    Format format = parseFormat(name, f, rank);
    if (it != env.tensors.end()) {
      if (format.levels.size() != it->second.format.levels.size() || format.isSparse() != it->second.format.isSparse())
        throw Error("argument '-f=" + name + ":" + f + "': '" + name + "' was loaded as " + it->second.format.str());
      continue;
    }
    env.declare(name, std::vector<int64_t>(format.levels.size(), -1), format);
  }
  return env;
}

double seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

int run(int argc, char** argv) {
  Options o = parseArgs(argc, argv);
  std::string text;
  for (const auto& s : o.statements) text += s + "\n";
  TensorValues inputs;
  Environment env = buildEnvironment(o, text, inputs);
  Program program = parseProgram(text, env);
  // Environment-declared tensors the program does not define are inputs; generated ones get data.
  for (const auto& [name, seed] : o.generated) {
    const TensorDecl& d = program.tensor(name);
    inputs[name] = randomDense(d.shape, seed, name);
  }
  for (const auto& [name, file] : o.outputFiles)
    if (program.tensor(name).role == TensorRole::Input)
      throw Error("argument '-o=" + name + ":" + file + "': '" + name + "' is an input, not a result");

  if (o.threads) omp_set_num_threads(o.threads);
  JitOptions jit;
  jit.cacheDir = o.cacheDir;
  // Auto decides on the inputs' statistics; the kernel is then compiled from its choice. The
  // default is auto when every csr input has data (-i), else react.
  CompileOptions options;
  options.fusion = o.fusion;
  bool everySparseInputGiven = true;
  for (const std::string& name : program.inputs())
    everySparseInputGiven &= !program.tensor(name).format.isSparse() || inputs.count(name);
  if (everySparseInputGiven) options.stats = inputStats(inputs);
  FusionMode mode = fusionModeOf(program, options);
  if (o.printDecisions && mode != FusionMode::Auto)
    throw Error("argument '-print-decisions': needs fusion mode auto (-fusion=auto; the default when every csr input has data)");
  FusionPlan plan;
  const Program userProgram = program;
  if (mode == FusionMode::Auto) {
    if (!options.stats) options.stats = inputStats(inputs);  // -fusion=auto: a csr input without data is an error
    options.machine = o.machineFile.empty() ? machineModel(jit) : readMachineModel(o.machineFile);
    AutoDecision decision = decideFusion(program, *options.stats, *options.machine);
    if (o.printDecisions) std::cout << decision.str();
    program = decision.choice().program;
    mode = decision.choice().mode;
    plan = decision.choice().plan;
  }
  std::vector<PassSnapshot> passes = runPipeline(program, mode, plan);
  const IndexTree& tree = passes.back().tree;
  if (o.printAfterAll)
    for (const PassSnapshot& s : passes) std::cout << "--- after " << s.pass << "\n" << printTree(s.tree);
  if (o.printTree) std::cout << printTree(tree);
  if (o.explain) std::cout << analyzeCost(tree).str();
  LoopProgram loops = lowerToLoops(tree);
  if (o.printLoops) std::cout << loops.str();
  EmitOptions emit;
  emit.boundsCheck = o.boundsCheck;
  emit.kokkosTeamSize = o.teamSize;
  std::string source = emitSource(loops, o.target, emit);
  if (o.printSource) std::cout << source;
  if (!o.writeSource.empty()) {
    std::ofstream out(o.writeSource);
    out << source;
    if (!out) throw Error("argument '-write-source=" + o.writeSource + "': cannot write the file");
  }
  bool printing = o.printTree || o.printAfterAll || o.printLoops || o.printSource || o.explain || o.printDecisions;
  if (printing && o.outputFiles.empty() && o.time == 0) return 0;

  for (const std::string& name : program.inputs())
    if (!inputs.count(name)) throw Error("input '" + name + "' has no data: give it with -i=" + name + ":FILE.mtx or -g=" + name + ":u");

  options.fusion = mode;  // auto decides again on the same statistics: the same choice
  options.target = o.target;
  options.emit = emit;
  options.jit = jit;
  auto start = std::chrono::steady_clock::now();
  Kernel kernel = Kernel::compile(userProgram, options);
  std::printf("compile: %.3f s (%s)\n", seconds(start, std::chrono::steady_clock::now()),
              kernel.library().cacheHit ? "cached" : "compiled");
  std::printf("threads: %d\n", o.target == Target::OpenMP ? omp_get_max_threads() : 1);

  BoundKernel bound = kernel.bind(inputs);
  bound.run();
  if (o.time > 0) {
    std::vector<double> times;
    for (int r = 0; r < o.time; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      bound.run();
      times.push_back(seconds(t0, std::chrono::steady_clock::now()));
    }
    std::sort(times.begin(), times.end());
    double median = times.size() % 2 ? times[times.size() / 2] : 0.5 * (times[times.size() / 2 - 1] + times[times.size() / 2]);
    std::printf("time: median=%.6g min=%.6g max=%.6g runs=%d\n", median, times.front(), times.back(), o.time);
  }
  for (const auto& [name, file] : o.outputFiles) {
    auto it = bound.outputs.find(name);
    if (it == bound.outputs.end()) throw Error("argument '-o=" + name + ":" + file + "': '" + name + "' is not a result of the program");
    if (const CsrMatrix* m = std::get_if<CsrMatrix>(&it->second)) writeMatrixMarket(file, *m);
    else writeMatrixMarket(file, std::get<DenseTensor>(it->second));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const Error& e) {
    std::fprintf(stderr, "react-gen: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "react-gen: internal error: %s\n", e.what());
    return 2;
  }
}
