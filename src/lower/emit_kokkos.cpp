// The Kokkos emitter: each outer iteration (a row) belongs to one thread of a team, its shrunk
// temporaries to that thread's part of the team scratch, and its inner loops to the thread's vector
// lanes where their iterations are independent. Rows per team and lanes per row are chosen at run
// time from the input (react_launch in the prelude). The same source compiles against Serial,
// OpenMP and CUDA Kokkos.
#include "lower/emitter.hpp"

namespace react::lower {

namespace {

class KokkosEmitter : public Emitter {
 public:
  using Emitter::Emitter;

 protected:
  std::string includes() const override {
    return R"PRELUDE(#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
using std::exp; using std::sqrt;
// A device has no stderr; on the host stderr, flushed: stdout may be a pipe that abort() never flushes.
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__) || defined(__SYCL_DEVICE_ONLY__)
#define REACT_REPORT(...) printf(__VA_ARGS__)
#else
#define REACT_REPORT(...) (fprintf(stderr, __VA_ARGS__), fflush(stderr))
#endif
#define REACT_ABORT() Kokkos::abort("react bounds check failed")
// Kokkos::Max starts from the lowest finite double; react's max of nothing is -inf.
struct ReactMax : Kokkos::Max<double> {
  using reducer = ReactMax;
  KOKKOS_INLINE_FUNCTION ReactMax(double& v) : Kokkos::Max<double>(v) {}
  KOKKOS_INLINE_FUNCTION void init(double& v) const { v = -INFINITY; }
};
using react_memory = Kokkos::DefaultExecutionSpace::memory_space;
constexpr bool react_on_device = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, react_memory>::accessible;
// How a nest with one row per outer iteration is launched on this input. A row belongs to one
// thread of a team and its inner loops to that thread's vector lanes. On a GPU the lanes follow
// the rows' average inner trip count (up to a warp) and short rows share a team of 128 threads,
// so a matrix of short rows still fills the warps; on a CPU a row is one thread's serial work.
struct ReactLaunch { int64_t league, rows, lanes; int level; };
static ReactLaunch react_launch(int64_t rows, double inner, int64_t rows_per_team, size_t row_scratch_bytes) {
  ReactLaunch l{0, 1, 1, 0};
  if (react_on_device) {
    while (l.lanes < 32 && l.lanes < inner) l.lanes *= 2;
    l.rows = 128 / l.lanes;
  }
  if (rows_per_team > 0) l.rows = rows_per_team;
  // Team scratch beyond what a GPU block's shared memory holds by default goes to level 1.
  l.level = static_cast<size_t>(l.rows) * row_scratch_bytes > 48 * 1024 ? 1 : 0;
  l.league = (rows + l.rows - 1) / l.rows;
  return l;
}
// The runtime the host side of react uses, declared by the ABI header above (REACT_KOKKOS_RUNTIME).
extern "C" void react_runtime_initialize() {
  if (Kokkos::is_initialized()) return;
  Kokkos::initialize();
  std::atexit([] { if (Kokkos::is_initialized()) Kokkos::finalize(); });
}
extern "C" void* react_runtime_allocate(size_t bytes) { return Kokkos::kokkos_malloc<react_memory>("react", bytes ? bytes : 1); }
extern "C" void react_runtime_release(void* p) { Kokkos::kokkos_free<react_memory>(p); }
extern "C" void react_runtime_copy(void* dst, const void* src, size_t bytes, int kind) {
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using HostBytes = Kokkos::View<char*, Kokkos::HostSpace, Unmanaged>;
  using DeviceBytes = Kokkos::View<char*, react_memory, Unmanaged>;
  char* s = static_cast<char*>(const_cast<void*>(src));
  char* d = static_cast<char*>(dst);
  if (kind == REACT_COPY_HOST_TO_DEVICE) Kokkos::deep_copy(DeviceBytes(d, bytes), HostBytes(s, bytes));
  else if (kind == REACT_COPY_DEVICE_TO_HOST) Kokkos::deep_copy(HostBytes(d, bytes), DeviceBytes(s, bytes));
  else Kokkos::deep_copy(DeviceBytes(d, bytes), DeviceBytes(s, bytes));
  Kokkos::fence();
}
extern "C" int react_runtime_host_accessible() { return react_on_device ? 0 : 1; }
extern "C" int react_runtime_concurrency() { return Kokkos::DefaultExecutionSpace().concurrency(); }
extern "C" const char* react_runtime_describe() {
  static const std::string text = std::string(Kokkos::DefaultExecutionSpace::name()) + " (concurrency " +
                                  std::to_string(Kokkos::DefaultExecutionSpace().concurrency()) + ")";
  return text.c_str();
})PRELUDE";
  }
  std::string functionQualifier() const override { return "KOKKOS_INLINE_FUNCTION static"; }
  std::string epilogue() const override { return "Kokkos::fence();"; }

  void allocate(const std::string& tensor, double init) override {
    std::string view = mangle(Role::Buffer, tensor);
    line("Kokkos::View<double*> " + view + "(Kokkos::view_alloc(Kokkos::WithoutInitializing, " + stringLiteral(tensor) +
         "), static_cast<size_t>(" + mangle(Role::Size, tensor) + "));");
    line("Kokkos::deep_copy(" + view + ", " + literalText(init) + ");");
    line("double* const " + mangle(Role::Values, tensor) + " = " + view + ".data();");
  }

  void fill(const std::string& tensor, double value) override {
    line("Kokkos::deep_copy(Kokkos::View<double*, Kokkos::MemoryUnmanaged>(" + mangle(Role::Values, tensor) +
         ", static_cast<size_t>(" + mangle(Role::Size, tensor) + ")), " + literalText(value) + ");");
  }

  std::string range() const { return "Kokkos::RangePolicy<Kokkos::IndexType<int64_t>>"; }

  // The combined value of a team or range reduction joins what the scalar held before.
  void combine(const std::string& target, ReduceOp op, const std::string& acc) {
    line(target + (op == ReduceOp::Sum ? " += " + acc + ";" : " = react_max(" + target + ", " + acc + ");"));
  }
  std::string reducer(ReduceOp op, const std::string& acc) const {
    return std::string(op == ReduceOp::Sum ? "Kokkos::Sum<double>(" : "ReactMax(") + acc + ")";
  }

  // A child that one thread of the row would run alone: if it is a chain of single loops down to
  // a dense loop whose iterations are independent, that loop goes to the lanes (laneChain);
  // otherwise null.
  const LoopNode* laneLoop(const LoopNode& c) const {
    const LoopNode* n = &c;
    while (n->kind == LoopNode::Kind::Loop && n->locals.empty()) {
      if (iterationsIndependent(*n)) return n;
      if (n->body.size() != 1) return nullptr;
      n = &n->body.front();
    }
    return nullptr;
  }

  // The trip count of a child's lane loop for this input, as an expression (the rows' average
  // length for a sparse loop).
  std::string laneTrips(const LoopNode& c) const {
    const LoopNode* l = c.mapping == Mapping::Single ? laneLoop(c) : &c;
    if (!l) return "1.0";
    if (l->loop.kind == LoopKind::Dense) return "static_cast<double>(" + extent(l->loop.index) + ")";
    return "static_cast<double>(" + mangle(Role::StoredEntries, l->loop.pattern) + ") / static_cast<double>(" + extent(l->loop.parentIndex) +
           " > 0 ? " + extent(l->loop.parentIndex) + " : 1)";
  }

  // Opens `l` as a loop over the row's vector lanes.
  std::string laneRange(const IndexLoop& l, std::string& counter) const {
    std::string lo, hi;
    loopBounds(l, lo, hi);
    counter = loopCounter(l);
    return "Kokkos::ThreadVectorRange(team, static_cast<int64_t>(" + lo + "), static_cast<int64_t>(" + hi + "))";
  }

  // A Single child with a lane loop. On a GPU the lane loop becomes the outermost, split over the
  // lanes, and each lane runs the loops above it for its own iterations: an accumulation over
  // those loops then stays in one lane, with no synchronisation per step. The interchange is
  // legal because the lane loop's iterations are independent (iterationsIndependent) and its bounds
  // do not depend on the loops above it (it is dense). On a CPU (one lane) the original order
  // stays, since it reads memory in the order the data is laid out.
  void laneChain(const LoopNode& c, const LoopNode* lanes) {
    // A plain if on a constant: nvcc rejects a device lambda that first captures inside if constexpr.
    line(o_.laneLoopsOutermost ? "if (true) {  // the GPU's order, forced" : "if (react_on_device) {");
    ++depth_;
    std::string counter;
    line("Kokkos::parallel_for(" + laneRange(lanes->loop, counter) + ", [&](const int64_t " + counter + ") {");
    ++depth_;
    bindCoordinate(lanes->loop, counter);
    std::vector<const LoopNode*> above;
    for (const LoopNode* n = &c; n != lanes; n = &n->body.front()) above.push_back(n);
    const LoopNode* acc = registerAccumulation(*lanes, above);
    if (acc) line("double lane_acc = " + access(acc->stmt.lhs, acc->stmt.lhsIndices) + ";");
    for (const LoopNode* n : above) serialLoopOpen(n->loop);
    for (const LoopNode& b : lanes->body) serialNode(b, acc ? acc->stmt.lhs : "", "lane_acc");
    for (size_t k = 0; k < above.size(); ++k) {
      --depth_;
      line("}");
    }
    if (acc) line(access(acc->stmt.lhs, acc->stmt.lhsIndices) + " = lane_acc;");
    --depth_;
    line("});");
    --depth_;
    line("} else {");
    ++depth_;
    laneInnermost(c, lanes);
    --depth_;
    line("}");
  }

  // After the interchange, a lane loop whose body is one accumulation into an element that the
  // loops now inside it do not move (A(i,j) += T(i,h) * D(h,j) under h) accumulates in a register
  // and stores once: a chain of dependent loads and stores to memory is what made it slow.
  const LoopNode* registerAccumulation(const LoopNode& lanes, const std::vector<const LoopNode*>& above) const {
    if (above.empty() || lanes.body.size() != 1) return nullptr;
    const LoopNode& b = lanes.body.front();
    if (b.kind != LoopNode::Kind::Compute || !b.accumulate || scalars_.count(b.stmt.lhs)) return nullptr;
    for (const LoopNode* n : above)
      if (offsetVaries(b.stmt.lhs, b.stmt.lhsIndices, n->loop.index)) return nullptr;
    bool readsTarget = false;
    std::function<void(const Expr&)> reads = [&](const Expr& e) {
      readsTarget |= e->op == Op::Access && e->tensor == b.stmt.lhs;
      for (const Expr& a : e->args) reads(a);
    };
    reads(b.stmt.rhs);
    return readsTarget ? nullptr : &b;
  }

  // The loops above the lane loop on every lane, the lane loop split over the lanes.
  void laneInnermost(const LoopNode& n, const LoopNode* lanes) {
    if (&n != lanes) {
      serialLoopOpen(n.loop);
      laneInnermost(n.body.front(), lanes);
      --depth_;
      line("}");
      return;
    }
    std::string counter;
    line("Kokkos::parallel_for(" + laneRange(n.loop, counter) + ", [&](const int64_t " + counter + ") {");
    ++depth_;
    bindCoordinate(n.loop, counter);
    for (const LoopNode& b : n.body) serialNode(b);
    --depth_;
    line("});");
  }

  // One child of a row, spread over the row's lanes as its mapping says. Kokkos ends every lane
  // loop and single with a synchronisation of the lanes, so the next child sees its writes.
  void rowChild(const LoopNode& c) {
    if (c.mapping == Mapping::TeamThread || c.mapping == Mapping::TeamReduce) {
      std::string counter, range = laneRange(c.loop, counter);
      if (c.mapping == Mapping::TeamThread) {
        line("Kokkos::parallel_for(" + range + ", [&](const int64_t " + counter + ") {");
      } else {
        line("{  // a scope per reduction: a row may have several");  // found by react-fuzz
        ++depth_;
        line("double lane_acc = " + literalText(reduceIdentity(c.reduceOp)) + ";");
        line("Kokkos::parallel_reduce(" + range + ", [&](const int64_t " + counter + ", double& acc) {");
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
        line("}, " + reducer(c.reduceOp, "lane_acc") + ");");
        line("Kokkos::single(Kokkos::PerThread(team), [&]() {");
        ++depth_;
        combine(access(c.reduceInto, {}), c.reduceOp, "lane_acc");
        --depth_;
        line("});");
        --depth_;
        line("}");
      }
    } else if (const LoopNode* lanes = laneLoop(c)) {
      laneChain(c, lanes);
    } else {
      line("Kokkos::single(Kokkos::PerThread(team), [&]() {");
      ++depth_;
      serialNode(c);
      --depth_;
      line("});");
    }
  }

  void parallelNest(const LoopNest& nest) {
    const LoopNode& top = nest.top;
    const std::string& i = top.loop.index;
    line("using policy_t = Kokkos::TeamPolicy<Kokkos::IndexType<int64_t>>;");
    line("using scratch_t = Kokkos::View<double*, Kokkos::DefaultExecutionSpace::scratch_memory_space, "
         "Kokkos::MemoryTraits<Kokkos::Unmanaged>>;");
    std::string bytes = "0";
    for (const std::string& s : nest.scratch) {
      declareSize(s);
      bytes += " + scratch_t::shmem_size(" + mangle(Role::Size, s) + ")";
    }
    line("const size_t row_scratch_bytes = " + bytes + ";");
    std::string inner = "1.0";
    for (const LoopNode& c : top.body) inner = "react_max(" + inner + ", " + laneTrips(c) + ")";
    line("const ReactLaunch launch = react_launch(" + extent(i) + ", " + inner + ", " + std::to_string(o_.kokkosTeamSize) +
         ", row_scratch_bytes);");
    line("policy_t policy(launch.league, launch.rows, launch.lanes);");
    line("if (row_scratch_bytes) policy.set_scratch_size(launch.level, Kokkos::PerTeam(launch.rows * row_scratch_bytes));");
    line("Kokkos::parallel_for(" + stringLiteral(nest.name) + ", policy, KOKKOS_LAMBDA(const policy_t::member_type& team) {");
    ++depth_;
    // Every thread takes the team's scratch once, in the same order, so all see the same blocks.
    for (const std::string& s : nest.scratch)
      line("double* const " + mangle(Role::TeamBlock, s) + " = scratch_t(team.team_scratch(launch.level), launch.rows * " +
           mangle(Role::Size, s) + ").data();");
    line("Kokkos::parallel_for(Kokkos::TeamThreadRange(team, launch.rows), [&](const int64_t row) {");
    ++depth_;
    std::string coordinate = mangle(Role::Index, i);
    line("const int64_t " + coordinate + " = team.league_rank() * launch.rows + row;");
    line("if (" + coordinate + " >= " + extent(i) + ") return;");
    for (const std::string& s : nest.scratch) {
      std::string values = mangle(Role::Values, s), size = mangle(Role::Size, s);
      line("double* const " + values + " = " + mangle(Role::TeamBlock, s) + " + row * " + size + ";");
      line("Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, " + size + "), [&](const int64_t q) { " + values +
           "[q] = " + literalText(identityOf(s)) + "; });");
    }
    for (const LoopNode& c : top.body) rowChild(c);
    --depth_;
    line("});");
    --depth_;
    line("});");
  }

  void reduceNest(const LoopNest& nest) {
    const LoopNode& top = nest.top;
    line("double result = " + literalText(reduceIdentity(top.reduceOp)) + ";");
    line("Kokkos::parallel_reduce(" + stringLiteral(nest.name) + ", " + range() + "(0, " + extent(top.loop.index) +
         "), KOKKOS_LAMBDA(const int64_t " + mangle(Role::Index, top.loop.index) + ", double& acc) {");
    ++depth_;
    for (const LoopNode& c : top.body) serialNode(c, top.reduceInto, "acc");
    --depth_;
    line("}, " + reducer(top.reduceOp, "result") + ");");
    line("Kokkos::parallel_for(" + stringLiteral(nest.name + "_combine") + ", " + range() + "(0, 1), KOKKOS_LAMBDA(const int64_t) {");
    ++depth_;
    combine(access(top.reduceInto, {}), top.reduceOp, "result");
    --depth_;
    line("});");
  }

  void serialNest(const LoopNest& nest) {
    for (const std::string& s : nest.scratch) {
      declareSize(s);
      allocate(s, identityOf(s));
    }
    line("Kokkos::parallel_for(" + stringLiteral(nest.name) + ", " + range() + "(0, 1), KOKKOS_LAMBDA(const int64_t) {");
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
