// Timing statistics and the machine's copy bandwidth.
#include "bench/bench.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

namespace react::bench {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string formatMilliseconds(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g ms", seconds * 1e3);
  return buf;
}

int plannedRuns(int reps, double budgetSeconds, double firstRunSeconds) {
  if (firstRunSeconds <= 0) return std::max(reps, 1);
  double fit = std::floor(budgetSeconds / firstRunSeconds);
  return static_cast<int>(std::max(1.0, std::min(static_cast<double>(reps), fit)));
}

Timing summarize(std::vector<double> seconds) {
  Timing t;
  if (seconds.empty()) return t;
  std::sort(seconds.begin(), seconds.end());
  size_t n = seconds.size();
  t.runs = static_cast<int>(n);
  t.median = n % 2 ? seconds[n / 2] : 0.5 * (seconds[n / 2 - 1] + seconds[n / 2]);
  t.min = seconds.front();
  t.max = seconds.back();
  return t;
}

double measureCopyBandwidth(int threads, size_t bytesPerArray, int trials) {
  const int64_t n = static_cast<int64_t>(bytesPerArray / sizeof(double));
  std::unique_ptr<double[]> a(new double[n]), b(new double[n]);
  double* pa = a.get();
  double* pb = b.get();
  // First touch by the threads that copy, so pages are spread like the data of a kernel.
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t i = 0; i < n; ++i) pa[i] = 1.0, pb[i] = static_cast<double>(i);
  double best = 0;
  for (int t = 0; t < trials; ++t) {
    auto start = std::chrono::steady_clock::now();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < n; ++i) pa[i] = pb[i];
    double s = secondsSince(start);
    best = std::max(best, 2.0 * static_cast<double>(n) * sizeof(double) / s);
  }
  if (pa[n - 1] != pb[n - 1]) return 0;  // keeps the copy observable
  return best;
}

}  // namespace react::bench

namespace react::bench {

double measureDeviceCopyBandwidth(const KokkosRuntime& device, size_t bytesPerArray, int trials) {
  std::vector<double> init(bytesPerArray / sizeof(double), 1.0);
  const size_t bytes = init.size() * sizeof(double);
  void* a = device.allocate(bytes);
  void* b = device.allocate(bytes);
  if (!a || !b) throw UserError("bandwidth: cannot allocate " + std::to_string(bytes) + " bytes on the device");
  device.copy(b, init.data(), bytes, static_cast<int>(CopyKind::HostToDevice));
  device.copy(a, b, bytes, static_cast<int>(CopyKind::DeviceToDevice));  // warm-up
  double best = 0;
  for (int t = 0; t < trials; ++t) {
    auto start = std::chrono::steady_clock::now();
    device.copy(a, b, bytes, static_cast<int>(CopyKind::DeviceToDevice));
    best = std::max(best, 2.0 * static_cast<double>(bytes) / secondsSince(start));
  }
  device.release(a);
  device.release(b);
  return best;
}

double ReactKernels::deviceBandwidth(const KokkosRuntime& device) {
  if (deviceBandwidth_ == 0) deviceBandwidth_ = measureDeviceCopyBandwidth(device);
  return deviceBandwidth_;
}

}  // namespace react::bench
