// The sparsity pattern of a Matrix Market coordinate file, as the SDDMM probes read it
// (sddmm_floor_probe.cpp, sddmm_floor_probe.cu, sddmm_flat_probe.cu): real, integer or pattern
// files; general, symmetric or skew-symmetric (a symmetric entry off the diagonal stands for two);
// duplicates counted once. Nothing of react is used: the probes measure what any kernel can do.
#pragma once

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

struct ProbePattern {
  int64_t rows = 0, cols = 0;
  std::vector<int64_t> pos;  // rows + 1 offsets into crd
  std::vector<int32_t> crd;  // column of each stored entry, sorted within a row
};

inline ProbePattern probeCompressed(int64_t rows, int64_t cols, std::vector<std::pair<int64_t, int64_t>> entries) {
  std::sort(entries.begin(), entries.end());
  entries.erase(std::unique(entries.begin(), entries.end()), entries.end());
  ProbePattern p{rows, cols, std::vector<int64_t>(rows + 1, 0), {}};
  p.crd.reserve(entries.size());
  for (const auto& [r, c] : entries) {
    ++p.pos[r + 1];
    p.crd.push_back(static_cast<int32_t>(c));
  }
  for (int64_t r = 0; r < rows; ++r) p.pos[r + 1] += p.pos[r];
  return p;
}

// S by rows, and S's transpose by rows (S by columns). Throws a std::runtime_error naming the file
// and the entry on input it cannot read.
inline std::pair<ProbePattern, ProbePattern> probeReadMatrixMarket(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line) || line.rfind("%%MatrixMarket matrix coordinate", 0) != 0)
    throw std::runtime_error(path + ": not a Matrix Market coordinate file");
  const bool symmetric = line.find("symmetric") != std::string::npos;  // also skew-symmetric
  while (std::getline(in, line) && (line.empty() || line[0] == '%')) {
  }
  int64_t rows = 0, cols = 0, count = 0;
  if (!(std::istringstream(line) >> rows >> cols >> count) || rows <= 0 || cols <= 0 || count < 0 || rows > INT32_MAX ||
      cols > INT32_MAX)
    throw std::runtime_error(path + ": bad size line");
  std::vector<std::pair<int64_t, int64_t>> entries, transposed;
  for (int64_t e = 0; e < count; ++e) {
    int64_t r = 0, c = 0;
    if (!std::getline(in, line) || !(std::istringstream(line) >> r >> c) || r < 1 || r > rows || c < 1 || c > cols)
      throw std::runtime_error(path + ": bad entry " + std::to_string(e + 1));
    entries.emplace_back(r - 1, c - 1);
    transposed.emplace_back(c - 1, r - 1);
    if (symmetric && r != c) {
      entries.emplace_back(c - 1, r - 1);
      transposed.emplace_back(r - 1, c - 1);
    }
  }
  return {probeCompressed(rows, cols, std::move(entries)), probeCompressed(cols, rows, std::move(transposed))};
}

// The probes' name for a matrix: its file name without the folder and ".mtx".
inline std::string probeMatrixName(std::string path) {
  path = path.substr(path.find_last_of('/') + 1);
  return path.substr(0, path.rfind(".mtx"));
}
