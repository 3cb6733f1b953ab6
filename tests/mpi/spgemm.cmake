# tests/mpi/spgemm.cmake: distributed SpGEMM tests (helper spgemm); included from
# tests/mpi/CMakeLists.txt with include(${CMAKE_CURRENT_SOURCE_DIR}/spgemm.cmake).
gcoo_add_test(t504-spgemm-dist SOURCES t504-spgemm-dist.c LABELS mpi RANKS 1 2 3 4 TIMEOUT 120)
