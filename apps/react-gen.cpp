// react-gen: compile tensor expressions into kernels, print the trees and source, run and time them.
// Command-line conventions follow TACO's `taco` tool.
#include "internal_error_report.hpp"
#include "lower/lower.hpp"

#include <omp.h>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

using namespace react;

namespace {

const char* kUsage = R"(usage: react-gen "<statement>"... [options]

Statements are index notation (A(i,j) = S(i,j) * B(i,k) * C(k,j)) or operator form
(A = S * (B @ C)); several may be given, or separated by ';'.

options:
  -f=NAME:FORMAT     format of a tensor: dense, csr, csc, dcsr, coo, csf, or one letter per
                     level (d dense, s compressed, u compressed non-unique, q singleton,
                     c singleton non-unique) with an optional mode ordering (sss:1,0,2);
                     dense, csr, csc, dcsr and csf run today (docs/formats.md); a file
                     given by -i is read into it
  -d=INDEX:SIZE      extent of an index (dense dimensions of generated or output tensors)
  -d=TENSOR:SHAPE    shape of a tensor, e.g. -d=B:1000x64 (operator form needs no index
                     names); -d=NAME:N is a rank-1 shape when NAME is given by -f, -g or -i
  -i=NAME:FILE.mtx   load an input (coordinate -> csr, array -> dense; with -f, that format)
  -i=NAME:FILE.tns   load a FROSTT tensor, in -f's format (default csf); its shape is -d's,
                     else its largest coordinates
  -g=NAME:u[:SEED]   fill a dense input with uniform random values in [0,1) (seed default 1)
  -t=TYPE            value type of every input and result: float64 (the default) or float32
  -t=NAME:TYPE       value type of one input or result (wins over -t=TYPE); a statement computes
                     in its result's type, a temporary in the widest type of the statements
                     that read it; inputs are read (-i) and generated (-g) in their type
  -o=NAME:FILE.mtx   write a result as Matrix Market
  -o=NAME:FILE.tns   write a result as FROSTT (rank 3 needs it): a sparse result's stored
                     entries, a dense one's nonzeros
  -fusion=MODE       none | maximal | react | auto; auto picks the association of product
                     chains and the fusion from a cost model on the inputs' statistics (default:
                     auto when every sparse input has data (-i), else react)
  -print-decisions   print auto's candidates, their estimated costs and the choice
  -machine=FILE      auto decides for the machine model stored in FILE (a machine-<N>t.txt or
                     machine-kokkos-<hash>.txt of any machine's cache) instead of this machine's
  -target=TARGET     openmp | kokkos (default openmp)
  -threads=N         threads for the openmp target (default: all cores)
  -float-order=ORDER reassociate (default: reductions split over lanes and threads, fused
                     multiply-adds, vector exp) | written (the interpreter's results bit for bit)
  -print-tree        print the index tree after fusion
  -print-after-all   print the index tree after every pass
  -print-loops       print the loop IR
  -print-source      print the generated source
  -explain           print the symbolic cost and the redundancies left
  -write-source=FILE write the generated source to FILE
  -bounds-check      generated code checks every access
  -team-size=N       rows per Kokkos team (default: chosen at run time from the input)
  -cache-dir=DIR     JIT cache (default $REACT_CACHE_DIR or ~/.cache/react)
  -time=N            run N times after one warm-up and print the median, min and max (ms)
  -calibrate         measure this machine for fusion mode auto now and store the result in the
                     JIT cache (done once per thread count otherwise, on first use of auto);
                     with -target=kokkos, the Kokkos execution space (a GPU), once per device
                     (-threads does not apply)
  --help             this text
Printing options print without running unless -o or -time is also given.

exit status: 0 done; 1 an error in the input (a statement, an argument, a file), named on
stderr; 2 an unexpected failure (out of memory outside a checked allocation, ...); 70 an internal
compiler error: a bug in react, reported with the command line to send.
)";

[[noreturn]] void argError(const std::string& arg, const std::string& what) {
  throw UserError("argument '" + arg + "': " + what);
}

bool identifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// NAME:VALUE of an option like -i=NAME:VALUE; NAME as the grammar spells tensors and indices.
std::pair<std::string, std::string> nameValue(const std::string& arg, const std::string& value, const char* expected) {
  auto colon = value.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == value.size()) argError(arg, std::string("expected ") + expected);
  std::string name = value.substr(0, colon);
  if (std::isdigit(static_cast<unsigned char>(name[0])) || !std::all_of(name.begin(), name.end(), identifierChar))
    argError(arg, "'" + name + "' is not a name (letters, digits and '_', not starting with a digit)");
  return {name, value.substr(colon + 1)};
}

int64_t positive(const std::string& arg, const std::string& text, int64_t most = INT64_MAX) {
  try {
    size_t used = 0;
    long long v = std::stoll(text, &used);
    if (used == text.size() && v > 0 && v <= most) return v;
  } catch (const std::exception&) {
  }
  if (most == INT64_MAX) argError(arg, "'" + text + "' is not a positive integer");
  argError(arg, "'" + text + "' is not an integer from 1 to " + std::to_string(most));
}

// "1000x64" -> {1000, 64}.
std::vector<int64_t> shapeOf(const std::string& arg, const std::string& text) {
  std::vector<int64_t> shape;
  for (size_t start = 0;;) {
    size_t x = text.find('x', start);
    shape.push_back(positive(arg, text.substr(start, x == std::string::npos ? std::string::npos : x - start)));
    if (x == std::string::npos) return shape;
    start = x + 1;
  }
}

struct Options {
  std::vector<std::string> statements;
  std::map<std::string, std::string> formats, inputFiles, outputFiles;
  std::map<std::string, uint64_t> generated;
  std::map<std::string, int64_t> indexSizes;
  std::map<std::string, std::vector<int64_t>> shapes;  // -d=TENSOR:AxB
  std::map<std::string, std::string> shapeArgs;        // the argument that gave each shape
  std::optional<ValueType> valueType;                  // -t=TYPE
  std::map<std::string, ValueType> valueTypes;         // -t=NAME:TYPE
  std::map<std::string, std::string> valueTypeArgs;    // the argument that gave each one
  std::optional<FusionMode> fusion;  // unset: the default (fusionModeOf)
  Target target = Target::OpenMP;
  FloatOrder floatOrder = FloatOrder::Reassociate;
  int threads = 0;
  std::string machineFile;
  bool printTree = false, printAfterAll = false, printLoops = false, printSource = false, explain = false;
  bool printDecisions = false;
  bool boundsCheck = false;
  bool calibrate = false;
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
      auto [n, s] = nameValue(arg, value, "INDEX:SIZE or TENSOR:SHAPE");
      if (s.find('x') == std::string::npos) {
        o.indexSizes[n] = positive(arg, s);
      } else {
        o.shapes[n] = shapeOf(arg, s);
        o.shapeArgs[n] = arg;
      }
    } else if (key == "-i") {
      need();
      auto [n, f] = nameValue(arg, value, "NAME:FILE.mtx");
      o.inputFiles[n] = f;
    } else if (key == "-o") {
      need();
      auto [n, f] = nameValue(arg, value, "NAME:FILE.mtx");
      o.outputFiles[n] = f;
    } else if (key == "-t") {
      need();
      if (value.find(':') == std::string::npos) {
        o.valueType = parseValueType(value, "argument '" + arg + "'");
      } else {
        auto [n, t] = nameValue(arg, value, "TYPE or NAME:TYPE");
        o.valueTypes[n] = parseValueType(t, "argument '" + arg + "'");
        o.valueTypeArgs[n] = arg;
      }
    } else if (key == "-g") {
      need();
      auto [n, spec] = nameValue(arg, value, "NAME:u[:SEED]");
      if (spec != "u" && spec.rfind("u:", 0) != 0) argError(arg, "only 'u' (uniform [0,1)) fills are supported");
      o.generated[n] = spec == "u" ? 1 : static_cast<uint64_t>(positive(arg, spec.substr(2)));
    } else if (key == "-fusion") {
      need();
      try {
        o.fusion = parseFusionMode(value);
      } catch (const UserError& e) {
        argError(arg, e.what());
      }
    } else if (key == "-target") {
      need();
      try {
        o.target = parseTarget(value);
      } catch (const UserError& e) {
        argError(arg, e.what());
      }
    } else if (key == "-float-order") {
      need();
      try {
        o.floatOrder = parseFloatOrder(value);
      } catch (const UserError& e) {
        argError(arg, e.what());
      }
    } else if (key == "-threads") {
      need();
      o.threads = static_cast<int>(positive(arg, value, 4096));
    } else if (key == "-machine") {
      need();
      o.machineFile = value;
    } else if (key == "-time") {
      need();
      o.time = static_cast<int>(positive(arg, value, 100000000));
    } else if (key == "-team-size") {
      need();
      o.teamSize = static_cast<int>(positive(arg, value, 1024));
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
    } else if (!hasValue && key == "-calibrate") {
      o.calibrate = true;
    } else {
      argError(arg, "unknown option (see --help)");
    }
  }
  if (o.statements.empty() && !o.calibrate) throw UserError("no statement given (see --help)");
  // -d=NAME:N for a tensor given by -f/-g/-i is its (rank-1) shape, not an index extent.
  for (auto it = o.indexSizes.begin(); it != o.indexSizes.end();) {
    const std::string& name = it->first;
    if (!o.formats.count(name) && !o.generated.count(name) && !o.inputFiles.count(name)) {
      ++it;
      continue;
    }
    o.shapes[name] = {it->second};
    o.shapeArgs[name] = "-d=" + name + ":" + std::to_string(it->second);
    it = o.indexSizes.erase(it);
  }
  return o;
}

// A format name or TACO's level letters (react::parseFormat), its errors naming the argument.
Format formatArgument(const std::string& name, const std::string& text, int rank) {
  try {
    return parseFormat(text, rank);
  } catch (const UserError& e) {
    throw UserError("argument '-f=" + name + ":" + text + "': " + e.what());
  }
}

// The rank a tensor is used with in index notation text ("C(k,j)" -> 2), or 2 (operator form):
// the first use of `name` as a whole word followed by '(' (a plain scan: user text never becomes
// a pattern).
int rankInText(const std::string& text, const std::string& name) {
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    size_t end = at + name.size();
    if ((at > 0 && identifierChar(text[at - 1])) || (end < text.size() && identifierChar(text[end]))) continue;
    end = text.find_first_not_of(" \t", end);
    if (end == std::string::npos || text[end] != '(') continue;
    size_t close = text.find(')', end);
    std::string inside = text.substr(end + 1, close == std::string::npos ? std::string::npos : close - end - 1);
    if (inside.find_first_not_of(" \t") == std::string::npos) return 0;
    return static_cast<int>(std::count(inside.begin(), inside.end(), ',')) + 1;
  }
  return 2;
}

// The shape a tensor is declared with: from -d=TENSOR:SHAPE, else unknown (-1 per dimension).
std::vector<int64_t> declaredShape(const Options& o, const std::string& name, size_t rank) {
  auto it = o.shapes.find(name);
  if (it == o.shapes.end()) return std::vector<int64_t>(rank, -1);
  if (it->second.size() != rank)
    throw UserError("argument '" + o.shapeArgs.at(name) + "': '" + name + "' has rank " + std::to_string(rank) + ", not " +
                std::to_string(it->second.size()));
  return it->second;
}

// The value type -t gives a tensor (float64 without one).
ValueType valueTypeOf(const Options& o, const std::string& name) {
  auto it = o.valueTypes.find(name);
  return it != o.valueTypes.end() ? it->second : o.valueType.value_or(ValueType::Float64);
}

// The program with the value types of -t: every input and result, or the one named.
Program withOptionTypes(const Program& p, const Options& o) {
  std::map<std::string, ValueType> types;
  for (const auto& [name, decl] : p.tensors)
    if (decl.role != TensorRole::Temporary) types[name] = valueTypeOf(o, name);
  for (const auto& [name, arg] : o.valueTypeArgs)
    if (!types.count(name)) argError(arg, "the program has no input or result '" + name + "'");
  return withValueTypes(p, types);
}

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// -o's file: FROSTT for a .tns file (a sparse result's stored entries, a dense one's nonzeros),
// else Matrix Market (rank 2 at most; a sparse result of another format as csr).
void writeResult(const std::string& file, const TensorData& result) {
  if (endsWith(file, ".tns")) {
    if (const CsrMatrix* m = std::get_if<CsrMatrix>(&result)) writeFrostt(file, csrToSparse(*m));
    else if (const DenseTensor* d = std::get_if<DenseTensor>(&result)) writeFrostt(file, denseToSparse(*d, Format::coo(d->rank())));
    else writeFrostt(file, std::get<SparseTensor>(result));
  } else if (const CsrMatrix* m = std::get_if<CsrMatrix>(&result)) {
    writeMatrixMarket(file, *m);
  } else if (const DenseTensor* d = std::get_if<DenseTensor>(&result)) {
    writeMatrixMarket(file, *d);
  } else {
    writeMatrixMarket(file, sparseToCsr(std::get<SparseTensor>(result)));
  }
}

// -f's format of a tensor -i loads (checked to run), or none.
std::optional<Format> loadedFormat(const Options& o, const std::string& name, int rank) {
  auto f = o.formats.find(name);
  if (f == o.formats.end()) return std::nullopt;
  Format format = formatArgument(name, f->second, rank);
  // coo is read as it is and iterated in its unique form (Format::iterated).
  if (auto unsupported = unsupportedFormat(name, format.iterated())) argError("-f=" + name + ":" + f->second, *unsupported);
  TensorDecl input;  // a loaded tensor is an input: dense levels under sparse ones run in a result only
  input.name = name;
  input.format = format.iterated();
  input.role = TensorRole::Input;
  if (auto refused = patternFormatMismatch(input, input)) argError("-f=" + name + ":" + f->second, *refused);
  return format;
}

// The file of -i=NAME:FILE: a FROSTT .tns file in `format` (default csf of `rank`) and -d's
// shape, a Matrix Market file as it is (coordinate -> csr, array -> dense) or in `format` when
// that is sparse.
TensorData readInput(const Options& o, const std::string& name, const std::string& file, const std::optional<Format>& format,
                     int rank) {
  const ValueType type = valueTypeOf(o, name);
  if (endsWith(file, ".tns")) {
    auto shape = o.shapes.find(name);
    const std::vector<int64_t> dimensions = shape != o.shapes.end() ? shape->second : std::vector<int64_t>{};
    SparseTensor t = readFrostt(file, format.value_or(Format::csf(rank)), type, dimensions);
    if (t.format == Format::csr()) return sparseToCsr(t);  // csr data is a CsrMatrix
    if (t.format == Format::dense(t.rank())) return sparseToDense(t);
    return t;
  }
  if (format && format->hasSparseLevel() && *format != Format::csr()) return readMatrixMarketSparse(file, *format, type);
  return toTensorData(readMatrixMarket(file, type));
}

Environment buildEnvironment(const Options& o, const std::string& text, TensorValues& inputs) {
  Environment env;
  env.indexSizes = o.indexSizes;
  for (const auto& [name, file] : o.inputFiles) {
    std::string arg = "-i=" + name + ":" + file;
    auto given = o.shapes.find(name);
    const int rank = given != o.shapes.end()  ? static_cast<int>(given->second.size())
                     : endsWith(file, ".tns") ? rankInText(text, name)
                                              : 2;
    const std::optional<Format> format = loadedFormat(o, name, rank);
    TensorData data;
    try {
      data = readInput(o, name, file, format, rank);
    } catch (const UserError& e) {
      throw UserError("argument '" + arg + "': " + e.what());
    }
    std::vector<int64_t> shape = shapeOf(data);
    if (o.shapes.count(name) && declaredShape(o, name, shape.size()) != shape)
      throw UserError("argument '" + o.shapeArgs.at(name) + "': '" + name + "' is loaded from '" + file + "' with another shape");
    env.declare(name, shape, formatOf(data));
    inputs[name] = std::move(data);
  }
  for (const auto& [name, seed] : o.generated) {
    if (o.inputFiles.count(name)) throw UserError("argument '-g=" + name + "': '" + name + "' is also loaded with -i");
    auto shape = o.shapes.find(name);
    int rank = shape != o.shapes.end() ? static_cast<int>(shape->second.size()) : rankInText(text, name);
    auto f = o.formats.find(name);
    Format format = f == o.formats.end() ? Format::dense(rank) : formatArgument(name, f->second, rank);
    if (format.hasSparseLevel()) throw UserError("argument '-g=" + name + "': generated inputs are dense");
    env.declare(name, declaredShape(o, name, static_cast<size_t>(format.rank())), format);
  }
  for (const auto& [name, f] : o.formats) {
    if (o.generated.count(name)) continue;
    auto it = env.tensors.find(name);
    auto shape = o.shapes.find(name);
    int rank = it != env.tensors.end()       ? it->second.rank()
               : shape != o.shapes.end()     ? static_cast<int>(shape->second.size())
                                             : rankInText(text, name);
    Format format = formatArgument(name, f, rank);
    if (it != env.tensors.end()) {
      // A loaded tensor is read in -f's format where it can be (readInput checked that it runs).
      const Format& loadedAs = it->second.declaredFormat();
      if (format != loadedAs)
        throw UserError("argument '-f=" + name + ":" + f + "': '" + name + "' was loaded as " + loadedAs.str());
      continue;
    }
    env.declare(name, declaredShape(o, name, static_cast<size_t>(format.rank())), format);
  }
  // A shape alone declares a dense tensor of that shape.
  for (const auto& [name, shape] : o.shapes)
    if (!env.tensors.count(name)) env.declare(name, shape, Format::dense(static_cast<int>(shape.size())));
  return env;
}

// Finds what would make writing `file` fail after compiling and running: a missing or read-only
// directory, a directory in its place.
void checkWritable(const std::string& arg, const std::string& file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(file, ec)) argError(arg, "'" + file + "' is a directory");
  fs::path dir = fs::path(file).parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec)) argError(arg, "the directory '" + dir.string() + "' does not exist");
  if (::access(dir.c_str(), W_OK) != 0) argError(arg, "the directory '" + dir.string() + "' is not writable");
}

double seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// -calibrate: measures now, replacing what is stored.
int calibrate(const Options& o, const JitOptions& jit) {
  MachineModel m = calibrateMachine(jit, o.threads, &std::cerr, o.target);
  std::string path = storeMachineModel(m, jit);
  std::cout << m.str() << "\nstored in " << path << "\n";
  return 0;
}

int run(int argc, char** argv) {
  Options o = parseArgs(argc, argv);
  if (o.threads) omp_set_num_threads(o.threads);
  JitOptions jit;
  jit.cacheDir = o.cacheDir;
  if (o.calibrate) return calibrate(o, jit);
  // One line per statement argument: an error at line N is in the N-th statement.
  std::string text;
  for (const auto& s : o.statements) text += (text.empty() ? "" : "\n") + s;
  TensorValues inputs;
  Environment env = buildEnvironment(o, text, inputs);
  Program program = withOptionTypes(parseProgram(text, env), o);
  // Environment-declared tensors the program does not define are inputs; generated ones get data.
  for (const auto& [name, seed] : o.generated) {
    const TensorDecl& d = program.tensor(name);
    inputs[name] = randomDense(d.shape, seed, name, d.valueType);
  }
  for (const auto& [name, file] : o.outputFiles) {
    std::string arg = "-o=" + name + ":" + file;
    auto it = program.tensors.find(name);
    if (it == program.tensors.end()) argError(arg, "the program has no tensor '" + name + "'");
    if (it->second.role == TensorRole::Input) argError(arg, "'" + name + "' is an input, not a result");
    if (it->second.role != TensorRole::Output) argError(arg, "'" + name + "' is not a result of the program");
    if (!endsWith(file, ".tns") && it->second.shape.size() > 2)
      argError(arg, "'" + name + "' has rank " + std::to_string(it->second.shape.size()) +
                        "; Matrix Market holds rank 2 at most: write it as FROSTT (a .tns file)");
    checkWritable(arg, file);
  }
  if (!o.writeSource.empty()) checkWritable("-write-source=" + o.writeSource, o.writeSource);

  // Auto decides on the inputs' statistics; everything below (printing, -write-source, the
  // kernel run and timed) uses the one tree it chose. The default is auto when every sparse
  // input has data (-i), else react.
  CompileOptions options;
  options.fusion = o.fusion;
  bool everySparseInputGiven = true;
  for (const std::string& name : program.inputs())
    everySparseInputGiven &= !program.tensor(name).format.hasSparseLevel() || inputs.count(name);
  if (everySparseInputGiven) options.stats = inputStats(inputs);
  FusionMode mode = fusionModeOf(program, options);
  if (o.printDecisions && mode != FusionMode::Auto)
    throw UserError("argument '-print-decisions': needs fusion mode auto (-fusion=auto; the default when every sparse input has data)");
  FusionPlan plan;
  if (mode == FusionMode::Auto) {
    if (!options.stats) options.stats = inputStats(inputs);  // -fusion=auto: a csr input without data is an error
    requireStatistics(program, *options.stats);
    EmitOptions emit;
    emit.floatOrder = o.floatOrder;
    const MachineModel machine =
        modelForLowering(o.machineFile.empty() ? machineModel(jit, 0, o.target) : readMachineModel(o.machineFile), o.target, emit);
    AutoDecision decision = decideFusion(program, *options.stats, machine);
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
  options.target = o.target;
  options.emit.boundsCheck = o.boundsCheck;
  options.emit.floatOrder = o.floatOrder;
  options.emit.kokkosTeamSize = o.teamSize;
  options.jit = jit;
  std::string source = emitSource(loops, o.target, options.emit);
  if (o.printSource) std::cout << source;
  if (!o.writeSource.empty()) {
    try {
      writeFileAtomically(o.writeSource, source);
    } catch (const UserError& e) {
      argError("-write-source=" + o.writeSource, e.what());
    }
  }
  bool printing = o.printTree || o.printAfterAll || o.printLoops || o.printSource || o.explain || o.printDecisions;
  if (printing && o.outputFiles.empty() && o.time == 0) return 0;

  for (const std::string& name : program.inputs()) {
    if (inputs.count(name)) continue;
    const Format& f = program.tensor(name).format;
    if (f.hasSparseLevel() && f != Format::csr())
      throw UserError("input '" + name + "' has no data: give it with -i=" + name + ":FILE.tns or -i=" + name + ":FILE.mtx");
    throw UserError("input '" + name + "' has no data: give it with -i=" + name + ":FILE.mtx or -g=" + name + ":u");
  }

  auto start = std::chrono::steady_clock::now();
  Kernel kernel = Kernel::compile(tree, options);
  REACT_ASSERT(kernel.source() == source, "the compiled source differs from the printed one");
  std::printf("compile: %.3f s (%s %s)\n", seconds(start, std::chrono::steady_clock::now()),
              kernel.library().cacheHit ? "cached" : "compiled", kernel.library().libraryPath.c_str());
  std::printf("threads: %d\n", o.target == Target::OpenMP ? omp_get_max_threads() : 1);

  start = std::chrono::steady_clock::now();
  BoundKernel bound = kernel.bind(inputs);
  for (const auto& [copy, input] : kernel.loops().transposedInputs)
    std::printf("bind: %s transposed once for every run in %.3f ms (not in the times below)\n", input.c_str(),
                1e3 * seconds(start, std::chrono::steady_clock::now()));
  for (const auto& [walk, input] : kernel.loops().columnWalks)
    std::printf("bind: %s walked by its %s\n", input.c_str(),
                bound.prepared && bound.prepared->count(walk) ? "columns (a copy made once for every run)" : "rows");
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
    std::printf("time: median=%.6g ms min=%.6g ms max=%.6g ms runs=%d\n", 1e3 * median, 1e3 * times.front(),
                1e3 * times.back(), o.time);
  }
  const TensorValues& results = bound.results();
  for (const auto& [name, file] : o.outputFiles) {
    const TensorData& result = results.at(name);
    try {
      writeResult(file, result);
    } catch (const UserError& e) {
      argError("-o=" + name + ":" + file, e.what());
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const UserError& e) {
    std::fprintf(stderr, "react-gen: %s\n", e.what());
    return apps::kExitUserError;
  } catch (const InternalError& e) {
    return apps::reportInternalError("react-gen", e, argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "react-gen: internal error: %s\n", e.what());
    return 2;
  }
}
