// The plain C++/OpenMP syntax: a parallel loop is an `omp for` in a parallel region holding each
// thread's private scratch, a vector loop an `omp simd` loop.
#include "lower/emit/cpp_printer.hpp"
#include "lower/openmp_dense_product_text.hpp"
#include "lower/openmp_prelude_text.hpp"
#include "lower/workspace_text.hpp"
#include "lower/ir/analysis.hpp"
#include "lower/ir/mutator.hpp"
#include "lower/ir/names.hpp"

#include <set>

namespace react::emit {

using namespace ir;
using ir::Expr;

namespace {

// The largest private buffer of constant size put on the stack, in bytes: eight vector registers
// of AVX-512, what GCC can keep a row in (a longer row, SpMM-MM's 256, goes to memory anyway).
constexpr int64_t kStackBytes = 512;

class OpenMPPrinter : public CppPrinter {
 public:
  using CppPrinter::CppPrinter;

 protected:
  std::string includes() const override { return std::string(lower::kWorkspaceText) + lower::kOpenMPPreludeText; }
  std::string functionQualifier() const override { return "static inline"; }
  std::string denseProductPrelude() const override {
    bool product = false;
    for (const Stmt& s : p_.body) product |= s->kind == StmtKind::Nest && s->product;
    return product ? lower::kOpenMPDenseProductText : "";
  }
  void atomicAdd(const std::string& target, const std::string& value) override {
    line("#pragma omp atomic");
    line(target + " += " + value + ";");
  }

  // A kernel that accumulates into a temporary of its own (each thread's scratch row) goes without
  // GCC's unroll-and-jam: knowing that the scratch aliases nothing, GCC jams the sparse loop around
  // the accumulation, and the second entry's row of the dense operand (at a coordinate read from
  // memory) becomes gathers. MTTKRP's fused kernel ran 1.6-3.9x slower for it; kernels without
  // scratch are left alone, since the flag slowed several matrix kernels when given to all
  // (docs/benchmarks-tensors.md).
  std::string kernelAttributes() const override {
    bool scratch = false;
    forEachStmt(p_.body, [&](const Stmt& s) { scratch |= s->kind == StmtKind::For && !s->privates.empty(); });
    return scratch ? "REACT_NO_UNROLL_AND_JAM " : "";
  }

  // A private buffer (per thread, or a serial nest's): its own vector, or, where its size is a
  // small constant (MTTKRP's row of R per fibre, R up to 64), an array on the stack. A shared one
  // lives in this site's workspace (ReactWorkspace, kept between runs, leased by one run at a time)
  // and is filled by all threads, not by the one that allocates: a temporary of the size of the
  // output (unfused modes) costs a serial pass over it otherwise, which at 16 threads is as long as
  // the kernel.
  //
  // Why the array: GCC may keep an array whose address is taken nowhere in registers across the
  // loop that accumulates into it, while a vector's heap row may, for all it knows, alias the
  // kernel's other arrays. The fused MTTKRP at R = 64 took 1.29x and 1.45x less time so on the
  // development machine's AMD core (least of six alternating runs on two tensors; 1.08x and 1.34x
  // by their medians), and 0.96-1.07x on the Xeon of the GPU machine, level at R = 16 and 32 on
  // both (docs/benchmarks-tensors.md, "The fused MTTKRP's row on the stack").
  void allocate(const StmtNode& a) override {
    const std::string buffer = mangle(Name{Role::Buffer, a.name.text}), values = mangle(a.name), type = typeName(a.type);
    if (!a.parallelInit) {
      const int64_t n = constantElements(a), bytes = a.type == Type::Float32 ? 4 : 8;
      if (n > 0 && n <= kStackBytes / bytes) {
        line("alignas(64) " + type + " " + values + "[" + std::to_string(n) + "];");
        line("for (int64_t q = 0; q < " + std::to_string(n) + "; ++q) " + values + "[q] = " + literalText(a.init, a.type) + ";");
        return;
      }
      line("std::vector<" + type + "> " + buffer + "(static_cast<size_t>(" + expr(a.value) + "), " + literalText(a.init, a.type) + ");");
      line(type + "* const " + values + " = " + buffer + ".data();");
      return;
    }
    lease(a);
    line(type + "* const " + values + " = " + buffer + ".storage().reserve(static_cast<size_t>(" + expr(a.value) + "));");
    if (const std::optional<double> start = startValue(a)) {
      ir::StmtNode filled = a;
      filled.init = *start;
      fill(filled);
    }
  }

  // This site's workspace, leased for the run (the lambda's static: each lambda is a type of its own).
  void lease(const StmtNode& a) {
    const std::string type = typeName(a.type);
    const std::string storage = "ReactHostArray<" + type + ">";
    line("ReactWorkspaceLease<" + storage + "> " + mangle(Name{Role::Buffer, a.name.text}) + "([]() -> ReactWorkspace<" + storage +
         ">& { static ReactWorkspace<" + storage + "> w; return w; }());");
  }

  // Made in a workspace, as a shared temporary is, unless the caller gave it.
  void prepare(const StmtNode& p) override {
    lease(p);
    const std::string values = mangle(p.name);
    open("if (" + values + " == nullptr) {");
    line(values + " = " + mangle(Name{Role::Buffer, p.name.text}) + ".storage().reserve(static_cast<size_t>(" + expr(p.value) + "));");
    body(p.body);
    close();
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
    std::string accumulators = mangle(l.reduceVar);
    for (const Name& a : l.jointReduceVars) accumulators += ", " + mangle(a);
    return std::string("reduction(") + (l.reduceOp == ReduceOp::Sum ? "+" : "max") + ":" + accumulators + ")";
  }

  // The rows of a parallel loop inside its region: this thread's share of equal work
  // (balancePositions), or rows handed out in chunks (rowChunks: up to 256, react_row_chunk) or
  // 16 at a time.
  void rowsOf(const StmtNode& l) {
    if (l.rowChunks || l.balancePositions.text.empty()) {
      const std::string chunks = "monotonic: dynamic, react_row_chunk((" + expr(l.hi) + ") - (" + expr(l.lo) + "))";
      line("#pragma omp for schedule(" + (l.rowChunks ? chunks : std::string("dynamic, 16")) + ")");
      return serialLoop(l);
    }
    line("const ReactRows react_rows = react_balanced_rows(" + mangle(l.balancePositions) + ", " + expr(l.lo) + ", " +
         expr(l.hi) + ", " + std::to_string(l.entryWork) + ", " + std::to_string(l.rowWork) + ");");
    StmtNode share = l;
    share.lo = var(Name{Role::Generated, "react_rows.lo"}, Type::Int64);
    share.hi = var(Name{Role::Generated, "react_rows.hi"}, Type::Int64);
    serialLoop(share);
  }

  // Where the prelude defines ReactLanes (REACT_MASKED_BLOCKS: AVX-512), the loop in blocks of one
  // vector's lanes, each masked to the entries left before the row's end (passes/masked_blocks.cpp);
  // elsewhere the loop as its schedule says.
  void maskedBlocks(const StmtNode& l) override {
    const std::optional<MaskedLanes> m = maskedLanes(l);
    if (!m) internalError("masked blocks over a body the lanes cannot run");
    const bool reduces = !m->reduced.text.empty(), sum = m->op == ReduceOp::Sum;
    const std::string counter = mangle(l.counter), reduced = mangle(m->reduced);
    line("#if defined(REACT_MASKED_BLOCKS)");
    open("{");
    line("using react_lanes = ReactLanes<" + typeName(m->type) + ">;");
    line("const int64_t react_end = " + expr(l.hi) + ";");
    // The lanes start at the reduction's identity: 0, or -inf for a maximum.
    if (reduces) line(std::string("react_lanes::Vector react_lanes_acc = react_lanes::") + (sum ? "zero" : "lowest") + "();");
    open("for (int64_t " + counter + " = " + expr(l.lo) + "; " + counter + " < react_end; " + counter + " += react_lanes::width) {");
    line("const react_lanes::Mask react_mask = react_lanes::mask(react_end - " + counter + ");");
    std::set<Name> locals;
    for (const Stmt& s : l.body) {
      if (s->kind == StmtKind::Let) {
        line("react_lanes::Vector " + mangle(s->name) + " = " + lanes(s->value, locals) + ";");
        locals.insert(s->name);
      } else if (s->target->kind == ExprKind::Var && locals.count(s->target->name)) {
        const std::string local = mangle(s->target->name);
        line(local + " = " + (s->update == Update::Add ? "(" + local + " + " + lanes(s->value, locals) + ")" : lanes(s->value, locals)) + ";");
      } else if (s->target->kind == ExprKind::Var) {
        line(std::string("react_lanes_acc = react_lanes::") + (sum ? "add" : "max") + "(react_lanes_acc, react_mask, " +
             lanes(s->value, locals) + ");");
      } else {
        line("react_lanes::store(react_mask, " + mangle(s->target->name) + " + " + counter + ", " + lanes(s->value, locals) + ");");
      }
    }
    close();
    if (reduces && sum) line(reduced + " += react_lanes::sum(react_lanes_acc);");
    if (reduces && !sum) line(reduced + " = react_max(" + reduced + ", react_lanes::maximum(react_lanes_acc));");
    close();
    line("#else");
    StmtNode plain = l;
    plain.maskedBlocks = false;
    stmt(std::make_shared<const StmtNode>(plain));
    line("#endif");
  }

  // A value of a masked block's body on the lanes (maskedLanes says which values occur): the
  // block's `locals` are vectors, other variables scalars the same in every lane.
  std::string lanes(const Expr& e, const std::set<Name>& locals) const {
    auto a = [&](size_t k) { return lanes(e->args[k], locals); };
    switch (e->kind) {
      case ExprKind::Var:
        if (locals.count(e->name)) return mangle(e->name);
        [[fallthrough]];
      case ExprKind::FloatImm: return "react_lanes::splat(" + expr(e) + ")";
      case ExprKind::Load: return "react_lanes::load(react_mask, " + mangle(e->name) + " + " + expr(e->args[0]) + ")";
      case ExprKind::Neg: return "(-" + a(0) + ")";
      case ExprKind::Binary: {
        static const char* const ops[] = {" + ", " - ", " * ", " / "};
        return "(" + a(0) + ops[static_cast<int>(e->op)] + a(1) + ")";
      }
      case ExprKind::Call: {
        static const std::map<Callee, std::string> functions{
            {Callee::Exp, "exp"}, {Callee::Log, "log"}, {Callee::Sqrt, "sqrt"}, {Callee::Max, "max"}, {Callee::Min, "min"}};
        std::string args;
        for (size_t k = 0; k < e->args.size(); ++k) args += (k ? ", " : "") + a(k);
        return "react_lanes::" + functions.at(e->callee) + "(" + args + ")";
      }
      default: internalError("masked blocks over " + ir::print(e));
    }
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
