// Reproducers: a failing program written as text (statements, declarations, inputs as Matrix
// Market) and read back, so that `react-fuzz --replay FILE` and regression tests rerun it.
#pragma once

#include "fuzz/differential.hpp"

#include <cstdint>
#include <string>

namespace react::fuzz {

// The file written for a mismatch:
//   # comments: seed, stage, difference, how to replay
//   program            the statements, one a line, up to "end"
//   size NAME N        an index extent given to the front end (-d=NAME:N)
//   input NAME FORMAT SHAPE INDICES     e.g. "input S csr 3x4 i,j", "input X sss:1,0,2 3x4x2 i,j,k",
//                                       "input a dense scalar -" (FORMAT as parseFormat reads it)
//   declare NAME FORMAT SHAPE           a declared output, e.g. "declare O1 dense -1x-1"
//   values NAME        the input's values up to "end": Matrix Market text for csr and dense of
//                      rank 2 at most, FROSTT text (writeFrostt's) for other sparse formats and
//                      dense 3-tensors (every element)
std::string reproducerText(const RandomProgram& p, uint64_t seed, const Mismatch& m);
RandomProgram parseReproducer(const std::string& text);  // throws react::UserError naming the line
RandomProgram readReproducer(const std::string& path);

}  // namespace react::fuzz
