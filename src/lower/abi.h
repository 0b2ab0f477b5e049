/* react's kernel ABI: what a generated kernel library and the host that loads it agree on
 * (docs/abi.md). The host includes this header (lower/lower.hpp); the build embeds its text
 * verbatim at the top of every generated source (src/lower/embed_text.cmake), so both sides are
 * compiled from this one definition. Plain C, also valid C++ (host compiler, nvcc): it is compiled
 * inside every kernel's prelude, so it includes nothing but these two headers. */
#ifndef REACT_LOWER_ABI_H
#define REACT_LOWER_ABI_H

#include <stddef.h>
#include <stdint.h>

/* The version of what this header defines (docs/abi.md, "Versions"): every change to it that a
 * kernel or its host would read differently counts one up. 2: per-level pos and crd. 3: source. */
#define REACT_ABI_VERSION 3

/* The storage levels a sparse tensor argument may have (its rank; formats/levels.hpp). */
#define REACT_MAX_LEVELS 8

/* One tensor argument of a kernel. A sparse tensor (formats/levels.hpp) passes the arrays of each
 * storage level l: pos[l] where the level is compressed (one more than the positions of the level
 * above), crd[l] where it is compressed or singleton (the coordinate at each position); null for
 * a dense level and beyond the tensor's levels. csr: pos[1] = row positions (rows+1), crd[1] =
 * column coordinates. A dense tensor passes none. A csr matrix's entries walked by its columns (a
 * prepared argument: the matrix in csc) pass in `source` each entry's position in the csr arrays;
 * every other argument passes null. */
typedef struct ReactTensor {
  void* vals;    /* values (dense row-major, or one per position of the last level): double or float, as the tensor's value type */
  int64_t nnz;   /* values length: stored entries, or dense size */
  const int64_t* pos[REACT_MAX_LEVELS];
  const int32_t* crd[REACT_MAX_LEVELS];
  const int64_t* source;
} ReactTensor;

/* Every kernel: tensors in the kernel's argument order (inputs, then outputs), then the extents
 * known only at run time (sparse dimensions). Kernels are extern "C", named at compile time. */
typedef void (*ReactKernelFunction)(const ReactTensor* tensors, const int64_t* sizes);

/* The `kind` of react_runtime_copy. */
enum ReactCopyKind { REACT_COPY_HOST_TO_DEVICE = 0, REACT_COPY_DEVICE_TO_HOST = 1, REACT_COPY_DEVICE_TO_DEVICE = 2 };

/* What every Kokkos kernel library exports besides its kernels. The host reaches Kokkos only
 * through these, so it is never compiled against Kokkos: the same host code drives Serial, OpenMP
 * and CUDA builds of Kokkos. X(return type, exported name, parameters, the host's field name):
 *   initialize      Kokkos::initialize once per process, finalize at exit
 *   allocate        bytes in the default execution space's memory
 *   release         frees what allocate returned
 *   copy            bytes between host and that memory (kind: enum ReactCopyKind); fences
 *   hostAccessible  can the host read that memory (Serial, OpenMP: yes)
 *   concurrency     threads of the default execution space
 *   describe        "Cuda NVIDIA H100 80GB HBM3 (concurrency 270336)", "OpenMP (concurrency 16)"
 *   cacheBytes      the device's last-level cache (a CUDA GPU's L2); 0 where unknown (a host
 *                   space: the host's is read from the OS) */
#define REACT_KOKKOS_RUNTIME(X)                                                             \
  X(void, react_runtime_initialize, (void), initialize)                                     \
  X(void*, react_runtime_allocate, (size_t bytes), allocate)                                \
  X(void, react_runtime_release, (void* p), release)                                        \
  X(void, react_runtime_copy, (void* dst, const void* src, size_t bytes, int kind), copy)   \
  X(int, react_runtime_host_accessible, (void), hostAccessible)                             \
  X(int, react_runtime_concurrency, (void), concurrency)                                    \
  X(const char*, react_runtime_describe, (void), describe)                                 \
  X(long, react_runtime_cache_bytes, (void), cacheBytes)

/* Declared here, defined by the Kokkos prelude (src/lower/emit/kokkos_prelude.h): a definition that
 * differs from its declaration does not compile. */
#ifdef __cplusplus
extern "C" {
#endif
#define REACT_DECLARE_RUNTIME_FUNCTION(type, name, parameters, field) type name parameters;
REACT_KOKKOS_RUNTIME(REACT_DECLARE_RUNTIME_FUNCTION)
#undef REACT_DECLARE_RUNTIME_FUNCTION
#ifdef __cplusplus
}
#endif

#endif
