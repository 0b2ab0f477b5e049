// react/fusion: redundancy-aware fusion (DESIGN.md §4). Each pass is a function from a verified
// index tree to a verified index tree.
#pragma once

#include "indextree/indextree.hpp"

#include <map>
#include <string>
#include <vector>

namespace react {

// --- passes -----------------------------------------------------------------------------------
// TACO's behaviour, the baseline: every temporary that can be inlined into its consumers is
// (element-wise producers always; sum-reduction producers into product consumers), and each
// remaining statement is one loop nest. Expects a tree of separate chains (mode none).
IndexTree maximalFusion(const IndexTree& t);

// Type 1: in a sum-reduction whose right-hand side is a product, the factors invariant in the
// reduction move outside it (`c(i) += b(i)*A(i,j)` -> `t(i) += A(i,j); c(i) = b(i)*t(i)`).
IndexTree hoistReductions(const IndexTree& t);

// Type 2: a compound subexpression invariant in a compute node's reduction loops is computed once,
// into a temporary, by its own statement (`(B(i,j)+E(i,j))` out of the k loop).
IndexTree hoistInvariants(const IndexTree& t);

// Type 4: a dense temporary read only at the stored entries of a sparse pattern S (every consumer
// reads it inside a sparse loop over S at the same coordinates) is computed only there: it becomes
// csr with S's pattern and its producer iterates S.
IndexTree sparsePropagation(const IndexTree& t);

// Trie fusion: sibling index nodes with the same loop are merged along their common prefix,
// producers before consumers, never reordering loops; legal when every tensor that both subtrees
// touch (one writing) is accessed at the merged index in the same dimension everywhere, and an
// earlier sibling moves past the ones between only when it shares no written tensor with them.
IndexTree partialFusion(const IndexTree& t);

// Type 3: a temporary drops the dimensions that the loops enclosing all its uses fix (a csr
// temporary only as a whole, becoming a scalar), and a reset to the reduction's identity is
// inserted after its last consumer. Any number of uses and any rank.
IndexTree shrinkTemporaries(const IndexTree& t);

// --- pipeline ---------------------------------------------------------------------------------
enum class FusionMode { None, Maximal, React };
FusionMode parseFusionMode(const std::string& s);  // "none" | "maximal" | "react"; throws react::Error
std::string toString(FusionMode m);

struct PassSnapshot {
  std::string pass;  // "build", "maximal-fusion", "partial-fusion", ...
  IndexTree tree;    // after that pass (verified)
};
// Builds the tree of `p` and runs the passes of `mode`, keeping the tree after each.
std::vector<PassSnapshot> runPipeline(const Program& p, FusionMode mode);
IndexTree fuse(const Program& p, FusionMode mode);  // the last snapshot

// --- symbolic cost ----------------------------------------------------------------------------
// A polynomial in the program's sizes: symbols are "N<INDEX>" for an index's extent (NI, NH, ...)
// and "nnz(S)" for a pattern's stored entries.
struct Polynomial {
  std::map<std::vector<std::string>, double> terms;  // sorted symbols -> coefficient
  Polynomial& operator+=(const Polynomial& o);
  std::string str() const;  // "2*nnz(B)*NH + 2*NH*NI*NJ"; "0" when empty
  double evaluate(const std::map<std::string, double>& symbols) const;
  int degree() const;
};

struct CostReport {
  Polynomial flops, reads, writes, temporarySize;
  std::vector<std::string> redundancies;  // "type 1 (reduction): ..." etc.
  std::string str() const;                // the --explain report
};
CostReport analyzeCost(const IndexTree& t);
// Symbol values for a concrete program: extents from the tree, nnz of every csr input given.
std::map<std::string, double> costSymbols(const IndexTree& t, const std::map<std::string, int64_t>& nnz);

}  // namespace react
