// Dense tensors: row-major, any rank, double.
#include "formats/formats.hpp"

#include <string>

namespace react {

DenseTensor::DenseTensor(std::vector<int64_t> shp, double fill) : shape(std::move(shp)) {
  int64_t n = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0)
      throw Error("DenseTensor: dimension " + std::to_string(d) + " has negative size " + std::to_string(shape[d]));
    n *= shape[d];
  }
  data.assign(n, fill);
}

namespace {

int64_t offsetOf(const std::vector<int64_t>& shape, std::initializer_list<int64_t> idx) {
  if (idx.size() != shape.size())
    throw Error("DenseTensor::at: " + std::to_string(idx.size()) + " indices for a rank-" +
                std::to_string(shape.size()) + " tensor");
  int64_t off = 0;
  size_t d = 0;
  for (int64_t i : idx) {
    if (i < 0 || i >= shape[d])
      throw Error("DenseTensor::at: index " + std::to_string(i) + " of dimension " + std::to_string(d) +
                  " is outside 0.." + std::to_string(shape[d] - 1));
    off = off * shape[d] + i;
    ++d;
  }
  return off;
}

}  // namespace

double& DenseTensor::at(std::initializer_list<int64_t> idx) { return data[offsetOf(shape, idx)]; }
double DenseTensor::at(std::initializer_list<int64_t> idx) const { return data[offsetOf(shape, idx)]; }

}  // namespace react
