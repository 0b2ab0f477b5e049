// Differential checks: reference, interpreter (unfused and fused), Eigen and JIT kernels.
#include "fuzz/differential.hpp"

#include "fuzz/eigen_reference.hpp"
#include "fuzz/reference.hpp"

#include <cmath>
#include <limits>
#include <random>
#include <sstream>

namespace react::fuzz {

std::optional<Program> compileProgram(const RandomProgram& p) {
  try {
    return parseIndexNotation(p.text, p.env);
  } catch (const Error&) {
    return std::nullopt;
  }
}

std::optional<Mismatch> compareOutput(const std::string& name, const MarketData& got, const MarketData& want,
                                      const std::string& stage) {
  double e = relativeError(got, want);
  if (e < kTolerance) return std::nullopt;
  std::ostringstream s;
  s << "output " << name << ": relative error " << e;
  if (e == std::numeric_limits<double>::infinity()) s << " (shape, pattern or inf/NaN differ)";
  return Mismatch{stage, s.str()};
}

std::optional<Mismatch> compareOutputs(const Program& compiled, const TensorValues& got, const TensorValues& want,
                                       const std::string& stage) {
  for (const std::string& name : compiled.outputs()) {
    if (!got.count(name) || !want.count(name)) return Mismatch{stage, "output " + name + " missing"};
    if (auto m = compareOutput(name, got.at(name), want.at(name), stage)) return m;
  }
  return std::nullopt;
}

namespace {

// Runs `f`, turning any exception into a mismatch of `stage`.
template <typename F>
std::optional<Mismatch> guarded(const std::string& stage, F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    return Mismatch{stage, std::string("threw: ") + e.what()};
  }
}

// Every candidate auto weighs (each association of each product chain under each mode and fusion
// plan), not only the one it picks, on the interpreter against the unfused tree.
std::optional<Mismatch> checkAutoCandidates(const RandomProgram& p, const Program& compiled, const TensorValues& base) {
  AutoDecision d;
  if (auto m = guarded("fusion auto", [&]() -> std::optional<Mismatch> {
        d = decideFusion(compiled, inputStats(p.inputs), fuzzMachine(p));
        return std::nullopt;
      }))
    return m;
  for (const AutoCandidate& c : d.candidates) {
    if (!c.rejected.empty()) continue;
    std::string stage = "fusion auto: " + c.label();
    for (const std::string& a : c.associations) stage += ", " + a;
    if (auto m = guarded(stage, [&] { return compareOutputs(compiled, interpret(c.tree, p.inputs), base, stage); })) return m;
  }
  return std::nullopt;
}

}  // namespace

MachineModel fuzzMachine(const RandomProgram& p) {
  // Seeded by the text's hash: the same machine on every replay.
  std::mt19937_64 rng(std::stoull(contentHash(p.text), nullptr, 16));
  auto logUniform = [&](double lo, double hi) {
    return lo * std::pow(hi / lo, std::uniform_real_distribution<double>(0, 1)(rng));
  };
  MachineModel m;
  m.threads = 1 << std::uniform_int_distribution<int>(0, 6)(rng);
  m.bandwidth1 = logUniform(1e8, 1e12);
  m.bandwidth = m.bandwidth1 * logUniform(1, m.threads);
  for (MachineModel::Rates* rates : {&m.vectorFlops, &m.reductionFlops, &m.scratchRowFlops, &m.rowFlops})
    for (double& r : *rates) r = logUniform(1e7, 1e11);
  m.cacheBytes = logUniform(1e3, 1e8);
  m.regionSeconds = logUniform(1e-13, 1e-4);  // down to nothing beside these tiny inputs
  m.expRate = logUniform(1e6, 1e9);
  m.source = "react-fuzz: drawn from the program text";
  return m;
}

std::optional<Mismatch> checkInterpreter(const RandomProgram& p, const Program& compiled, const std::vector<FusionMode>& modes,
                                         InterpreterReport* report) {
  TensorValues want = referenceEvaluate(p.statements, compiled, p.inputs);
  TensorValues base;
  if (auto m = guarded("interpreter vs reference", [&]() -> std::optional<Mismatch> {
        base = interpret(buildIndexTree(compiled), p.inputs);
        return compareOutputs(compiled, base, want, "interpreter vs reference");
      }))
    return m;
  EigenCoverage coverage;
  if (auto m = guarded("eigen vs reference", [&] { return checkEigen(compiled, p.inputs, want, &coverage); })) return m;
  for (FusionMode mode : modes) {
    if (mode == FusionMode::Auto) {
      if (auto m = checkAutoCandidates(p, compiled, base)) return m;
      continue;
    }
    std::string stage = "fusion " + toString(mode);
    if (auto m = guarded(stage, [&] { return compareOutputs(compiled, interpret(fuse(compiled, mode), p.inputs), base, stage); }))
      return m;
  }
  if (report) {
    report->unfused = std::move(base);
    report->eigenOutputs = coverage.outputs;
    report->eigenLeftOut = coverage.leftOut;
  }
  return std::nullopt;
}

std::string stageName(const JitConfig& c) {
  return "jit " + toString(c.target) + " " + toString(c.mode) + (c.boundsCheck ? " bounds-checked" : "");
}

CompileOptions compileOptions(const JitConfig& c, const JitOptions& jit, const RandomProgram& p) {
  CompileOptions o;
  o.fusion = c.mode;
  o.target = c.target;
  o.emit.boundsCheck = c.boundsCheck;
  o.jit = jit;
  if (c.mode == FusionMode::Auto) {
    o.stats = inputStats(p.inputs);
    o.machine = fuzzMachine(p);
  }
  return o;
}

std::optional<Mismatch> checkJit(const RandomProgram& p, const Program& compiled, const JitConfig& c, const JitOptions& jit) {
  TensorValues want = interpret(buildIndexTree(compiled), p.inputs);
  return guarded(stageName(c), [&] {
    Kernel k = Kernel::compile(compiled, compileOptions(c, jit, p));
    return compareOutputs(compiled, k.run(p.inputs), want, stageName(c));
  });
}

}  // namespace react::fuzz
