# Finds Kokkos for the JIT, and Kokkos Kernels for react-bench's library baseline.
#
# react's host code is never compiled against Kokkos: JIT-compiled kernel libraries bring their
# own Kokkos runtime functions (lower.hpp, KokkosRuntime). What CMake finds here is how the JIT
# compiles them (compiler, flags, include directories, libraries to link), and, where a host
# Kokkos Kernels fits, the target react::kokkos_kernels for the baseline.
#
# Two kinds of install are supported:
#  * a standalone Kokkos (Serial, OpenMP or CUDA), found with -DKokkos_ROOT=...;
#  * Debian 12's libtrilinos-kokkos-dev, whose imported Kokkos::kokkos target is broken (its include
#    directory is /usr/lib/include), so we use the headers in /usr/include/trilinos and link the
#    trilinos_kokkos* libraries directly.
# Sets REACT_KOKKOS_JIT_CXX, REACT_KOKKOS_JIT_FLAGS, REACT_KOKKOS_LIBRARY_FILES (libraries and link
# flags for the JIT), REACT_KOKKOS_CUDA, REACT_KOKKOS_CUBLAS.
add_library(react_kokkos_kernels INTERFACE)
add_library(react::kokkos_kernels ALIAS react_kokkos_kernels)
set(REACT_HAVE_KOKKOS_KERNELS OFF)
set(REACT_KOKKOS_CUDA OFF)
set(REACT_KOKKOS_CUBLAS OFF)
set(REACT_KOKKOS_JIT_CXX "${CMAKE_CXX_COMPILER}")
set(REACT_KOKKOS_JIT_FLAGS "-O3 -march=native -std=c++17 -fPIC -shared -w")

if(Kokkos_ROOT OR DEFINED ENV{Kokkos_ROOT})
  find_package(Kokkos REQUIRED)
  set(REACT_KOKKOS_KIND "standalone (${Kokkos_DEVICES})")
  get_target_property(REACT_KOKKOS_INCLUDE_DIRS Kokkos::kokkoscore INTERFACE_INCLUDE_DIRECTORIES)
  get_target_property(REACT_KOKKOS_CORE_LOCATION Kokkos::kokkoscore LOCATION)
  # A shared Kokkos install is needed so that JIT-loaded kernels share one Kokkos runtime; the
  # rpath lets dlopen find it wherever it is installed.
  get_filename_component(REACT_KOKKOS_LIBRARY_DIR ${REACT_KOKKOS_CORE_LOCATION} DIRECTORY)
  set(REACT_KOKKOS_LIBRARY_FILES ${REACT_KOKKOS_CORE_LOCATION} "-Wl,-rpath,${REACT_KOKKOS_LIBRARY_DIR}")
  if("CUDA" IN_LIST Kokkos_DEVICES)
    # Kernels go through Kokkos' nvcc_wrapper for the architecture Kokkos was built for.
    set(REACT_KOKKOS_CUDA ON)
    find_program(REACT_NVCC_WRAPPER nvcc_wrapper HINTS ${Kokkos_ROOT} $ENV{Kokkos_ROOT} PATH_SUFFIXES bin REQUIRED)
    set(REACT_KOKKOS_JIT_CXX "${REACT_NVCC_WRAPPER}")
    # One CUDA runtime in the process: the kernels use the shared one that Kokkos links.
    set(REACT_KOKKOS_JIT_FLAGS "-O3 -std=c++17 -fPIC -shared -w --expt-extended-lambda --expt-relaxed-constexpr -cudart shared")
    if(Kokkos_CUDA_ARCHITECTURES)
      list(GET Kokkos_CUDA_ARCHITECTURES 0 REACT_CUDA_ARCH)
      string(APPEND REACT_KOKKOS_JIT_FLAGS " -arch=sm_${REACT_CUDA_ARCH}")
    endif()
    # A plain dense product in a kernel calls cuBLAS where the toolkit has it (passes/dense_product.cpp).
    find_package(CUDAToolkit QUIET)
    if(CUDAToolkit_FOUND AND TARGET CUDA::cublas)
      string(APPEND REACT_KOKKOS_JIT_FLAGS " -DREACT_HAVE_CUBLAS")
      list(APPEND REACT_KOKKOS_LIBRARY_FILES "-L${CUDAToolkit_LIBRARY_DIR}" "-lcublas" "-Wl,-rpath,${CUDAToolkit_LIBRARY_DIR}")
      set(REACT_KOKKOS_CUBLAS ON)
    endif()
  else()
    if("OPENMP" IN_LIST Kokkos_DEVICES)
      string(APPEND REACT_KOKKOS_JIT_FLAGS " -fopenmp")
    endif()
    # Only a Kokkos Kernels built against this Kokkos (Debian's is built against its own 3.4).
    find_package(KokkosKernels QUIET NO_CMAKE_SYSTEM_PATH NO_SYSTEM_ENVIRONMENT_PATH)
    if(KokkosKernels_FOUND AND TARGET Kokkos::kokkoskernels)
      target_link_libraries(react_kokkos_kernels INTERFACE Kokkos::kokkoskernels Kokkos::kokkos)
      set(REACT_HAVE_KOKKOS_KERNELS ON)
    endif()
  endif()
else()
  find_path(REACT_TRILINOS_INCLUDE Kokkos_Core.hpp PATHS /usr/include/trilinos REQUIRED)
  find_library(REACT_KOKKOS_CORE trilinos_kokkoscore REQUIRED)
  find_library(REACT_KOKKOS_CONTAINERS trilinos_kokkoscontainers REQUIRED)
  find_library(REACT_KOKKOS_KERNELS trilinos_kokkoskernels)
  if(REACT_KOKKOS_KERNELS)
    target_include_directories(react_kokkos_kernels SYSTEM INTERFACE ${REACT_TRILINOS_INCLUDE})
    target_link_libraries(react_kokkos_kernels INTERFACE ${REACT_KOKKOS_KERNELS} ${REACT_KOKKOS_CONTAINERS}
                                                         ${REACT_KOKKOS_CORE} Threads::Threads ${CMAKE_DL_LIBS})
    set(REACT_HAVE_KOKKOS_KERNELS ON)
  endif()
  set(REACT_KOKKOS_KIND "debian")
  set(REACT_KOKKOS_INCLUDE_DIRS ${REACT_TRILINOS_INCLUDE})
  set(REACT_KOKKOS_LIBRARY_FILES ${REACT_KOKKOS_CONTAINERS} ${REACT_KOKKOS_CORE})
endif()
foreach(dir ${REACT_KOKKOS_INCLUDE_DIRS})
  string(APPEND REACT_KOKKOS_JIT_FLAGS " -isystem ${dir}")
endforeach()
if(REACT_HAVE_KOKKOS_KERNELS)
  target_compile_definitions(react_kokkos_kernels INTERFACE REACT_HAVE_KOKKOS_KERNELS=1)
endif()
message(STATUS "react: Kokkos from ${REACT_KOKKOS_KIND} install, Kokkos Kernels: ${REACT_HAVE_KOKKOS_KERNELS}, cuBLAS: ${REACT_KOKKOS_CUBLAS}")
