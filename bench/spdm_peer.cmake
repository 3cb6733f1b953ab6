# bench/spdm_peer.cmake: spdm_peer_bench, gcoo AUTO and cuSPARSE beside a peer SpMM library loaded
# at run time (bench/spdm_peer.h; docs/kernels.md, "Peers"); included from bench/CMakeLists.txt.
# It shares spdm_bench's measurement (spdm_measure.c) and generators (spdm_gen.c).
if(GCOO_HAVE_CUDA)
  add_executable(spdm_peer_bench
    ${CMAKE_CURRENT_LIST_DIR}/spdm_peer.c
    ${CMAKE_CURRENT_LIST_DIR}/spdm_measure.c
    ${CMAKE_CURRENT_LIST_DIR}/spdm_bsr.c
    ${CMAKE_CURRENT_LIST_DIR}/spdm_gen.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_stat.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_list.c
    ${CMAKE_CURRENT_LIST_DIR}/spdm_bench_cuda.cu)
  target_link_libraries(spdm_peer_bench PRIVATE gcoo gcoo_flags CUDA::cudart CUDA::cublas
                        CUDA::cusparse ${CMAKE_DL_LIBS})
  target_include_directories(spdm_peer_bench PRIVATE ${PROJECT_SOURCE_DIR}/kernels)
  if(GCOO_HAVE_OPENMP)
    target_link_libraries(spdm_peer_bench PRIVATE OpenMP::OpenMP_C)
  endif()
endif()
