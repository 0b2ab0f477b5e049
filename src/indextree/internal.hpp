// Helpers shared by the indextree sources (not part of the public header).
#pragma once

#include "indextree/indextree.hpp"

#include <functional>

namespace react::detail {

// "T0(h) += B(i,k) * C(k,h)": a compute node as stored in `tree` (shrunk tensors show kept dims).
std::string computeLabel(const TreeNode& n, const IndexTree* tree);

// "root/i (D)/j (S: S row i)": how error messages name a node.
std::string pathName(const std::vector<const TreeNode*>& ancestors, const TreeNode& n);

}  // namespace react::detail
