// Shared machinery of the source emitters (internal to src/lower).
#pragma once

#include "lower/lower.hpp"

#include <map>
#include <sstream>

namespace react::lower {

// Prints one LoopProgram as C++; subclasses decide how a nest maps onto the machine.
class Emitter {
 public:
  Emitter(const LoopProgram& p, const EmitOptions& o) : p_(p), o_(o) {}
  virtual ~Emitter() = default;
  std::string emit();

 protected:
  // Backend hooks.
  virtual std::string includes() const = 0;
  virtual std::string functionQualifier() const = 0;  // how helper functions are declared
  virtual void allocate(const std::string& name, const std::string& size, double init) = 0;
  // A full temporary, allocated once outside every loop nest: by default like any other array.
  virtual void allocateShared(const std::string& name, const std::string& size, double init) { allocate(name, size, init); }
  virtual void fill(const std::string& ptr, const std::string& size, double value) = 0;
  virtual void emitNest(const LoopNest& nest) = 0;
  virtual std::string epilogue() const { return ""; }  // after the last nest
  virtual std::string simdPragma() const { return ""; }  // before an innermost loop of independent iterations

  // Shared printing.
  std::string extent(const std::string& index) const;
  std::string storedSize(const std::string& name) const;  // elements in memory
  std::string access(const std::string& name, const std::vector<std::string>& idx) const;
  std::string expr(const Expr& e) const;
  std::string literalText(double v) const;
  double identityOf(const std::string& name) const;
  // A compute statement; writes to `reduceInto` go to the variable `acc` instead.
  void compute(const LoopNode& c, const std::string& reduceInto = "", const std::string& acc = "");
  // The loop header line (a plain serial loop) and the coordinate it binds.
  void serialLoopOpen(const IndexLoop& l);
  void loopBounds(const IndexLoop& l, std::string& lo, std::string& hi) const;
  void bindCoordinate(const IndexLoop& l, const std::string& counter);
  void serialNode(const LoopNode& n, const std::string& reduceInto = "", const std::string& acc = "");
  void declareLocals(const LoopNode& n);
  // Does the offset of this access change with `index`? Do the iterations of loop `l` touch
  // disjoint elements of what they write?
  bool offsetVaries(const std::string& name, const std::vector<std::string>& idx, const std::string& index) const;
  bool iterationsIndependent(const LoopNode& l) const;
  // Before an innermost loop: reads it does not move through (no index of the loop, a tensor the
  // loop does not write) into constants.
  void hoistInvariantReads(const LoopNode& loop, const std::string& reduceInto);
  void line(const std::string& s);
  std::string nestComment(const LoopNest& nest) const;

  const LoopProgram& p_;
  EmitOptions o_;
  std::ostringstream out_;
  int depth_ = 1;
  std::set<std::string> scalars_;  // temporaries held in a local scalar variable right now
  std::map<std::string, std::string> hoisted_;  // access text -> the constant holding it (hoistInvariantReads)
  int hoistedCount_ = 0;
  int loopDepth_ = 0;  // loops serialNode has open around the node it prints
};

std::string emitOpenMP(const LoopProgram& p, const EmitOptions& o);
std::string emitKokkos(const LoopProgram& p, const EmitOptions& o);

}  // namespace react::lower
