// Text and Graphviz forms of an index tree.
#include "indextree/internal.hpp"

#include <sstream>

namespace react {

using detail::computeLabel;

namespace {

std::string label(const TreeNode& n, const IndexTree& t) {
  return n.kind == NodeKind::Compute ? computeLabel(n, &t) : n.label();
}

// An index node whose only child is a compute node prints the statement on its own line, as in
// the ReACT slides: "h (D)   T(i,h) += B(i,k) * C(k,h)".
void printChildren(const TreeNode& n, const IndexTree& t, const std::string& indent, std::ostringstream& out) {
  for (size_t c = 0; c < n.children.size(); ++c) {
    const TreeNode& child = n.children[c];
    bool last = c + 1 == n.children.size();
    out << indent << (last ? "└─ " : "├─ ") << label(child, t);
    std::string childIndent = indent + (last ? "   " : "│  ");
    if (child.kind == NodeKind::Index && child.children.size() == 1 &&
        child.children[0].kind == NodeKind::Compute) {
      out << "   " << label(child.children[0], t) << "\n";
      continue;
    }
    out << "\n";
    printChildren(child, t, childIndent, out);
  }
}

std::string dotEscape(const std::string& s) {
  std::string r;
  for (char ch : s) {
    if (ch == '"' || ch == '\\') r += '\\';
    r += ch;
  }
  return r;
}

void dotNode(const TreeNode& n, const IndexTree& t, int& next, std::ostringstream& out) {
  int id = next++;
  const char* shape = n.kind == NodeKind::Compute ? "box" : (n.kind == NodeKind::Root ? "circle" : "ellipse");
  out << "  n" << id << " [shape=" << shape << ", label=\"" << dotEscape(label(n, t)) << "\"];\n";
  for (const TreeNode& c : n.children) {
    int childId = next;
    dotNode(c, t, next, out);
    out << "  n" << id << " -> n" << childId << ";\n";
  }
}

}  // namespace

std::string printTree(const IndexTree& t) {
  std::ostringstream out;
  out << "root\n";
  printChildren(t.root, t, "", out);
  return out.str();
}

std::string printDot(const IndexTree& t) {
  std::ostringstream out;
  out << "digraph IndexTree {\n";
  int next = 0;
  dotNode(t.root, t, next, out);
  DependenceGraph g(t);
  // Dependence edges, dashed, between compute nodes (numbered in pre-order like the nodes).
  std::vector<int> computeIds;
  std::function<void(const TreeNode&, int&)> collect = [&](const TreeNode& n, int& id) {
    int mine = id++;
    if (n.kind == NodeKind::Compute) computeIds.push_back(mine);
    for (const TreeNode& c : n.children) collect(c, id);
  };
  int id = 0;
  collect(t.root, id);
  for (auto [from, to] : g.edges())
    out << "  n" << computeIds[from] << " -> n" << computeIds[to] << " [style=dashed, constraint=false];\n";
  out << "}\n";
  return out.str();
}

}  // namespace react
