// The kernel ABI (src/lower/abi.h): one text, included by the host and embedded by the build into
// every generated source.
#include "lower/lower.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace react;

namespace {

std::string fileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in, "cannot read " << path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string kLowerDir = std::string(REACT_SOURCE_DIR) + "/src/lower";

// Runs the build's embedding step on `header`; its exit status and output.
test::CommandResult embed(const std::string& header, const std::string& output) {
  return test::runCommand(std::string(REACT_CMAKE_COMMAND) + " -DTEXT_FILE=" + header + " -DVARIABLE=kAbiHeaderText -DTEMPLATE=" +
                          kLowerDir + "/embedded_text.hpp.in -DOUTPUT=" + output + " -P " + kLowerDir + "/embed_text.cmake 2>&1");
}

}  // namespace

TEST_CASE("ABI: every emitted source holds lower/abi.h verbatim, before the prelude's own code") {
  const std::string abi = fileText(kLowerDir + "/abi.h");
  Environment env;
  env.declare("S", {8, 8}, Format::csr());
  env.declare("B", {8, 4}, Format::dense(2));
  env.declare("C", {4, 8}, Format::dense(2));
  IndexTree tree = fuse(parseProgram("A(i,j) = S(i,j) * B(i,k) * C(k,j)", env), FusionMode::React);
  for (Target target : {Target::OpenMP, Target::Kokkos}) {
    INFO(toString(target));
    std::string source = emitSource(lowerToLoops(tree), target);
    size_t at = source.find(abi);
    REQUIRE(at != std::string::npos);
    // The Kokkos prelude defines the runtime functions the ABI declares: the declarations come first.
    CHECK(at < source.find("react_max"));
  }
}

TEST_CASE("ABI: the embedding step writes the header's text, and refuses text holding its delimiter") {
  namespace fs = std::filesystem;
  const std::string dir = std::string(REACT_BINARY_DIR) + "/abi-embed-test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  test::CommandResult good = embed(kLowerDir + "/abi.h", dir + "/good.hpp");
  INFO(good.output);
  CHECK(good.status == 0);
  CHECK(fileText(dir + "/good.hpp").find("R\"REACT_TEXT(" + fileText(kLowerDir + "/abi.h") + ")REACT_TEXT\"") !=
        std::string::npos);
  { std::ofstream(dir + "/bad.h") << "/* ends the literal early: )REACT_TEXT\" */\n"; }
  test::CommandResult bad = embed(dir + "/bad.h", dir + "/bad.hpp");
  INFO(bad.output);
  CHECK(bad.status != 0);
  std::string message;  // CMake wraps its messages: words separated by single blanks
  std::istringstream words(bad.output);
  for (std::string w; words >> w;) message += w + " ";
  CHECK(message.find(dir + "/bad.h contains ')REACT_TEXT\"', the closing delimiter") != std::string::npos);
  CHECK_FALSE(fs::exists(dir + "/bad.hpp"));
  fs::remove_all(dir);
}

TEST_CASE("ABI: version 2 passes each storage level's pos and crd, the version is in every kernel's cache key") {
  Environment env;
  env.declare("S", {8, 8}, Format::csr());
  env.declare("B", {6, 5, 7}, Format::csf(3));
  env.declare("C", {8, 4}, Format::dense(2));
  env.declare("D", {7, 4}, Format::dense(2));
  env.declare("E", {5, 4}, Format::dense(2));
  const std::string csr = emitSource(lowerToLoops(fuse(parseProgram("A(i,h) = S(i,j) * C(j,h)", env), FusionMode::React)),
                                     Target::OpenMP);
  const std::string csf = emitSource(
      lowerToLoops(fuse(parseProgram("A(i,j) = B(i,k,l) * E(k,j) * D(l,j)", env), FusionMode::Maximal)), Target::OpenMP);
  // csr: level 1's arrays (level 0 is dense); csf: every level's. The JIT's key hashes the
  // source, which holds the header and its version.
  CHECK(csr.find("const int64_t* const ptr1_S = t[1].pos[1]; const int32_t* const crd1_S = t[1].crd[1];") != std::string::npos);
  CHECK(csr.find("t[1].pos[0]") == std::string::npos);
  for (int l = 0; l < 3; ++l) {
    const std::string level = std::to_string(l);
    CHECK(csf.find("const int64_t* const ptr" + level + "_B = t[0].pos[" + level + "]; const int32_t* const crd" + level +
                   "_B = t[0].crd[" + level + "];") != std::string::npos);
  }
  for (const std::string& source : {csr, csf})
    CHECK(source.find("#define REACT_ABI_VERSION " + std::to_string(REACT_ABI_VERSION) + "\n") != std::string::npos);
  CHECK(REACT_ABI_VERSION == 3);
}
