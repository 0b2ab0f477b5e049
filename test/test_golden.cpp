// Golden trees and costs: every benchmark kernel, the stable softmax and logsumexp builtins,
// every example of docs/design.md's "Redundancies" and MTTKRP on a csf tensor (in both
// association orders, and on a dcsr matrix's SpMM-MM) and the co-iteration of two csr matrices,
// after each fusion mode. The files in
// test/golden/ were reviewed by hand; REACT_UPDATE_GOLDEN=1 rewrites them (review the diff
// before committing).
#include "fusion/fusion.hpp"
#include "support.hpp"

#include <doctest/doctest.h>


using namespace react;

namespace {

struct Example {
  std::string name, text;
  std::vector<std::tuple<std::string, std::vector<int64_t>, Format>> tensors;
};

std::vector<Example> examples() {
  Format csr = Format::csr(), d1 = Format::dense(1), d2 = Format::dense(2);
  return {
      {"sddmm", "A = S * (B @ C)", {{"S", {6, 5}, csr}, {"B", {6, 3}, d2}, {"C", {3, 5}, d2}}},
      {"spmm_mm", "A = S @ C @ D", {{"S", {6, 6}, csr}, {"C", {6, 4}, d2}, {"D", {4, 3}, d2}}},
      {"norm_row", "A = S / sum(S, axis=1)", {{"S", {6, 5}, csr}}},
      {"softmax", "A = exp(S) / sum(exp(S), axis=1)", {{"S", {6, 5}, csr}}},
      {"softmax_stable", "A = softmax(S, axis=1)", {{"S", {6, 5}, csr}}},
      {"logsumexp", "a = logsumexp(S, axis=1)", {{"S", {6, 5}, csr}}},
      {"type1_row_scaling", "c(i) = b(i) * A(i,j)", {{"b", {4}, d1}, {"A", {4, 3}, d2}}},
      {"type2_invariant", "A = (B + E) * (C @ D)", {{"B", {4, 3}, d2}, {"E", {4, 3}, d2}, {"C", {4, 5}, d2}, {"D", {5, 3}, d2}}},
      {"type3_load_store", "B = A / sum(A, axis=1)", {{"A", {4, 3}, d2}}},
      {"type4_dead_value", "A = where(S < 0, 0.5 * S, S)", {{"S", {5, 4}, csr}}},
      // react: the consumer runs over B's fibres (restrict-to-pattern), merges into the producer's
      // loops and the temporary shrinks to one row of j per (i,k) fibre: C(k,j) out of the l loop.
      {"mttkrp_csf", "A(i,j) = B(i,k,l) * D(l,j) * C(k,j)", {{"B", {6, 5, 7}, Format::csf(3)}, {"C", {5, 4}, d2}, {"D", {7, 4}, d2}}},
      // Associated the other way: the temporary is zero outside B's slices only, one (l,j) plane each.
      {"mttkrp_csf_bc", "A(i,j) = B(i,k,l) * C(k,j) * D(l,j)", {{"B", {6, 5, 7}, Format::csf(3)}, {"C", {5, 4}, d2}, {"D", {7, 4}, d2}}},
      {"spmm_mm_dcsr", "A = S @ C @ D", {{"S", {6, 6}, Format::dcsr()}, {"C", {6, 4}, d2}, {"D", {4, 3}, d2}}},
      // Co-iteration: a merge over the columns of S and T, assembling A's pattern.
      {"coiter_mul", "A = S * T", {{"S", {6, 5}, csr}, {"T", {6, 5}, csr}}},
      {"coiter_add", "A = S + T", {{"S", {6, 5}, csr}, {"T", {6, 5}, csr}}},
  };
}

std::string render(const Example& e, FusionMode mode) {
  Environment env;
  for (const auto& [n, shape, f] : e.tensors) env.declare(n, shape, f);
  IndexTree t = fuse(parseProgram(e.text, env), mode);
  return e.text + "\n\n" + printTree(t) + "\n" + analyzeCost(t).str();
}

}  // namespace

TEST_CASE("golden: trees and symbolic costs after every fusion mode") {
  for (const Example& e : examples())
    for (FusionMode m : {FusionMode::None, FusionMode::Maximal, FusionMode::React}) {
      std::string path = std::string(REACT_SOURCE_DIR) + "/test/golden/" + e.name + "." + toString(m) + ".txt";
      std::string got = render(e, m);
      INFO(path);
      CHECK(got == test::goldenText(path, got));
    }
}
