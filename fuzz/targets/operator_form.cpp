// libFuzzer target: parseOperatorForm on arbitrary text, then the print/parse round trip.
#include "parser_env.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  react::fuzz::parseAndRoundTrip(std::string(reinterpret_cast<const char*>(data), size),
                                 [](const std::string& t, const react::Environment& env) { return react::parseOperatorForm(t, env); });
  return 0;
}
