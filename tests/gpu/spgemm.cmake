# tests/gpu/spgemm.cmake: GPU SpGEMM tests (helper spgemm); included from tests/gpu/CMakeLists.txt
# with include(${CMAKE_CURRENT_SOURCE_DIR}/spgemm.cmake). t503 exits 77 (skipped) without a GPU;
# t505 runs the SpGEMM kernels on the CPU emulator (tests/common/cuda_emu.h) on every machine where
# CUDA's headers are.
if(GCOO_HAVE_CUDA)
  gcoo_add_test(t503-spgemm-gpu SOURCES t503-spgemm-gpu.c LABELS gpu TIMEOUT 300)
  # the same with every product sampled and predicted (none computed at its bounds)
  gcoo_add_test(t503-spgemm-gpu SOURCES t503-spgemm-gpu.c LABELS gpu TIMEOUT 300 ARGS --sampled)
  target_include_directories(t503-spgemm-gpu PRIVATE ${PROJECT_SOURCE_DIR}/kernels)

  add_library(gcoo_spgemm_emu STATIC ${CMAKE_CURRENT_LIST_DIR}/emu/emu_spgemm.cpp)
  target_compile_definitions(gcoo_spgemm_emu PUBLIC GCOO_CUDA_EMULATE)
  target_compile_options(gcoo_spgemm_emu PRIVATE -Wno-unknown-pragmas
                         $<$<CXX_COMPILER_ID:GNU>:-Wno-clobbered>)
  target_include_directories(gcoo_spgemm_emu PUBLIC ${PROJECT_SOURCE_DIR}/kernels
                                                    ${PROJECT_SOURCE_DIR}/tests/common
                                                    ${PROJECT_SOURCE_DIR}/src)
  target_include_directories(gcoo_spgemm_emu SYSTEM PUBLIC ${CUDAToolkit_INCLUDE_DIRS})
  target_link_libraries(gcoo_spgemm_emu PUBLIC gcoo gcoo_flags Threads::Threads)
  gcoo_add_test(t505-spgemm-emulated SOURCES t505-spgemm-emulated.c LABELS unit
                LIBS gcoo_spgemm_emu TIMEOUT 600)
endif()
