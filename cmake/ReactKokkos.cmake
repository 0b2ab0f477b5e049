# Finds Kokkos (+ Kokkos Kernels when present) and exposes it as the target react::kokkos.
#
# Two kinds of install are supported:
#  * a standalone Kokkos (any backend), found with -DKokkos_ROOT=... through its Kokkos::kokkos target;
#  * Debian 12's libtrilinos-kokkos-dev, whose imported Kokkos::kokkos target is broken (its include
#    directory is /usr/lib/include), so we use the headers in /usr/include/trilinos and link the
#    trilinos_kokkos* libraries directly.
add_library(react_kokkos INTERFACE)
add_library(react::kokkos ALIAS react_kokkos)
set(REACT_HAVE_KOKKOS_KERNELS OFF)

if(Kokkos_ROOT OR DEFINED ENV{Kokkos_ROOT})
  find_package(Kokkos REQUIRED)
  target_link_libraries(react_kokkos INTERFACE Kokkos::kokkos)
  # Only a Kokkos Kernels built against this Kokkos (Debian's is built against its own 3.4).
  find_package(KokkosKernels QUIET NO_CMAKE_SYSTEM_PATH NO_SYSTEM_ENVIRONMENT_PATH)
  if(KokkosKernels_FOUND AND TARGET Kokkos::kokkoskernels)
    target_link_libraries(react_kokkos INTERFACE Kokkos::kokkoskernels)
    set(REACT_HAVE_KOKKOS_KERNELS ON)
  endif()
  set(REACT_KOKKOS_KIND "standalone")
  # For the JIT: the installed headers and shared libraries (a shared Kokkos install is needed so
  # that JIT-loaded kernels and the host share one Kokkos runtime).
  get_target_property(REACT_KOKKOS_INCLUDE_DIRS Kokkos::kokkoscore INTERFACE_INCLUDE_DIRECTORIES)
  get_target_property(REACT_KOKKOS_CORE_LOCATION Kokkos::kokkoscore LOCATION)
  set(REACT_KOKKOS_LIBRARY_FILES ${REACT_KOKKOS_CORE_LOCATION})
  if("OPENMP" IN_LIST Kokkos_DEVICES)
    set(REACT_KOKKOS_JIT_EXTRA_FLAGS "-fopenmp")
  endif()
else()
  find_path(REACT_TRILINOS_INCLUDE Kokkos_Core.hpp PATHS /usr/include/trilinos REQUIRED)
  find_library(REACT_KOKKOS_CORE trilinos_kokkoscore REQUIRED)
  find_library(REACT_KOKKOS_CONTAINERS trilinos_kokkoscontainers REQUIRED)
  find_library(REACT_KOKKOS_KERNELS trilinos_kokkoskernels)
  target_include_directories(react_kokkos SYSTEM INTERFACE ${REACT_TRILINOS_INCLUDE})
  if(REACT_KOKKOS_KERNELS)
    target_link_libraries(react_kokkos INTERFACE ${REACT_KOKKOS_KERNELS})
    set(REACT_HAVE_KOKKOS_KERNELS ON)
  endif()
  target_link_libraries(react_kokkos INTERFACE ${REACT_KOKKOS_CONTAINERS} ${REACT_KOKKOS_CORE} Threads::Threads ${CMAKE_DL_LIBS})
  set(REACT_KOKKOS_KIND "debian")
  set(REACT_KOKKOS_INCLUDE_DIRS ${REACT_TRILINOS_INCLUDE})
  set(REACT_KOKKOS_LIBRARY_FILES ${REACT_KOKKOS_CONTAINERS} ${REACT_KOKKOS_CORE})
endif()
if(REACT_HAVE_KOKKOS_KERNELS)
  target_compile_definitions(react_kokkos INTERFACE REACT_HAVE_KOKKOS_KERNELS=1)
endif()
message(STATUS "react: Kokkos from ${REACT_KOKKOS_KIND} install, Kokkos Kernels: ${REACT_HAVE_KOKKOS_KERNELS}")
