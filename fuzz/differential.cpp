// Differential checks: reference, interpreter (unfused and fused), Eigen and JIT kernels.
#include "fuzz/differential.hpp"

#include "fuzz/eigen_reference.hpp"
#include "fuzz/reference.hpp"

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <sstream>

namespace react::fuzz {

std::optional<Program> compileProgram(const RandomProgram& p) {
  try {
    return parseIndexNotation(p.text, p.env);
  } catch (const UserError&) {
    return std::nullopt;
  }
}

std::optional<Mismatch> compareOutput(const std::string& name, const TensorData& got, const TensorData& want,
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

Float32Variant float32Variant(const RandomProgram& p, const Program& compiled) {
  Float32Variant v;
  std::map<std::string, ValueType> types;
  for (const std::string& name : compiled.inputs()) types[name] = ValueType::Float32;
  for (const std::string& name : compiled.outputs()) types[name] = ValueType::Float32;
  v.compiled = withValueTypes(compiled, types);
  v.inputs = p.inputs;
  for (auto& [name, value] : v.inputs) setValueType(value, ValueType::Float32);
  v.reference = referenceEvaluate(p.statements, compiled, v.inputs, nullptr, &v.bounds);
  return v;
}

std::optional<Mismatch> compareWithinBounds(const Program& compiled, const TensorValues& got, const TensorValues& want,
                                            const TensorValues& bounds, double factor, const std::string& stage) {
  for (const std::string& name : compiled.outputs()) {
    if (!got.count(name) || !want.count(name)) return Mismatch{stage, "output " + name + " missing"};
    const TensorData& g = got.at(name);
    if (valueTypeOf(g) != ValueType::Float32) return Mismatch{stage, "output " + name + " is not float32"};
    if (!sameStructure(g, want.at(name))) return Mismatch{stage, "output " + name + ": the shape or csr pattern differs"};
    const std::vector<double>& x = valuesOf(g);
    const std::vector<double>& y = valuesOf(want.at(name));
    const std::vector<double>& bound = valuesOf(bounds.at(name));
    for (size_t k = 0; k < x.size(); ++k) {
      const double tolerance = factor * bound[k];
      if (std::isinf(tolerance)) continue;
      if (std::isfinite(y[k]) ? std::abs(x[k] - y[k]) <= tolerance : x[k] == y[k] || (std::isnan(x[k]) && std::isnan(y[k])))
        continue;
      std::ostringstream d;
      d << "output " << name << ": entry " << k << " is " << x[k] << ", expected " << y[k] << " within " << factor
        << " x its float32 bound " << bound[k];
      return Mismatch{stage, d.str()};
    }
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

// The interpreter on `inputs` on the tree of each mode of `compiled` (under auto: on every
// candidate it weighs, each association of each product chain under each mode and fusion plan);
// `check` compares its outputs under a stage named `prefix` and the tree.
using OutputCheck = std::function<std::optional<Mismatch>(const TensorValues& outputs, const std::string& stage)>;
std::optional<Mismatch> checkFusedTrees(const RandomProgram& p, const Program& compiled, const TensorValues& inputs,
                                        const std::vector<FusionMode>& modes, const std::string& prefix,
                                        const OutputCheck& check) {
  for (FusionMode mode : modes) {
    if (mode != FusionMode::Auto) {
      std::string stage = prefix + "fusion " + toString(mode);
      if (auto m = guarded(stage, [&] { return check(interpret(fuse(compiled, mode), inputs), stage); })) return m;
      continue;
    }
    AutoDecision d;
    if (auto m = guarded(prefix + "fusion auto", [&]() -> std::optional<Mismatch> {
          d = decideFusion(compiled, inputStats(inputs), fuzzMachine(p));
          return std::nullopt;
        }))
      return m;
    for (const AutoCandidate& c : d.candidates) {
      if (!c.rejected.empty()) continue;
      std::string stage = prefix + "fusion auto: " + c.label();
      for (const std::string& a : c.associations) stage += ", " + a;
      if (auto m = guarded(stage, [&] { return check(interpret(c.tree, inputs), stage); })) return m;
    }
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
                                         bool float32, InterpreterReport* report) {
  TensorValues want = referenceEvaluate(p.statements, compiled, p.inputs);
  TensorValues base;
  if (auto m = guarded("interpreter vs reference", [&]() -> std::optional<Mismatch> {
        base = interpret(buildIndexTree(compiled), p.inputs);
        return compareOutputs(compiled, base, want, "interpreter vs reference");
      }))
    return m;
  EigenCoverage coverage;
  if (auto m = guarded("eigen vs reference", [&] { return checkEigen(compiled, p.inputs, want, &coverage); })) return m;
  auto sameAsUnfused = [&](const TensorValues& got, const std::string& stage) { return compareOutputs(compiled, got, base, stage); };
  if (auto m = checkFusedTrees(p, compiled, p.inputs, modes, "", sameAsUnfused)) return m;
  std::optional<Float32Variant> v;
  TensorValues base32;
  if (float32) {
    const std::string stage = "float32 interpreter vs float64 reference";
    if (auto m = guarded(stage, [&]() -> std::optional<Mismatch> {
          v = float32Variant(p, compiled);
          base32 = interpret(buildIndexTree(v->compiled), v->inputs);
          return compareWithinBounds(v->compiled, base32, v->reference, v->bounds, kFloat32VsFloat64, stage);
        }))
      return m;
    auto nearFloat64 = [&](const TensorValues& got, const std::string& stage) {
      return compareWithinBounds(v->compiled, got, v->reference, v->bounds, kFloat32VsFloat64, stage);
    };
    if (auto m = checkFusedTrees(p, v->compiled, v->inputs, modes, "float32 ", nearFloat64)) return m;
  }
  if (report) {
    report->unfused = std::move(base);
    report->float32 = std::move(v);
    report->unfused32 = std::move(base32);
    report->eigenOutputs = coverage.outputs;
    report->eigenLeftOut = coverage.leftOut;
  }
  return std::nullopt;
}

std::string stageName(const JitConfig& c) {
  return "jit " + toString(c.target) + " " + toString(c.mode) + (c.boundsCheck ? " bounds-checked" : "") +
         (c.valueType == ValueType::Float32 ? " float32" : "");
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
  if (c.valueType == ValueType::Float32)
    return guarded(stageName(c), [&] {
      Float32Variant v = float32Variant(p, compiled);
      TensorValues want = interpret(buildIndexTree(v.compiled), v.inputs);
      Kernel k = Kernel::compile(v.compiled, compileOptions(c, jit, p));
      return compareWithinBounds(v.compiled, k.run(v.inputs), want, v.bounds, kFloat32VsFloat32, stageName(c));
    });
  TensorValues want = interpret(buildIndexTree(compiled), p.inputs);
  return guarded(stageName(c), [&] {
    Kernel k = Kernel::compile(compiled, compileOptions(c, jit, p));
    return compareOutputs(compiled, k.run(p.inputs), want, stageName(c));
  });
}

}  // namespace react::fuzz
