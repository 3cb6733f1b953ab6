# SPDX-License-Identifier: MIT
# cmake/gcoo_install.cmake: what `cmake --install` puts under the prefix, so that C, C++ and
# CMake projects can use gcoo the way they use HDF5 or PETSc:
#   include/gcoo/*.h                     headers (gcoo.h is the user API; backend.h and
#                                        template.h are installed for backend authors only)
#   lib/libgcoo.so.X.Y.Z, lib/libgcoo.a  shared and static library (same objects)
#   bin/gcoo_dist                        the command
#   lib/cmake/gcoo/                      CMake package: find_package(gcoo CONFIG) gives gcoo::gcoo
#                                        (shared) and gcoo::gcoo_static, with the usage
#                                        requirements (MPI, CUDA, HDF5, NCCL, MUMPS, OpenMP, zlib)
#                                        that this build used; FindNCCL.cmake and FindMUMPS.cmake
#                                        ride along
#   lib/pkgconfig/gcoo.pc                pkg-config file (Requires mpi-c, Requires.private HDF5 and
#                                        zlib, Libs.private CUDA/NCCL/MUMPS/OpenMP; rpath in Libs)
#   lib/pkgconfig/gcoo-static.pc         the same for libgcoo.a, named by its path
#   lib/libgcoo_fortran.so.X.Y.Z,        the Fortran module gcoo (fortran/, when a Fortran compiler
#   include/gcoo/fortran/*.mod           was found): its library and module files; the CMake
#   lib/pkgconfig/gcoo-fortran.pc        component Fortran (gcoo::gcoo_fortran) and pkg-config
#   share/gcoo/jobs/, share/doc/gcoo/    SLURM batch scripts, examples, docs and LICENSE
# Included at the end of the root CMakeLists.txt, once every target exists.
include(CMakePackageConfigHelpers)

set(GCOO_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/gcoo"
    CACHE STRING "Where the CMake package files of gcoo are installed (relative to the prefix)")
mark_as_advanced(GCOO_INSTALL_CMAKEDIR)

# ---- libraries and headers -----------------------------------------------------------------
# gcoo_deps is the interface target that carries the dependencies of libgcoo; it is exported
# (as gcoo::gcoo_deps) because gcoo and gcoo_static link it PUBLIC. gcoo_flags (warnings,
# sanitizers) is linked PRIVATE by the object library only, so it never reaches users.
install(TARGETS gcoo gcoo_static gcoo_deps
        EXPORT gcooTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT devel
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT devel
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(DIRECTORY include/gcoo DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT devel
        FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/gcoo/config.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gcoo COMPONENT devel)

# Installed binaries find libgcoo next to them ($ORIGIN/../lib) and the CUDA/NCCL/HDF5 libraries
# where this build found them (they are often outside the loader's default path on clusters).
file(RELATIVE_PATH _gcoo_bin_to_lib "/${CMAKE_INSTALL_BINDIR}" "/${CMAKE_INSTALL_LIBDIR}")
set_target_properties(gcoo PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
if(TARGET gcoo_dist)
  set_target_properties(gcoo_dist PROPERTIES INSTALL_RPATH "$ORIGIN/${_gcoo_bin_to_lib}"
                                             INSTALL_RPATH_USE_LINK_PATH ON)
  install(TARGETS gcoo_dist RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
endif()

# The Fortran module: a library of its own, with the module files of the compiler that built it
# (only that compiler reads them), in an export set of its own that gcooConfig.cmake loads for
# projects that use Fortran.
if(TARGET gcoo_fortran)
  install(TARGETS gcoo_fortran
          EXPORT gcooFortranTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT devel)
  get_target_property(_gcoo_fortran_modules gcoo_fortran Fortran_MODULE_DIRECTORY)
  install(DIRECTORY ${_gcoo_fortran_modules}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gcoo/fortran
          COMPONENT devel FILES_MATCHING PATTERN "*.mod")
endif()

# ---- CMake package ---------------------------------------------------------------------------
install(EXPORT gcooTargets NAMESPACE gcoo:: DESTINATION ${GCOO_INSTALL_CMAKEDIR} COMPONENT devel)
if(TARGET gcoo_fortran)
  install(EXPORT gcooFortranTargets NAMESPACE gcoo:: DESTINATION ${GCOO_INSTALL_CMAKEDIR}
          COMPONENT devel)
  string(REGEX MATCH "^[0-9]+" GCOO_Fortran_COMPILER_MAJOR "${CMAKE_Fortran_COMPILER_VERSION}")
endif()

configure_package_config_file(cmake/gcooConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/gcooConfig.cmake
  INSTALL_DESTINATION ${GCOO_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/gcooConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/gcooConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/gcooConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/FindNCCL.cmake
              ${PROJECT_SOURCE_DIR}/cmake/FindMUMPS.cmake
        DESTINATION ${GCOO_INSTALL_CMAKEDIR} COMPONENT devel)

# ---- pkg-config ------------------------------------------------------------------------------
include(cmake/gcoo_pkgconfig.cmake)

# ---- batch scripts, examples, documentation --------------------------------------------------
install(DIRECTORY jobs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/gcoo/jobs COMPONENT runtime
        USE_SOURCE_PERMISSIONS)
install(DIRECTORY examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples COMPONENT devel)
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT devel
        FILES_MATCHING PATTERN "*.md" PATTERN "*.png" PATTERN "*.svg")
install(FILES LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT runtime)
