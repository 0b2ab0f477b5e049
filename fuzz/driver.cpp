// The fuzzer's main loop (driver.hpp).
#include "fuzz/driver.hpp"

#include "fuzz/minimize.hpp"
#include "fuzz/reproducer.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>

namespace react::fuzz {

namespace {

using Clock = std::chrono::steady_clock;

struct Checked {
  uint64_t seed;
  RandomProgram program;
  Program compiled;
  TensorValues unfused;
  bool failed = false;  // reported once: left out of later configurations
};

class Fuzzer {
 public:
  Fuzzer(const FuzzOptions& o, std::ostream& log) : o_(o), log_(log), start_(Clock::now()), lastProgress_(start_) {
    std::filesystem::create_directories(o.outDir);
    jit_.cacheDir = o.outDir + "/jit-cache";
  }

  FuzzSummary run() {
    for (uint64_t first = 0; first < o_.programs; first += static_cast<uint64_t>(o_.batch)) {
      std::vector<Checked> batch;
      for (uint64_t n = first; n < std::min(o_.programs, first + static_cast<uint64_t>(o_.batch)); ++n)
        if (auto c = interpreterPart(o_.seed + n)) batch.push_back(std::move(*c));
      for (size_t m = 0; m < o_.modes.size(); ++m)
        for (Target t : o_.emitters) {
          uint64_t config = first / static_cast<uint64_t>(o_.batch) * o_.modes.size() + m;
          jitPart(batch, {o_.modes[m], t, o_.boundsCheckEvery > 0 && config % static_cast<uint64_t>(o_.boundsCheckEvery) == 0});
        }
    }
    progress(true);
    s_.seconds = elapsed();
    return s_;
  }

 private:
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  void progress(bool final = false) {
    if (!final && std::chrono::duration<double>(Clock::now() - lastProgress_).count() < o_.progressSeconds) return;
    lastProgress_ = Clock::now();
    double t = elapsed();
    log_ << (final ? "done: " : "") << s_.programs << "/" << o_.programs << " programs (" << std::setprecision(3)
         << s_.programs / std::max(t, 1e-9) << "/s), " << s_.kernelRuns << " kernel runs (" << s_.boundsCheckedRuns << " bounds-checked), eigen compared "
         << s_.eigenOutputs << " outputs (" << s_.eigenLeftOut << " not matrix shaped), mismatches " << s_.mismatchFiles.size()
         << ", " << static_cast<int>(t) << " s" << std::endl;
  }

  std::optional<Checked> interpreterPart(uint64_t seed) {
    Checked c{seed, randomFuzzProgram(seed, o_.maxStatements), {}, {}};
    std::optional<Program> compiled = compileProgram(c.program);
    if (!compiled) throw std::logic_error("generated program does not parse:\n" + c.program.text);
    c.compiled = *compiled;
    ++s_.programs;
    s_.statements += c.program.statements.size();
    InterpreterReport r;
    std::optional<Mismatch> m = checkInterpreter(c.program, c.compiled, o_.modes, &r);
    progress();
    if (m) {
      report(c.program, seed, *m, [&](const RandomProgram& q) { return checkInterpreter(q, *compileProgram(q), o_.modes); });
      return std::nullopt;
    }
    s_.eigenOutputs += static_cast<uint64_t>(r.eigenOutputs);
    s_.eigenLeftOut += static_cast<uint64_t>(r.eigenLeftOut);
    c.unfused = std::move(r.unfused);
    return c;
  }

  void jitPart(std::vector<Checked>& all, const JitConfig& config) {
    std::vector<Checked*> batch;
    std::vector<Program> programs;
    for (Checked& c : all)
      if (!c.failed) {
        batch.push_back(&c);
        programs.push_back(c.compiled);
      }
    if (batch.empty()) return;
    log_ << "compiling " << batch.size() << " programs: " << stageName(config) << std::endl;
    std::vector<Kernel> kernels;
    try {
      kernels = Kernel::compileBatch(programs, compileOptions(config, jit_));
      forgetLibrary(kernels.front().library());
    } catch (const std::exception& e) {
      log_ << "batch failed (" << e.what() << "); compiling its programs one by one" << std::endl;
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
      if (!k) k = &alone.emplace(Kernel::compile(c.compiled, compileOptions(config, jit_)));
      m = compareOutputs(c.compiled, k->run(c.program.inputs), c.unfused, stage);
    } catch (const std::exception& e) {
      m = Mismatch{stage, std::string("threw: ") + e.what()};
    }
    std::filesystem::remove(o_.outDir + "/inflight.txt");
    ++s_.kernelRuns;
    if (config.boundsCheck) ++s_.boundsCheckedRuns;
    progress();
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
    log_ << "MISMATCH seed " << seed << " (" << m.stage << "): " << m.detail << "\n" << p.text << "minimising..." << std::endl;
    auto sameStage = [&](const RandomProgram& q) {
      std::optional<Mismatch> again = recheck(q);
      return again && again->stage == m.stage;
    };
    RandomProgram small = minimize(p, sameStage, o_.minimizeSeconds);
    Mismatch shown = recheck(small).value_or(m);  // the difference the minimal program shows
    std::string path = o_.outDir + "/mismatch-" + std::to_string(seed) + ".txt";
    for (int n = 2; std::filesystem::exists(path); ++n) path = o_.outDir + "/mismatch-" + std::to_string(seed) + "-" + std::to_string(n) + ".txt";
    std::ofstream(path) << reproducerText(small, seed, shown);
    log_ << "wrote " << path << ":\n" << small.text << std::flush;
    s_.mismatchFiles.push_back(path);
  }

  const FuzzOptions& o_;
  std::ostream& log_;
  JitOptions jit_;
  FuzzSummary s_;
  Clock::time_point start_, lastProgress_;
};

}  // namespace

FuzzSummary runFuzz(const FuzzOptions& o, std::ostream& log) { return Fuzzer(o, log).run(); }

std::optional<Mismatch> checkAll(const RandomProgram& p, const FuzzOptions& o, const JitOptions& jit) {
  std::optional<Program> compiled = compileProgram(p);
  if (!compiled) return Mismatch{"front end", "the program does not parse"};
  if (auto m = checkInterpreter(p, *compiled, o.modes)) return m;
  for (FusionMode mode : o.modes)
    for (Target t : o.emitters)
      for (bool bounds : {false, true})
        if (auto m = checkJit(p, *compiled, {mode, t, bounds}, jit)) return m;
  return std::nullopt;
}

}  // namespace react::fuzz
