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
           "#define REACT_ABORT() abort()";
  }
  std::string functionQualifier() const override { return "static inline"; }

  // A private buffer (per thread, or a serial nest's): its own vector. A shared one is filled by
  // all threads, not by the one that allocates: a temporary of the size of the output (unfused
  // modes) costs a serial pass over it otherwise, which at 16 threads is as long as the kernel,
  // and its pages are first touched by the threads that use them.
  void allocate(const StmtNode& a) override {
    std::string buffer = mangle(Name{Role::Buffer, a.name.text}), values = mangle(a.name), type = typeName(a.type);
    if (!a.parallelInit) {
      line("std::vector<" + type + "> " + buffer + "(static_cast<size_t>(" + expr(a.value) + "), " + literalText(a.init, a.type) + ");");
      line(type + "* const " + values + " = " + buffer + ".data();");
      return;
    }
    line("std::unique_ptr<" + type + "[]> " + buffer + "(new " + type + "[static_cast<size_t>(" + expr(a.value) + ")]);");
    line(type + "* const " + values + " = " + buffer + ".get();");
    fill(a);
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

  void scheduledLoop(const StmtNode& l) override {
    switch (l.schedule) {
      case Schedule::Parallel:
        // Scratch lives per thread for the whole loop: resets after each consumer keep it clean.
        line("#pragma omp parallel");
        open("{");
        privatesOf(l);
        line("#pragma omp for schedule(dynamic, 16)");
        serialLoop(l);
        return close();
      case Schedule::ParallelReduce:
        line("#pragma omp parallel for schedule(dynamic, 16) " + reduction(l));
        return serialLoop(l);
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
