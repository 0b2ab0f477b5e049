// What react variants compile: the kernel as written, right-associated ("-right"), or auto's
// choice for the matrix at hand.
#include "bench/bench.hpp"

#include <omp.h>

namespace react::bench {
namespace {

// The association that nests every product to the right: F0 * (F1 * (F2 * ...)).
Association rightmost(int factors, int first = 0) {
  Association leaf;
  leaf.factor = first;
  if (factors == 1) return leaf;
  Association a;
  a.parts = {leaf, rightmost(factors - 1, first + 1)};
  return a;
}

}  // namespace

VariantProgram variantProgram(const BenchKernel& k, const VariantSpec& v, const TensorData& s, const JitOptions& jit) {
  Program p = kernelProgram(k, s);
  if (v.fusion == FusionMode::Auto) {
    AutoDecision d = decideFusion(p, inputStats({{"S", s}}), modelForLowering(machineModel(jit, omp_get_max_threads(), v.target), v.target, {}));
    VariantProgram out{p, d.choice().tree, "auto chose " + d.choice().label()};
    if (!d.chains.empty()) out.choice += d.choice().asWritten ? " as written" : " re-associated";
    for (const std::string& a : d.choice().associations) out.choice += "; " + a;
    return out;
  }
  if (v.rightAssociated) {
    std::vector<ProductChain> chains = productChains(p);
    if (chains.empty()) throw UserError(k.label() + " has no product chain to associate otherwise");
    std::vector<Association> orders;
    for (const ProductChain& c : chains) orders.push_back(rightmost(static_cast<int>(c.factors.size())));
    p = associate(p, chains, orders);
  }
  return {p, fuse(p, v.fusion), ""};
}

}  // namespace react::bench
