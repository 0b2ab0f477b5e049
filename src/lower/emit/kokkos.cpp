// The Kokkos syntax: each nest one kernel launch. A parallel loop's rows belong to the threads of
// teams, its private scratch to each row's part of the team scratch, its vector loops to the row's
// vector lanes. Rows per team and lanes per row are chosen at run time from the input (react_launch
// in the prelude). The same source compiles against Serial, OpenMP and CUDA Kokkos.
#include "lower/emit/cpp_printer.hpp"
#include "lower/kokkos_graphs_text.hpp"
#include "lower/kokkos_prelude_text.hpp"
#include "lower/workspace_text.hpp"
#include "lower/ir/analysis.hpp"
#include "lower/ir/names.hpp"

#include <cmath>
#include <limits>
#include <map>

namespace react::emit {

using namespace ir;
using ir::Expr;

namespace {

class KokkosPrinter : public CppPrinter {
 public:
  using CppPrinter::CppPrinter;

 protected:
  std::string includes() const override {
    return std::string(lower::kWorkspaceText) + lower::kKokkosPreludeText + lower::kKokkosGraphsText;
  }
  std::string functionQualifier() const override { return "KOKKOS_INLINE_FUNCTION static"; }
  // A call through react_call (kokkos_graphs.h): it waits for the device, and replays a repeated
  // call's launches as a CUDA graph unless the statements wait for the device themselves.
  bool wrapsCalls() const override { return true; }
  std::string callWrapper(const std::string& body) const override {
    return "extern \"C\" void " + o_.functionName + "(const ReactTensor* t, const int64_t* sizes) {\n"
           "  static ReactCallGraphs& graphs = *new ReactCallGraphs();\n"
           "  react_call(graphs, " + (waitsForDevice_ ? "false" : "true") + ", t, " + std::to_string(p_.args.size()) + ", sizes, " +
           std::to_string(p_.runtimeSizes.size()) + ", " + body + ");\n}\n";
  }
  void atomicAdd(const std::string& target, const std::string& value) override {
    line("Kokkos::atomic_add(&" + target + ", " + value + ");");
  }

  // A temporary's storage: this site's workspace, leased for the run (workspace.h). Its fill,
  // as fill()'s, is given the execution space: it then runs in order with the nests, where
  // deep_copy without one waits for the device before and after (on an H100 the fill of row
  // normalisation's sums cost 0.07 ms that way, a third of the whole kernel on a 4M-entry graph).
  // An alternating array (StmtNode::alternating) takes this call's halves from its storage: it
  // adds into `now`, and the entry runs that add into it restore `other` (entryRuns).
  void allocate(const StmtNode& a) override {
    // A generated array's buffer a generated name too: buf_<text> could be a user temporary's.
    const std::string buffer = a.name.role == Role::Generated ? mangle(a.name) + "_buffer" : mangle(Name{Role::Buffer, a.name.text}), type = typeName(a.type), size = expr(a.value);
    const std::string storage = std::string(a.alternating ? "ReactAlternatingArray<" : "ReactDeviceArray<") + type + ">";
    line("ReactWorkspaceLease<" + storage + "> " + buffer + "([]() -> ReactWorkspace<" + storage +
         ">& { static auto& w = react_device_workspace<" + storage + ">(); return w; }());");
    if (a.alternating) {
      const std::string halves = buffer + "_halves";
      line("const ReactHalves<" + type + "> " + halves + " = " + buffer + ".storage().begin_call(static_cast<size_t>(" + size + "), " +
           literalText(a.init, a.type) + ");");
      line(type + "* const " + mangle(a.name) + " = " + halves + ".now;");
      alternating_[a.name.text] = {buffer, halves, size, literalText(a.init, a.type)};
      return;
    }
    line(type + "* const " + mangle(a.name) + " = " + buffer + ".storage().reserve(static_cast<size_t>(" + size + "));");
    if (const std::optional<double> start = startValue(a))
      line("react_fill(" + mangle(a.name) + ", static_cast<int64_t>(" + size + "), " + literalText(*start, a.type) + ");");
  }

  // A view declared empty, allocated only when the caller did not give the tensor made.
  void prepare(const StmtNode& p) override {
    std::string view = mangle(Name{Role::Buffer, p.name.text}), type = typeName(p.type), values = mangle(p.name);
    line("Kokkos::View<" + type + "*> " + view + ";");
    open("if (" + values + " == nullptr) {");
    line("react_note_uncapturable();  // this call's own storage: a replay would read it freed");
    line(view + " = Kokkos::View<" + type + "*>(Kokkos::view_alloc(Kokkos::WithoutInitializing, " +
         stringLiteral(p.name.text) + "), static_cast<size_t>(" + expr(p.value) + "));");
    line(values + " = " + view + ".data();");
    body(p.body);
    close();
  }

  void fill(const StmtNode& f) override {
    line("react_fill(" + mangle(f.name) + ", " + mangle(Name{Role::Size, f.name.text}) + ", " + literalText(f.init, f.type) + ");");
  }

  // An expression the host evaluates (a launch's bounds): its loads read the kernel's memory
  // through react_host_read.
  std::string hostExpr(const Expr& e) const {
    onHost_ = true;
    std::string text = expr(e);
    onHost_ = false;
    return text;
  }
  std::string load(const ir::ExprNode& e, const std::string& offset) const override {
    if (!onHost_) return CppPrinter::load(e, offset);
    waitsForDevice_ = true;
    return "react_host_read(" + mangle(e.name) + ", " + offset + ")";
  }

  std::string range(const StmtNode& l) const {
    return "Kokkos::RangePolicy<Kokkos::IndexType<int64_t>>(" + hostExpr(l.lo) + ", " + hostExpr(l.hi) + ")";
  }
  // The reducer of a ParallelReduce or LaneReduce loop, over its accumulator's type.
  std::string reducer(const StmtNode& l) const {
    if (!l.jointReduceVars.empty()) internalError("a Kokkos lane loop with joint accumulators (jam-entries is OpenMP's)");
    return std::string(l.reduceOp == ReduceOp::Sum ? "Kokkos::Sum<" : "ReactMax<") + typeName(l.reduceType) + ">(" +
           mangle(l.reduceVar) + ")";
  }
  // The lambda parameter through which an iteration of a ParallelReduce or LaneReduce loop updates
  // its accumulator.
  std::string accumulatorParameter(const StmtNode& l) const {
    return typeName(l.reduceType) + "& " + mangle(l.reduceVar);
  }
  // A vector or lane-reduce loop's opening, up to its lambda's body: react_lanes_for/_reduce where
  // its trip count is a constant from 0 (which their GPU loop counts in int), else Kokkos' range.
  std::string laneLoopHead(const StmtNode& l, bool reduces) const {
    const std::string lambda =
        "[&](const int64_t " + mangle(l.counter) + (reduces ? ", " + accumulatorParameter(l) : std::string()) + ") {";
    if (l.lo->kind == ExprKind::IntImm && l.lo->intValue == 0 && l.hi->kind == ExprKind::IntImm &&
        l.hi->intValue <= std::numeric_limits<int>::max() - 32)
      return (reduces ? "react_lanes_reduce<" : "react_lanes_for<") + std::to_string(l.hi->intValue) + ">(team, " + lambda;
    return std::string(reduces ? "Kokkos::parallel_reduce(" : "Kokkos::parallel_for(") + "Kokkos::ThreadVectorRange(team, static_cast<int64_t>(" +
           expr(l.lo) + "), static_cast<int64_t>(" + expr(l.hi) + ")), " + lambda;
  }

  // A nest's statements: declarations on the host; parallel loops launch themselves; everything
  // else runs on the device as a kernel of one iteration (its data lives there).
  void nest(const StmtNode& n) override {
    open("{");
    nestName_ = n.text;
    kernels_ = 0;
    for (const Stmt& s : n.body) launch(s);
    close();
  }

  void launch(const Stmt& s) {
    if (s->kind == StmtKind::Block && !s->scoped) {
      for (const Stmt& c : s->body) launch(c);
    } else if (s->kind == StmtKind::Comment || s->kind == StmtKind::Let || s->kind == StmtKind::Allocate) {
      stmt(s);
    } else if (s->kind == StmtKind::IfLongRows) {
      launchBranches("if (react_longest_row(" + mangle(s->name) + ", " + hostExpr(s->value) + ") > " + std::to_string(s->longRow) + ") {", *s);
    } else if (s->kind == StmtKind::IfColumnWalk) {
      launchBranches("if (" + mangle(s->name) + " > 0) {", *s);
    } else if (s->kind == StmtKind::EntryRuns) {
      entryRuns(*s);
    } else if (s->kind == StmtKind::EntryLanes) {
      entryLanes(*s);
    } else if (s->kind == StmtKind::For && s->schedule != Schedule::Serial) {
      scheduledLoop(*s);
    } else {
      if (s->kind == StmtKind::For) privatesOf(*s);
      open("Kokkos::parallel_for(" + kernelLabel() + ", Kokkos::RangePolicy<Kokkos::IndexType<int64_t>>(0, 1), KOKKOS_LAMBDA(const int64_t) {");
      if (s->kind == StmtKind::For) serialLoop(*s);
      else stmt(s);
      close("});");
    }
  }

  // Two forms of a nest's launches, chosen on the host by `head`'s condition.
  void launchBranches(const std::string& head, const StmtNode& s) {
    open(head);
    launch(s.body[0]);
    close("} else {");
    ++depth_;
    launch(s.body[1]);
    close();
  }

  std::string kernelLabel() {
    return stringLiteral(kernels_++ == 0 ? nestName_ : nestName_ + "_" + std::to_string(kernels_ - 1));
  }

  void scheduledLoop(const StmtNode& l) override {
    std::string c = mangle(l.counter);
    switch (l.schedule) {
      case Schedule::Parallel: return rows(l);
      case Schedule::ParallelReduce:
        waitsForDevice_ = true;  // Kokkos waits for a reduction into a host value
        open("Kokkos::parallel_reduce(" + kernelLabel() + ", " + range(l) + ", KOKKOS_LAMBDA(const int64_t " + c + ", " +
             accumulatorParameter(l) + ") {");
        body(l.body);
        return close("}, " + reducer(l) + ");");
      case Schedule::Vector:
        open(laneLoopHead(l, false));
        body(l.body);
        return close("});");
      case Schedule::LaneReduce:
        open(laneLoopHead(l, true));
        body(l.body);
        return close("}, " + reducer(l) + ");");
      case Schedule::Serial: return serialLoop(l);
    }
  }

  // One row per team thread; the row's scratch in the team's scratch memory. A scope of its own:
  // a nest may launch several.
  void rows(const StmtNode& l) {
    open("{");
    line("using policy_t = Kokkos::TeamPolicy<Kokkos::IndexType<int64_t>>;");
    std::string bytes = "0";
    for (const PrivateBuffer& b : l.privates) bytes += " + " + scratch(b) + "::shmem_size(" + mangle(Name{Role::Size, b.tensor}) + ")";
    line("const size_t row_scratch_bytes = " + bytes + ";");
    // The rows are [0, hi): a dense loop's, or a first level's positions (levels.cpp).
    REACT_ASSERT(l.lo->kind == ExprKind::IntImm && l.lo->intValue == 0, "Kokkos: a parallel row loop that does not start at 0");
    line("const ReactLaunch launch = react_launch(" + hostExpr(l.hi) + ", " + (l.laneTrips ? hostExpr(l.laneTrips) : "1.0") + ", " +
         std::to_string(o_.kokkosTeamSize) + ", row_scratch_bytes);");
    line("policy_t policy(launch.league, launch.rows, launch.lanes);");
    line("if (row_scratch_bytes) policy.set_scratch_size(launch.level, Kokkos::PerTeam(launch.rows * row_scratch_bytes));");
    open("Kokkos::parallel_for(" + kernelLabel() + ", policy, KOKKOS_LAMBDA(const policy_t::member_type& team) {");
    // Every thread takes the team's scratch once, in the same order, so all see the same blocks.
    for (const PrivateBuffer& b : l.privates)
      line(typeName(b.type) + "* const " + mangle(Name{Role::TeamBlock, b.tensor}) + " = " + scratch(b) +
           "(team.team_scratch(launch.level), launch.rows * " + mangle(Name{Role::Size, b.tensor}) + ").data();");
    open("Kokkos::parallel_for(Kokkos::TeamThreadRange(team, launch.rows), [&](const int64_t row) {");
    std::string coordinate = mangle(l.counter);
    line("const int64_t " + coordinate + " = team.league_rank() * launch.rows + row;");
    line("if (" + coordinate + " >= " + expr(l.hi) + ") return;");
    for (const PrivateBuffer& b : l.privates) {
      std::string values = mangle(Name{Role::Values, b.tensor}), size = mangle(Name{Role::Size, b.tensor});
      line(typeName(b.type) + "* const " + values + " = " + mangle(Name{Role::TeamBlock, b.tensor}) + " + row * " + size + ";");
      line("Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, " + size + "), [&](const int64_t q) { " + values +
           "[q] = " + literalText(b.init, b.type) + "; });");
    }
    body(l.body);
    close("});");
    close("});");
    close();
  }

  // One run per lane: on a GPU warps of 32 lanes, 4 to a team; on a host one run per team. The
  // run finds its first entry's row by a binary search (the recording runs first try the row the
  // array holds from an earlier call: react_run_row_recorded), or from the row a summing run
  // recorded (StmtNode::runRows), and walks the rows from there. Where the body stores one value at the
  // entry and nothing else (stagedStore), the values go to the team's scratch, and once the
  // lanes meet, each lane writes every react_lanes-th of the warp's entries: the warp's stores
  // then cover whole sectors (passes/reduction_runs.cpp measures it). A run's slots are padded by
  // one so that lanes writing their runs' k-th entries fall in different banks.
  void entryRuns(const StmtNode& r) {
    const std::string entries = hostExpr(r.hi), length = std::to_string(r.runLength), row = mangle(r.rowCounter),
                      entry = mangle(r.counter), positions = mangle(r.name), count = expr(r.hi);
    const bool sums = r.target != nullptr, recorded = !r.runRows.text.empty(), max = r.reduceOp == ReduceOp::Max;
    const StmtNode* staged = sums ? nullptr : stagedStore(r);
    const std::string slot = std::to_string(r.runLength + 1), stagedType = staged ? typeName(staged->target->type) : "";
    const std::string stagedCount = "react_threads * react_lanes * " + slot;
    open("{");
    line("using policy_t = Kokkos::TeamPolicy<Kokkos::IndexType<int64_t>>;");
    line("const int64_t react_lanes = react_on_device ? 32 : 1, react_threads = react_on_device ? 4 : 1;");
    line("const int64_t react_runs = (" + entries + " + " + length + " - 1) / " + length + ";");
    // Runs that add into an alternating array set its other half back to its initial value, a
    // lane per element (more lanes than runs where the array is the longer).
    const auto restored = sums ? alternating_.find(tensorOf(*r.target)) : alternating_.end();
    const std::string lanes = restored == alternating_.end() ? "react_runs" : "react_max<int64_t>(react_runs, " + restored->second.halves + ".restore)";
    line(std::string(staged ? "" : "const ") + "policy_t policy((" + lanes + " + react_lanes * react_threads - 1) / (react_lanes * react_threads), react_threads, react_lanes);");
    if (restored != alternating_.end()) line("const int64_t react_all_runs = policy.league_size() * react_threads * react_lanes;");
    if (staged) line("policy.set_scratch_size(0, Kokkos::PerTeam(react_scratch<" + stagedType + ">::shmem_size(" + stagedCount + ")));");
    open("Kokkos::parallel_for(" + kernelLabel() + ", policy, KOKKOS_LAMBDA(const policy_t::member_type& team) {");
    if (staged)
      line(stagedType + "* const react_team_staged = react_scratch<" + stagedType + ">(team.team_scratch(0), " + stagedCount + ").data();");
    open("Kokkos::parallel_for(Kokkos::TeamThreadRange(team, react_threads), [&](const int64_t thread) {");
    open("Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, react_lanes), [&](const int64_t lane) {");
    line("const int64_t react_run = (team.league_rank() * react_threads + thread) * react_lanes + lane;");
    line("const int64_t react_first = react_min(react_run * " + length + ", " + count + ");");
    line("const int64_t react_last = react_min(react_first + " + length + ", " + count + ");");
    if (restored != alternating_.end()) {
      const std::string& halves = restored->second.halves;
      line("for (int64_t react_q = react_run; react_q < " + halves + ".restore; react_q += react_all_runs) " + halves + ".other[react_q] = " +
           restored->second.init + ";");
    }
    const std::string runRows = mangle(r.runRows), rows = expr(r.value);
    if (recorded && !r.recordsRunRows)
      line("int64_t " + row + " = react_first < react_last ? react_row_from(" + positions + ", " + rows + ", " + runRows + "[react_first / " +
           std::to_string(r.runRowsEvery) + "], react_first) : 0;");
    else if (r.recordsRunRows)
      line("int64_t " + row + " = react_run_row_recorded(" + positions + ", " + rows + ", react_first, react_last, " + runRows + ", react_run);");
    else
      line("int64_t " + row + " = react_run_row(" + positions + ", " + rows + ", react_first, react_last);");
    if (staged) line(stagedType + "* const react_staged = react_team_staged + thread * react_lanes * " + slot + ";");
    std::string acc = mangle(r.reduceVar), type = typeName(r.reduceType), zero = literalText(max ? -HUGE_VAL : 0, r.reduceType);
    if (sums) {
      line(type + " " + acc + " = " + zero + ", react_first_part = " + zero + ";");
      line("int64_t react_first_row = -1;");
    }
    // A row's part ends: the run's first row waits for the warp; a row inside the run is the run's.
    auto rowEnds = [&](const std::string& otherwise) {
      line("if (react_first_row < 0) { react_first_row = " + row + "; react_first_part = " + acc + "; } else " + otherwise);
      line(acc + " = " + zero + ";");
    };
    open("for (int64_t " + entry + " = react_first; " + entry + " < react_last; ++" + entry + ") {");
    open("while (" + positions + "[" + row + " + 1] <= " + entry + ") {");
    if (sums) rowEnds(expr(r.target) + " = " + acc + ";");
    line("++" + row + ";");
    close();
    for (const Stmt& b : r.body) {
      if (b.get() == staged) line("react_staged[lane * " + slot + " + (" + entry + " - react_first)] = " + expr(b->value) + ";");
      else stmt(b);
    }
    close();
    if (sums) {
      // The run's last row may go on in the next run.
      open("if (react_first < react_last) {");
      const std::string maxArgument = max ? "<true>" : "<false>";
      rowEnds("react_combine_into" + maxArgument + "(&" + expr(r.target) + ", " + acc + ");");
      close();
      line(row + " = react_first_row < 0 ? 0 : react_first_row;");
      line("react_update_first_row" + maxArgument + "(&" + expr(r.target) + ", react_first_row, react_first_part);");
    }
    if (staged) {
      line("react_sync_lanes();");
      open("for (int64_t react_k = 0; react_k < " + length + "; ++react_k) {");
      line("const int64_t react_q = react_k * react_lanes + lane;  // the q-th entry of the team thread's runs");
      line("const int64_t react_at = (react_run - lane) * " + length + " + react_q;");
      line("if (react_at < " + count + ") " + load(*staged->target, "react_at") + " = react_staged[(react_q / " + length + ") * " + slot +
           " + react_q % " + length + "];");
      close();
    }
    close("});");
    close("});");
    close("});");
    if (restored != alternating_.end())  // queued: the halves swap for the next call
      line(restored->second.buffer + ".storage().end_call(static_cast<size_t>(" + restored->second.size + "));");
    close();
  }

  // A chunk of 32 stored entries per team thread (a warp on a GPU, 4 to a team; one per team on a
  // host), handed to react_entry_lanes (the Kokkos prelude) as four lambdas: an entry's row
  // (searched from a row already found, or from the start where that is -1), its coordinate, the
  // sum's term at an iteration, and the stores from the sum.
  void entryLanes(const StmtNode& r) {
    const std::string entries = hostExpr(r.hi), count = expr(r.hi), positions = mangle(r.name), rows = expr(r.value),
                      entry = mangle(r.counter), row = mangle(r.rowCounter), type = typeName(r.reduceType);
    const StmtNode& coordinate = *r.body[0];
    const StmtNode& dot = *r.body[1];
    const std::string trips = std::to_string(dot.hi->intValue);
    open("{");
    line("using policy_t = Kokkos::TeamPolicy<Kokkos::IndexType<int64_t>, react_entry_lanes_bounds<" + type + ", " + trips + ">>;");
    line("const int64_t react_lanes = react_on_device ? 32 : 1, react_threads = react_on_device ? 4 : 1;");
    line("const int64_t react_chunks = (" + entries + " + 31) / 32;");
    line("const policy_t policy((react_chunks + react_threads - 1) / react_threads, react_threads, react_lanes);");
    open("Kokkos::parallel_for(" + kernelLabel() + ", policy, KOKKOS_LAMBDA(const policy_t::member_type& team) {");
    open("Kokkos::parallel_for(Kokkos::TeamThreadRange(team, react_threads), [&](const int64_t thread) {");
    line("const int64_t react_first = (team.league_rank() * react_threads + thread) * 32;");
    line("if (react_first >= " + count + ") return;");
    line("react_entry_lanes<" + type + ", " + trips + ">(react_first, react_min(react_first + 32, " + count + "),");
    ++depth_;  // the four lambdas
    line("[&](const int64_t react_entry, const int64_t react_from) { return react_from < 0 ? react_row_of_warp(" + positions + ", " + rows +
         ", react_entry) : react_row_from(" + positions + ", " + rows + ", react_from, react_entry); },");
    open("[&](const int64_t " + entry + ", const int64_t " + row + ") {");
    stmt(r.body[0]);
    line("return " + mangle(coordinate.name) + ";");
    close("},");
    line("[&](const int64_t " + row + ", const int64_t " + mangle(coordinate.name) + ", const int64_t " + mangle(dot.counter) + ") { return " +
         expr(dot.body[0]->value) + "; },");
    open("[&](const int64_t " + entry + ", const int64_t " + row + ", const int64_t " + mangle(coordinate.name) + ", const " + type + " " +
         mangle(r.reduceVar) + ") {");
    for (size_t k = 2; k < r.body.size(); ++k) stmt(r.body[k]);
    close("});");
    --depth_;
    close("});");
    close("});");
    close();
  }

  // The one store of a run's body, of a value at the run's entry, where the rest are lets.
  static const StmtNode* stagedStore(const StmtNode& r) {
    const StmtNode* store = nullptr;
    for (const Stmt& s : r.body) {
      if (s->kind == StmtKind::Let) continue;
      if (s->kind != StmtKind::Assign || store || s->update != Update::Set || s->atomic) return nullptr;
      const Expr& t = s->target;
      if (t->kind != ExprKind::Load || t->args.at(0)->kind != ExprKind::Var || t->args.at(0)->name != r.counter) return nullptr;
      store = s.get();
    }
    return store;
  }

  // The scratch view type of a private buffer's values.
  static std::string scratch(const PrivateBuffer& b) { return "react_scratch<" + typeName(b.type) + ">"; }

  void single(const StmtNode& s) override {
    open("Kokkos::single(Kokkos::PerThread(team), [&]() {");
    body(s.body);
    close("});");
  }

  // A plain if on a constant: nvcc rejects a device lambda that first captures inside if constexpr.
  void ifDevice(const StmtNode& s) override {
    open(s.forcedOrder ? "if (true) {  // the GPU's order, forced" : "if (react_on_device) {");
    stmt(s.body[0]);
    close("} else {");
    ++depth_;
    stmt(s.body[1]);
    close();
  }

  struct Alternating {
    std::string buffer, halves, size, init;  // its lease, the call's ReactHalves, its elements, the initial value's literal
  };
  std::map<std::string, Alternating> alternating_;  // by tensor
  std::string nestName_;
  int kernels_ = 0;
  mutable bool onHost_ = false;  // printing an expression the host evaluates (hostExpr)
  mutable bool waitsForDevice_ = false;  // the statements wait for the device (a host read, a reduction into a host value)
};

}  // namespace

std::string printKokkos(const LoopProgram& p, const EmitOptions& o) { return KokkosPrinter(p, o).print(); }

}  // namespace react::emit
