// Statements, programs and environments: accessors, printing, comparison.
#include "indexnotation/internal.hpp"

namespace react {

std::vector<std::string> Statement::reductionIndices() const {
  std::vector<std::string> out;
  if (!rhs) return out;
  for (const std::string& i : freeIndices(rhs))
    if (!detail::contains(lhsIndices, i)) out.push_back(i);
  return out;
}

std::string Statement::str() const {
  // A scalar left side prints as "a()" so that parseProgram also reads it as index notation.
  std::string s = lhs + "(" + detail::join(lhsIndices, ",") + ") = ";
  std::vector<std::string> reduced = reductionIndices();
  if (reduce == ReduceOp::Max && !reduced.empty())
    return s + "max(" + toString(rhs) + ", " + detail::join(reduced, ", ") + ")";
  return s + toString(rhs);
}

bool operator==(const Statement& a, const Statement& b) {
  return a.lhs == b.lhs && a.lhsIndices == b.lhsIndices && a.reduce == b.reduce && sameExpr(a.rhs, b.rhs);
}

bool operator==(const TensorDecl& a, const TensorDecl& b) {
  return a.name == b.name && a.shape == b.shape && a.format == b.format && a.role == b.role &&
         a.pattern == b.pattern && a.valueType == b.valueType;  // `grouped` constrains auto's choice,
                                                                // not the value: not compared
}

std::optional<std::string> inputFormMismatch(const TensorData& v, const TensorDecl& d) {
  if (d.given.levels().empty()) return dataFormMismatch(v, d.format);
  if (!dataFormMismatch(v, d.format)) return std::nullopt;
  return dataFormMismatch(v, d.given);
}

const TensorData& iteratedInput(const TensorDecl& d, const TensorData& v, std::optional<TensorData>& converted) {
  const SparseTensor* t = std::get_if<SparseTensor>(&v);
  if (!t || d.given.levels().empty() || t->format != d.given) return v;
  // csr data is a CsrMatrix (a `dq` input iterates as csr).
  converted = d.format == Format::csr() ? TensorData(sparseToCsr(*t)) : TensorData(convertFormat(*t, d.format));
  return *converted;
}

const TensorDecl& Program::tensor(const std::string& name) const {
  auto it = tensors.find(name);
  if (it == tensors.end()) throw UserError("unknown tensor " + detail::quoted(name));
  return it->second;
}

namespace {
std::vector<std::string> withRole(const std::map<std::string, TensorDecl>& tensors, TensorRole role) {
  std::vector<std::string> out;
  for (const auto& [name, decl] : tensors)
    if (decl.role == role) out.push_back(name);
  return out;
}
}  // namespace

std::vector<std::string> Program::inputs() const { return withRole(tensors, TensorRole::Input); }
std::vector<std::string> Program::outputs() const { return withRole(tensors, TensorRole::Output); }

std::string Program::str() const {
  std::string s;
  for (const Statement& st : statements) s += st.str() + "\n";
  return s;
}

bool operator==(const Program& a, const Program& b) {
  return a.tensors == b.tensors && a.indexSizes == b.indexSizes && a.statements == b.statements;
}

void Environment::declare(const std::string& name, std::vector<int64_t> shape, Format format, ValueType valueType) {
  TensorDecl d;
  d.name = name;
  d.shape = std::move(shape);
  d.format = format.iterated();
  if (d.format != format) d.given = std::move(format);
  d.valueType = valueType;
  d.role = TensorRole::Input;
  if (d.format.hasSparseLevel()) d.pattern = name;
  tensors[name] = d;
}

}  // namespace react
