# tests/gpu/spdm.cmake: the SpDM GPU tests (helper kernels); included from
# tests/gpu/CMakeLists.txt. t300-t303, t305 (the tensor-core mode) and t307 (staged host-device
# copies) need a GPU (exit 77 without one); t304 (the dispatch rule), t306 (cuBLAS loaded lazily; its GPU half where there is one)
# and t309 (the kernels on the CPU emulator, tests/common/cuda_emu.h) run anywhere CUDA's headers are.
if(GCOO_HAVE_CUDA)
  add_library(gcoo_gpu_test_util STATIC ${CMAKE_CURRENT_LIST_DIR}/gpu_test_util.c)
  target_link_libraries(gcoo_gpu_test_util PUBLIC gcoo_test_util)
  target_include_directories(gcoo_gpu_test_util PUBLIC ${CMAKE_CURRENT_LIST_DIR}
                                                       ${PROJECT_SOURCE_DIR}/kernels)
  foreach(t t300-cuda-ctx t301-cuda-convert t302-cuda-spdm t303-cuda-tuned t305-cuda-tc
            t307-staged-copy)
    gcoo_add_test(${t} SOURCES ${CMAKE_CURRENT_LIST_DIR}/${t}.c LABELS gpu
                  LIBS gcoo_gpu_test_util TIMEOUT 180)
  endforeach()
  gcoo_add_test(t304-dispatch SOURCES ${CMAKE_CURRENT_LIST_DIR}/t304-dispatch.c LABELS unit
                LIBS gcoo_gpu_test_util)
  # cuBLAS opened at its first use (kernels/backend/cublas_lazy.c): runs without a GPU too (the load, and
  # the clear error for a missing library); with one, the first BLAS calls
  foreach(args "" missing)
    gcoo_add_test(t306-cublas-lazy SOURCES ${CMAKE_CURRENT_LIST_DIR}/t306-cublas-lazy.c
                  LABELS unit gpu LIBS gcoo_gpu_test_util ARGS ${args})
  endforeach()

  add_library(gcoo_kernels_emu STATIC
    ${CMAKE_CURRENT_LIST_DIR}/emu/emu_spdm_tuned.cpp
    ${CMAKE_CURRENT_LIST_DIR}/emu/emu_spdm_resident.cpp
    ${CMAKE_CURRENT_LIST_DIR}/emu/emu_spdm_split.cpp
    ${CMAKE_CURRENT_LIST_DIR}/emu/emu_spdm_batched.cpp
    ${CMAKE_CURRENT_LIST_DIR}/emu/emu_spdm_tc.cpp
    ${CMAKE_CURRENT_LIST_DIR}/emu/emu_spdm_faithful.cpp
    ${CMAKE_CURRENT_LIST_DIR}/emu/emu_convert.cpp)
  target_compile_definitions(gcoo_kernels_emu PUBLIC GCOO_CUDA_EMULATE)
  # getcontext() "returns twice" to GCC's eye (-Wclobbered), but the emulator only uses it to
  # initialise contexts for makecontext(): nothing is resumed there.
  target_compile_options(gcoo_kernels_emu PRIVATE -Wno-unknown-pragmas
                         $<$<CXX_COMPILER_ID:GNU>:-Wno-clobbered>)
  target_include_directories(gcoo_kernels_emu PUBLIC ${PROJECT_SOURCE_DIR}/kernels
                                                      ${PROJECT_SOURCE_DIR}/tests/common)
  target_include_directories(gcoo_kernels_emu SYSTEM PUBLIC ${CUDAToolkit_INCLUDE_DIRS})
  target_link_libraries(gcoo_kernels_emu PUBLIC gcoo gcoo_flags Threads::Threads)
  gcoo_add_test(t309-kernels-emulated SOURCES ${CMAKE_CURRENT_LIST_DIR}/t309-kernels-emulated.c
                LABELS unit LIBS gcoo_kernels_emu gcoo_gpu_test_util TIMEOUT 300)
endif()
