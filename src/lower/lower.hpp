// react/lower: index tree -> loop IR -> C++ source (Kokkos or OpenMP) -> JIT-compiled kernel.
#pragma once

#include "fusion/fusion.hpp"
#include "lower/abi.h"

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace react {

// --- loop IR (src/lower/ir/ir.hpp; docs/design.md) ------------------------------------------------
namespace ir {
struct StmtNode;
}
// One kernel as the typed loop IR: its arguments (the ABI's order), the extents it takes at run
// time, and its statements (the nests, one kernel launch each on Kokkos). lowerToLoops gives the
// IR before any scheduling pass; emitSource runs the target's passes, then prints.
struct LoopProgram {
  std::vector<std::shared_ptr<const ir::StmtNode>> body;
  std::map<std::string, TensorStorage> tensors;
  std::map<std::string, int64_t> indexSizes;
  std::vector<std::string> args;          // inputs, outputs, then prepared inputs: the kernel's tensor arguments
  // Prepared arguments (ir::StmtKind::Prepare), each the transposed copy of an input: Kernel::bind
  // makes them once, and a kernel not given one (bound to views) makes it at every run.
  std::map<std::string, std::string> transposedInputs;  // prepared argument -> the input
  // Prepared arguments that a kernel may be given or not, each a csr input's stored entries by
  // columns (formats' csrByColumns: csc, and each entry's csr position): Kernel::bind makes one
  // where walking the matrix by columns is the faster walk (walksByColumns), and the kernel walks
  // the rows where it has none (passes/column_walks.cpp).
  std::map<std::string, std::string> columnWalks;  // prepared argument -> the csr input
  std::vector<std::string> patternArgs;   // args that own their sparse pattern (positions, coordinates)
  // Results stored at a pattern the kernel's merge loops assemble: Kernel::bind assembles it from
  // the operands' patterns (mergedPattern) before the kernel fills its values.
  std::map<std::string, CoIteration> assembledPatterns;
  std::vector<std::string> runtimeSizes;  // index extents passed at run time (sparse dimensions)
  // arg tensor or temporary -> index of each dimension (a temporary's as its producer writes it)
  std::map<std::string, std::vector<std::string>> dimIndices;
  std::string treeText;                   // printTree of the source tree
  std::string str() const;                // the IR's text form (ir::print)
};

LoopProgram lowerToLoops(const IndexTree& t);

// --- emitters ---------------------------------------------------------------------------------
enum class Target { Kokkos, OpenMP };
Target parseTarget(const std::string& s);  // "kokkos" | "openmp"; throws react::UserError
std::string toString(Target t);

// Floating point (docs/design.md, "Floating point"). Reassociate: reductions may be split over
// vector lanes and threads and combined, multiplies and adds may fuse, and exp and log over vector
// loops come from the vector math library; results differ from the written order's by rounding,
// within what each reduction's length allows. Written: every reduction in the order the loops
// run, every operation rounded as written, the C library's scalar exp and log: the result is, bit
// for bit, what react's interpreter computes.
enum class FloatOrder { Reassociate, Written };
FloatOrder parseFloatOrder(const std::string& s);  // "reassociate" | "written"; throws react::UserError

struct EmitOptions {
  bool boundsCheck = false;          // every access checked; a violation aborts with its location
  FloatOrder floatOrder = FloatOrder::Reassociate;
  int kokkosTeamSize = 0;            // rows per Kokkos team; 0 = chosen at run time from the input
  bool laneLoopsOutermost = false;   // Kokkos: the loop order used on a GPU also on a CPU (tests)
  // Kokkos: a plain dense product calls the kernel library's (cuBLAS) where there is one; off,
  // the nest runs as react's loops (the calibration measures those).
  bool libraryProducts = true;
  std::string functionName = "react_kernel";
};

// The target's scheduling passes (src/lower/passes/) over the IR lowerToLoops gave.
LoopProgram scheduleLoops(const LoopProgram& p, Target target, const EmitOptions& options = {});
// A C++ translation unit defining
//   extern "C" void <functionName>(const ReactTensor* tensors, const int64_t* sizes);
// with tensors in LoopProgram::args order and sizes in LoopProgram::runtimeSizes order: the
// scheduled IR (scheduleLoops), printed.
std::string emitSource(const LoopProgram& p, Target target, const EmitOptions& options = {});
// Prints IR scheduled for `target` (what emitSource does after scheduleLoops).
std::string printSource(const LoopProgram& scheduled, Target target, const EmitOptions& options = {});
// The kernel ABI (lower/abi.h, also embedded in every emitted source): the tensor argument, the
// kernel's signature, and the Kokkos runtime every Kokkos library exports.
using ReactTensor = ::ReactTensor;
using KernelFunction = ::ReactKernelFunction;
enum class CopyKind {
  HostToDevice = REACT_COPY_HOST_TO_DEVICE,
  DeviceToHost = REACT_COPY_DEVICE_TO_HOST,
  DeviceToDevice = REACT_COPY_DEVICE_TO_DEVICE
};
// The one lock of every call this process makes into a Kokkos library (its kernels and its
// runtime): Kokkos' host backends take one dispatch at a time, and a CUDA kernel captured as a
// graph (docs/design.md, "A call as a CUDA graph") needs the stream to itself, with nothing waiting
// for the device, while it is captured.
std::mutex& kokkosCallMutex();
// The Kokkos runtime of a loaded library: one pointer per entry of REACT_KOKKOS_RUNTIME, called
// through the member of the entry's name, under kokkosCallMutex.
struct KokkosRuntime {
#define REACT_RUNTIME_POINTER(type, name, parameters, field)                  \
  type(*field##Function) parameters = nullptr;                                \
  template <class... Arguments>                                               \
  type field(Arguments... arguments) const {                                  \
    std::lock_guard<std::mutex> lock(kokkosCallMutex());                      \
    return field##Function(arguments...);                                     \
  }
  REACT_KOKKOS_RUNTIME(REACT_RUNTIME_POINTER)
#undef REACT_RUNTIME_POINTER
};

// --- JIT --------------------------------------------------------------------------------------
struct JitOptions {
  std::string cacheDir;  // "" = $REACT_CACHE_DIR or ~/.cache/react
  std::string extraFlags;  // appended to the compiler's flags (a later -O wins: "-O0" compiles faster)
  bool verbose = false;
};
struct CompiledLibrary {
  void* handle = nullptr;
  KernelFunction function = nullptr;  // the function named at compile time
  std::string sourcePath, libraryPath;
  bool cacheHit = false;
  double compileSeconds = 0;  // 0 on a cache hit
  KokkosRuntime runtime;      // Kokkos libraries only
};
// Compiles (or finds in the cache) the source for `target` and loads it. The cache key hashes the
// source, the compiler and its flags. Compile errors throw react::UserError naming the source file.
CompiledLibrary jitCompile(const std::string& source, Target target, const JitOptions& options = {},
                           const std::string& functionName = "react_kernel");
std::string compilerCommand(Target target);  // what jitCompile runs, for reports
KernelFunction lookupKernel(const CompiledLibrary& lib, const std::string& functionName);
// options.cacheDir, else $REACT_CACHE_DIR, else $HOME/.cache/react. jitCompile uses it only while
// it is private (this user's, writable by no one else: else react::UserError); one it cannot write
// makes it compile into a private temporary directory instead.
std::string jitCacheDirectory(const JitOptions& options);
std::string contentHash(const std::string& text);  // 16 hex digits (FNV-1a); not cryptographic

// --- child processes (process.cpp) -------------------------------------------------------------
// Runs argv[0] (searched in PATH) with these arguments, no shell in between, stdout and stderr
// into outputFile when one is named; returns the exit status (128 + signal when killed).
int runProcess(const std::vector<std::string>& argv, const std::string& outputFile = "");
std::vector<std::string> splitWords(const std::string& text);  // on blanks; quotes mean nothing

// --- C++ API ----------------------------------------------------------------------------------
struct CompileOptions {
  // Unset: the default, auto where it can decide (the statistics of every sparse input are known:
  // `stats` is set, or Kernel::compile is given the inputs; a program without sparse inputs needs
  // none), else react. fusionModeOf says which.
  std::optional<FusionMode> fusion;
  Target target = Target::OpenMP;
  EmitOptions emit;
  JitOptions jit;
  // Auto only: the inputs' statistics (inputStats(values); needed when the program has sparse
  // inputs) and the machine (default: machineModel(jit, 0, target), measured once and stored).
  std::optional<InputStats> stats;
  std::optional<MachineModel> machine;
};

// --- fusion mode auto (choose.cpp, calibrate.cpp; docs/auto.md) --------------------------------
// The tree Kernel::compile uses: fuse(p, options.fusion), or under Auto the choice of
// decideFusion (then also stored in *decision when given).
IndexTree fusedTree(const Program& p, const CompileOptions& options, AutoDecision* decision = nullptr);
FusionMode fusionModeOf(const Program& p, const CompileOptions& options);  // options.fusion, or the default
// What auto decides with for a target's kernels: a measured model `m` with what the target's
// lowering does set: no library product under the written order or without library products,
// and the rows Kokkos spreads over team threads (MachineModel::splitRowsFrom).
MachineModel modelForLowering(MachineModel m, Target target, const EmitOptions& emit);
// The machine's rates for `threads` OpenMP threads (0 = omp_get_max_threads()): read from
// <JIT cache dir>/machine-<threads>t.txt, or measured (seconds, its kernels compiled the first
// time) and stored there. Target::Kokkos: the rates of Kokkos kernels on the execution space they
// run on (a GPU), as one whole (`threads` is not used), per device: machine-kokkos-<hash of the
// device's description>.txt.
MachineModel machineModel(const JitOptions& jit = {}, int threads = 0, Target target = Target::OpenMP);
// Measures, stores nothing; says what it measures on *progress as it goes, and warns there when
// the machine was busy meanwhile (MachineModel::loadWarning).
MachineModel calibrateMachine(const JitOptions& jit, int threads, std::ostream* progress = nullptr,
                              Target target = Target::OpenMP);
// Stores a model where machineModel looks for it (replacing what was there); returns the path.
std::string storeMachineModel(const MachineModel& m, const JitOptions& jit = {});
// A stored model as it is, from any machine (planning for another machine, replaying its
// measurements); throws react::UserError naming the file when it is missing or incomplete.
MachineModel readMachineModel(const std::string& path);
// A Kokkos model from what was measured for the whole execution space (`whole`: threads 1): its
// threads become the rows the space runs at once (`concurrency` threads, a row each on a host, a
// warp's 32 on a device), its rates, exp rate and one-thread bandwidth those of one row's share,
// so that the estimate's rule (a nest of N outer iterations runs on min(threads, N)) says that a
// nest of few rows leaves a GPU idle.
MachineModel sharedAmongRows(MachineModel whole, int concurrency, bool onHost);

// --- tensors in the caller's memory (Kernel::bindViews; the Python module, docs/python.md) -----
// Where a tensor's arrays are: the host's memory, or that of the device a Kokkos kernel runs on
// when the host cannot read it (CUDA).
enum class MemorySpace { Host, Device };
std::string toString(MemorySpace m);  // "host" / "device"
// A tensor held by the caller, described for a kernel that reads or writes it in place: shape,
// format (csr or dense: views of other sparse formats are not taken yet), value type, memory, and
// its arrays as the kernel ABI takes them (`data.vals`: values of `valueType`, `data.nnz` of them;
// csr: `data.pos[1]` rows+1 int64 positions, `data.crd[1]` int32 coordinates).
struct TensorView {
  std::vector<int64_t> shape;
  bool csr = false;
  ValueType valueType = ValueType::Float64;
  MemorySpace memory = MemorySpace::Host;
  ReactTensor data{};
};
using TensorViews = std::map<std::string, TensorView>;
// Throws react::UserError "tensor 'S': invalid CSR matrix: ..." unless a host csr view's arrays
// are a valid csr matrix of its shape (validateCsrArrays): kernels read them unchecked. A device
// view is not read (the host cannot).
void checkCsrView(const std::string& name, const TensorView& v);
// One result of a run, as the caller allocates it: its shape for the run's sizes, format and value
// type; a sparse result's values sit at the stored entries of the input `pattern`, in its format
// (a csc pattern's result is csc; with views, a csr pattern's only).
struct ResultLayout {
  std::string name;
  std::vector<int64_t> shape;
  bool sparse = false;
  std::string pattern;
  ValueType valueType = ValueType::Float64;
  // A sparse result's format: the pattern's, or a prefix of its levels with dense levels after
  // them (TTM's ssd: patternPrefix).
  Format format;
};

// Is a csr matrix walked faster by its columns than by its rows, where a kernel gathers a dense
// row at each stored entry's coordinate (SDDMM's entry lanes)? Kernel::bind makes the kernel's
// column walks (LoopProgram::columnWalks) of the matrices where it is (column_walks.cpp says how
// it decides, and why).
bool walksByColumns(const CsrMatrix& m);

class Kernel;
struct DeviceCopies;
struct FloatCopies;
class BoundKernel;
// A kernel with its arguments bound: inputs borrowed, outputs allocated once (Kernel::bind), or
// every argument borrowed (Kernel::bindViews). Runs reuse them,
// so timing one measures the kernel alone. On a device that cannot read host memory (CUDA), the
// inputs are copied to the device once here.
// A float32 tensor (TensorDecl::valueType) is a float array for the kernel: bind converts each
// float32 input's values (rounding them when they were given as float64) and allocates each
// float32 output's array once, a copy of 4 bytes per value besides the host tensor (counted in
// float32Bytes).
// The results are read only through results(), which brings back what the last run left on the
// device or in float arrays first: a host copy that is not the last run's cannot be read.
class BoundKernel {
 public:
  // Move-only: the kernel's arguments point into this object's output arrays, which a copy would
  // not share.
  BoundKernel() = default;
  BoundKernel(BoundKernel&&) = default;
  BoundKernel& operator=(BoundKernel&&) = default;
  BoundKernel(const BoundKernel&) = delete;
  BoundKernel& operator=(const BoundKernel&) = delete;

  std::vector<ReactTensor> args;  // in the kernel's memory space
  std::vector<int64_t> sizes;
  std::shared_ptr<DeviceCopies> device;  // null where the kernel reads host memory
  std::shared_ptr<FloatCopies> floats;   // the float32 tensors' float arrays on the host; null when none
  int64_t float32Bytes = 0;              // their size
  // The prepared arguments (LoopProgram::transposedInputs, and the column walks bind chose), made
  // here once for every run from the inputs as they are now (a run reads them, not the inputs);
  // Kernel::run, a bind for one run, makes them at every call. Null when none.
  std::shared_ptr<TensorValues> prepared;
  // Inputs given in the format they were declared in, converted to the one kernels iterate
  // (TensorDecl::given: coo's entries as dcsr or csf); null when none.
  std::shared_ptr<TensorValues> converted;
  // The column walks' csr positions (ReactTensor::source), by prepared argument; null when none.
  std::shared_ptr<std::map<std::string, std::vector<int64_t>>> sources;
  int64_t preparedBytes = 0;             // their size, sources included
  // What the kernel allocates at every run (its temporaries), for the error when it cannot.
  std::string temporaries;
  int64_t temporaryBytes = 0;

  void run();  // returns when the kernel has finished (it fences)
  // The last run's results on the host (copied back first where needed); react::UserError before
  // any run, and for a kernel bound to views (its results are in their arrays).
  const TensorValues& results();
  bool onDevice() const { return device != nullptr; }

 private:
  friend class Kernel;
  enum class HostCopy { NoRun, Current, Stale, InViews };
  TensorValues outputs_;  // host tensors of the results, current only when hostCopy_ says so
  HostCopy hostCopy_ = HostCopy::NoRun;
  const Kernel* kernel_ = nullptr;
};

class Kernel {
 public:
  static Kernel compile(const Program& p, const CompileOptions& options = {});
  // The same, with auto's statistics taken from the inputs it will run on (choose.cpp).
  static Kernel compile(const Program& p, CompileOptions options, const TensorValues& inputs);
  // A tree already fused (what fusedTree or runPipeline gave, printed or chosen by the caller):
  // exactly that tree is lowered and compiled; options.fusion, stats and machine are not used.
  static Kernel compile(const IndexTree& tree, const CompileOptions& options);
  // Many programs in one translation unit: one compiler run, one library (fast test suites).
  static std::vector<Kernel> compileBatch(const std::vector<Program>& programs, const CompileOptions& options = {});
  // The same for trees already fused (each program's own auto decision, say): options.fusion,
  // stats and machine are not used.
  static std::vector<Kernel> compileTrees(const std::vector<IndexTree>& trees, const CompileOptions& options = {});
  // Runs on host data (copied to the device and back where the kernel runs on one); checks every
  // input's presence, format and shape (react::UserError otherwise).
  TensorValues run(const TensorValues& inputs) const;
  // Binds inputs (which must outlive the result) and allocates outputs, in device memory where
  // the kernel runs on a device.
  BoundKernel bind(const TensorValues& inputs) const;
  // Runs on caller-owned buffers in the kernel's memory space (benchmarks reuse them).
  void runRaw(const ReactTensor* tensors, const int64_t* sizes) const {
    if (target_ != Target::Kokkos) return lib_.function(tensors, sizes);
    std::lock_guard<std::mutex> lock(kokkosCallMutex());
    lib_.function(tensors, sizes);
  }
  // Extents of every index for these inputs: sparse dimensions from the inputs themselves (so one
  // kernel serves matrices of any size), dense ones as compiled; inconsistent shapes throw.
  std::map<std::string, int64_t> sizesFor(const TensorValues& inputs) const;
  // The same from views: only their shapes and formats are read (other entries are ignored).
  std::map<std::string, int64_t> sizesFor(const TensorViews& inputs) const;
  // The results a run with these sizes (sizesFor) writes, in argument order.
  std::vector<ResultLayout> resultsFor(const std::map<std::string, int64_t>& sizes) const;
  // Binds views of every argument, by name: the inputs, and arrays for the results laid out as
  // resultsFor says (a csr result's positions and coordinates are its pattern's: the view's are
  // not used). Nothing is copied: runs read and write the views' arrays, which must outlive the
  // result, be in the kernel's memory (memory()) and hold its tensors' value types. Checks
  // presence, formats, value types, memory, shapes and array lengths (react::UserError naming the
  // tensor), not the contents of csr arrays (checkCsrView).
  BoundKernel bindViews(const TensorViews& arguments) const;
  // Where the kernel reads and writes: the device for a Kokkos kernel on a device the host cannot
  // read (CUDA), else the host.
  MemorySpace memory() const;

  const IndexTree& tree() const { return tree_; }
  const LoopProgram& loops() const { return loops_; }  // the loop IR after the target's passes
  const std::string& source() const { return source_; }
  const CompiledLibrary& library() const { return lib_; }
  Target target() const { return target_; }

 private:
  // What a run allocates besides its arguments (the kernel allocates its temporaries itself): a
  // description for the error when it cannot, and the bytes. `patternNnz` gives a csr input's
  // stored entries; `withPrepared`: the kernel makes its prepared arguments (it was not given them).
  struct TemporaryStorage {
    std::string what;
    int64_t bytes = 0;
  };
  TemporaryStorage temporaryStorage(const std::map<std::string, int64_t>& sizes,
                                    const std::function<int64_t(const std::string&)>& patternNnz, bool withPrepared) const;
  // sizesFor of the inputs' shapes, by name (the callers check their formats).
  std::map<std::string, int64_t> sizesForShapes(const std::map<std::string, std::vector<int64_t>>& inputs) const;

  IndexTree tree_;
  LoopProgram loops_;
  std::string source_;
  CompiledLibrary lib_;
  Target target_ = Target::OpenMP;
};

}  // namespace react
