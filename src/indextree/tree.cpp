// Index tree nodes and tensor storage: labels, stored dimensions and sizes.
#include "indextree/internal.hpp"

#include <algorithm>
#include <sstream>

namespace react {

std::string IndexLoop::str() const {
  if (kind == LoopKind::Dense) return index + " (D)";
  if (kind == LoopKind::Merge) {
    std::string merged;
    for (const std::string& o : operands) merged += (merged.empty() ? "" : unite ? " | " : " & ") + o;
    std::string where = parentIndex.empty() ? " level " + std::to_string(level) : " row " + parentIndex;
    return index + " (" + merged + (pattern.empty() ? "" : ": " + pattern) + where + ")";
  }
  if (parentIndex.empty()) return index + " (S: " + pattern + " level " + std::to_string(level) + ")";
  return index + " (S: " + pattern + " row " + parentIndex + ")";
}

bool TreeNode::accumulates() const {
  return kind == NodeKind::Compute && computeKind == ComputeKind::Compute && !stmt.reductionIndices().empty();
}

bool TensorStorage::shrunk() const {
  for (bool k : kept)
    if (!k) return true;
  return false;
}

bool TensorStorage::storedAtEntriesOf(const std::string& pattern) const {
  const Format& f = decl.format;
  return f.hasSparseLevel() && !f.storesPatternPrefix() && !shrunk() && (decl.name == pattern || decl.pattern == pattern);
}

const TensorStorage& IndexTree::tensor(const std::string& name) const {
  auto it = tensors.find(name);
  if (it == tensors.end()) throw UserError("index tree: unknown tensor '" + name + "'");
  return it->second;
}

std::vector<std::string> IndexTree::storedIndices(const std::string& name,
                                                  const std::vector<std::string>& access) const {
  const TensorStorage& t = tensor(name);
  std::vector<std::string> out;
  for (size_t d = 0; d < access.size() && d < t.kept.size(); ++d)
    if (t.kept[d]) out.push_back(access[d]);
  return out;
}

int64_t IndexTree::storedSize(const std::string& name, const std::map<std::string, int64_t>& nnz) const {
  const TensorStorage& t = tensor(name);
  if (t.decl.format.hasSparseLevel()) {
    if (!t.shrunk()) return nnz.at(t.decl.pattern);
    return 1;  // shrinking keeps a sparse temporary only as a scalar
  }
  int64_t n = 1;
  for (size_t d = 0; d < t.kept.size(); ++d)
    if (t.kept[d]) n *= t.decl.shape[d];
  return n;
}

bool IndexLoop::bindsPositionOf(const std::string& p, int l, const std::string& parent) const {
  if (kind == LoopKind::Dense || level != l || parentIndex != parent) return false;
  return pattern == p || (kind == LoopKind::Merge && std::find(operands.begin(), operands.end(), p) != operands.end());
}

bool atPatternPositions(const TreePath& path, const std::string& pattern, const Format& format,
                        const std::vector<std::string>& indices) {
  if (static_cast<int>(indices.size()) != format.rank()) return false;
  for (int l = 0; l < format.rank(); ++l) {
    if (!format.level(l).iteratedByPosition()) continue;
    const std::string& index = indices[format.dimension(l)];
    std::string parent = l == 0 ? "" : indices[format.dimension(l - 1)];
    auto binds = [&](const TreeNode* n) { return n->kind == NodeKind::Index && n->loop.index == index; };
    auto loop = std::find_if(path.rbegin(), path.rend(), binds);
    if (loop == path.rend() || !(*loop)->loop.bindsPositionOf(pattern, l, parent)) return false;
  }
  return true;
}

// The statement as stored: shrunk temporaries show only their kept dimensions.
static std::string storedAccess(const IndexTree* tree, const std::string& name, const std::vector<std::string>& idx) {
  std::vector<std::string> shown = tree ? tree->storedIndices(name, idx) : idx;
  if (shown.empty()) return name;  // a scalar, printed as the expression printer does
  std::string s = name + "(";
  for (size_t d = 0; d < shown.size(); ++d) s += (d ? "," : "") + shown[d];
  return s + ")";
}

std::string detail::computeLabel(const TreeNode& n, const IndexTree* tree) {
  Expr rhs = mapAccesses(n.stmt.rhs, [&](const ExprNode& a) -> Expr {
    if (!tree) return std::make_shared<ExprNode>(a);
    auto copy = std::make_shared<ExprNode>(a);
    copy->indices = tree->storedIndices(a.tensor, a.indices);
    return copy;
  });
  std::string op = " = ";
  if (n.accumulates()) op = n.stmt.reduce == ReduceOp::Sum ? " += " : " max= ";
  std::string prefix = n.computeKind == ComputeKind::Reset ? "reset " : "";
  return prefix + storedAccess(tree, n.stmt.lhs, n.stmt.lhsIndices) + op + toString(rhs);
}

std::string TreeNode::label() const {
  switch (kind) {
    case NodeKind::Root: return "root";
    case NodeKind::Index: return loop.str();
    case NodeKind::Compute: return detail::computeLabel(*this, nullptr);
  }
  return "";
}

std::string IndexTree::str() const { return printTree(*this); }

}  // namespace react

namespace react {

static void walkFrom(const TreeNode& n, std::vector<const TreeNode*>& path,
                     const std::function<void(const TreeNode&, const std::vector<const TreeNode*>&)>& visit) {
  visit(n, path);
  path.push_back(&n);
  for (const TreeNode& c : n.children) walkFrom(c, path, visit);
  path.pop_back();
}

void visitTree(const TreeNode& root, const std::function<void(const TreeNode&, const TreePath&)>& visit) {
  TreePath path;
  walkFrom(root, path, visit);
}

std::string detail::pathName(const std::vector<const TreeNode*>& ancestors, const TreeNode& n) {
  std::string s;
  for (const TreeNode* a : ancestors) s += a->label() + "/";
  return s + n.label();
}

std::vector<std::string> TreeNode::reads() const {
  std::vector<std::string> r;
  for (const ExprNode* a : accesses(stmt.rhs)) r.push_back(a->tensor);
  if (accumulates()) r.push_back(stmt.lhs);
  return r;
}

}  // namespace react
