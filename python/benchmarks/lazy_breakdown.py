"""Where one lazy evaluation of the README's SciPy example (SDDMM, K=64) spends its time
(docs/python.md, "Against react-gen"): the steps of react.evaluate done one by one, each timed
with perf_counter_ns, then the whole evaluation and the kernel alone (Kernel::runRaw). Medians of
EVALUATIONS evaluations, each after the kernel of the one before, as in a loop over the example.

    OMP_NUM_THREADS=1 PYTHONPATH=build/python /usr/bin/python3 python/benchmarks/lazy_breakdown.py [--evaluations N] [--matrix FILE]
"""

import argparse
import pathlib
import statistics
import time

import react
from react import _inputs, _lazy

from lazy_vs_gen import DEFAULT_MATRIX, readme_inputs

STEPS = ["record the expression", "walk it (_Program: trees, inputs, signature)", "find the kernel",
         "the argument list", "the extension's call (check, copies, kernel)", "assemble the csr_matrix",
         "hand the value to its node", "tocsr()"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--evaluations", type=int, default=3000)
    parser.add_argument("--matrix", default=DEFAULT_MATRIX)
    args = parser.parse_args()

    S, B, C = readme_inputs(args.matrix)

    def record():
        with react.lazy():
            return react.wrap(S).multiply(react.wrap(B) @ react.wrap(C).T)

    record().tocsr()  # compiles (or finds the kernel in the JIT cache)
    clock = time.perf_counter_ns
    measured = {step: [] for step in STEPS + ["sum of the steps", "a whole evaluation", "the kernel alone"]}
    for _ in range(args.evaluations):
        t = [clock()]
        A = record()
        t.append(clock())
        program = _lazy._Program([A])
        t.append(clock())
        kernel, input_numbers, _ = program.kernel(*_lazy._options(None, None))
        t.append(clock())
        inputs = [program.inputs[n] for n in input_numbers]
        t.append(clock())
        [(values, indices, indptr)], _ = kernel._native.run(inputs, True)  # one csr result
        t.append(clock())
        result = _inputs.csr_result(values, indices, indptr, S.shape)
        t.append(clock())
        A._node.value = result
        t.append(clock())
        A.tocsr()
        t.append(clock())
        for step, start, end in zip(STEPS, t, t[1:]):
            measured[step].append(end - start)
        measured["sum of the steps"].append(t[-1] - t[0])
        start = clock()
        record().tocsr()
        measured["a whole evaluation"].append(clock() - start)
        measured["the kernel alone"].append(kernel._native.time_raw(inputs, 1)[0] * 1e9)
    print(f"SDDMM K=64 on {pathlib.Path(args.matrix).name} ({S.nnz} nnz), lazy mode; median us of {args.evaluations}")
    for step, times in measured.items():
        print(f"  {step:48} {statistics.median(times) / 1e3:8.2f}")


if __name__ == "__main__":
    main()
