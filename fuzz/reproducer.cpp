// Reproducer files (reproducer.hpp).
#include "fuzz/reproducer.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace react::fuzz {

namespace {

// Whether a value of `format` and `rank` is written as Matrix Market (csr, dense of rank 2 at
// most), else as FROSTT text (any other sparse format, dense 3-tensors: every element).
bool asMatrixMarket(const Format& format, int rank) {
  return format == Format::csr() || (!format.hasSparseLevel() && rank <= 2);
}

// A value's text through the library's writers (shortest exact doubles).
std::string valuesText(const TensorData& v) {
  static int counter = 0;
  std::filesystem::path path = std::filesystem::temp_directory_path() /
                               ("react-fuzz-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".txt");
  const std::vector<int64_t> shape = shapeOf(v);
  if (asMatrixMarket(formatOf(v), static_cast<int>(shape.size())))
    std::visit([&](const auto& m) { writeMatrixMarket(path.string(), m); }, v);
  else if (const DenseTensor* t = std::get_if<DenseTensor>(&v))
    writeFrostt(path.string(), denseToSparse(*t, Format::dense(t->rank())));
  else
    writeFrostt(path.string(), std::get<SparseTensor>(v));
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  std::filesystem::remove(path);
  return s.str();
}

std::string joined(const std::vector<std::string>& parts, const std::string& empty) {
  std::string s;
  for (const std::string& p : parts) s += (s.empty() ? "" : ",") + p;
  return s.empty() ? empty : s;
}

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string s;
  for (int64_t n : shape) s += (s.empty() ? "" : "x") + std::to_string(n);
  return s.empty() ? "scalar" : s;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, sep);) parts.push_back(part);
  return parts;
}

}  // namespace

std::string reproducerText(const RandomProgram& p, uint64_t seed, const Mismatch& m) {
  std::ostringstream out;
  out << "# react-fuzz reproducer, program seed " << seed << "\n"
      << "# found by: " << m.stage << "\n";
  for (const std::string& line : split(m.detail, '\n')) out << "# difference: " << line << "\n";
  out << "# replay: build/bin/react-fuzz --replay THIS_FILE\n"
      << "program\n" << p.text << "end\n";
  for (const auto& [x, n] : p.env.indexSizes) out << "size " << x << " " << n << "\n";
  for (const auto& [name, d] : p.env.tensors) {
    auto idx = p.inputIndices.find(name);
    if (p.inputs.count(name))
      out << "input " << name << " " << d.declaredFormat().str() << " " << shapeText(d.shape) << " "
          << (idx == p.inputIndices.end() ? "-" : joined(idx->second, "-")) << "\n";
    else
      out << "declare " << name << " " << d.declaredFormat().str() << " " << shapeText(d.shape) << "\n";
  }
  for (const auto& [name, v] : p.inputs) out << "values " << name << "\n" << valuesText(v) << "end\n";
  return out.str();
}

RandomProgram parseReproducer(const std::string& text) {
  RandomProgram p;
  std::vector<std::string> lines = split(text, '\n');
  auto fail = [&](size_t n, const std::string& what) -> UserError {
    return UserError("reproducer line " + std::to_string(n + 1) + ": " + what);
  };
  auto block = [&](size_t& n) {  // lines after n up to "end"; n ends on "end"
    std::string body;
    for (++n; n < lines.size() && lines[n] != "end"; ++n) body += lines[n] + "\n";
    if (n == lines.size()) throw fail(n - 1, "missing 'end'");
    return body;
  };
  auto format = [&](size_t n, const std::string& f, int rank) {
    try {
      return parseFormat(f, rank);
    } catch (const UserError& e) {
      throw fail(n, e.what());
    }
  };
  auto shape = [&](size_t n, const std::string& s) {
    std::vector<int64_t> dims;
    if (s == "scalar") return dims;
    try {
      for (const std::string& d : split(s, 'x')) dims.push_back(std::stoll(d));
    } catch (const std::exception&) {
      throw fail(n, "bad shape '" + s + "'");
    }
    return dims;
  };
  for (size_t n = 0; n < lines.size(); ++n) {
    std::istringstream in(lines[n]);
    std::string word, name, fmt, shp, idx;
    in >> word;
    if (word.empty() || word[0] == '#') continue;
    if (word == "program") {
      p.text = block(n);
      p.statements = parseIndexNotationStatements(p.text);
    } else if (word == "size") {
      int64_t size = 0;
      if (!(in >> name >> size)) throw fail(n, "expected 'size NAME N'");
      p.env.indexSizes[name] = size;
    } else if (word == "input" || word == "declare") {
      if (!(in >> name >> fmt >> shp)) throw fail(n, "expected '" + word + " NAME FORMAT SHAPE'");
      std::vector<int64_t> dims = shape(n, shp);
      p.env.declare(name, dims, format(n, fmt, static_cast<int>(dims.size())));
      if (word == "input" && in >> idx) p.inputIndices[name] = idx == "-" ? std::vector<std::string>{} : split(idx, ',');
    } else if (word == "values") {
      if (!(in >> name) || !p.env.tensors.count(name)) throw fail(n, "expected 'values NAME' of a declared input");
      const TensorDecl& d = p.env.tensors.at(name);
      if (asMatrixMarket(d.declaredFormat(), d.rank())) {
        MarketData v = parseMatrixMarket(block(n), "values of " + name);
        if (DenseTensor* t = std::get_if<DenseTensor>(&v)) t->shape = d.shape;  // rank 0 and 1 as declared
        p.inputs[name] = toTensorData(std::move(v));
      } else {
        SparseTensor t = parseFrostt(block(n), "values of " + name, d.declaredFormat(), ValueType::Float64, d.shape);
        p.inputs[name] = d.format.hasSparseLevel() ? TensorData(std::move(t)) : TensorData(sparseToDense(t));
      }
    } else {
      throw fail(n, "unknown line '" + lines[n] + "'");
    }
  }
  if (p.statements.empty()) throw UserError("reproducer: no program");
  return p;
}

RandomProgram readReproducer(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UserError(path + ": cannot open for reading");
  std::stringstream s;
  s << in.rdbuf();
  return parseReproducer(s.str());
}

}  // namespace react::fuzz
