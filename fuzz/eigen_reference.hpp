// A second, independent evaluation of react programs with Eigen: each statement of the compiled
// one-operator program is computed with Eigen arrays (element-wise operators with broadcasting,
// masked row/column/total reductions for the stored-entry semantics) or, for a product summed
// over one index, an Eigen matrix product (Eigen::SparseMatrix times dense for csr operands).
// csc and dcsr inputs are read as the csr matrices of their entries. Statements over more than
// two indices (other than such products) and 3-tensor inputs are not matrix shaped: they, and
// everything computed from them, are left out (the dense reference evaluates them alone).
#pragma once

#include "fuzz/differential.hpp"

namespace react::fuzz {

struct EigenCoverage {
  int outputs = 0;    // outputs compared
  int leftOut = 0;    // outputs not matrix shaped
};

// Compares every output Eigen can compute with `want` (the dense reference's values).
std::optional<Mismatch> checkEigen(const Program& compiled, const TensorValues& inputs, const TensorValues& want,
                                   EigenCoverage* coverage = nullptr);

}  // namespace react::fuzz
