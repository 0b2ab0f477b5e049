// The unfused Eigen pipelines a library user writes today, one library call per operator:
//   sddmm    P = B * C (dense GEMM, NI x NJ), A = S.cwiseProduct(P)
//   spmm_mm  T = S * C (sparse x dense), A = T * D (dense GEMM)
//   norm_row r = S * ones, A = r.cwiseInverse().asDiagonal() * S
//   softmax  E = exp(S) (stored entries), r = E * ones, A = r.cwiseInverse().asDiagonal() * E
// Temporaries and outputs are allocated once, as a careful user would. Eigen's dense products and
// its row-major sparse x dense product run on the OpenMP threads.
#include "bench/bench.hpp"

#include <Eigen/Dense>

#include <cmath>

namespace react::bench {

namespace {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<const RowMatrix>;

ConstMap denseMap(const TensorValues& inputs, const std::string& name) {
  const DenseTensor& t = std::get<DenseTensor>(inputs.at(name));
  return ConstMap(t.data.data(), t.shape[0], t.shape[1]);
}

DenseTensor toDense(const RowMatrix& m) {
  DenseTensor t({m.rows(), m.cols()});
  Eigen::Map<RowMatrix>(t.data.data(), m.rows(), m.cols()) = m;
  return t;
}

class EigenInstance : public Instance {
 public:
  EigenInstance(const BenchKernel& k, const TensorValues& inputs) : kernel_(k.name), s_(toEigen(std::get<CsrMatrix>(inputs.at("S")))) {
    if (kernel_ == "sddmm") {
      b_ = denseMap(inputs, "B");
      c_ = denseMap(inputs, "C");
      p_.resize(s_.rows(), s_.cols());
    } else if (kernel_ == "spmm_mm") {
      c_ = denseMap(inputs, "C");
      d_ = denseMap(inputs, "D");
      t_.resize(s_.rows(), c_.cols());
      dense_.resize(s_.rows(), d_.cols());
    }
    ones_ = Eigen::VectorXd::Ones(s_.cols());
  }

  void run() override {
    if (kernel_ == "sddmm") {
      p_.noalias() = b_ * c_;
      a_ = s_.cwiseProduct(p_);
    } else if (kernel_ == "spmm_mm") {
      t_.noalias() = s_ * c_;
      dense_.noalias() = t_ * d_;
    } else if (kernel_ == "norm_row") {
      rowSums_.noalias() = s_ * ones_;
      a_ = rowSums_.cwiseInverse().asDiagonal() * s_;
    } else {
      e_ = s_.unaryExpr([](double v) { return std::exp(v); });
      rowSums_.noalias() = e_ * ones_;
      a_ = rowSums_.cwiseInverse().asDiagonal() * e_;
    }
  }

  TensorData result() const override {
    if (kernel_ == "spmm_mm") return toDense(dense_);
    return fromEigen(a_);
  }
  int threads() const override { return Eigen::nbThreads(); }
  bool followsOpenMPThreads() const override { return true; }

 private:
  std::string kernel_;
  EigenCsr s_, e_, a_;
  RowMatrix b_, c_, d_, p_, t_, dense_;
  Eigen::VectorXd ones_, rowSums_;
};

}  // namespace

std::unique_ptr<Instance> makeEigenInstance(const BenchKernel& k, const TensorValues& inputs) {
  return std::make_unique<EigenInstance>(k, inputs);
}

LibraryCost libraryCost(const BenchKernel& k, const CsrMatrix& s) {
  const double nnz = static_cast<double>(s.nnz()), ni = static_cast<double>(s.rows), nj = static_cast<double>(s.cols);
  if (k.name == "sddmm")
    return {2 * ni * nj * static_cast<double>(k.k) + nnz, 8 * ni * nj, "the dense NI x NJ product B @ C"};
  if (k.name == "spmm_mm") {
    double nh = static_cast<double>(k.nh);
    return {2 * nnz * nh + 2 * ni * nh * static_cast<double>(k.nj), 8 * ni * nh, "the dense NI x NH product S @ C"};
  }
  if (k.name == "norm_row") return {2 * nnz, 8 * ni, "the row sums"};
  return {3 * nnz, 8 * (nnz + ni), "exp(S) and the row sums"};
}

}  // namespace react::bench
