// The unfused Kokkos Kernels pipelines (Kokkos Kernels has no SDDMM, no softmax, no row scaling;
// the element-wise steps are Kokkos::parallel_for loops a user writes next to the library calls):
//   sddmm    P = KokkosBlas::gemm(B, C) (NI x NJ), A(p) = S(p) * P(i, col(p)) over S's entries
//   spmm_mm  T = KokkosSparse::spmv(S, C) on rank-2 views (SpMM), A = KokkosBlas::gemm(T, D)
//   norm_row r = spmv(S, ones), A(p) = S(p) / r(i)
//   softmax  E(p) = exp(S(p)), r = spmv(E, ones), A(p) = E(p) / r(i)
// Views are LayoutLeft (what Debian's Kokkos Kernels instantiates); inputs are copied into views
// once, outside the timed runs.
#include "bench/bench.hpp"

#ifdef REACT_HAVE_KOKKOS_KERNELS
#include <KokkosBlas3_gemm.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>
#include <Kokkos_Core.hpp>
#endif

#include <cmath>
#include <cstdlib>

namespace react::bench {

#ifdef REACT_HAVE_KOKKOS_KERNELS
namespace {

using Space = Kokkos::DefaultHostExecutionSpace;
using Crs = KokkosSparse::CrsMatrix<double, int, Space, void, int64_t>;
using Matrix = Kokkos::View<double**, Kokkos::LayoutLeft, Space>;
using Vector = Kokkos::View<double*, Space>;

Matrix toView(const TensorValues& inputs, const std::string& name) {
  const DenseTensor& t = std::get<DenseTensor>(inputs.at(name));
  Matrix m(name, t.shape[0], t.shape[1]);
  for (int64_t i = 0; i < t.shape[0]; ++i)
    for (int64_t j = 0; j < t.shape[1]; ++j) m(i, j) = t.data[i * t.shape[1] + j];
  return m;
}

Crs toCrs(const CsrMatrix& s) {
  Crs::row_map_type::non_const_type rowmap("rowmap", s.rows + 1);
  Crs::index_type cols("cols", s.nnz());
  Crs::values_type vals("vals", s.nnz());
  for (int64_t r = 0; r <= s.rows; ++r) rowmap(r) = s.rowptr[r];
  for (int64_t p = 0; p < s.nnz(); ++p) {
    cols(p) = s.col[p];
    vals(p) = s.val[p];
  }
  return Crs("S", static_cast<int>(s.rows), static_cast<int>(s.cols), s.nnz(), vals, rowmap, cols);
}

class KokkosKernelsInstance : public Instance {
 public:
  KokkosKernelsInstance(const BenchKernel& k, const TensorValues& inputs)
      : kernel_(k.name), pattern_(std::get<CsrMatrix>(inputs.at("S"))), s_(toCrs(pattern_)) {
    const int64_t ni = pattern_.rows, nj = pattern_.cols;
    if (kernel_ == "sddmm") {
      b_ = toView(inputs, "B");
      c_ = toView(inputs, "C");
      t_ = Matrix("P", ni, nj);
    } else if (kernel_ == "spmm_mm") {
      c_ = toView(inputs, "C");
      d_ = toView(inputs, "D");
      t_ = Matrix("T", ni, c_.extent(1));
      out_ = Matrix("A", ni, d_.extent(1));
    } else {
      ones_ = Vector("ones", nj);
      Kokkos::deep_copy(ones_, 1.0);
      rowSums_ = Vector("rowSums", ni);
      e_ = Crs("E", static_cast<int>(ni), static_cast<int>(nj), pattern_.nnz(), Crs::values_type("E", pattern_.nnz()),
               s_.graph.row_map, s_.graph.entries);
    }
    a_ = Crs::values_type("A", pattern_.nnz());
  }

  void run() override {
    const int rows = s_.numRows();
    auto rowmap = s_.graph.row_map;
    auto cols = s_.graph.entries;
    auto sv = s_.values;
    auto a = a_;
    if (kernel_ == "sddmm") {
      KokkosBlas::gemm("N", "N", 1.0, b_, c_, 0.0, t_);
      auto p = t_;
      Kokkos::parallel_for("mask", Kokkos::RangePolicy<Space>(0, rows), KOKKOS_LAMBDA(int i) {
        for (int64_t q = rowmap(i); q < rowmap(i + 1); ++q) a(q) = sv(q) * p(i, cols(q));
      });
    } else if (kernel_ == "spmm_mm") {
      KokkosSparse::spmv("N", 1.0, s_, c_, 0.0, t_);
      KokkosBlas::gemm("N", "N", 1.0, t_, d_, 0.0, out_);
    } else {
      const Crs& rowsOf = kernel_ == "softmax" ? e_ : s_;
      if (kernel_ == "softmax") {
        auto e = e_.values;
        Kokkos::parallel_for("exp", Kokkos::RangePolicy<Space>(0, static_cast<int64_t>(e.extent(0))),
                             KOKKOS_LAMBDA(int64_t q) { e(q) = std::exp(sv(q)); });
      }
      KokkosSparse::spmv("N", 1.0, rowsOf, ones_, 0.0, rowSums_);
      auto r = rowSums_;
      auto v = rowsOf.values;
      Kokkos::parallel_for("scale", Kokkos::RangePolicy<Space>(0, rows), KOKKOS_LAMBDA(int i) {
        for (int64_t q = rowmap(i); q < rowmap(i + 1); ++q) a(q) = v(q) / r(i);
      });
    }
    Kokkos::fence();
  }

  TensorData result() const override {
    if (kernel_ == "spmm_mm") {
      DenseTensor t({static_cast<int64_t>(out_.extent(0)), static_cast<int64_t>(out_.extent(1))});
      for (int64_t i = 0; i < t.shape[0]; ++i)
        for (int64_t j = 0; j < t.shape[1]; ++j) t.data[i * t.shape[1] + j] = out_(i, j);
      return t;
    }
    CsrMatrix a = pattern_;
    for (int64_t q = 0; q < a.nnz(); ++q) a.val[q] = a_(q);
    return a;
  }
  int threads() const override { return Space::concurrency(); }
  bool followsOpenMPThreads() const override { return false; }

 private:
  std::string kernel_;
  const CsrMatrix& pattern_;
  Crs s_, e_;  // e_: exp(S), S's graph
  Matrix b_, c_, d_, t_, out_;
  Vector ones_, rowSums_;
  Crs::values_type a_;
};

}  // namespace

std::unique_ptr<Instance> makeKokkosKernelsInstance(const BenchKernel& k, const TensorValues& inputs, std::string& why) {
  // The same Kokkos library as react's Kokkos kernels: whichever initializes first finalizes at exit.
  if (!Kokkos::is_initialized()) {
    Kokkos::initialize();
    std::atexit([] { if (Kokkos::is_initialized()) Kokkos::finalize(); });
  }
  const CsrMatrix& s = std::get<CsrMatrix>(inputs.at("S"));
  if (s.rows > INT32_MAX || s.cols > INT32_MAX) {
    why = "Kokkos Kernels' instantiated ordinals are 32-bit";
    return nullptr;
  }
  return std::make_unique<KokkosKernelsInstance>(k, inputs);
}
#else
std::unique_ptr<Instance> makeKokkosKernelsInstance(const BenchKernel&, const TensorValues&, std::string& why) {
  why = "react was built without Kokkos Kernels";
  return nullptr;
}
#endif

}  // namespace react::bench
