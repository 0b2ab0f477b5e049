// Helpers shared by the fusion passes (not part of the public header).
#pragma once

#include "fusion/fusion.hpp"

#include <set>

namespace react::fusion {

// The statements of a tree's compute nodes in execution order (resets excluded).
std::vector<Statement> statementsOf(const IndexTree& t);
// `t` with its root's children rebuilt as one chain per statement.
IndexTree withChains(const IndexTree& t, const std::vector<Statement>& statements);
// A temporary name ("T<n>") and an index name ("<base><n>") unused in `t`.
std::string freshTemporary(const IndexTree& t);
std::string freshIndex(const IndexTree& t, const std::string& base, const std::set<std::string>& alsoTaken = {});
// Adds a dense temporary over `indices` (sizes from the tree), or one stored at the positions of
// `pattern`, in the pattern's format. It holds part of the statement `from` and takes its
// left-hand side's value type, so that the part is computed in the type it was computed in before
// (docs/semantics.md, "Value types").
void declareTemporary(IndexTree& t, const std::string& name, const std::vector<std::string>& indices,
                      const std::string& pattern, const Statement& from);

// React's pipeline in two parts, for auto's many fusion plans of one program: the tree after the
// passes no plan changes (built and verified once), and the rest of the pipeline under `plan`.
// reactWithPlan(reactBeforePlan(p), plan) is fuse(p, FusionMode::React, plan).
IndexTree reactBeforePlan(const Program& p);
IndexTree reactWithPlan(const IndexTree& beforePlan, const FusionPlan& plan);

// Factors of a product tree (a*b*c -> {a,b,c}); a non-product is one factor.
std::vector<Expr> factorsOf(const Expr& e);
Expr productOf(const std::vector<Expr>& factors);
bool mentionsAny(const Expr& e, const std::vector<std::string>& indices);

// The pattern at whose stored entries every consumer of `name` reads it (at the positions the
// pattern's sparse loops bind, atPatternPositions), if there is one.
std::optional<std::string> sparseReadPattern(const IndexTree& t, const std::string& name);

// Applies `rewrite` to every top-level chain made of a single compute node (the shape passes that
// split statements can handle); other subtrees are kept. `rewrite` returns the statements that
// replace the chain's statement, or nothing to keep it.
IndexTree rewriteSingleStatementChains(
    const IndexTree& t, const std::function<std::vector<Statement>(IndexTree&, const Statement&)>& rewrite);

// cost.cpp: "N<INDEX>" for an index's extent; a monomial; the trip-count symbols of the loops on
// `path` in `t` (a sparse loop replaces the count of the loop over the level above, its row
// index's extent or that level's positions, by the positions of its own level: nnz of its pattern
// for the last level, "nnz<l>(P)" for a level l above the last, csf's fibres); operators in `e`.
std::string extentSymbol(const std::string& index);
Polynomial monomial(std::vector<std::string> symbols, double coeff);
// The symbol of the positions of level `level` of a pattern of rank `rank`: nnz(S) for the last,
// nnzL(S) above it (csf's fibres: nnz1(B)).
std::string positionsSymbol(const std::string& pattern, int level, int rank);
// A merge visits the coordinates of its operands' union or intersection, named "S | T" or "S & T"
// in its symbols ("nnz(S | T)").
std::string mergedName(const IndexLoop& merge);
std::vector<std::string> tripSymbols(const IndexTree& t, const TreePath& path);
int operatorCount(const Expr& e);

}  // namespace react::fusion
