// react/indextree: the IR every fusion pass transforms (docs/design.md, "Index trees").
//
// A root; index nodes, each one loop over one index, Dense (a range loop) or Sparse (a position
// loop over one level of a pattern that is iterated by position, such as csr's compressed level,
// nested under the loop of the level above: the row index); and
// compute nodes, leaves holding one statement (`=`, or `+=`/`max=` when it reduces) or a reset of a
// temporary. Statements keep their logical indices; a shrunk temporary records which of its
// dimensions are still stored.
#pragma once

#include "indexnotation/indexnotation.hpp"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace react {

// Merge: a loop over the coordinates of one level of several patterns at once (co-iteration,
// docs/semantics.md "Two sparse patterns"), two fingers walking their sorted coordinates: the
// coordinates all of them store (intersection) or any of them stores (union).
enum class LoopKind { Dense, Sparse, Merge };

struct IndexLoop {
  std::string index;
  LoopKind kind = LoopKind::Dense;
  // Sparse: the pattern one of whose levels is iterated. Merge: the pattern the loop assembles,
  // one position per coordinate it visits (the result's); empty when the result is dense.
  std::string pattern;
  // Sparse, Merge: the index of the level above, whose position selects this level's positions
  // (csr's row); empty for a first level (its parent is the root).
  std::string parentIndex;
  int level = -1;           // Sparse, Merge: the storage level of the pattern's format that is iterated
  std::vector<std::string> operands;  // Merge: the patterns whose level is co-iterated, in operand order
  bool unite = false;                 // Merge: their union, else their intersection

  static IndexLoop dense(std::string index) { return IndexLoop{std::move(index), LoopKind::Dense, "", "", -1, {}, false}; }
  static IndexLoop sparse(std::string index, std::string pattern, int level, std::string parentIndex) {
    return IndexLoop{std::move(index), LoopKind::Sparse, std::move(pattern), std::move(parentIndex), level, {}, false};
  }
  static IndexLoop merge(std::string index, std::vector<std::string> operands, bool unite, std::string assembled, int level,
                         std::string parentIndex) {
    return IndexLoop{std::move(index), LoopKind::Merge, std::move(assembled), std::move(parentIndex), level, std::move(operands), unite};
  }
  bool operator==(const IndexLoop& o) const {
    return index == o.index && kind == o.kind && pattern == o.pattern && parentIndex == o.parentIndex && level == o.level &&
           operands == o.operands && unite == o.unite;
  }
  // Whether the loop binds the position of `pattern` at `level` under `parentIndex`'s loop: a
  // Sparse loop over it, or a Merge loop that co-iterates it or assembles it.
  bool bindsPositionOf(const std::string& pattern, int level, const std::string& parentIndex) const;
  // "i (D)"; "j (S: S row i)" for a level under another, "i (S: S level 0)" for a first level;
  // "j (S & T: A row i)" for a merge (`|` for a union; no ": A" when the result is dense).
  std::string str() const;
};

enum class NodeKind { Root, Index, Compute };
enum class ComputeKind { Compute, Reset };

struct TreeNode {
  NodeKind kind = NodeKind::Root;
  IndexLoop loop;                              // Index nodes
  Statement stmt;                              // Compute nodes
  ComputeKind computeKind = ComputeKind::Compute;
  std::vector<TreeNode> children;              // in execution order

  static TreeNode index(IndexLoop loop) { TreeNode n; n.kind = NodeKind::Index; n.loop = std::move(loop); return n; }
  static TreeNode compute(Statement s, ComputeKind k = ComputeKind::Compute) {
    TreeNode n; n.kind = NodeKind::Compute; n.stmt = std::move(s); n.computeKind = k; return n;
  }
  bool accumulates() const;  // Compute node whose statement reduces: `+=` or `max=`
  // Tensors a compute node reads (its right-hand side, and its left-hand side when it accumulates).
  std::vector<std::string> reads() const;
  std::string label() const; // "i (D)", "T0(i,j) += B(i,k) * C(k,j)", "reset T0(h)"
};

using TreePath = std::vector<const TreeNode*>;  // ancestors, root first
// Visits every node in execution (pre-)order with the path of its ancestors.
void visitTree(const TreeNode& root, const std::function<void(const TreeNode&, const TreePath&)>& visit);

// A tensor as the tree stores it: its declaration plus which logical dimensions are kept in
// memory (temporary shrinking drops the dimensions a fused loop prefix fixes).
struct TensorStorage {
  TensorDecl decl;
  std::vector<bool> kept;  // one per dimension; all true until shrunk
  bool shrunk() const;
  // Are its values one per stored entry of `pattern` (that pattern's own, or a tensor at all of
  // its levels, unshrunk)? Not a prefix of the pattern (ssd: a block per fibre).
  bool storedAtEntriesOf(const std::string& pattern) const;
};

struct IndexTree {
  TreeNode root;
  std::map<std::string, TensorStorage> tensors;
  std::map<std::string, int64_t> indexSizes;

  const TensorStorage& tensor(const std::string& name) const;
  // Logical index of each stored dimension of `name` as accessed in `access` (drops shrunk dims).
  std::vector<std::string> storedIndices(const std::string& name, const std::vector<std::string>& access) const;
  // Number of elements of `name` in memory: nnz of its pattern for a format with a sparse level,
  // the product of the kept dimensions else.
  int64_t storedSize(const std::string& name, const std::map<std::string, int64_t>& nnz) const;
  std::string str() const;  // the indented text form (same as printTree)
};

// Whether an access with `indices` to a tensor stored at the positions of `pattern` in `format`,
// under the loops of `path`, is at the position those loops bind: every level of `format` that
// is iterated by position is bound by the Sparse loop over `pattern` at that level, under the
// access's index of the level above.
bool atPatternPositions(const TreePath& path, const std::string& pattern, const Format& format,
                        const std::vector<std::string>& indices);

// Builds one chain of index nodes per statement, statements as children of the root in program
// order. Loop order: a sparse left-hand side iterates its pattern first, in storage order;
// otherwise indices in order of first appearance over the right-hand side then the left, a level
// iterated by position placed after the index of the level above (csr's columns after the row).
// Each level of an operand's format that is iterated by position becomes a Sparse node over its
// pattern. Throws react::UserError (chainLegality's reason) for a statement no loop nest can iterate.
IndexTree buildIndexTree(const Program& p);
// Whether one loop nest can iterate `s` over `tensors`: not when an index would iterate two
// sparse patterns, an access to a tensor with a sparse level lacks one distinct index per
// dimension, or no order nests every sparse level under the index of the level above. Passes ask before they rebuild a statement's loops.
Legality chainLegality(const Statement& s, const std::map<std::string, TensorStorage>& tensors);
// One statement's chain (exposed for passes that rebuild a statement's loops). A statement
// chainLegality rejects is an InternalError: callers ask first.
TreeNode buildChain(const Statement& s, const std::map<std::string, TensorStorage>& tensors);

std::string printTree(const IndexTree& t);  // box-drawing text, as in docs/design.md
std::string printDot(const IndexTree& t);   // Graphviz

// The rules every pass must keep; the first one `t` breaks, as a message naming the node (by its
// path from the root, e.g. "root/i (D)/j (S: S row i)") and the rule:
//  - every tensor a compute node names is declared;
//  - every index is bound at most once on any root-to-leaf path;
//  - every Sparse node sits under the index node of its parent (row) index;
//  - every tensor's format has one level per dimension;
//  - every index a compute node uses is bound on its path; an access to a tensor with a sparse
//    level is at the positions its pattern's loops bind (atPatternPositions);
//  - every temporary is written before it is read, on every path (program order over the leaves);
//  - a reset of a temporary comes after the last consumer of the value it clears.
// The fusion pipeline checks every pass's tree with it (a broken one is an InternalError).
Legality checkTree(const IndexTree& t);
// checkTree for a tree a user hands to react (interpret): throws react::UserError with its reason.
void verifyTree(const IndexTree& t);

// Producer -> consumer dependences between compute nodes (Boost.Graph). Vertices are compute
// nodes in execution (pre-)order.
class DependenceGraph {
 public:
  explicit DependenceGraph(const IndexTree& t);
  int size() const { return static_cast<int>(nodes_.size()); }
  const TreeNode& node(int v) const { return *nodes_[v]; }
  std::vector<int> topologicalOrder() const;  // throws if cyclic
  bool reaches(int from, int to) const;       // a path of dependences from -> to
  std::vector<std::pair<int, int>> edges() const;
  // Tensors written by `from` and read by `to`.
  std::vector<std::string> carried(int from, int to) const;

 private:
  std::vector<const TreeNode*> nodes_;
  std::vector<std::vector<int>> succ_;
  std::vector<std::vector<bool>> reach_;
};

// The golden model: executes any index tree (fused or not) on formats data, slowly but exactly.
// `inputs` maps every input tensor to its data in the form TensorData gives its format (a
// CsrMatrix for csr, a DenseTensor for dense, a SparseTensor for any other); data of another
// format or form, or a SparseTensor that does not validate, is an error naming the input. Sparse
// loops ask the level they iterate for their bounds. Returns every Output tensor: one stored at a
// pattern shares the pattern's structure (csr's rowptr and col, a SparseTensor's levels).
using TensorValues = std::map<std::string, TensorData>;
TensorValues interpret(const IndexTree& t, const TensorValues& inputs);

}  // namespace react
