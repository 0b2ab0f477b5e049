// The fuzzer's main loop (driver.hpp).
#include "fuzz/driver.hpp"

#include "fuzz/minimize.hpp"
#include "fuzz/reproducer.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <mutex>
#include <sstream>
#include <thread>

namespace react::fuzz {

namespace {

using Clock = std::chrono::steady_clock;

struct Checked {
  uint64_t seed;
  RandomProgram program;
  Program compiled;
  TensorValues unfused;
  std::optional<Float32Variant> float32;  // when float32 is checked
  TensorValues unfused32;
  bool failed = false;  // reported once: left out of later configurations

  const Program& compiledAs(ValueType t) const { return t == ValueType::Float32 ? float32->compiled : compiled; }
};

bool checksFloat32(const FuzzOptions& o) {
  return std::find(o.valueTypes.begin(), o.valueTypes.end(), ValueType::Float32) != o.valueTypes.end();
}

// Counters the fuzzer updates and a thread that prints them every few seconds (compiling a large
// batch takes longer than that).
class Progress {
 public:
  Progress(std::ostream& log, uint64_t total, double every)
      : log_(log), total_(total), start_(Clock::now()), thread_([this, every] { beat(every); }) {}
  ~Progress() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

  void say(const std::string& text) {
    std::lock_guard<std::mutex> lock(mu_);
    log_ << text << std::endl;
  }
  double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  std::string line() const {
    std::ostringstream s;
    double t = seconds();
    s << programs << "/" << total_ << " programs (" << std::setprecision(3) << programs / std::max(t, 1e-9) << "/s), "
      << kernelRuns << " kernel runs (" << boundsChecked << " bounds-checked), eigen compared " << eigenOutputs << " outputs ("
      << eigenLeftOut << " not matrix shaped), mismatches " << mismatches << ", " << static_cast<int>(t) << " s";
    return s.str();
  }

  std::atomic<uint64_t> programs{0}, statements{0}, kernelRuns{0}, boundsChecked{0}, eigenOutputs{0}, eigenLeftOut{0},
      mismatches{0};

 private:
  void beat(double every) {
    std::unique_lock<std::mutex> lock(mu_);
    while (!cv_.wait_for(lock, std::chrono::duration<double>(every), [this] { return stop_; })) log_ << line() << std::endl;
  }

  std::ostream& log_;
  const uint64_t total_;
  const Clock::time_point start_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;  // last: starts once the rest is built
};

class Fuzzer {
 public:
  Fuzzer(const FuzzOptions& o, std::ostream& log) : o_(o), progress_(log, o.programs, o.progressSeconds) {
    std::filesystem::create_directories(o.outDir);
    jit_.cacheDir = o.outDir + "/jit-cache";
    jit_.extraFlags = o.jitFlags;
  }

  FuzzSummary run() {
    for (uint64_t first = 0; first < o_.programs; first += static_cast<uint64_t>(o_.batch)) {
      std::vector<Checked> batch;
      for (uint64_t n = first; n < std::min(o_.programs, first + static_cast<uint64_t>(o_.batch)); ++n)
        if (auto c = interpreterPart(o_.seed + n)) batch.push_back(std::move(*c));
      // Bounds checks on every Nth compile, shifted by one each batch so that over N batches
      // every (mode, emitter) gets them.
      uint64_t compile = first / static_cast<uint64_t>(o_.batch);
      for (FusionMode mode : o_.modes)
        for (Target t : o_.emitters)
          for (ValueType type : o_.valueTypes)
            jitPart(batch, {mode, t, o_.boundsCheckEvery > 0 && compile++ % static_cast<uint64_t>(o_.boundsCheckEvery) == 0, type});
    }
    progress_.say("done: " + progress_.line());
    FuzzSummary s;
    s.programs = progress_.programs;
    s.statements = progress_.statements;
    s.kernelRuns = progress_.kernelRuns;
    s.boundsCheckedRuns = progress_.boundsChecked;
    s.eigenOutputs = progress_.eigenOutputs;
    s.eigenLeftOut = progress_.eigenLeftOut;
    s.generated = generated_;
    s.mismatchFiles = mismatchFiles_;
    s.seconds = progress_.seconds();
    return s;
  }

 private:
  std::optional<Checked> interpreterPart(uint64_t seed) {
    Checked c{seed, randomFuzzProgram(seed, o_.maxStatements), {}, {}, {}, {}};
    std::optional<Program> compiled = compileProgram(c.program);
    if (!compiled) throw std::logic_error("generated program does not parse:\n" + c.program.text);
    c.compiled = *compiled;
    ++progress_.programs;
    progress_.statements += c.program.statements.size();
    generated_ += c.program.counts;
    InterpreterReport r;
    const bool float32 = checksFloat32(o_);
    std::optional<Mismatch> m = checkInterpreter(c.program, c.compiled, o_.modes, float32, &r);
    if (m) {
      report(c.program, seed, *m, [&](const RandomProgram& q) { return checkInterpreter(q, *compileProgram(q), o_.modes, float32); });
      return std::nullopt;
    }
    progress_.eigenOutputs += static_cast<uint64_t>(r.eigenOutputs);
    progress_.eigenLeftOut += static_cast<uint64_t>(r.eigenLeftOut);
    c.unfused = std::move(r.unfused);
    c.float32 = std::move(r.float32);
    c.unfused32 = std::move(r.unfused32);
    return c;
  }

  void jitPart(std::vector<Checked>& all, const JitConfig& config) {
    std::vector<Checked*> batch;
    for (Checked& c : all)
      if (!c.failed) batch.push_back(&c);
    if (batch.empty()) return;
    progress_.say("compiling " + std::to_string(batch.size()) + " programs: " + stageName(config));
    std::vector<Kernel> kernels;
    try {
      std::vector<IndexTree> trees;  // each program's own (under auto: its own decision)
      for (Checked* c : batch) trees.push_back(fusedTree(c->compiledAs(config.valueType), compileOptions(config, jit_, c->program)));
      kernels = Kernel::compileTrees(trees, compileOptions(config, jit_, batch.front()->program));
      forgetLibrary(kernels.front().library());
      std::ostringstream took;
      took << "compiled in " << std::setprecision(3) << kernels.front().library().compileSeconds << " s";
      progress_.say(took.str());
    } catch (const std::exception& e) {
      progress_.say(std::string("batch failed (") + e.what() + "); compiling its programs one by one");
      for (Checked* c : batch) check(*c, config, nullptr);
      return;
    }
    for (size_t n = 0; n < batch.size(); ++n) check(*batch[n], config, &kernels[n]);
  }

  // Runs one program's kernel (compiling it alone when `k` is null) against the interpreter.
  void check(Checked& c, const JitConfig& config, const Kernel* k) {
    std::string stage = stageName(config);
    // A crash or a failed bounds check ends the process: this file is then the reproducer.
    std::ofstream(o_.outDir + "/inflight.txt") << reproducerText(c.program, c.seed, {stage, "running (if this file remains, the kernel crashed)"});
    std::optional<Mismatch> m;
    try {
      std::optional<Kernel> alone;
      const Program& compiled = c.compiledAs(config.valueType);
      if (!k) k = &alone.emplace(Kernel::compile(compiled, compileOptions(config, jit_, c.program)));
      if (config.valueType == ValueType::Float32)
        m = compareWithinBounds(compiled, k->run(c.float32->inputs), c.unfused32, c.float32->bounds, kFloat32VsFloat32, stage);
      else
        m = compareOutputs(compiled, k->run(c.program.inputs), c.unfused, stage);
    } catch (const std::exception& e) {
      m = Mismatch{stage, std::string("threw: ") + e.what()};
    }
    std::filesystem::remove(o_.outDir + "/inflight.txt");
    ++progress_.kernelRuns;
    if (config.boundsCheck) ++progress_.boundsChecked;
    if (!m) return;
    c.failed = true;
    report(c.program, c.seed, *m, [&](const RandomProgram& q) { return checkJit(q, *compileProgram(q), config, jit_); });
  }

  // The cache of a long run would grow by one library per batch: loaded libraries stay mapped.
  void forgetLibrary(const CompiledLibrary& lib) {
    std::error_code ec;
    for (const std::string& path : {lib.sourcePath, lib.libraryPath, lib.libraryPath.substr(0, lib.libraryPath.size() - 3) + ".log"})
      std::filesystem::remove(path, ec);
  }

  // Minimises p while `recheck` finds a mismatch of the same stage, and writes the reproducer.
  void report(const RandomProgram& p, uint64_t seed, const Mismatch& m,
              const std::function<std::optional<Mismatch>(const RandomProgram&)>& recheck) {
    progress_.say("MISMATCH seed " + std::to_string(seed) + " (" + m.stage + "): " + m.detail + "\n" + p.text + "minimising...");
    auto sameStage = [&](const RandomProgram& q) {
      std::optional<Mismatch> again = recheck(q);
      return again && again->stage == m.stage;
    };
    RandomProgram small = minimize(p, sameStage, o_.minimizeSeconds);
    Mismatch shown = recheck(small).value_or(m);  // the difference the minimal program shows
    std::string path = o_.outDir + "/mismatch-" + std::to_string(seed) + ".txt";
    for (int n = 2; std::filesystem::exists(path); ++n) path = o_.outDir + "/mismatch-" + std::to_string(seed) + "-" + std::to_string(n) + ".txt";
    std::ofstream(path) << reproducerText(small, seed, shown);
    progress_.say("wrote " + path + ":\n" + small.text);
    mismatchFiles_.push_back(path);
    ++progress_.mismatches;
  }

  const FuzzOptions& o_;
  JitOptions jit_;
  Progress progress_;
  std::vector<std::string> mismatchFiles_;
  GenerationCounts generated_;
};

}  // namespace

FuzzSummary runFuzz(const FuzzOptions& o, std::ostream& log) { return Fuzzer(o, log).run(); }

std::optional<Mismatch> checkAll(const RandomProgram& p, const FuzzOptions& o, const JitOptions& jit) {
  std::optional<Program> compiled = compileProgram(p);
  if (!compiled) return Mismatch{"front end", "the program does not parse"};
  if (auto m = checkInterpreter(p, *compiled, o.modes, checksFloat32(o))) return m;
  for (FusionMode mode : o.modes) {
    for (Target t : o.emitters)
      for (bool bounds : {false, true})
        for (ValueType type : o.valueTypes)
          if (auto m = checkJit(p, *compiled, {mode, t, bounds, type}, jit)) return m;
  }
  return std::nullopt;
}

}  // namespace react::fuzz
