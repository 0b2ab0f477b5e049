// The differential fuzzer's main loop (react-fuzz and the quick run in the unit tests).
#pragma once

#include "fuzz/differential.hpp"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace react::fuzz {

struct FuzzOptions {
  uint64_t programs = 100;
  uint64_t seed = 1;  // programs use seeds seed, seed+1, ...
  int maxStatements = 8;
  std::vector<FusionMode> modes = {FusionMode::None, FusionMode::Maximal, FusionMode::React, FusionMode::Auto};
  std::vector<Target> emitters = {Target::OpenMP, Target::Kokkos};  // empty: interpreter part only
  // The JIT checks' value types; with float32 the interpreter part checks the float32 variant too
  // (differential.hpp: checkInterpreter).
  std::vector<ValueType> valueTypes = {ValueType::Float64, ValueType::Float32};
  int batch = 100;              // programs per JIT translation unit
  int boundsCheckEvery = 3;     // every Nth (batch, mode) compile checks every access (0: never)
  std::string outDir = "fuzz-out";  // reproducers; the JIT cache is outDir/jit-cache
  std::string jitFlags;             // appended to the JIT compiler's flags (JitOptions::extraFlags)
  double minimizeSeconds = 300;
  double progressSeconds = 5;
};

struct FuzzSummary {
  uint64_t programs = 0;     // generated and checked by the interpreter part
  uint64_t statements = 0;
  uint64_t kernelRuns = 0;   // JIT kernels run and compared (all configurations)
  uint64_t boundsCheckedRuns = 0;
  uint64_t eigenOutputs = 0, eigenLeftOut = 0;
  GenerationCounts generated;  // what drawing the programs took, summed
  std::vector<std::string> mismatchFiles;
  double seconds = 0;
};

// Checks programs seed .. seed+programs-1: the interpreter part for each, then, batch by batch,
// every (mode, emitter, value type) through the JIT. Mismatches are minimised and written to
// outDir/mismatch-SEED.txt. Progress goes to `log`.
FuzzSummary runFuzz(const FuzzOptions& o, std::ostream& log);

// Every check on one program (each JIT configuration compiled alone): the first mismatch.
std::optional<Mismatch> checkAll(const RandomProgram& p, const FuzzOptions& o, const JitOptions& jit);

}  // namespace react::fuzz
