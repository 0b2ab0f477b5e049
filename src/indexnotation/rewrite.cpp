// Structural rewrites of expression trees, used by passes that inline or rename.
#include "indexnotation/indexnotation.hpp"

namespace react {

Expr mapAccesses(const Expr& e, const std::function<Expr(const ExprNode&)>& onAccess) {
  if (e->op == Op::Access) return onAccess(*e);
  if (e->args.empty()) return e;
  auto copy = std::make_shared<ExprNode>(*e);
  for (auto& a : copy->args) a = mapAccesses(a, onAccess);
  return copy;
}

Expr renameIndices(const Expr& e, const std::map<std::string, std::string>& renaming) {
  auto rename = [&](std::vector<std::string> idx) {
    for (auto& x : idx) {
      auto it = renaming.find(x);
      if (it != renaming.end()) x = it->second;
    }
    return idx;
  };
  auto copy = std::make_shared<ExprNode>(*e);
  copy->indices = rename(copy->indices);
  copy->reduceIndices = rename(copy->reduceIndices);
  for (auto& a : copy->args) a = renameIndices(a, renaming);
  return copy;
}

}  // namespace react
