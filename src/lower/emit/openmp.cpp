// The plain C++/OpenMP syntax: a parallel loop is an `omp for` in a parallel region holding each
// thread's private scratch, a vector loop an `omp simd` loop.
#include "lower/emit/cpp_printer.hpp"
#include "lower/ir/names.hpp"

namespace react::emit {

using namespace ir;
using ir::Expr;

namespace {

class OpenMPPrinter : public CppPrinter {
 public:
  using CppPrinter::CppPrinter;

 protected:
  std::string includes() const override {
    return "#include <cmath>\n#include <cstdint>\n#include <cstdio>\n#include <cstdlib>\n#include <memory>\n#include <vector>\n"
           // exp and log over `omp simd` loops call glibc's vector math library (libmvec, within 4
           // ulp), which <cmath> declares only under -ffast-math; its other assumptions (no
           // infinities: a max reduction starts at -inf) are not ours.
           "#if defined(__GLIBC__) && defined(__x86_64__)\n"
           "#pragma omp declare simd notinbranch\nextern \"C\" double exp(double) noexcept;\n"
           "#pragma omp declare simd notinbranch\nextern \"C\" float expf(float) noexcept;\n"
           "#pragma omp declare simd notinbranch\nextern \"C\" double log(double) noexcept;\n"
           "#pragma omp declare simd notinbranch\nextern \"C\" float logf(float) noexcept;\n"
           "#endif\n"
           // To stderr, flushed: stdout may be a pipe, whose buffer abort() throws away.
           "#define REACT_REPORT(...) (fprintf(stderr, __VA_ARGS__), fflush(stderr))\n"
           "#define REACT_ABORT() abort()\n"
           "#include <omp.h>\n"
           // This thread's rows [lo, hi) of [first, last): the share of equal work when a row weighs
           // entryWork per stored entry and rowWork (passes/balance_rows.cpp).
           "struct ReactRows { int64_t lo, hi; };\n"
           "static inline int64_t react_rows_start(const int64_t* pos, int64_t first, int64_t last, double share, int64_t entryWork, int64_t rowWork) {\n"
           "  while (first < last) {\n"
           "    const int64_t mid = first + (last - first) / 2;\n"
           "    if (double(pos[mid] - pos[0]) * entryWork + double(mid) * rowWork < share) first = mid + 1; else last = mid;\n"
           "  }\n"
           "  return first;\n"
           "}\n"
           "static inline ReactRows react_balanced_rows(const int64_t* pos, int64_t first, int64_t last, int64_t entryWork, int64_t rowWork) {\n"
           "  const int t = omp_get_thread_num(), n = omp_get_num_threads();\n"
           "  const double from = double(pos[first] - pos[0]) * entryWork + double(first) * rowWork;\n"
           "  const double total = double(pos[last] - pos[first]) * entryWork + double(last - first) * rowWork;\n"
           "  ReactRows r{first, last};\n"
           "  if (t > 0) r.lo = react_rows_start(pos, first, last, from + total * t / n, entryWork, rowWork);\n"
           "  if (t + 1 < n) r.hi = react_rows_start(pos, first, last, from + total * (t + 1) / n, entryWork, rowWork);\n"
           "  return r;\n"
           "}\n"
           // A shared temporary's storage, kept by the calling thread for the next run: allocated
           // anew, tens of megabytes come from a fresh mapping whose first touch faults on every
           // page (as long as the transposed copy itself, measured). One per allocation site and
           // calling thread, so kernels may run on several threads at once.
           "template <class T> struct ReactWorkspace {\n"
           "  std::unique_ptr<T[]> data;\n"
           "  size_t size = 0;\n"
           "  T* get(size_t n) {\n"
           "    if (n > size) { data.reset(); data.reset(new T[n]); size = n; }\n"
           "    return data.get();\n"
           "  }\n"
           "};";
  }
  std::string functionQualifier() const override { return "static inline"; }

  // A private buffer (per thread, or a serial nest's): its own vector. A shared one lives in the
  // calling thread's workspace for this site (ReactWorkspace, kept between runs) and is filled by
  // all threads, not by the one that allocates: a temporary of the size of the output (unfused
  // modes) costs a serial pass over it otherwise, which at 16 threads is as long as the kernel.
  // One written before it is read (a transposed copy) is not filled.
  void allocate(const StmtNode& a) override {
    std::string buffer = mangle(Name{Role::Buffer, a.name.text}), values = mangle(a.name), type = typeName(a.type);
    if (!a.parallelInit && !a.uninitialized) {
      line("std::vector<" + type + "> " + buffer + "(static_cast<size_t>(" + expr(a.value) + "), " + literalText(a.init, a.type) + ");");
      line(type + "* const " + values + " = " + buffer + ".data();");
      return;
    }
    line("static thread_local ReactWorkspace<" + type + "> " + buffer + ";");
    line(type + "* const " + values + " = " + buffer + ".get(static_cast<size_t>(" + expr(a.value) + "));");
    if (!a.uninitialized) fill(a);
  }

  void fill(const StmtNode& f) override {
    line("#pragma omp parallel for schedule(static)");
    line("for (int64_t q = 0; q < " + mangle(Name{Role::Size, f.name.text}) + "; ++q) " + mangle(f.name) +
         "[q] = " + literalText(f.init, f.type) + ";");
  }

  void nest(const StmtNode& n) override {
    open("{");
    body(n.body);
    close();
  }

  static std::string reduction(const StmtNode& l) {
    return std::string("reduction(") + (l.reduceOp == ReduceOp::Sum ? "+" : "max") + ":" + mangle(l.reduceVar) + ")";
  }

  // The rows of a parallel loop inside its region: this thread's share of equal work
  // (balancePositions), or rows handed out 16 at a time.
  void rowsOf(const StmtNode& l) {
    if (l.balancePositions.text.empty()) {
      line("#pragma omp for schedule(dynamic, 16)");
      return serialLoop(l);
    }
    line("const ReactRows react_rows = react_balanced_rows(" + mangle(l.balancePositions) + ", " + expr(l.lo) + ", " +
         expr(l.hi) + ", " + std::to_string(l.entryWork) + ", " + std::to_string(l.rowWork) + ");");
    StmtNode share = l;
    share.lo = var(Name{Role::Generated, "react_rows.lo"}, Type::Int64);
    share.hi = var(Name{Role::Generated, "react_rows.hi"}, Type::Int64);
    serialLoop(share);
  }

  void scheduledLoop(const StmtNode& l) override {
    switch (l.schedule) {
      case Schedule::Parallel:
        // Scratch lives per thread for the whole loop: resets after each consumer keep it clean.
        line("#pragma omp parallel");
        open("{");
        privatesOf(l);
        rowsOf(l);
        return close();
      case Schedule::ParallelReduce:
        line("#pragma omp parallel " + reduction(l));
        open("{");
        rowsOf(l);
        return close();
      case Schedule::Vector:
        line("#pragma omp simd");
        return serialLoop(l);
      case Schedule::LaneReduce:
        line("#pragma omp simd " + reduction(l));
        return serialLoop(l);
      default:
        internalError(std::string("OpenMP has no ") + toString(l.schedule) + " loops");
    }
  }
};

}  // namespace

std::string printOpenMP(const LoopProgram& p, const EmitOptions& o) { return OpenMPPrinter(p, o).print(); }

}  // namespace react::emit
