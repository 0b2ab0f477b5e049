// User names in generated code: whatever tensors and indices are called (C++ keywords, library
// names, the names react gives its own variables), kernels compile and compute what the
// interpreter does; and a failed bounds check is reported on stderr.
#include "lower/lower.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

using namespace react;
using namespace react::test;

namespace {

const FusionMode kModes[] = {FusionMode::None, FusionMode::Maximal, FusionMode::React};
const Target kTargets[] = {Target::OpenMP, Target::Kokkos};

// Each program through every (target, mode), one translation unit per pair, against the
// interpreter on `reference` (the same program under other names, or itself), bounds checks on in
// maximal mode.
void checkAgainst(const std::vector<Program>& programs, const std::vector<Program>& reference,
                  const std::vector<TensorValues>& inputs, const std::string& jitFlags = "") {
  for (Target target : kTargets)
    for (FusionMode mode : kModes) {
      CompileOptions o;
      o.fusion = mode;
      o.target = target;
      o.jit = testCache();
      o.jit.extraFlags = jitFlags;
      o.emit.boundsCheck = mode == FusionMode::Maximal;
      std::vector<Kernel> kernels = Kernel::compileBatch(programs, o);
      for (size_t n = 0; n < programs.size(); ++n) {
        INFO(toString(target) << " " << toString(mode) << "\n" << programs[n].str() << "\n" << kernels[n].source());
        requireClose(programs[n], kernels[n].run(inputs[n]), interpret(buildIndexTree(reference[n]), inputs[n]), programs[n].str());
      }
    }
}

// Replaces whole words of `text` (runs of letters, digits and '_') found in `names`.
std::string renamed(const std::string& text, const std::map<std::string, std::string>& names) {
  auto wordChar = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::string out;
  for (size_t at = 0; at < text.size();) {
    size_t end = at;
    while (end < text.size() && wordChar(text[end])) ++end;
    if (end == at) {
      out += text[at++];
      continue;
    }
    std::string word = text.substr(at, end - at);
    auto it = names.find(word);
    out += it == names.end() ? word : it->second;
    at = end;
  }
  return out;
}

// Between them (in every fusion mode): sparse and dense loops, csr and dense outputs, parallel rows
// with row scratch (Y's temporary), scalar locals, full temporaries, a parallel reduction into a
// scalar, max, exp and sqrt.
const char* const kTemplates[] = {
    "X(i,j) = S(i,j) * B(i,k) * C(k,j)\n"
    "Y(i,h) = S(i,j) * C(k,j) * D(k,h)\n"
    "Z(i) = max(S(i,j), j) + sqrt(v(i)) * exp(sum(B(i,k), k))\n",
    "W() = max(S(i,j) * v(i), i, j)\n"
    "U(i,j) = S(i,j) / sum(S(i,j), j)\n"};
const std::vector<std::string> kTensors = {"X", "Y", "Z", "W", "U", "S", "B", "C", "D", "v"};
const std::vector<std::string> kIndices = {"i", "j", "k", "h"};

Environment templateEnv(const std::map<std::string, std::string>& names) {
  Environment env;
  env.declare(renamed("S", names), {5, 4}, Format::csr());
  env.declare(renamed("B", names), {5, 3}, Format::dense(2));
  env.declare(renamed("C", names), {3, 4}, Format::dense(2));
  env.declare(renamed("D", names), {3, 2}, Format::dense(2));
  env.declare(renamed("v", names), {5}, Format::dense(1));
  return env;
}

TensorValues templateInputs(const std::map<std::string, std::string>& names) {
  return {{renamed("S", names), randomCsr(5, 4, 0.5, 1)},    {renamed("B", names), randomPositive({5, 3}, 2)},
          {renamed("C", names), randomPositive({3, 4}, 3)}, {renamed("D", names), randomPositive({3, 2}, 4)},
          {renamed("v", names), randomPositive({5}, 5)}};
}

}  // namespace

// Found in review: the index N_j was the generated extent of j, and p_j the position of j's sparse
// loop; each silently changed the result (and p_j of a large extent crashed maximal fusion).
TEST_CASE("names: indices named like react's extents and positions compute what k does") {
  Environment env;
  env.declare("S", {6, 5}, Format::csr());
  env.declare("B", {6, 4}, Format::dense(2));
  env.declare("C", {4, 5}, Format::dense(2));
  TensorValues inputs{{"S", randomCsr(6, 5, 0.6, 11)}, {"B", randomPositive({6, 4}, 12)}, {"C", randomPositive({4, 5}, 13)}};
  const std::string text = "A(i,j) = S(i,j) * B(i,k) * C(k,j)";
  std::vector<Program> programs, reference;
  for (const char* k : {"N_j", "p_j", "N_i", "p_i"}) {
    programs.push_back(parseIndexNotation(renamed(text, {{"k", k}}), env));
    reference.push_back(parseIndexNotation(text, env));
  }
  checkAgainst(programs, reference, std::vector<TensorValues>(programs.size(), inputs));
}

TEST_CASE("names: tensors and indices named after keywords, library names and react's own variables") {
  // The fuzzer's unusual names (fuzz/random_program.hpp), every one a tensor and an index here.
  const std::vector<std::string>& tensorPool = fuzz::kUnusualNames;
  std::vector<std::string> indexPool = fuzz::kUnusualNames;
  indexPool.insert(indexPool.end(), fuzz::kFunctionNames.begin(), fuzz::kFunctionNames.end());
  std::vector<Program> programs;
  std::vector<TensorValues> inputs;
  // Program n takes the next 10 tensor names and 4 index names of the pools, so every name is each
  // and meets others; tensors and indices of one program may share names.
  const size_t count = std::max(tensorPool.size() / kTensors.size(), indexPool.size() / kIndices.size()) + 1;
  for (size_t n = 0; n < count; ++n) {
    std::map<std::string, std::string> names;
    for (size_t r = 0; r < kTensors.size(); ++r) names[kTensors[r]] = tensorPool[(n * kTensors.size() + r) % tensorPool.size()];
    for (size_t r = 0; r < kIndices.size(); ++r) names[kIndices[r]] = indexPool[(n * kIndices.size() + r) % indexPool.size()];
    std::string text = renamed(kTemplates[n % 2], names);
    INFO(text);
    programs.push_back(parseIndexNotation(text, templateEnv(names)));
    inputs.push_back(templateInputs(names));
  }
  checkAgainst(programs, programs, inputs, "-O0");  // names do not depend on the optimiser
}

// Before, the message went to stdout with printf and abort() dropped it when stdout was a pipe.
TEST_CASE("names: a failed bounds check reports the access on stderr when stdout is a pipe") {
  Environment env;
  env.declare("a", {}, Format::dense(0));
  Program p = parseIndexNotation("A() = a() * 2", env);
  for (Target target : kTargets) {
    CompileOptions o;
    o.target = target;
    o.fusion = FusionMode::React;
    o.jit = testCache();
    o.emit.boundsCheck = true;
    Kernel k = Kernel::compile(p, o);
    DenseTensor a, out;  // scalars
    a.data = {1.5};
    k.run({{"a", a}});  // initializes the runtime (Kokkos), which the child below inherits
    // `a` claims to hold no element: its one read is out of range. The arguments: inputs, then outputs.
    REQUIRE(k.loops().args == std::vector<std::string>{"a", "A"});
    std::vector<ReactTensor> args = {{a.data.data(), 0, {}, {}, nullptr}, {out.data.data(), 1, {}, {}, nullptr}};
    int stdoutPipe[2], stderrPipe[2];
    REQUIRE(pipe(stdoutPipe) == 0);
    REQUIRE(pipe(stderrPipe) == 0);
    std::fflush(nullptr);
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {  // the nest is one serial statement: nothing here needs another thread
      dup2(stdoutPipe[1], 1);
      dup2(stderrPipe[1], 2);
      k.runRaw(args.data(), nullptr);
      _exit(0);
    }
    close(stdoutPipe[1]);
    close(stderrPipe[1]);
    auto drain = [](int fd) {
      std::string text;
      char buf[4096];
      for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
      close(fd);
      return text;
    };
    std::string errors = drain(stderrPipe[0]);
    drain(stdoutPipe[0]);
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    INFO(toString(target) << " stderr:\n" << errors);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGABRT);
    CHECK(errors.find("react bounds check: a() at offset 0 outside [0, 0)") != std::string::npos);
  }
}

// What keeps user names apart from everything else: identifiers derived from a name are a role's
// prefix and the name (ir/names.hpp, mangle). Here every name starts with "zz", so the prefixes are
// what stands before it (or before T0, a temporary's name). No other identifier of a kernel, and
// no macro of the headers it includes, may start with one of them.
TEST_CASE("names: no macro of the kernels' headers and no identifier of react's own starts like a mangled name") {
  std::map<std::string, std::string> names;
  for (const std::string& n : kTensors) names[n] = "zz" + n;
  for (const std::string& n : kIndices) names[n] = "zz" + n;
  std::vector<Program> programs;
  for (const char* t : kTemplates) programs.push_back(parseIndexNotation(renamed(t, names), templateEnv(names)));
  // Temporaries react adds are named T0, T1, ...
  const std::regex identifier("[A-Za-z_][A-Za-z0-9_]*"), mangled("([a-z]+[0-9]*_)(zz.*|T[0-9]+)");
  for (Target target : kTargets) {
    std::set<std::string> ids, prefixes;
    std::string sources;
    for (FusionMode mode : kModes)
      for (const Program& p : programs) {
        std::string source = emitSource(lowerToLoops(fuse(p, mode)), target);
        sources += source;
        // Code only: comments and string literals (names are shown there as they are) left out.
        std::string code = std::regex_replace(source, std::regex("//[^\n]*|\"([^\"\\\\]|\\\\.)*\""), " ");
        for (std::sregex_iterator it(code.begin(), code.end(), identifier), end; it != end; ++it) ids.insert(it->str());
      }
    std::smatch m;
    for (const std::string& id : ids)
      if (std::regex_match(id, m, mangled)) prefixes.insert(m[1]);
    INFO(toString(target));
    CHECK(prefixes.size() >= (target == Target::Kokkos ? 11u : 10u));  // every role (a Kokkos team block too)
    auto prefixed = [&](const std::string& id) {
      return std::any_of(prefixes.begin(), prefixes.end(), [&](const std::string& x) { return id.rfind(x, 0) == 0; });
    };
    for (const std::string& id : ids) {
      INFO(id);
      CHECK((!prefixed(id) || std::regex_match(id, mangled)));
    }
    std::string file = std::string(REACT_BINARY_DIR) + "/names-" + toString(target) + ".cpp";
    std::ofstream(file) << sources;
    CommandResult macros = runCommand(compilerCommand(target) + " -dM -E " + file);
    REQUIRE(macros.status == 0);
    std::istringstream lines(macros.output);
    int defined = 0;
    for (std::string define, name; lines >> define >> name && std::getline(lines, define);) {
      name = name.substr(0, name.find('('));
      ++defined;
      INFO(name);
      CHECK_FALSE(prefixed(name));
    }
    CHECK(defined > 1000);  // the libraries' macros were read
  }
}

// What keeps react's own names apart: the preludes' helpers (file-scope functions, variables,
// types and macros, react_*, React*, REACT_*) and the generated kernel's locals are both react's,
// so no mangling separates them. A local named like a helper hides it from the code after it, and
// the kernel calls the local (found in review: a local react_first_row beside a helper of that
// name). The programs cover the Kokkos forms with most locals: SDDMM's chunks of stored entries,
// SpMM's fibre chunks, and row sums and maxima in runs.
TEST_CASE("names: no local of a kernel is named like a helper of its prelude") {
  Environment env;
  env.declare("S", {5, 4}, Format::csr());
  env.declare("B", {5, 64}, Format::dense(2));
  env.declare("C", {64, 4}, Format::dense(2));
  env.declare("T", {4, 16}, Format::dense(2));
  std::vector<Program> programs;
  for (const char* t : kTemplates) programs.push_back(parseIndexNotation(t, templateEnv({})));
  for (const char* t : {"A(i,j) = S(i,j) * B(i,k) * C(k,j)", "A(i,j) = S(i,k) * T(k,j)",
                        "A(i,j) = exp(S(i,j) - max(S(i,j), j)) / sum(exp(S(i,j) - max(S(i,j), j)), j)"})
    programs.push_back(parseIndexNotation(t, env));
  // The prelude's names: every react_*, React* and REACT_* identifier in it (definitions over
  // several lines, the ABI's typedefs and enumerators, the runtime functions its X-macro declares),
  // and any other name a line at column 0 defines (a macro, a type, an alias, a function or a
  // variable: the identifier before the line's first '(' or ' =').
  const std::regex prefixed("\\b(?:react_|React|REACT_)\\w*"), macro("#define ([A-Za-z_]\\w*).*"),
      type("(?:template <[^>]*> )?(?:struct|class|enum) (\\w+).*"), alias("(?:template <[^>]*> )?using (\\w+) =.*"),
      function("(?:[^ #}/][^(=]*?\\b)?(\\w+) ?(?:\\(|=).*");
  // The kernel's locals: a name after a type (qualified or a template, with const, * or &) and
  // before '=', ';', ',', ')', '[', '(' or '{' (a lambda's parameter, a direct initialisation),
  // a further declarator after a comma, and an alias.
  const std::regex local("(?:^|[^\\w:.>])(?!return\\b|else\\b|case\\b|throw\\b|delete\\b|new\\b|goto\\b)"
                         "(?:const )?[A-Za-z_][\\w:]*(?:<[^;{}()]*>)?(?: const)?[*&]?(?: const)? (\\w+) ?(?:=|;|,|\\)|\\[|\\(|\\{)"),
      declarator(", (\\w+) =(?!=)"), localAlias("using (\\w+) =");
  const std::string signature = "void react_kernel(const ReactTensor* t, const int64_t* sizes) {";
  for (Target target : kTargets)
    for (FusionMode mode : kModes)
      for (size_t n = 0; n < programs.size(); ++n) {
        const std::string source = emitSource(lowerToLoops(fuse(programs[n], mode)), target);
        REQUIRE(source.find(signature) != std::string::npos);
        const std::string code = std::regex_replace(source, std::regex("//[^\n]*|\"([^\"\\\\\n]|\\\\.)*\""), " ");
        const size_t split = code.find(signature);
        const std::string preludeCode = code.substr(0, split), body = code.substr(split);
        std::set<std::string> helpers, locals;
        for (std::sregex_iterator it(preludeCode.begin(), preludeCode.end(), prefixed), end; it != end; ++it) helpers.insert(it->str());
        std::istringstream lines(preludeCode);
        std::smatch m;
        for (std::string line; std::getline(lines, line);)
          if (std::regex_match(line, m, macro) || std::regex_match(line, m, type) || std::regex_match(line, m, alias) ||
              std::regex_match(line, m, function))
            helpers.insert(m[1]);
        for (const std::regex* r : {&local, &declarator, &localAlias})
          for (std::sregex_iterator it(body.begin(), body.end(), *r), end; it != end; ++it) locals.insert((*it)[1]);
        INFO(toString(target) << " " << toString(mode) << "\n" << programs[n].str() << "\n" << source);
        // The patterns read what they are for: helpers of each prelude and the ABI, and (the stable
        // softmax, the last program, in react's form on Kokkos) the runs' locals.
        CHECK(helpers.count("react_min"));
        CHECK(helpers.count("ReactTensor"));
        CHECK(helpers.count(target == Target::Kokkos ? "react_update_first_row" : "react_balanced_rows"));
        if (target == Target::Kokkos && mode == FusionMode::React && n + 1 == programs.size())
          for (const char* name : {"react_run", "react_first_row", "react_first_part", "react_threads", "policy", "team"}) {
            INFO(name);
            CHECK(locals.count(name));
          }
        for (const std::string& name : locals) {
          INFO(name);
          CHECK_FALSE(helpers.count(name));
        }
      }
}
