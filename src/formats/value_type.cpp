// Value types: names, sizes and rounding (formats.hpp, "Value types").
#include "formats/formats.hpp"

#include <cfloat>
#include <cmath>
#include <limits>

namespace react {

std::string toString(ValueType t) { return t == ValueType::Float32 ? "float32" : "float64"; }

ValueType parseValueType(const std::string& text, const std::string& argument) {
  if (text == "float32") return ValueType::Float32;
  if (text == "float64") return ValueType::Float64;
  throw UserError(argument + ": unknown value type '" + text + "' (expected float32 or float64)");
}

int64_t valueBytes(ValueType t) { return t == ValueType::Float32 ? 4 : 8; }

double roundTo(ValueType t, double v) {
  if (t == ValueType::Float64) return v;
  // Converting a double beyond float's range is undefined behaviour in C++; IEEE rounding gives
  // FLT_MAX below the halfway point to the next binade (FLT_MAX + half an ulp, 2^103), inf from it.
  const double halfway = static_cast<double>(FLT_MAX) + 0x1.0p103;
  if (std::abs(v) >= halfway) return std::copysign(std::numeric_limits<double>::infinity(), v);
  if (std::abs(v) > static_cast<double>(FLT_MAX)) return std::copysign(static_cast<double>(FLT_MAX), v);
  return static_cast<double>(static_cast<float>(v));
}

ValueType widest(ValueType a, ValueType b) {
  return a == ValueType::Float64 || b == ValueType::Float64 ? ValueType::Float64 : ValueType::Float32;
}

ValueType valueTypeOf(const MarketData& v) {
  return std::visit([](const auto& tensor) { return tensor.valueType; }, v);
}

void setValueType(MarketData& v, ValueType t) {
  std::visit([t](auto& tensor) { tensor.setValueType(t); }, v);
}

}  // namespace react
