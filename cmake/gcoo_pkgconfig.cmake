# SPDX-License-Identifier: MIT
# cmake/gcoo_pkgconfig.cmake: write lib/pkgconfig/gcoo.pc (shared libgcoo, with an rpath so that
# programs find it at run time), gcoo-static.pc (libgcoo.a by its path) and, with the Fortran
# module, gcoo-fortran.pc, for builds that do not use CMake (Makefiles, autotools, Meson). The file is relocatable: its prefix is ${pcfiledir}/<up>, so
# `cmake --install build --prefix /anywhere` gives a working gcoo.pc without reconfiguring.
#
# What goes where, and why:
#   Requires          the MPI module (gcoo/dist.h and gcoo/h5.h include <mpi.h>, so a user's
#                     compile needs MPI's include path even for the local API)
#   Requires.private  HDF5 (parallel) and zlib: only needed to link libgcoo.a
#   Libs.private      CUDA runtime, cuSPARSE, cuBLAS, NCCL, MUMPS (with ScaLAPACK and LAPACK),
#                     OpenMP, threads, libm (no .pc files for them on most systems), for
#                     `pkg-config --static`
# A dependency whose .pc file is not found here is written out as -I/-L/-l flags instead.
find_package(PkgConfig QUIET)

# _gcoo_pc_first(<out> <module>...): the first module pkg-config knows, or "" (none / no pkg-config)
function(_gcoo_pc_first out)
  set(${out} "" PARENT_SCOPE)
  if(NOT PKG_CONFIG_EXECUTABLE)
    return()
  endif()
  foreach(m ${ARGN})
    execute_process(COMMAND ${PKG_CONFIG_EXECUTABLE} --exists ${m} RESULT_VARIABLE rc
                    OUTPUT_QUIET ERROR_QUIET)
    if(rc EQUAL 0)
      set(${out} ${m} PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()

# _gcoo_pc_libflags(<out> <library>...): linker flags for full paths, names and flags
#   /usr/lib/libfoo.so -> -L/usr/lib -lfoo;  foo -> -lfoo;  -pthread -> -pthread
function(_gcoo_pc_libflags out)
  set(flags "")
  foreach(lib ${ARGN})
    if(lib MATCHES "^-")
      list(APPEND flags "${lib}")
    elseif(IS_ABSOLUTE "${lib}")
      get_filename_component(dir "${lib}" DIRECTORY)
      get_filename_component(name "${lib}" NAME_WE)
      string(REGEX REPLACE "^lib" "" name "${name}")
      list(APPEND flags "-L${dir}" "-l${name}")
    elseif(lib MATCHES "^(debug|optimized|general)$")
      # keywords of old-style library lists: skip the keyword itself
    else()
      list(APPEND flags "-l${lib}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES flags)
  string(JOIN " " flags ${flags})
  set(${out} "${flags}" PARENT_SCOPE)
endfunction()

set(GCOO_PC_REQUIRES "")
set(GCOO_PC_REQUIRES_PRIVATE "")
set(GCOO_PC_CFLAGS_EXTRA "")
set(GCOO_PC_LIBS_EXTRA "")
set(_pc_private_libs "")

if(GCOO_HAVE_MPI)
  _gcoo_pc_first(_m mpi-c ompi-c mpich mpi)
  if(_m)
    list(APPEND GCOO_PC_REQUIRES ${_m})
  else()
    foreach(d ${MPI_C_INCLUDE_DIRS})
      string(APPEND GCOO_PC_CFLAGS_EXTRA " -I${d}")
    endforeach()
    _gcoo_pc_libflags(_f ${MPI_C_LIBRARIES})
    string(APPEND GCOO_PC_LIBS_EXTRA " ${_f}")
  endif()
endif()

if(GCOO_HAVE_HDF5)
  if(HDF5_IS_PARALLEL)
    _gcoo_pc_first(_h hdf5-openmpi hdf5-mpich hdf5-mpi hdf5)
  else()
    _gcoo_pc_first(_h hdf5-serial hdf5)
  endif()
  if(_h)
    list(APPEND GCOO_PC_REQUIRES_PRIVATE ${_h})
  else()
    list(APPEND _pc_private_libs ${HDF5_C_LIBRARIES} ${HDF5_LIBRARIES})
  endif()
endif()

_gcoo_pc_first(_z zlib)
if(_z)
  list(APPEND GCOO_PC_REQUIRES_PRIVATE ${_z})
else()
  list(APPEND _pc_private_libs ${ZLIB_LIBRARIES})
endif()

if(GCOO_HAVE_CUDA)
  # the CUDA objects of libgcoo.a are C++: a static link by a C compiler needs libstdc++
  # (cuBLAS is opened at run time, kernels/backend/cublas_lazy.c: not a link dependency)
  list(APPEND _pc_private_libs ${CUDA_cudart_LIBRARY} ${CUDA_cusparse_LIBRARY} ${CMAKE_DL_LIBS} stdc++)
endif()
if(GCOO_HAVE_NCCL)
  list(APPEND _pc_private_libs ${NCCL_LIBRARY})
endif()
if(GCOO_HAVE_MUMPS)
  list(APPEND _pc_private_libs ${MUMPS_LIBRARIES})
endif()
if(GCOO_HAVE_OPENMP)
  list(APPEND _pc_private_libs ${OpenMP_C_FLAGS})
endif()
if(GCOO_HAVE_LAPACK)
  list(APPEND _pc_private_libs ${LAPACK_LIBRARIES} ${BLAS_LIBRARIES})
endif()
list(APPEND _pc_private_libs ${CMAKE_THREAD_LIBS_INIT})
if(GCOO_LIBM)
  list(APPEND _pc_private_libs m)
endif()
_gcoo_pc_libflags(GCOO_PC_LIBS_PRIVATE ${_pc_private_libs})

string(JOIN " " GCOO_PC_REQUIRES ${GCOO_PC_REQUIRES})
string(JOIN " " GCOO_PC_REQUIRES_PRIVATE ${GCOO_PC_REQUIRES_PRIVATE})
string(STRIP "${GCOO_PC_CFLAGS_EXTRA}" GCOO_PC_CFLAGS_EXTRA)
string(STRIP "${GCOO_PC_LIBS_EXTRA}" GCOO_PC_LIBS_EXTRA)

# Path from lib/pkgconfig back to the prefix, for a relocatable prefix=${pcfiledir}/...
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(GCOO_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(GCOO_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  file(RELATIVE_PATH _up "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
  string(REGEX REPLACE "/$" "" _up "${_up}")
  set(GCOO_PC_PREFIX "\${pcfiledir}/${_up}")
  set(GCOO_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(GCOO_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(GCOO_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_BINDIR}")
  set(GCOO_PC_BINDIR "${CMAKE_INSTALL_BINDIR}")
else()
  set(GCOO_PC_BINDIR "\${prefix}/${CMAKE_INSTALL_BINDIR}")
endif()

configure_file(cmake/gcoo.pc.in ${PROJECT_BINARY_DIR}/gcoo.pc @ONLY)
configure_file(cmake/gcoo-static.pc.in ${PROJECT_BINARY_DIR}/gcoo-static.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/gcoo.pc ${PROJECT_BINARY_DIR}/gcoo-static.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT devel)
if(TARGET gcoo_fortran)
  # MPI's Fortran libraries when gcoo's module has the distributed part (Open MPI's ompi-fort;
  # programs that use mpi_f08 themselves compile with mpifort, which knows its module path)
  set(GCOO_PC_FORTRAN_REQUIRES "")
  if(GCOO_FORTRAN_MPI)
    _gcoo_pc_first(GCOO_PC_FORTRAN_REQUIRES ompi-fort mpi-fort)
  endif()
  configure_file(cmake/gcoo-fortran.pc.in ${PROJECT_BINARY_DIR}/gcoo-fortran.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/gcoo-fortran.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT devel)
endif()
