// Value types of temporaries (docs/semantics.md, "Value types").
#include "indexnotation/internal.hpp"

namespace react {

namespace detail {

// A statement computes in its left-hand side's type, and a temporary holds part of the value of
// the statements that read it: it takes the widest type of their left-hand sides, so that
// splitting a statement (or fusing it back) computes every part in the type the whole had.
// Walking backwards, every reader of a temporary comes before it.
void inferTemporaryTypes(Program& p) {
  std::map<std::string, ValueType> readers;  // temporary -> the widest type of its readers so far
  for (auto s = p.statements.rbegin(); s != p.statements.rend(); ++s) {
    TensorDecl& lhs = p.tensors.at(s->lhs);
    if (lhs.role == TensorRole::Temporary) {
      auto it = readers.find(s->lhs);
      lhs.valueType = it == readers.end() ? ValueType::Float64 : it->second;  // unread: never stored
    }
    for (const ExprNode* a : accesses(s->rhs)) {
      if (p.tensors.at(a->tensor).role != TensorRole::Temporary) continue;
      auto [it, fresh] = readers.emplace(a->tensor, lhs.valueType);
      if (!fresh) it->second = widest(it->second, lhs.valueType);
    }
  }
}

}  // namespace detail

Program withValueTypes(const Program& p, const std::map<std::string, ValueType>& types) {
  Program out = p;
  for (const auto& [name, type] : types) {
    auto it = out.tensors.find(name);
    if (it == out.tensors.end() || it->second.role == TensorRole::Temporary)
      throw UserError("the program has no input or output " + detail::quoted(name));
    it->second.valueType = type;
  }
  detail::inferTemporaryTypes(out);
  return out;
}

}  // namespace react
