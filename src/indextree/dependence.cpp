// Producer -> consumer dependences between compute nodes, kept as a Boost graph.
#include "indextree/internal.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/topological_sort.hpp>
#include <boost/graph/breadth_first_search.hpp>

#include <algorithm>

namespace react {

namespace {
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}
}  // namespace

DependenceGraph::DependenceGraph(const IndexTree& t) {
  visitTree(t.root, [&](const TreeNode& n, const std::vector<const TreeNode*>&) {
    if (n.kind == NodeKind::Compute) nodes_.push_back(&n);
  });
  int n = size();
  succ_.assign(n, {});
  // An edge joins two compute nodes, earlier to later, that touch one tensor and write it at least
  // once (read-after-write, write-after-read, write-after-write).
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) {
      const std::string wa = nodes_[a]->stmt.lhs, wb = nodes_[b]->stmt.lhs;
      auto ra = nodes_[a]->reads(), rb = nodes_[b]->reads();
      if (contains(rb, wa) || contains(ra, wb) || wa == wb) succ_[a].push_back(b);
    }
  Graph g(n);
  for (int a = 0; a < n; ++a)
    for (int b : succ_[a]) boost::add_edge(a, b, g);
  reach_.assign(n, std::vector<bool>(n, false));
  for (int s = 0; s < n; ++s) {
    std::vector<boost::default_color_type> color(n, boost::white_color);
    auto colors = boost::make_iterator_property_map(color.begin(), boost::get(boost::vertex_index, g));
    boost::breadth_first_search(g, boost::vertex(s, g), boost::color_map(colors));
    for (int v = 0; v < n; ++v) reach_[s][v] = v != s && color[v] != boost::white_color;
  }
}

std::vector<int> DependenceGraph::topologicalOrder() const {
  Graph g(size());
  for (int a = 0; a < size(); ++a)
    for (int b : succ_[a]) boost::add_edge(a, b, g);
  std::vector<int> reversed;
  try {
    boost::topological_sort(g, std::back_inserter(reversed));
  } catch (const boost::not_a_dag&) {
    internalError("dependence graph: the compute nodes depend on each other in a cycle (edges go forward only)");
  }
  return {reversed.rbegin(), reversed.rend()};
}

bool DependenceGraph::reaches(int from, int to) const { return reach_.at(from).at(to); }

std::vector<std::pair<int, int>> DependenceGraph::edges() const {
  std::vector<std::pair<int, int>> e;
  for (int a = 0; a < size(); ++a)
    for (int b : succ_[a]) e.emplace_back(a, b);
  return e;
}

std::vector<std::string> DependenceGraph::carried(int from, int to) const {
  std::vector<std::string> out;
  std::string w = nodes_.at(from)->stmt.lhs;
  if (contains(nodes_.at(to)->reads(), w)) out.push_back(w);
  return out;
}

}  // namespace react
