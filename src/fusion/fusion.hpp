// react/fusion: redundancy-aware fusion (docs/design.md, "Redundancies"). Each pass is a function from a verified
// index tree to a verified index tree.
#pragma once

#include "indextree/indextree.hpp"

#include <array>
#include <map>
#include <string>
#include <tuple>
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

// A dense temporary written only under the sparse loops of a pattern (its producer's loops over
// the pattern's levels from the first compressed one, each binding one of its indices) is zero
// outside them: a consumer that sums a product with it as a factor iterates those loops too, so
// that partial fusion merges it into its producer's loops (MTTKRP: `A(i,j) += T0(i,k,j) * C(k,j)`
// over B's (i,k) fibres, T0 then one row of j per fibre). The consumer's other factors are read
// only there, as a product with a sparse operand is (docs/semantics.md).
IndexTree restrictToPattern(const IndexTree& t);

// A producer-consumer edge: `temporary`, written by one statement and read by the statement
// that writes `consumer`.
struct FusionEdge {
  std::string temporary, consumer;
  std::string str() const;  // "T0 -> A"
  bool operator<(const FusionEdge& o) const { return std::tie(temporary, consumer) < std::tie(o.temporary, o.consumer); }
  bool operator==(const FusionEdge& o) const { return temporary == o.temporary && consumer == o.consumer; }
};
// What partial fusion may merge. `prefixDepth` > 0 merges only loops at depth <= prefixDepth
// (1 = the outermost), 0 = no limit. `edgeDepth[e]` limits the loops holding e's producer and
// e's consumer the same way, edge by edge: they merge only at depths <= the limit, and 0 keeps
// the edge unfused (the consumer reads the temporary in its own loop nest). Unlisted edges have
// no limit beyond prefixDepth.
struct FusionPlan {
  int prefixDepth = 0;
  std::map<FusionEdge, int> edgeDepth;
  bool unlimited() const { return prefixDepth == 0 && edgeDepth.empty(); }
  std::string str() const;  // "" (no limit), "prefix 1", "T0 -> A unfused; T1 -> A depth 1"
};
// The producer-consumer edges of a tree: every (temporary, consumer) pair where a compute node
// reads a temporary another one writes, in program order.
std::vector<FusionEdge> fusionEdges(const IndexTree& t);

// Trie fusion: sibling index nodes with the same loop are merged along their common prefix,
// producers before consumers, never reordering loops; legal when every tensor that both subtrees
// touch (one writing) is accessed at the merged index in the same dimension everywhere, and an
// earlier sibling moves past the ones between only when it shares no written tensor with them.
// `plan` limits the depth of the merges, for the whole tree or edge by edge; fewer merges are
// always legal (every merge is checked on its own).
IndexTree partialFusion(const IndexTree& t, const FusionPlan& plan = {});
inline IndexTree partialFusion(const IndexTree& t, int maxDepth) { return partialFusion(t, FusionPlan{maxDepth, {}}); }

// Type 3: a temporary drops the dimensions that the loops enclosing all its uses fix (a csr
// temporary only as a whole, becoming a scalar), and a reset to the reduction's identity is
// inserted after its last consumer. Any number of uses and any rank.
IndexTree shrinkTemporaries(const IndexTree& t);

// --- pipeline ---------------------------------------------------------------------------------
// Auto chooses, per program, the association of its product chains and one of the other three
// modes (react with a fusion plan) from a cost model on the inputs' statistics (decideFusion
// below); it is not a pass list.
enum class FusionMode { None, Maximal, React, Auto };
// "none" | "maximal" | "react" | "auto"; throws react::UserError
FusionMode parseFusionMode(const std::string& s);
std::string toString(FusionMode m);

struct PassSnapshot {
  std::string pass;  // "build", "maximal-fusion", "partial-fusion", ...
  IndexTree tree;    // after that pass (verified)
};
// Builds the tree of `p` and runs the passes of `mode`, keeping the tree after each. Auto throws:
// it needs input statistics (decideFusion, then runPipeline on the choice). `p` is a checked
// program (parseProgram, ProgramBuilder::build, associate): the built tree and every pass's tree
// are checked (checkTree), and one that breaks a rule is an InternalError naming the pass.
// `plan` limits react's partial fusion (FusionPlan above); the other modes ignore it.
std::vector<PassSnapshot> runPipeline(const Program& p, FusionMode mode, const FusionPlan& plan = {});
IndexTree fuse(const Program& p, FusionMode mode, const FusionPlan& plan = {});  // the last snapshot
inline IndexTree fuse(const Program& p, FusionMode mode, int prefixDepth) { return fuse(p, mode, FusionPlan{prefixDepth, {}}); }

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

// --- auto: association and fusion from a cost model (docs/auto.md) ------------------------------
// Statistics of the inputs a program runs on; dense extents come from the program itself.
// A sparse input's statistics. csr needs rows, cols, nnz and longestRow only; any other format
// (csc, dcsr, csf, ...) its positions per storage level as well, which decide the trip counts of
// its level loops (csf's fibres: nnz1 of an MTTKRP's B).
struct SparseStats {
  int64_t rows = 0, cols = 0, nnz = 0;
  // The most entries under one position of the first level (csr: its longest row; csc: column;
  // csf: slice): one parallel iteration's share of the work.
  int64_t longestRow = 0;
  // Positions of each storage level, outermost first (the last is nnz); empty: csr's, {rows, nnz}.
  std::vector<int64_t> levelPositions = {};
  std::vector<int64_t> shape = {};  // logical extents; empty: {rows, cols}
  // Positions of level l (csr's from rows and nnz when levelPositions is empty).
  int64_t positions(int level) const;
};
struct InputStats {
  std::map<std::string, SparseStats> sparse;  // every sparse input
  // "S: 2708x2708, nnz 10556, longest row 169; B: 12x9x7, positions per level 10/40/93, nnz 93, longest slice 21"
  std::string str() const;
};
InputStats inputStats(const TensorValues& inputs);  // the sparse entries of `inputs`, every format

// The machine's rates, measured once (lower's machineModel() calibrates and stores them).
struct MachineModel {
  // Where kernels run: "" for the host's OpenMP threads; else the Kokkos execution space that runs
  // them (a GPU, say). That space is measured as a whole and its measurements shared among the rows
  // it runs at once (a warp each on a device), which the fields below then call threads: `threads`
  // is that number of rows, and every "one thread" is one row's share.
  std::string device;
  int threads = 1;              // threads kernels run with
  double bandwidth1 = 0;        // copy bandwidth of one thread, bytes/s (reads + writes)
  double bandwidth = 0;         // copy bandwidth of `threads` threads, bytes/s
  // flop/s of one thread in in-cache loops of kRateLengths iterations (a device's operands are
  // larger than its L2): without a reduction (an axpy) and summing (a dot product). Other lengths
  // interpolate (log scale), beyond the ends take the end's rate.
  static constexpr int kRateLengths[5] = {4, 16, 32, 64, 256};
  using Rates = std::array<double, 5>;
  Rates vectorFlops{}, reductionFlops{};
  // flop/s of one thread in the loop a sparse product's row runs: for each stored entry, a
  // gathered row of L doubles scaled into an accumulator, into per-thread scratch (the producer
  // fused with its consumer: the scratch is read, then reset, after each row) or into row i of
  // a full temporary (unfused). The compiler vectorizes the two differently (GCC 12 with
  // AVX-512 uses gathers in the first from L = 32 on), so they are measured, not assumed.
  // 0: not measured (the vector rate is used).
  Rates scratchRowFlops{}, rowFlops{};
  double cacheBytes = 0;        // last-level cache (a GPU's L2)
  // Seconds to start one parallel region running a dynamically scheduled loop on `threads`
  // threads and join it (every top-level loop nest of a kernel is one); on a device, to launch a
  // kernel and wait for it.
  double regionSeconds = 0;
  // exp calls per second of one thread (generated code calls std::exp per value: tens of flops'
  // time each). 0: not measured (exp counts as one flop).
  double expRate = 0;
  // exp calls per second of one thread in a sparse row loop of kShortExpRow stored entries (a
  // row's sum of exp): the vector math library's exp runs in the loop's scalar remainder there.
  // Loops between that and kRateLengths' last interpolate (log scale); a loop over all stored
  // entries at once (OpenMP's flat exp loop, passes/flatten_entries.cpp) runs at expRate.
  // 0: not measured (expRate at every length).
  static constexpr int kShortExpRow = 4;
  double shortRowExpRate = 0;
  // flop/s of one thread in the kernel library's dense product (Eigen's GEMM on the OpenMP target,
  // cuBLAS on a CUDA Kokkos), which a kernel calls for a nest that is a plain dense product under
  // the reassociated order: the model prices that nest at this rate on all `threads`. 0: not
  // measured, or not called (a kernel compiled in the written order): the nest is priced as
  // react's own loops.
  double productFlops = 0;
  // Where the target spreads a long row's stored entries over threads instead of leaving the row
  // to one: a nest of the Kokkos lowering's dense-lanes shape (the row's loop over its entries
  // alone, each entry a dense sum of at least this many iterations and stores at the entry; its
  // chunks of entries ignore rows: 32). Such a nest's longest row does not bound its time. 0: rows
  // are never split (OpenMP). Set by the target, not measured.
  int64_t splitRowsFrom = 0;
  std::string source;           // where the numbers come from (a file, "calibrated now", ...)
  // Non-empty when the machine was busy while it was measured (the copy bandwidth of one thread, or
  // of the device, changed during the calibration): the rates are then not to be trusted.
  std::string loadWarning;
  double vectorRate(double length) const;
  double reductionRate(double length) const;
  // The sparse row accumulation's rate (into scratch or a row), or the vector rate if unmeasured.
  double sparseRowRate(double length, bool scratch) const;
  // exp calls per second of one thread in a loop of `length` iterations.
  double expRateAt(double length) const;
  std::string str() const;
};

// Estimated time of a tree on inputs with `stats`: each top-level loop nest takes
// max(flops / rate, bytes / bandwidth) on min(threads, iterations of its outer loop) threads;
// flops are counted by analyzeCost's rule, at the reduction rate where the innermost loop sums
// and the vector rate elsewhere, for the innermost loop's length (a sparse loop: the pattern's
// average row length); bytes are each tensor the nest touches once (shrunk temporaries
// none), or more when a dense tensor larger than the cache is gathered through a sparse loop.
// An exp costs the machine's measured time per call on top of its flop, at the innermost loop's
// length (short rows pay the scalar remainder), or at the long rate on all threads where OpenMP's
// lowering computes it in one loop over all stored entries.
// Each nest also pays the machine's parallel-region time, and a nest whose outer loop runs over
// the rows of a csr input cannot finish before the thread holding its longest row has done that
// row's share of the work (load imbalance), except for a nest whose entries the target spreads
// over threads whatever their rows (MachineModel::splitRowsFrom).
struct CostEstimate {
  double seconds = 0, flops = 0, bytes = 0, temporaryBytes = 0;
  int nests = 0;
  std::string str() const;  // "1.23 ms (flops 4.1e+07, bytes 2.3e+07, temporaries 8 KB, 2 nests)"
};
CostEstimate estimateCost(const IndexTree& t, const InputStats& stats, const MachineModel& m);

// One program auto considered: an association of every product chain and a fusion mode.
struct AutoCandidate {
  std::vector<std::string> associations;  // one per chain ("(S(i,k) * C(k,h)) * D(h,j)")
  bool asWritten = true;                  // every chain associated as the program has it
  FusionMode mode = FusionMode::React;
  FusionPlan plan;  // react only: limits of its partial fusion (whole prefix or per edge)
  std::string label() const;  // "react", "react (prefix 1)", "react (T0 -> A unfused)", "none", ...
  Program program;
  IndexTree tree;
  CostEstimate cost;
  // Why its association is not supported (reassociate's reason; "" = it is: tree and cost are set).
  std::string rejected;
};
struct AutoDecision {
  std::vector<ProductChain> chains;
  std::vector<AutoCandidate> candidates;
  size_t chosen = 0;
  InputStats stats;
  MachineModel machine;
  const AutoCandidate& choice() const { return candidates.at(chosen); }
  std::string str() const;  // the report of `react-gen -print-decisions`
};
// Evaluates every association of every chain (chains of up to kMaxEnumeratedFactors factors;
// longer ones keep their association) under none, maximal and react, react also with fusion
// plans (its fused prefix limited to each shorter depth; each producer-consumer edge unlimited,
// limited to a shorter depth or unfused) where they give another tree, and picks the cheapest
// estimate (ties: the earlier candidate, as-written first, react before its plans, none,
// maximal). `p` is a checked program (parseProgram, ProgramBuilder::build).
// Throws react::UserError when a csr input has no statistics. Only a re-association that is not
// supported is a rejected candidate; anything else building or estimating a candidate throws
// leaves decideFusion (an InternalError is react's bug, never a rejection).
constexpr int kMaxEnumeratedFactors = 6;
AutoDecision decideFusion(const Program& p, const InputStats& stats, const MachineModel& machine);
// What decideFusion first checks: every sparse input has statistics, and those of a format other
// than csr have its positions per level (else react::UserError naming it).
// Callers check it before measuring the machine, which takes seconds.
void requireStatistics(const Program& p, const InputStats& stats);

}  // namespace react
