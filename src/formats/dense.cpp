// Dense tensors: row-major, any rank, values of a ValueType held as doubles. Also the size checks every allocation sized by user
// input goes through (formats.hpp, "Sizes").
#include "formats/formats.hpp"

#include <cstdio>
#include <string>

namespace react {

int64_t checkedElementCount(const std::vector<int64_t>& extents, int64_t elementBytes, const std::string& what) {
  for (int64_t extent : extents)
    if (extent == 0) return 0;  // empty, however large the other extents
  int64_t elements = 1, bytes = elementBytes;
  for (int64_t extent : extents)
    if (__builtin_mul_overflow(elements, extent, &elements) || __builtin_mul_overflow(bytes, extent, &bytes))
      throw UserError(what + " needs more than 2^63 bytes");
  return elements;
}

std::string extentsText(const std::vector<int64_t>& extents, const std::string& elements) {
  std::string s;
  for (int64_t extent : extents) s += (s.empty() ? "" : " x ") + std::to_string(extent);
  return s.empty() ? elements : s + " " + elements;
}

std::string bytesText(int64_t bytes) {
  static const char* const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int unit = 0;
  while (v >= 1024 && unit < 6) {
    v /= 1024;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, unit == 0 || v >= 10 ? "%.0f %s" : "%.1f %s", v, units[unit]);
  return buf;
}

DenseTensor::DenseTensor(std::vector<int64_t> shp, double fill, const std::string& name) : shape(std::move(shp)) {
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] < 0)
      throw UserError("DenseTensor: dimension " + std::to_string(d) + " has negative size " + std::to_string(shape[d]));
  const std::string what =
      (name.empty() ? std::string("a dense tensor") : "tensor '" + name + "'") + " (" + extentsText(shape, "doubles") + ")";
  const int64_t n = checkedElementCount(shape, sizeof(double), what);
  allocateOrThrow(what, n * static_cast<int64_t>(sizeof(double)), [&] { data.assign(n, fill); });
}

namespace {

int64_t offsetOf(const std::vector<int64_t>& shape, std::initializer_list<int64_t> idx) {
  if (idx.size() != shape.size())
    throw UserError("DenseTensor::at: " + std::to_string(idx.size()) + " indices for a rank-" +
                std::to_string(shape.size()) + " tensor");
  int64_t off = 0;
  size_t d = 0;
  for (int64_t i : idx) {
    if (i < 0 || i >= shape[d])
      throw UserError("DenseTensor::at: index " + std::to_string(i) + " of dimension " + std::to_string(d) +
                  " is outside 0.." + std::to_string(shape[d] - 1));
    off = off * shape[d] + i;
    ++d;
  }
  return off;
}

}  // namespace

double& DenseTensor::at(std::initializer_list<int64_t> idx) { return data[offsetOf(shape, idx)]; }
double DenseTensor::at(std::initializer_list<int64_t> idx) const { return data[offsetOf(shape, idx)]; }

void DenseTensor::setValueType(ValueType t) {
  valueType = t;
  for (double& v : data) v = roundTo(t, v);
}

}  // namespace react
