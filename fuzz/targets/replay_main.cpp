// Replays a libFuzzer corpus without libFuzzer: feeds every file under the given files or folders
// to the target's LLVMFuzzerTestOneInput (built with any compiler; CI runs it over fuzz/corpus).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  std::vector<std::filesystem::path> files;
  for (int a = 1; a < argc; ++a) {
    std::filesystem::path p(argv[a]);
    if (std::filesystem::is_directory(p)) {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(p))
        if (entry.is_regular_file()) files.push_back(entry.path());
    } else if (std::filesystem::is_regular_file(p)) {
      files.push_back(p);
    } else {
      std::cerr << "replay: no such file or folder: " << p << "\n";
      return 2;
    }
  }
  if (files.empty()) {
    std::cerr << "usage: " << argv[0] << " CORPUS_DIR_OR_FILE... (found no inputs)\n";
    return 2;
  }
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::cout << "replay: " << files.size() << " inputs, no finding\n";
  return 0;
}
