// A tensor's data in the form its format has (formats.hpp, TensorData).
#include "formats/formats.hpp"

namespace react {

namespace {
// Matches one lambda per alternative, for std::visit.
template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;
}  // namespace

TensorData toTensorData(MarketData m) {
  return std::visit([](auto&& tensor) { return TensorData(std::move(tensor)); }, std::move(m));
}

ValueType valueTypeOf(const TensorData& v) {
  return std::visit([](const auto& tensor) { return tensor.valueType; }, v);
}

void setValueType(TensorData& v, ValueType t) {
  std::visit([t](auto& tensor) { tensor.setValueType(t); }, v);
}

Format formatOf(const TensorData& v) {
  return std::visit(Overloaded{[](const CsrMatrix&) { return Format::csr(); },
                               [](const DenseTensor& t) { return Format::dense(t.rank()); },
                               [](const SparseTensor& t) { return t.format; }},
                    v);
}

std::vector<int64_t> shapeOf(const TensorData& v) {
  return std::visit(Overloaded{[](const CsrMatrix& m) { return std::vector<int64_t>{m.rows, m.cols}; },
                               [](const DenseTensor& t) { return t.shape; },
                               [](const SparseTensor& t) { return t.shape; }},
                    v);
}

const std::vector<double>& valuesOf(const TensorData& v) {
  return std::visit(Overloaded{[](const CsrMatrix& m) -> const std::vector<double>& { return m.val; },
                               [](const DenseTensor& t) -> const std::vector<double>& { return t.data; },
                               [](const SparseTensor& t) -> const std::vector<double>& { return t.val; }},
                    v);
}

std::vector<double>& valuesOf(TensorData& v) {
  return const_cast<std::vector<double>&>(valuesOf(static_cast<const TensorData&>(v)));
}

std::optional<std::string> dataFormMismatch(const TensorData& v, const Format& format) {
  const Format given = formatOf(v);
  if (given != format) {
    const bool sameName = format.str() == given.str();  // dense tensors of two ranks
    auto named = [&](const Format& f) { return f.str() + (sameName ? " of rank " + std::to_string(f.rank()) : ""); };
    return "is declared " + named(format) + " but given " + named(given);
  }
  static const char* const forms[] = {"CsrMatrix", "DenseTensor", "SparseTensor"};  // TensorData's alternatives
  const char* form = forms[format == Format::csr() ? 0 : format == Format::dense(format.rank()) ? 1 : 2];
  const char* givenForm = forms[v.index()];
  if (form != givenForm) return "is declared " + format.str() + " but given a " + givenForm + ": " + format.str() + " data is a " + form;
  return std::nullopt;
}

bool sameStructure(const TensorData& a, const TensorData& b) {
  if (a.index() != b.index() || formatOf(a) != formatOf(b) || shapeOf(a) != shapeOf(b)) return false;
  if (const CsrMatrix* ca = std::get_if<CsrMatrix>(&a)) {
    const CsrMatrix& cb = std::get<CsrMatrix>(b);
    return ca->rowptr == cb.rowptr && ca->col == cb.col;
  }
  if (const SparseTensor* sa = std::get_if<SparseTensor>(&a)) return sa->levels == std::get<SparseTensor>(b).levels;
  return true;
}

}  // namespace react
