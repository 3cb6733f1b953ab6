# tests/unit/spgemm.cmake: predictor and CPU SpGEMM tests (helper spgemm); included from
# tests/unit/CMakeLists.txt with include(${CMAKE_CURRENT_SOURCE_DIR}/spgemm.cmake).
gcoo_add_test(t501-predict SOURCES t501-predict.c LABELS unit TIMEOUT 120)
gcoo_add_test(t502-spgemm-cpu SOURCES t502-spgemm-cpu.c LABELS unit TIMEOUT 120)
