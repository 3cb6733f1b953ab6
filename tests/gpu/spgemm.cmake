# tests/gpu/spgemm.cmake: GPU SpGEMM tests (helper spgemm); included from tests/gpu/CMakeLists.txt
# with include(${CMAKE_CURRENT_SOURCE_DIR}/spgemm.cmake). Exit 77 (skipped) without a GPU.
if(GCOO_HAVE_CUDA)
  gcoo_add_test(t503-spgemm-gpu SOURCES t503-spgemm-gpu.c LABELS gpu TIMEOUT 300)
  target_include_directories(t503-spgemm-gpu PRIVATE ${PROJECT_SOURCE_DIR}/kernels)
endif()
