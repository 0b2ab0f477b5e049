// Printing scheduled loop IR as C++ (internal to src/lower): everything the targets share, with
// hooks for what only their syntax decides.
#pragma once

#include "lower/ir/ir.hpp"

#include <map>
#include <optional>
#include <sstream>

namespace react::emit {

class CppPrinter {
 public:
  CppPrinter(const LoopProgram& p, const EmitOptions& o) : p_(p), o_(o) {}
  virtual ~CppPrinter() = default;
  std::string print();

 protected:
  // The target's syntax.
  virtual std::string includes() const = 0;
  virtual std::string functionQualifier() const = 0;  // how helper functions are declared
  virtual void allocate(const ir::StmtNode& a) = 0;   // storage for a temporary, every element a.init
  virtual void fill(const ir::StmtNode& f) = 0;       // every element of a tensor's values := f.init
  virtual void nest(const ir::StmtNode& n) = 0;       // one top-level nest
  // A prepared argument made here when the caller did not give it (its values pointer is null).
  virtual void prepare(const ir::StmtNode& p) = 0;
  // A loop whose schedule is not Serial (Vector, LaneReduce, Parallel, ParallelReduce).
  virtual void scheduledLoop(const ir::StmtNode& l) = 0;
  // A loop in masked vector blocks (StmtNode::maskedBlocks): only the OpenMP target has them.
  virtual void maskedBlocks(const ir::StmtNode& l);
  virtual void single(const ir::StmtNode& s) { body(s.body); }
  virtual void ifDevice(const ir::StmtNode& s) { stmt(s.body[1]); }
  // Where the target runs a call's statements inside code of its own (Kokkos: react_call, which
  // waits for the device and may replay a call as a CUDA graph), the statements are printed as a
  // static function named `body` and callWrapper is the exported kernel function that calls it,
  // asked once the statements are printed.
  virtual bool wrapsCalls() const { return false; }
  virtual std::string callWrapper(const std::string& body) const { (void)body; return ""; }
  // After the prelude, with a guard of its own: what defines react_dense_product, where the target
  // has a library product outside its prelude and the kernel calls it.
  virtual std::string denseProductPrelude() const { return ""; }
  // `target += value` done atomically (an Assign marked atomic).
  virtual void atomicAdd(const std::string& target, const std::string& value) = 0;
  // What comes before the kernel function's return type ("" or ending in a space).
  virtual std::string kernelAttributes() const { return ""; }
  // An element of an array (a Load), at an offset already printed.
  virtual std::string load(const ir::ExprNode& e, const std::string& offset) const;

  // Shared printing.
  std::string expr(const ir::Expr& e) const;
  static std::string typeName(ir::Type t);
  void stmt(const ir::Stmt& s);
  void body(const std::vector<ir::Stmt>& b);
  void productOrNest(const ir::StmtNode& n);  // a nest, or the library's product it computes
  void serialLoop(const ir::StmtNode& l);  // `for (...) { body }`
  void merge(const ir::StmtNode& m);       // a two-finger `while` loop
  // A serial loop's privates, allocated once before it.
  void privatesOf(const ir::StmtNode& l);
  // The elements an allocation holds where they are a constant (a size declared from literals), or 0.
  int64_t constantElements(const ir::StmtNode& allocate) const;
  // The value a shared allocation's elements are set to before the nests: its init; for one
  // allocated unfilled (every element set before it is read) none, but NaN in a bounds-checked
  // kernel, so that a read before the set shows in the results rather than what a run left there.
  std::optional<double> startValue(const ir::StmtNode& allocate) const;
  void line(const std::string& s);
  void open(const std::string& s) { line(s); ++depth_; }
  void close(const std::string& s = "}") { --depth_; line(s); }

  const LoopProgram& p_;
  EmitOptions o_;
  std::ostringstream out_;
  int depth_ = 1;
  std::map<std::string, int64_t> constantSizes_;  // tensors whose size a Let declared as a constant
};

std::string printOpenMP(const LoopProgram& p, const EmitOptions& o);
std::string printKokkos(const LoopProgram& p, const EmitOptions& o);

}  // namespace react::emit
