// The plain C++/OpenMP emitter: outer loops become `omp for`, scratch is per thread.
#include "lower/emitter.hpp"

namespace react::lower {

namespace {

class OpenMPEmitter : public Emitter {
 public:
  using Emitter::Emitter;

 protected:
  std::string includes() const override {
    return "#include <cmath>\n#include <cstdint>\n#include <cstdio>\n#include <cstdlib>\n#include <memory>\n#include <vector>\n"
           "using std::exp; using std::sqrt; using std::log;\n"
           // To stderr, flushed: stdout may be a pipe, whose buffer abort() throws away.
           "#define REACT_REPORT(...) (fprintf(stderr, __VA_ARGS__), fflush(stderr))\n"
           "#define REACT_ABORT() abort()";
  }
  std::string functionQualifier() const override { return "static inline"; }
  std::string simdPragma() const override { return "#pragma omp simd"; }

  void allocate(const std::string& tensor, double init) override {
    std::string buffer = mangle(Role::Buffer, tensor), type = valueTypeName(tensor);
    line("std::vector<" + type + "> " + buffer + "(static_cast<size_t>(" + mangle(Role::Size, tensor) + "), " +
         literalText(init, valueTypeOf(tensor)) + ");");
    line(type + "* const " + mangle(Role::Values, tensor) + " = " + buffer + ".data();");
  }

  // Filled by all threads, not by the one that allocates: a temporary of the size of the output
  // (unfused modes) costs a serial pass over it otherwise, which at 16 threads is as long as the
  // kernel, and its pages are first touched by the threads that use them.
  void allocateShared(const std::string& tensor, double init) override {
    std::string buffer = mangle(Role::Buffer, tensor), type = valueTypeName(tensor);
    line("std::unique_ptr<" + type + "[]> " + buffer + "(new " + type + "[static_cast<size_t>(" + mangle(Role::Size, tensor) + ")]);");
    line(type + "* const " + mangle(Role::Values, tensor) + " = " + buffer + ".get();");
    fill(tensor, init);
  }

  void fill(const std::string& tensor, double value) override {
    line("#pragma omp parallel for schedule(static)");
    line("for (int64_t q = 0; q < " + mangle(Role::Size, tensor) + "; ++q) " + mangle(Role::Values, tensor) + "[q] = " +
         literalText(value, valueTypeOf(tensor)) + ";");
  }

  void scratch(const LoopNest& nest) {
    for (const std::string& s : nest.scratch) {
      declareSize(s);
      allocate(s, identityOf(s));
    }
  }

  void emitNest(const LoopNest& nest) override {
    const LoopNode& top = nest.top;
    line("{");
    ++depth_;
    if (top.mapping == Mapping::Parallel) {
      // Scratch lives per thread for the whole loop: resets after each consumer keep it clean.
      line("#pragma omp parallel");
      line("{");
      ++depth_;
      scratch(nest);
      line("#pragma omp for schedule(dynamic, 16)");
      serialNode(top);
      --depth_;
      line("}");
    } else if (top.mapping == Mapping::ParallelReduce) {
      double id = reduceIdentity(top.reduceOp);
      line(valueTypeName(top.reduceInto) + " acc = " + literalText(id, valueTypeOf(top.reduceInto)) + ";");
      line(std::string("#pragma omp parallel for schedule(dynamic, 16) reduction(") +
           (top.reduceOp == ReduceOp::Sum ? "+" : "max") + ":acc)");
      serialNode(top, top.reduceInto, "acc");
      std::string w = access(top.reduceInto, {});
      line(w + (top.reduceOp == ReduceOp::Sum ? " += acc;" : " = react_max(" + w + ", acc);"));
    } else {
      scratch(nest);
      serialNode(top);
    }
    --depth_;
    line("}");
  }
};

}  // namespace

std::string emitOpenMP(const LoopProgram& p, const EmitOptions& o) { return OpenMPEmitter(p, o).emit(); }

}  // namespace react::lower
