// The Kokkos emitter: one team per outer iteration, shrunk temporaries in team scratch, inner
// loops spread over the team's threads where their iterations are independent. The same source
// compiles against Serial, OpenMP and CUDA Kokkos.
#include "lower/emitter.hpp"

namespace react::lower {

namespace {

class KokkosEmitter : public Emitter {
 public:
  using Emitter::Emitter;

 protected:
  std::string includes() const override {
    return "#include <Kokkos_Core.hpp>\n#include <cmath>\n#include <cstdint>\n#include <cstdio>\n#include <cstdlib>\n"
           "using std::exp; using std::sqrt;\n#define REACT_ABORT() Kokkos::abort(\"react bounds check failed\")\n"
           // Kokkos::Max starts from the lowest finite double; react's max of nothing is -inf.
           "struct ReactMax : Kokkos::Max<double> {\n"
           "  using reducer = ReactMax;\n"
           "  KOKKOS_INLINE_FUNCTION ReactMax(double& v) : Kokkos::Max<double>(v) {}\n"
           "  KOKKOS_INLINE_FUNCTION void init(double& v) const { v = -INFINITY; }\n"
           "};";
  }
  std::string functionQualifier() const override { return "KOKKOS_INLINE_FUNCTION static"; }
  std::string epilogue() const override { return "Kokkos::fence();"; }

  void allocate(const std::string& name, const std::string& size, double init) override {
    line("Kokkos::View<double*> " + name + "_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, \"" + name +
         "\"), static_cast<size_t>(" + size + "));");
    line("Kokkos::deep_copy(" + name + "_view, " + literalText(init) + ");");
    line("double* const " + name + " = " + name + "_view.data();");
  }

  void fill(const std::string& ptr, const std::string& size, double value) override {
    line("Kokkos::deep_copy(Kokkos::View<double*, Kokkos::MemoryUnmanaged>(" + ptr + ", static_cast<size_t>(" + size +
         ")), " + literalText(value) + ");");
  }

  std::string range() const { return "Kokkos::RangePolicy<Kokkos::IndexType<int64_t>>"; }

  // The combined value of a team or range reduction joins what the scalar held before.
  void combine(const std::string& target, ReduceOp op, const std::string& acc) {
    line(target + (op == ReduceOp::Sum ? " += " + acc + ";" : " = react_max(" + target + ", " + acc + ");"));
  }
  std::string reducer(ReduceOp op, const std::string& acc) const {
    return std::string(op == ReduceOp::Sum ? "Kokkos::Sum<double>(" : "ReactMax(") + acc + ")";
  }

  // One child of a team's outer iteration, spread over the team as its mapping says.
  void teamChild(const LoopNode& c) {
    if (c.mapping == Mapping::TeamThread || c.mapping == Mapping::TeamReduce) {
      std::string lo, hi;
      loopBounds(c.loop, lo, hi);
      std::string counter = c.loop.kind == LoopKind::Dense ? c.loop.index : "p_" + c.loop.index;
      std::string head = "Kokkos::TeamThreadRange(team, static_cast<int64_t>(" + lo + "), static_cast<int64_t>(" + hi + "))";
      if (c.mapping == Mapping::TeamThread) {
        line("Kokkos::parallel_for(" + head + ", [&](const int64_t " + counter + ") {");
      } else {
        line("double team_acc = " + literalText(reduceIdentity(c.reduceOp)) + ";");
        line("Kokkos::parallel_reduce(" + head + ", [&](const int64_t " + counter + ", double& acc) {");
      }
      ++depth_;
      bindCoordinate(c.loop, counter);
      declareLocals(c);
      for (const LoopNode& b : c.body) serialNode(b, c.reduceInto, "acc");
      for (const std::string& l : c.locals) scalars_.erase(l);
      --depth_;
      if (c.mapping == Mapping::TeamThread) {
        line("});");
      } else {
        line("}, " + reducer(c.reduceOp, "team_acc") + ");");
        line("Kokkos::single(Kokkos::PerTeam(team), [&]() {");
        ++depth_;
        combine(access(c.reduceInto, {}), c.reduceOp, "team_acc");
        --depth_;
        line("});");
      }
    } else {
      line("Kokkos::single(Kokkos::PerTeam(team), [&]() {");
      ++depth_;
      serialNode(c);
      --depth_;
      line("});");
    }
    line("team.team_barrier();");
  }

  void parallelNest(const LoopNest& nest) {
    const LoopNode& top = nest.top;
    line("using policy_t = Kokkos::TeamPolicy<Kokkos::IndexType<int64_t>>;");
    line("using scratch_t = Kokkos::View<double*, Kokkos::DefaultExecutionSpace::scratch_memory_space, "
         "Kokkos::MemoryTraits<Kokkos::Unmanaged>>;");
    std::string bytes = "0";
    for (const std::string& s : nest.scratch) {
      line("const int64_t " + s + "_size = " + storedSize(s) + "; (void)" + s + "_size;");
      bytes += " + scratch_t::shmem_size(" + s + "_size)";
    }
    line("const size_t scratch_bytes = " + bytes + ";");
    line("const int scratch_level = scratch_bytes > 32768 ? 1 : 0;");
    std::string team = o_.kokkosTeamSize > 0 ? std::to_string(o_.kokkosTeamSize) : "Kokkos::AUTO";
    line("policy_t policy(" + extent(top.loop.index) + ", " + team + ");");
    line("if (scratch_bytes) policy.set_scratch_size(scratch_level, Kokkos::PerTeam(scratch_bytes));");
    line("Kokkos::parallel_for(\"" + nest.name + "\", policy, KOKKOS_LAMBDA(const policy_t::member_type& team) {");
    ++depth_;
    line("const int64_t " + top.loop.index + " = team.league_rank();");
    for (const std::string& s : nest.scratch) {
      line("double* const " + s + " = scratch_t(team.team_scratch(scratch_level), " + s + "_size).data();");
      line("Kokkos::parallel_for(Kokkos::TeamThreadRange(team, " + s + "_size), [&](const int64_t q) { " + s + "[q] = " +
           literalText(identityOf(s)) + "; });");
    }
    if (!nest.scratch.empty()) line("team.team_barrier();");
    for (const LoopNode& c : top.body) teamChild(c);
    --depth_;
    line("});");
  }

  void reduceNest(const LoopNest& nest) {
    const LoopNode& top = nest.top;
    line("double result = " + literalText(reduceIdentity(top.reduceOp)) + ";");
    line("Kokkos::parallel_reduce(\"" + nest.name + "\", " + range() + "(0, " + extent(top.loop.index) +
         "), KOKKOS_LAMBDA(const int64_t " + top.loop.index + ", double& acc) {");
    ++depth_;
    for (const LoopNode& c : top.body) serialNode(c, top.reduceInto, "acc");
    --depth_;
    line("}, " + reducer(top.reduceOp, "result") + ");");
    line("Kokkos::parallel_for(\"" + nest.name + "_combine\", " + range() + "(0, 1), KOKKOS_LAMBDA(const int64_t) {");
    ++depth_;
    combine(access(top.reduceInto, {}), top.reduceOp, "result");
    --depth_;
    line("});");
  }

  void serialNest(const LoopNest& nest) {
    for (const std::string& s : nest.scratch) {
      line("const int64_t " + s + "_size = " + storedSize(s) + "; (void)" + s + "_size;");
      allocate(s, s + "_size", identityOf(s));
    }
    line("Kokkos::parallel_for(\"" + nest.name + "\", " + range() + "(0, 1), KOKKOS_LAMBDA(const int64_t) {");
    ++depth_;
    serialNode(nest.top);
    --depth_;
    line("});");
  }

  void emitNest(const LoopNest& nest) override {
    line("{");
    ++depth_;
    if (nest.top.mapping == Mapping::Parallel) parallelNest(nest);
    else if (nest.top.mapping == Mapping::ParallelReduce) reduceNest(nest);
    else serialNest(nest);
    --depth_;
    line("}");
  }
};

}  // namespace

std::string emitKokkos(const LoopProgram& p, const EmitOptions& o) { return KokkosEmitter(p, o).emit(); }

}  // namespace react::lower
