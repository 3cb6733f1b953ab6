# FindMUMPS: the MPI build of the MUMPS sparse direct solver, double precision (libdmumps), for
# gcoo's LU preconditioner. MUMPS ships no CMake package, so gcoo brings this module.
# Looks in MUMPS_ROOT, $MUMPS_ROOT, $MUMPS_DIR and the system paths (Debian: libmumps-dev).
#
# MUMPS is Fortran with a C interface: besides libdmumps and libmumps_common a program links the
# PORD ordering (libpord, when a separate library), ScaLAPACK of the same MPI as the program,
# LAPACK and BLAS. Shared MUMPS libraries already name them; a static MUMPS needs them all on
# the line, so they are part of MUMPS_LIBRARIES either way. ScaLAPACK is picked for the MPI that
# FindMPI found (Debian: libscalapack-openmpi or libscalapack-mpich), and a test program is
# linked with MPI to check that MUMPS and this MPI fit together.
#
# Defines MUMPS_FOUND, MUMPS_INCLUDE_DIR, MUMPS_LIBRARIES, MUMPS_VERSION and the target
# MUMPS::MUMPS. Needs MPI::MPI_C (find_package(MPI COMPONENTS C) first).
set(_mumps_hints ${MUMPS_ROOT} $ENV{MUMPS_ROOT} $ENV{MUMPS_DIR})
find_path(MUMPS_INCLUDE_DIR dmumps_c.h HINTS ${_mumps_hints} PATH_SUFFIXES include include/mumps)
find_library(MUMPS_DMUMPS_LIBRARY NAMES dmumps HINTS ${_mumps_hints} PATH_SUFFIXES lib lib64)
find_library(MUMPS_COMMON_LIBRARY NAMES mumps_common HINTS ${_mumps_hints} PATH_SUFFIXES lib lib64)
find_library(MUMPS_PORD_LIBRARY NAMES pord HINTS ${_mumps_hints} PATH_SUFFIXES lib lib64)

# The checks compile in C, or in C++ for a project without C (MUMPS's headers are C and C++).
include(CheckSourceCompiles)
include(CMakePushCheckState)
get_property(_mumps_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
if("C" IN_LIST _mumps_languages)
  set(_mumps_lang C)
else()
  set(_mumps_lang CXX)
endif()

# ScaLAPACK of the MPI found: Open MPI or MPICH (and its derivatives), as its mpi.h says
set(_mumps_flavour "")
if(TARGET MPI::MPI_C)
  cmake_push_check_state(RESET)
  set(CMAKE_REQUIRED_QUIET TRUE)
  set(CMAKE_REQUIRED_LIBRARIES MPI::MPI_C)
  check_source_compiles(${_mumps_lang} "#include <mpi.h>
    #ifndef OPEN_MPI
    #error not Open MPI
    #endif
    int main(void) { return 0; }" MUMPS_MPI_IS_OPENMPI)
  check_source_compiles(${_mumps_lang} "#include <mpi.h>
    #ifndef MPICH_VERSION
    #error not MPICH
    #endif
    int main(void) { return 0; }" MUMPS_MPI_IS_MPICH)
  cmake_pop_check_state()
  if(MUMPS_MPI_IS_OPENMPI)
    set(_mumps_flavour openmpi)
  elseif(MUMPS_MPI_IS_MPICH)
    set(_mumps_flavour mpich)
  endif()
endif()
set(_mumps_scalapack_names scalapack)
if(_mumps_flavour)
  list(PREPEND _mumps_scalapack_names scalapack-${_mumps_flavour})
endif()
find_library(MUMPS_SCALAPACK_LIBRARY NAMES ${_mumps_scalapack_names}
             HINTS ${_mumps_hints} ${SCALAPACK_ROOT} $ENV{SCALAPACK_ROOT} PATH_SUFFIXES lib lib64)
if(NOT LAPACK_FOUND)
  find_package(LAPACK QUIET)
endif()

if(MUMPS_INCLUDE_DIR AND EXISTS "${MUMPS_INCLUDE_DIR}/dmumps_c.h")
  file(STRINGS "${MUMPS_INCLUDE_DIR}/dmumps_c.h" _mumps_ver REGEX "^#define MUMPS_VERSION \"")
  string(REGEX REPLACE ".*MUMPS_VERSION \"([0-9.]+)\".*" "\\1" MUMPS_VERSION "${_mumps_ver}")
endif()

set(MUMPS_LIBRARIES "")
if(MUMPS_DMUMPS_LIBRARY AND MUMPS_COMMON_LIBRARY AND MUMPS_SCALAPACK_LIBRARY AND LAPACK_FOUND)
  set(MUMPS_LIBRARIES ${MUMPS_DMUMPS_LIBRARY} ${MUMPS_COMMON_LIBRARY})
  if(MUMPS_PORD_LIBRARY)
    list(APPEND MUMPS_LIBRARIES ${MUMPS_PORD_LIBRARY})
  endif()
  list(APPEND MUMPS_LIBRARIES ${MUMPS_SCALAPACK_LIBRARY} ${LAPACK_LIBRARIES})
endif()

# a program calling dmumps_c through the C interface with this MPI must link
set(_mumps_links FALSE)
if(MUMPS_LIBRARIES AND MUMPS_INCLUDE_DIR AND TARGET MPI::MPI_C)
  cmake_push_check_state(RESET)
  set(CMAKE_REQUIRED_QUIET TRUE)
  set(CMAKE_REQUIRED_INCLUDES ${MUMPS_INCLUDE_DIR})
  set(CMAKE_REQUIRED_LIBRARIES ${MUMPS_LIBRARIES} MPI::MPI_C)
  check_source_compiles(${_mumps_lang} "
    #include <dmumps_c.h>
    int main(void) { void (*call)(DMUMPS_STRUC_C *) = dmumps_c; return call == 0; }"
    MUMPS_LINKS_WITH_MPI)
  cmake_pop_check_state()
  set(_mumps_links ${MUMPS_LINKS_WITH_MPI})
  if(NOT _mumps_links)
    message(STATUS "MUMPS: ${MUMPS_DMUMPS_LIBRARY} does not link with the MPI found "
                   "(${_mumps_flavour}); set MUMPS_ROOT to a MUMPS of that MPI")
  endif()
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(MUMPS
  REQUIRED_VARS MUMPS_DMUMPS_LIBRARY MUMPS_COMMON_LIBRARY MUMPS_SCALAPACK_LIBRARY
                MUMPS_INCLUDE_DIR LAPACK_FOUND _mumps_links
  VERSION_VAR MUMPS_VERSION)
if(MUMPS_FOUND AND NOT TARGET MUMPS::MUMPS)
  add_library(MUMPS::MUMPS INTERFACE IMPORTED)
  set_target_properties(MUMPS::MUMPS PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${MUMPS_INCLUDE_DIR}"
                        INTERFACE_LINK_LIBRARIES "${MUMPS_LIBRARIES}")
endif()
mark_as_advanced(MUMPS_INCLUDE_DIR MUMPS_DMUMPS_LIBRARY MUMPS_COMMON_LIBRARY MUMPS_PORD_LIBRARY
                 MUMPS_SCALAPACK_LIBRARY)
