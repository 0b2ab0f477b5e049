// Shrinking a failing random program to a small reproducer.
#pragma once

#include "fuzz/random_program.hpp"

#include <functional>

namespace react::fuzz {

// Drops statements, replaces subexpressions by one of their operands or a literal, turns max
// reductions into sums and drops left-hand indices, shrinks index extents (inputs sliced), drops
// stored csr entries and sets input values to 1, keeping each change while the program still
// parses, keeps the value rules (random_program.hpp) and `stillFails`. Stops after `seconds`.
RandomProgram minimize(RandomProgram p, const std::function<bool(const RandomProgram&)>& stillFails, double seconds);

// p with the extents of `indices` set to `extent` (smaller than now): every input sliced.
RandomProgram withExtent(const RandomProgram& p, const std::vector<std::string>& indices, int64_t extent);

}  // namespace react::fuzz
