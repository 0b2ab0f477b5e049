// react/formats internal: exceptions inside OpenMP regions.
#pragma once

#include <exception>

namespace react::detail {

// An exception that leaves an OpenMP region calls std::terminate. Bodies that can throw (they
// allocate) run through run(), which keeps the first exception; rethrow() after the region.
class RegionExceptions {
 public:
  template <typename Body>
  void run(Body&& body) noexcept {
    try {
      body();
    } catch (...) {
#pragma omp critical(react_region_exceptions)
      if (!first_) first_ = std::current_exception();
    }
  }
  void rethrow() const {
    if (first_) std::rethrow_exception(first_);
  }

 private:
  std::exception_ptr first_;
};

}  // namespace react::detail
