// Product chains of a split program and their re-association (docs/semantics.md, "Association").
// A chain is found by following, from a product statement, every operand that is a compiler
// temporary computed by a product and read only there; re-associating builds one product
// statement per inner node of the chosen tree.
#include "indexnotation/internal.hpp"

#include <algorithm>

namespace react {
namespace {

bool isProduct(const Statement& s) { return s.rhs && s.rhs->op == Op::Mul && s.reduce == ReduceOp::Sum; }

class ChainFinder {
 public:
  explicit ChainFinder(const Program& p) : p_(p) {
    for (size_t n = 0; n < p.statements.size(); ++n) {
      definer_[p.statements[n].lhs] = n;
      for (const ExprNode* a : accesses(p.statements[n].rhs)) ++uses_[a->tensor];
    }
  }

  // A temporary that a chain may dissolve: computed by a product, read once, not grouped.
  bool absorbable(const std::string& name) const {
    auto decl = p_.tensors.find(name);
    if (decl == p_.tensors.end() || decl->second.role != TensorRole::Temporary || decl->second.grouped) return false;
    auto uses = uses_.find(name);
    return uses != uses_.end() && uses->second == 1 && isProduct(p_.statements[definer_.at(name)]);
  }

  std::vector<ProductChain> chains() {
    std::vector<ProductChain> out;
    for (size_t n = 0; n < p_.statements.size(); ++n) {
      const Statement& s = p_.statements[n];
      if (!isProduct(s) || absorbable(s.lhs)) continue;
      ProductChain c;
      c.root = n;
      Association a = walk(s, c);
      c.statements.push_back(n);
      std::sort(c.statements.begin(), c.statements.end());
      if (c.factors.size() >= 3 && einsumSafe(c)) {
        out.push_back(c);
        current_.push_back(a);
      }
    }
    return out;
  }

  const std::vector<Association>& current() const { return current_; }

 private:
  Association walk(const Statement& s, ProductChain& c) {
    Association a;
    for (const Expr& arg : s.rhs->args) a.parts.push_back(operand(arg, c));
    return a;
  }

  Association operand(const Expr& e, ProductChain& c) {
    if (e->op == Op::Access && absorbable(e->tensor)) {
      size_t d = definer_.at(e->tensor);
      c.statements.push_back(d);
      return walk(p_.statements[d], c);
    }
    Association leaf;
    leaf.factor = static_cast<int>(c.factors.size());
    c.factors.push_back(e);
    return leaf;
  }

  // Every summed index is summed by one statement and is not a result index: then the chain is
  // one sum of products over all its summed indices (true of what the split produces).
  bool einsumSafe(const ProductChain& c) const {
    std::vector<std::string> summed;
    for (size_t n : c.statements)
      for (const std::string& k : p_.statements[n].reductionIndices()) {
        if (detail::contains(summed, k)) return false;
        summed.push_back(k);
      }
    for (const std::string& k : summed)
      if (detail::contains(p_.statements[c.root].lhsIndices, k)) return false;
    return true;
  }

  const Program& p_;
  std::map<std::string, size_t> definer_;
  std::map<std::string, int> uses_;
  std::vector<Association> current_;
};

// Builds the statements of one chain under one association.
class ChainBuilder {
 public:
  ChainBuilder(const Program& p, const ProductChain& c, std::set<std::string>& taken, std::set<std::string>& temporaries)
      : p_(p), c_(c), taken_(taken), temporaries_(temporaries) {}

  std::vector<Statement> build(const Association& a) {
    if (a.parts.size() != 2) throw UserError("an association of a product chain must be a product of two parts");
    const Statement& root = p_.statements[c_.root];
    Expr product = apply(Op::Mul, {node(a.parts[0]), node(a.parts[1])}, root.rhs->pos);
    out_.push_back({root.lhs, root.lhsIndices, product, ReduceOp::Sum, root.pos});
    if (used_.size() != c_.factors.size()) throw UserError("an association must use every factor of the chain once");
    return out_;
  }

 private:
  std::vector<int> factorsOf(const Association& a) const {
    if (a.parts.empty()) return {a.factor};
    std::vector<int> l = factorsOf(a.parts[0]), r = factorsOf(a.parts.at(1));
    l.insert(l.end(), r.begin(), r.end());
    return l;
  }

  Expr node(const Association& a) {
    if (a.parts.empty()) {
      if (a.factor < 0 || a.factor >= static_cast<int>(c_.factors.size()) || !used_.insert(a.factor).second)
        throw UserError("an association must use every factor of the chain once");
      return c_.factors[static_cast<size_t>(a.factor)];
    }
    if (a.parts.size() != 2) throw UserError("an inner node of an association must have two parts");
    std::vector<int> inside = factorsOf(a);
    Expr l = node(a.parts[0]), r = node(a.parts[1]);
    // Indices still needed outside this part: the result's, and those of the other factors.
    std::vector<std::string> outside = p_.statements[c_.root].lhsIndices;
    for (int f = 0; f < static_cast<int>(c_.factors.size()); ++f)
      if (std::find(inside.begin(), inside.end(), f) == inside.end())
        for (const std::string& i : c_.factors[static_cast<size_t>(f)]->indices) outside.push_back(i);
    std::vector<std::string> idx;
    for (const Expr& e : {l, r})
      for (const std::string& i : e->indices)
        if (detail::contains(outside, i) && !detail::contains(idx, i)) idx.push_back(i);
    // A stored-entry result takes its csr operand's index order, as the split does.
    for (const Expr& e : {l, r}) {
      if (e->op != Op::Access) continue;
      auto d = p_.tensors.find(e->tensor);
      bool csr = d != p_.tensors.end() && d->second.format.hasSparseLevel();
      std::vector<std::string> a1 = e->indices, a2 = idx;
      std::sort(a1.begin(), a1.end());
      std::sort(a2.begin(), a2.end());
      if (csr && a1 == a2) idx = e->indices;
    }
    std::string name;
    for (int n = 0; taken_.count(name = "T" + std::to_string(n)); ++n) {
    }
    taken_.insert(name);
    temporaries_.insert(name);
    out_.push_back({name, idx, apply(Op::Mul, {l, r}, p_.statements[c_.root].rhs->pos), ReduceOp::Sum,
                    p_.statements[c_.root].pos});
    return access(name, idx);
  }

  const Program& p_;
  const ProductChain& c_;
  std::set<std::string>& taken_;
  std::set<std::string>& temporaries_;
  std::set<int> used_;
  std::vector<Statement> out_;
};

std::vector<Association> associations(int begin, int end) {
  if (end - begin == 1) {
    Association leaf;
    leaf.factor = begin;
    return {leaf};
  }
  std::vector<Association> out;
  for (int split = end - 1; split > begin; --split)
    for (const Association& l : associations(begin, split))
      for (const Association& r : associations(split, end)) {
        Association a;
        a.parts = {l, r};
        out.push_back(a);
      }
  return out;
}

}  // namespace

std::string ProductChain::str() const {
  std::string s;
  for (const Expr& f : factors) s += (s.empty() ? "" : " * ") + toString(f);
  return s;
}

std::string Association::str(const ProductChain& chain) const {
  if (parts.empty()) return toString(chain.factors.at(static_cast<size_t>(factor)));
  auto part = [&](const Association& a) { return a.parts.empty() ? a.str(chain) : "(" + a.str(chain) + ")"; };
  return part(parts[0]) + " * " + part(parts.at(1));
}

std::vector<ProductChain> productChains(const Program& p) { return ChainFinder(p).chains(); }

Association currentAssociation(const Program& p, const ProductChain& chain) {
  ChainFinder finder(p);
  std::vector<ProductChain> chains = finder.chains();
  for (size_t n = 0; n < chains.size(); ++n)
    if (chains[n].root == chain.root) return finder.current()[n];
  throw UserError("no product chain is rooted at statement " + std::to_string(chain.root));
}

std::vector<Association> allAssociations(int factors) {
  if (factors < 1) return {};
  return associations(0, factors);
}

Reassociation reassociate(const Program& p, const std::vector<ProductChain>& chains, const std::vector<Association>& orders) {
  if (chains.size() != orders.size()) throw UserError("associate: one association per chain is needed");
  std::map<size_t, size_t> rootOf;  // statement -> chain it is the root of
  std::set<size_t> inner;
  for (size_t c = 0; c < chains.size(); ++c) {
    rootOf[chains[c].root] = c;
    for (size_t n : chains[c].statements)
      if (n != chains[c].root) inner.insert(n);
  }
  detail::SplitResult split;
  std::set<std::string> taken;
  for (const auto& [name, decl] : p.tensors) {
    bool dissolved = false;
    for (size_t n : inner) dissolved = dissolved || p.statements[n].lhs == name;
    if (dissolved) continue;
    TensorDecl d = decl;
    if (d.role == TensorRole::Temporary) {
      d.format = Format();  // inferred again: its operands may have changed
      split.temporaries.insert(name);
    }
    split.program.tensors[name] = d;
    taken.insert(name);
  }
  for (size_t n = 0; n < p.statements.size(); ++n)
    if (!inner.count(n)) taken.insert(p.statements[n].lhs);
  split.program.indexSizes = p.indexSizes;
  for (size_t n = 0; n < p.statements.size(); ++n) {
    if (inner.count(n)) continue;
    auto root = rootOf.find(n);
    if (root == rootOf.end()) {
      split.program.statements.push_back(p.statements[n]);
      continue;
    }
    ChainBuilder builder(p, chains[root->second], taken, split.temporaries);
    for (Statement& s : builder.build(orders[root->second])) split.program.statements.push_back(std::move(s));
  }
  split.origin.assign(split.program.statements.size(), 0);
  detail::InferredProgram inferred = detail::inferProgram(split);
  return {std::move(inferred.program), std::move(inferred.legality)};
}

Program associate(const Program& p, const std::vector<ProductChain>& chains, const std::vector<Association>& orders) {
  Reassociation r = reassociate(p, chains, orders);
  if (!r.legality.ok()) throw UserError(r.legality.why);
  return r.program;
}

}  // namespace react
