// Reports: the CSV, the terminal tables and the geometric-mean summary.
#include "bench/bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

namespace react::bench {

namespace {

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

bool sameItem(const Row& a, const Row& b) {
  return a.matrix == b.matrix && a.kernel == b.kernel && a.dims == b.dims && a.threads == b.threads && a.format == b.format &&
         a.valueType == b.valueType;
}

const Row* find(const std::vector<Row>& rows, const Row& like, const std::string& variant) {
  for (const Row& r : rows)
    if (sameItem(r, like) && r.variant == variant && r.ok()) return &r;
  return nullptr;
}

struct Geomean {
  double logSum = 0;
  int n = 0;
  void add(double x) { logSum += std::log(x), ++n; }
  double value() const { return n ? std::exp(logSum / n) : 0; }
};

}  // namespace

void writeCsv(std::ostream& out, const std::vector<Row>& rows) {
  out << "matrix,rows,cols,nnz,kernel,dims,variant,threads,variant_threads,space,status,runs,median_s,min_s,max_s,"
         "gflops,gbs,bw_fraction,rel_error,model_flops,model_bytes,performed_flops,machine_gbs,note,format,value_type\n";
  for (const Row& r : rows) {
    out << csvField(r.matrix) << ',' << r.rows << ',' << r.cols << ',' << r.nnz << ',' << r.kernel << ','
        << csvField(r.dims) << ',' << r.variant << ',' << r.threads << ',' << r.variantThreads << ',' << csvField(r.space) << ','
        << (r.ok() ? "ok" : "cannot run") << ',' << r.timing.runs << ',';
    if (r.ok())
      out << format("%.6g", r.timing.median) << ',' << format("%.6g", r.timing.min) << ',' << format("%.6g", r.timing.max)
          << ',' << format("%.6g", r.gflops()) << ',' << format("%.6g", r.gbs()) << ','
          << format("%.4g", r.bandwidthFraction()) << ',' << format("%.3g", r.relativeError) << ',';
    else
      out << ",,,,,,,";
    out << format("%.6g", r.work.flops) << ',' << format("%.6g", r.work.bytes) << ',' << format("%.6g", r.performedFlops)
        << ',' << format("%.4g", r.machineBandwidth / 1e9) << ',' << csvField(r.ok() ? r.note : r.status) << ','
        << r.format << ',' << r.valueType << '\n';
  }
}

const Row* libraryRow(const std::vector<Row>& rows, const Row& like) {
  // Eigen and Kokkos Kernels have no sparse 3-tensors: TACO's default kernel is the tensor kernels' library.
  if (like.kernel == "mttkrp" || like.kernel == "ttm") return find(rows, like, "taco-default");
  const Row* best = nullptr;
  for (const char* v : {"library-eigen", "library-kokkoskernels"}) {
    const Row* r = find(rows, like, v);
    if (r && (!best || r->timing.median < best->timing.median)) best = r;
  }
  return best;
}

std::string formatTable(const std::vector<Row>& rows) {
  std::ostringstream out;
  char line[512];
  std::snprintf(line, sizeof line, "  %-20s %-5s %-7s %-22s %7s %5s %12s %9s %8s %7s %11s %7s\n", "kernel", "S", "type",
                "variant", "threads", "runs", "median ms", "GFLOP/s", "GB/s", "%BW", "vs library", "x csr");
  out << line;
  for (const Row& r : rows) {
    if (!r.ok()) {
      std::snprintf(line, sizeof line, "  %-20s %-5s %-7s %-22s %7d %5s  %s\n", r.label().c_str(), r.format.c_str(),
                    r.valueType.c_str(), r.variant.c_str(), r.variantThreads, "-", r.status.c_str());
      out << line;
      continue;
    }
    const Row* lib = libraryRow(rows, r);
    std::string speedup = lib ? format("%.2fx", lib->timing.median / r.timing.median) : "-";
    const Row* csr = csrRow(rows, r);
    std::string overCsr = csr ? format("%.2fx", r.timing.median / csr->timing.median) : "-";
    std::snprintf(line, sizeof line, "  %-20s %-5s %-7s %-22s %7d %5d %12.4f %9.2f %8.2f %6.1f%% %11s %7s\n",
                  r.label().c_str(), r.format.c_str(), r.valueType.c_str(), r.variant.c_str(), r.variantThreads, r.timing.runs,
                  r.timing.median * 1e3, r.gflops(), r.gbs(), 100 * r.bandwidthFraction(), speedup.c_str(), overCsr.c_str());
    out << line;
  }
  return out.str();
}

std::vector<Summary> summarizeSpeedups(const std::vector<Row>& rows) {
  std::vector<Summary> out;
  std::set<std::tuple<std::string, std::string, std::string, int>> seen;  // label, storage, emitter, threads
  for (const Row& r : rows) {
    if (r.variant.rfind("react-", 0) != 0 || !r.ok()) continue;
    std::string emitter = r.variant.substr(6);
    if (!seen.insert({r.label(), r.storage(), emitter, r.threads}).second) continue;
    Geomean maximal, none, library, bandwidth;
    double bandwidthMax = 0;
    for (const Row& x : rows) {
      if (x.variant != r.variant || x.label() != r.label() || x.storage() != r.storage() || x.threads != r.threads || !x.ok())
        continue;
      if (const Row* m = find(rows, x, "maximal-" + emitter)) maximal.add(m->timing.median / x.timing.median);
      if (const Row* n = find(rows, x, "none-" + emitter)) none.add(n->timing.median / x.timing.median);
      if (const Row* l = libraryRow(rows, x)) library.add(l->timing.median / x.timing.median);
      bandwidth.add(x.bandwidthFraction());
      bandwidthMax = std::max(bandwidthMax, x.bandwidthFraction());
    }
    out.push_back({r.label(), r.storage(), emitter, r.threads, maximal.value(), none.value(), library.value(), maximal.n, none.n,
                   library.n, bandwidth.value(), bandwidthMax});
  }
  return out;
}

std::string formatSummary(const std::vector<Summary>& summaries) {
  std::ostringstream out;
  auto cell = [](double v, int n) { return n ? format("%.2fx", v) + " (" + std::to_string(n) + ")" : std::string("-"); };
  char line[512];
  std::snprintf(line, sizeof line, "%-20s %-13s %-13s %7s %15s %15s %15s %16s\n", "kernel", "S, type", "react", "threads",
                "over maximal", "over none", "over library", "%BW geomean/max");
  out << "geometric-mean speedup of react over maximal, none and library (matrices where both ran)\n" << line;
  for (const Summary& s : summaries) {
    std::string bw = format("%.1f%%", 100 * s.bandwidthGeomean) + " / " + format("%.1f%%", 100 * s.bandwidthMax);
    std::snprintf(line, sizeof line, "%-20s %-13s %-13s %7d %15s %15s %15s %16s\n", s.kernel.c_str(), s.storage.c_str(),
                  ("react-" + s.emitter).c_str(), s.threads, cell(s.overMaximal, s.nMaximal).c_str(),
                  cell(s.overNone, s.nNone).c_str(), cell(s.overLibrary, s.nLibrary).c_str(), bw.c_str());
    out << line;
  }
  return out.str();
}

namespace {
// A matrix kernel's S in csc or dcsr (the tensor kernels read csf as loaded).
bool otherMatrixFormat(const Row& r) { return r.format != "csr" && r.format != "csf"; }
}  // namespace

const Row* csrRow(const std::vector<Row>& rows, const Row& r) {
  if (!otherMatrixFormat(r)) return nullptr;
  Row onCsr = r;
  onCsr.format = "csr";
  return find(rows, onCsr, r.variant);
}

std::string formatCostSummary(const std::vector<Row>& rows) {
  std::ostringstream out;
  std::set<std::tuple<std::string, std::string, std::string, std::string, int>> seen;  // label, variant, format, type, threads
  char line[512];
  for (const Row& r : rows) {
    if (!otherMatrixFormat(r) || !r.ok() || !seen.insert({r.label(), r.variant, r.format, r.valueType, r.threads}).second) continue;
    if (out.tellp() == 0) {
      out << "cost of S in another format: median over the same (matrix, kernel, variant, threads, type) on csr\n";
      std::snprintf(line, sizeof line, "%-20s %-22s %-5s %-7s %7s %18s %9s\n", "kernel", "variant", "S", "type", "threads",
                    "x csr geomean (n)", "x csr max");
      out << line;
    }
    Geomean ratio;
    double largest = 0;
    for (const Row& x : rows)
      if (x.label() == r.label() && x.variant == r.variant && x.format == r.format && x.valueType == r.valueType &&
          x.threads == r.threads && x.ok())
        if (const Row* c = csrRow(rows, x)) {
          ratio.add(x.timing.median / c->timing.median);
          largest = std::max(largest, x.timing.median / c->timing.median);
        }
    std::string mean = ratio.n ? format("%.2fx", ratio.value()) + " (" + std::to_string(ratio.n) + ")" : "-";
    std::string most = ratio.n ? format("%.2fx", largest) : "-";
    std::snprintf(line, sizeof line, "%-20s %-22s %-5s %-7s %7d %18s %9s\n", r.label().c_str(), r.variant.c_str(),
                  r.format.c_str(), r.valueType.c_str(), r.threads, mean.c_str(), most.c_str());
    out << line;
  }
  return out.str();
}

}  // namespace react::bench
