# bench/spdm.cmake: the SpDM benchmark (helper kernels); included from bench/CMakeLists.txt.
# spdm_bench needs the CUDA backend; bench/run_spdm.sh and bench/gpu_spdm_call.sh drive it.
if(GCOO_HAVE_CUDA)
  add_executable(spdm_bench
    ${CMAKE_CURRENT_LIST_DIR}/spdm_bench.c
    ${CMAKE_CURRENT_LIST_DIR}/spdm_measure.c
    ${CMAKE_CURRENT_LIST_DIR}/spdm_bsr.c
    ${CMAKE_CURRENT_LIST_DIR}/spdm_gen.c
    ${CMAKE_CURRENT_LIST_DIR}/spdm_order.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_stat.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_list.c
    ${CMAKE_CURRENT_LIST_DIR}/spdm_bench_cuda.cu)
  target_link_libraries(spdm_bench PRIVATE gcoo gcoo_flags CUDA::cudart CUDA::cublas CUDA::cusparse)
  target_include_directories(spdm_bench PRIVATE ${PROJECT_SOURCE_DIR}/kernels)
  if(GCOO_HAVE_OPENMP)
    target_link_libraries(spdm_bench PRIVATE OpenMP::OpenMP_C)
  endif()
  # the row orders' column reuse on the CPU (bench/order_stats.c; no GPU needed)
  add_executable(order_stats ${CMAKE_CURRENT_LIST_DIR}/order_stats.c
                             ${CMAKE_CURRENT_LIST_DIR}/spdm_order.c)
  target_link_libraries(order_stats PRIVATE gcoo gcoo_flags)
  target_include_directories(order_stats PRIVATE ${PROJECT_SOURCE_DIR}/kernels)
endif()
