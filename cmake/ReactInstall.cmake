# `cmake --install build --prefix P` gives a relocatable react: the stage libraries and their
# public headers, the CMake package (find_package(react CONFIG), target react::react) and the apps
# (apps/CMakeLists.txt). The JIT needs nothing from the install at run time: the kernels' preludes
# (the Kokkos runtime shim included) are strings in the emitters, and the compiler, flags and
# Kokkos paths it runs are compiled into react_lower (jit_config.hpp; system paths only).
#
# Headers keep the layout of src/ under include/react/, so "lower/lower.hpp" includes the same way
# in the build tree and in an installed one.
include(CMakePackageConfigHelpers)

set(REACT_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/react)
# Installed executables keep the rpath of libraries outside the project (a standalone Kokkos for
# react-bench); the build-tree rpath is dropped.
set(CMAKE_INSTALL_RPATH_USE_LINK_PATH ON)

# react_install_library(<target> <stage> <public headers>...): installs a stage library as
# react::<stage> and its public headers as include/react/<stage>/. Internal headers (internal.hpp,
# emitter.hpp, the generated jit_config.hpp and abi_text.hpp) are not listed: no public header
# includes them.
function(react_install_library target stage)
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${stage})
  install(TARGETS ${target} EXPORT react-targets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES ${ARGN} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/react/${stage})
endfunction()

# The export set is filled by react_install_library and src/lower's react::react; CMake resolves
# it when it generates, so it may be declared before the targets.
install(EXPORT react-targets NAMESPACE react:: DESTINATION ${REACT_INSTALL_CMAKEDIR})
configure_package_config_file(cmake/react-config.cmake.in ${PROJECT_BINARY_DIR}/react-config.cmake
                              INSTALL_DESTINATION ${REACT_INSTALL_CMAKEDIR})
# 0.x: a new minor version may change the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/react-config-version.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/react-config.cmake ${PROJECT_BINARY_DIR}/react-config-version.cmake
        DESTINATION ${REACT_INSTALL_CMAKEDIR})
