// User names in generated code: whatever tensors and indices are called (C++ keywords, library
// names, the names react gives its own variables), kernels compile and compute what the
// interpreter does; and a failed bounds check is reported on stderr.
#include "lower/lower.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>

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

// Names for tensors (the index notation's function names are not tensor names, see below), each
// of which once broke a kernel or would have: C++ keywords, names of the C and C++ libraries and
// their macros, Kokkos, react's own variables and what the emitters used to derive from names.
const std::vector<std::string> kHostileNames = {
    "int", "double", "new", "for", "return", "auto", "class", "if", "while", "const", "void", "static", "struct",
    "template", "this", "delete", "operator", "namespace", "using", "typedef", "char", "long", "float", "true", "false",
    "nullptr", "and", "or", "not", "xor", "bitand", "register", "default", "case", "switch", "do", "else", "goto",
    "private", "sizeof", "union", "unsigned", "volatile", "inline", "virtual", "throw", "try", "catch", "constexpr",
    "decltype", "static_assert", "alignas", "noexcept", "main", "printf", "fprintf", "fflush", "abort", "exit",
    "size_t", "int64_t", "int32_t", "std", "INFINITY", "NAN", "NULL", "errno", "stdout", "stderr", "assert", "offsetof",
    "st_mtime", "va_arg", "si_pid", "d_fileno", "Kokkos", "KOKKOS_LAMBDA", "KOKKOS_INLINE_FUNCTION", "ReactTensor",
    "ReactLaunch", "ReactMax", "REACT_ABORT", "REACT_REPORT", "REACT_KERNEL_PRELUDE", "react_checked", "react_max",
    "react_min", "react_where", "react_launch", "react_on_device", "react_memory", "react_kernel", "lane_acc",
    "row_scratch_bytes", "policy_t", "scratch_t", "policy", "launch", "team", "row", "acc", "result", "q", "t",
    "sizes", "tensors", "hoisted0", "S_pos", "S_crd", "S_vals", "S_nnz", "S_size", "S_r0", "S_buffer", "S_view",
    "S_team", "N_i", "N_j", "p_i", "p_j", "T0", "T1", "T0_A", "val_S", "ptr_S", "ix_i", "p_0", "ext_i", "len_S",
    "loc_T0", "_x", "__x", "_X", "x_", "a__b", "_", "__", "_0", "ix_0_ux", "x_u"};

// Names that may be indices but not tensors.
const std::vector<std::string> kFunctionNames = {"exp", "sqrt", "max", "min", "where", "sum"};

// Uses sparse and dense loops, csr and dense outputs, row scratch (Y's temporary), scalar locals,
// a full temporary, a scalar reduction, max, exp and sqrt.
const char* kTemplate =
    "X(i,j) = S(i,j) * B(i,k) * C(k,j)\n"
    "Y(i,h) = S(i,j) * C(k,j) * D(k,h)\n"
    "Z(i) = max(S(i,j), j) + sqrt(v(i)) * exp(sum(B(i,k), k))\n"
    "W() = sum(X(i,j) / sum(S(i,j), j), i, j)\n";
const std::vector<std::string> kTensors = {"X", "Y", "Z", "W", "S", "B", "C", "D", "v"};
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
  const std::vector<std::string>& tensorPool = kHostileNames;
  std::vector<std::string> indexPool = kHostileNames;
  indexPool.insert(indexPool.end(), kFunctionNames.begin(), kFunctionNames.end());
  std::vector<Program> programs;
  std::vector<TensorValues> inputs;
  // Program n takes the next 9 tensor names and 4 index names of the pools, so every name is each
  // and meets others; tensors and indices of one program may share names.
  const size_t count = std::max(tensorPool.size() / kTensors.size(), indexPool.size() / kIndices.size()) + 1;
  for (size_t n = 0; n < count; ++n) {
    std::map<std::string, std::string> names;
    for (size_t r = 0; r < kTensors.size(); ++r) names[kTensors[r]] = tensorPool[(n * kTensors.size() + r) % tensorPool.size()];
    for (size_t r = 0; r < kIndices.size(); ++r) names[kIndices[r]] = indexPool[(n * kIndices.size() + r) % indexPool.size()];
    INFO(renamed(kTemplate, names));
    programs.push_back(parseIndexNotation(renamed(kTemplate, names), templateEnv(names)));
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
    std::vector<ReactTensor> args = {{a.data.data(), nullptr, nullptr, 0}, {out.data.data(), nullptr, nullptr, 1}};
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
