// react/formats internal: what the seeded generators of matrices and of tensors share. Not part of
// the public API.
#pragma once

#include "formats/random.hpp"

#include <cstdint>
#include <vector>

namespace react::detail {

// A Pareto draw: w >= 1 with P(w) ~ w^-exponent (exponent > 1).
double paretoWeight(Rng& rng, double exponent);
// The scale s for which the sum of min(s * w[i], cap) is `target` (at most w.size() * cap), found
// by bisection: the scale that turns weights into expected lengths capped at `cap`.
double scaleToTotal(const std::vector<double>& w, double cap, double target);
// x rounded up or down at random so that the expected result is x.
int64_t roundRandomly(double x, Rng& rng);

}  // namespace react::detail
