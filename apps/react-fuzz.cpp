// react-fuzz: differential fuzzing of the whole compiler on random programs (fuzz/driver.hpp).
#include "fuzz/driver.hpp"
#include "fuzz/reproducer.hpp"
#include "internal_error_report.hpp"

#include <iostream>
#include <sstream>

using namespace react;
using namespace react::fuzz;

namespace {

const char* kUsage = R"(usage: react-fuzz [--programs N] [--seed S] [options]
       react-fuzz --replay FILE... [--modes LIST] [--emitters LIST] [--types LIST]

Generates random programs (seeds S, S+1, ...) and checks, for each: the interpreter on the unfused
tree against the dense reference evaluator and Eigen; the interpreter on every fused tree against
the unfused one; the same program in float32 (inputs rounded), on every tree, against the float64
reference within a running float32 error bound; JIT kernels of every (mode, emitter, type), many
programs per translation unit, against the interpreter of their type. A mismatch is minimised and
written to DIR/mismatch-SEED.txt; the exit status is then 1. An internal compiler error in a check
is a mismatch like any other; outside the checks (generating a program, reading a reproducer) it
exits 70; a bad argument exits 2.

options:
  --programs N            programs to check (default 100)
  --seed S                first program seed (default 1)
  --max-statements M      statements per program, at most (default 8)
  --modes LIST            fusion modes, comma separated (default none,maximal,react,auto; auto
                          checks every candidate it weighs in the interpreter, and its choice
                          for a machine drawn from the program through the JIT)
  --emitters LIST         openmp,kokkos (default both); 'none' checks the interpreter part only
  --types LIST            float64,float32 (default both): the kernels' value types; float32 also
                          checks the float32 interpreter against the float64 reference
  --batch B               programs per JIT translation unit (default 100)
  --bounds-check-every K  every Kth (batch, mode) compile checks every access (default 3; 0 never)
  --out DIR               reproducers and the JIT cache (default fuzz-out)
  --jit-flags FLAGS       appended to the JIT compiler's flags; '-O0' compiles about 2x faster
                          than the default -O3 (long runs), '-O3' keeps the optimiser in the test
  --minimize-seconds T    time for minimising one mismatch (default 300)
  --replay FILE...        rerun every check on reproducers (each JIT configuration alone)
  --print                 print the programs (as reproducer files) instead of checking them
)";

std::vector<std::string> list(const std::string& s) {
  std::vector<std::string> parts;
  std::stringstream in(s);
  for (std::string p; std::getline(in, p, ',');)
    if (!p.empty()) parts.push_back(p);
  return parts;
}

uint64_t number(const std::string& arg, const std::string& v) {
  try {
    size_t used = 0;
    unsigned long long n = std::stoull(v, &used);
    if (used == v.size()) return n;
  } catch (const std::exception&) {
  }
  throw UserError("argument '" + arg + "': '" + v + "' is not a non-negative integer");
}

int replay(const std::vector<std::string>& files, const FuzzOptions& o) {
  JitOptions jit;
  jit.cacheDir = o.outDir + "/jit-cache";
  jit.extraFlags = o.jitFlags;
  int failed = 0;
  for (const std::string& f : files) {
    std::optional<Mismatch> m = checkAll(readReproducer(f), o, jit);
    std::cout << f << ": " << (m ? "MISMATCH " + m->stage + ": " + m->detail : std::string("ok")) << "\n";
    failed += m ? 1 : 0;
  }
  return failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    FuzzOptions o;
    std::vector<std::string> replayFiles;
    bool replaying = false, printing = false;
    for (int a = 1; a < argc; ++a) {
      std::string arg = argv[a];
      if (arg == "--help" || arg == "-h") {
        std::cout << kUsage;
        return 0;
      }
      if (replaying && arg.rfind("--", 0) != 0) {  // files until the next option
        replayFiles.push_back(arg);
        continue;
      }
      if (arg == "--print") {
        printing = true;
        continue;
      }
      if (arg == "--replay") {
        replaying = true;
        continue;
      }
      if (a + 1 >= argc) throw UserError("argument '" + arg + "': expected a value (see --help)");
      std::string v = argv[++a];
      if (arg == "--programs") o.programs = number(arg, v);
      else if (arg == "--seed") o.seed = number(arg, v);
      else if (arg == "--max-statements") o.maxStatements = static_cast<int>(std::max<uint64_t>(1, number(arg, v)));
      else if (arg == "--batch") o.batch = static_cast<int>(std::max<uint64_t>(1, number(arg, v)));
      else if (arg == "--bounds-check-every") o.boundsCheckEvery = static_cast<int>(number(arg, v));
      else if (arg == "--out") o.outDir = v;
      else if (arg == "--jit-flags") o.jitFlags = v;
      else if (arg == "--minimize-seconds") o.minimizeSeconds = static_cast<double>(number(arg, v));
      else if (arg == "--modes") {
        o.modes.clear();
        for (const std::string& m : list(v)) o.modes.push_back(parseFusionMode(m));
      } else if (arg == "--types") {
        o.valueTypes.clear();
        for (const std::string& t : list(v)) o.valueTypes.push_back(parseValueType(t, "argument '--types'"));
      } else if (arg == "--emitters") {
        o.emitters.clear();
        for (const std::string& t : list(v))
          if (t != "none") o.emitters.push_back(parseTarget(t));
      } else {
        throw UserError("unknown argument '" + arg + "' (see --help)");
      }
    }
    if (replaying) return replay(replayFiles, o);
    if (printing) {
      for (uint64_t n = 0; n < o.programs; ++n)
        std::cout << reproducerText(randomFuzzProgram(o.seed + n, o.maxStatements), o.seed + n, {"--print", "none"}) << "\n";
      return 0;
    }
    FuzzSummary s = runFuzz(o, std::cout);
    std::cout << "react-fuzz: " << s.programs << " programs (" << s.statements << " statements), " << s.kernelRuns
              << " kernel runs, " << s.mismatchFiles.size() << " mismatches in " << static_cast<int>(s.seconds) << " s\n"
              << "generator: " << s.generated.str() << "\n";
    for (const std::string& f : s.mismatchFiles) std::cout << "  " << f << "\n";
    return s.mismatchFiles.empty() ? 0 : 1;
  } catch (const InternalError& e) {
    return apps::reportInternalError("react-fuzz", e, argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "react-fuzz: " << e.what() << "\n";
    return 2;
  }
}
