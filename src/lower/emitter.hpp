// Shared machinery of the source emitters (internal to src/lower).
#pragma once

#include "lower/lower.hpp"

#include <map>
#include <sstream>

namespace react::lower {

// What an identifier the generated code derives from a tensor or index name stands for.
enum class Role {
  Values,         // a tensor's values: a dense array, or a csr tensor's stored values
  Positions,      // a csr pattern's row positions (rows + 1)
  Coordinates,    // a csr pattern's column coordinates
  StoredEntries,  // a csr pattern's number of stored entries
  Size,           // the elements a tensor holds in memory (bounds checks, fills)
  Buffer,         // the storage that owns a temporary
  TeamBlock,      // a Kokkos team's scratch for a temporary: every row of the team
  Scalar,         // a temporary held in a local variable
  Extent,         // an index's extent, passed at run time
  Index,          // an index's coordinate (a dense loop's counter)
  Position,       // a sparse loop's counter: the position of the stored entry it visits
};

// The one way generated code names what a tensor or index stands for: the role's prefix
// (letters and one '_') and the name. User names and react's own identifiers thus live in disjoint
// spaces: every react identifier (react_*, lane_acc, t, sizes, team, hoisted0, ...) and every
// macro of the headers kernels include lacks these prefixes, and the text before the first '_'
// says the role, so no two (role, name) pairs give one identifier.
std::string mangle(Role role, const std::string& name);
// User text as a C++ string literal, and as text that cannot end a // comment.
std::string stringLiteral(const std::string& text);
std::string commentText(const std::string& text);

// Prints one LoopProgram as C++; subclasses decide how a nest maps onto the machine.
class Emitter {
 public:
  Emitter(const LoopProgram& p, const EmitOptions& o);
  virtual ~Emitter() = default;
  std::string emit();

 protected:
  // Backend hooks.
  virtual std::string includes() const = 0;
  virtual std::string functionQualifier() const = 0;  // how helper functions are declared
  // Storage for a tensor's values (Role::Values) of its Role::Size elements, every one `init`.
  virtual void allocate(const std::string& tensor, double init) = 0;
  // A full temporary, allocated once outside every loop nest: by default like any other array.
  virtual void allocateShared(const std::string& tensor, double init) { allocate(tensor, init); }
  virtual void fill(const std::string& tensor, double value) = 0;  // every element of its values
  virtual void emitNest(const LoopNest& nest) = 0;
  virtual std::string epilogue() const { return ""; }  // after the last nest
  virtual std::string simdPragma() const { return ""; }  // before an innermost loop of independent iterations

  // Shared printing.
  std::string extent(const std::string& index) const;
  std::string storedSize(const std::string& name) const;  // elements in memory
  void declareSize(const std::string& name);               // its Role::Size constant
  std::string access(const std::string& name, const std::vector<std::string>& idx) const;
  // `e` computed in `type` (the statement's left-hand side's): every access of a tensor of the
  // other type is converted, literals are of `type`, so float arithmetic stays float.
  std::string expr(const Expr& e, ValueType type) const;
  std::string literalText(double v, ValueType type) const;  // "0.5", "0.5f", "(-INFINITY)"
  double identityOf(const std::string& name) const;
  // The value type of a tensor, and its C++ name ("float", "double"): of the tensor's values and
  // of every accumulator, local, scratch, hoisted constant and reducer that holds a value of it.
  ValueType valueTypeOf(const std::string& tensor) const;
  std::string valueTypeName(const std::string& tensor) const;
  // A compute statement; writes to `reduceInto` go to the variable `acc` instead.
  void compute(const LoopNode& c, const std::string& reduceInto = "", const std::string& acc = "");
  // The loop header line (a plain serial loop) and the coordinate it binds.
  std::string loopCounter(const IndexLoop& l) const;
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
  struct Producer {
    std::vector<std::string> indices;  // the indices its stored dimensions are written with
    double identity = 0.0;             // of the reduction accumulating into it (0 when none)
  };
  std::map<std::string, Producer> producers_;  // by tensor, from its last writer
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
