# bench/spgemm.cmake: the SpGEMM and predictor benchmarks (helper spgemm); included from
# bench/CMakeLists.txt with include(${CMAKE_CURRENT_SOURCE_DIR}/spgemm.cmake).
add_executable(predict_accuracy ${CMAKE_CURRENT_LIST_DIR}/predict_accuracy.c)
add_executable(predict_rooms ${CMAKE_CURRENT_LIST_DIR}/predict_rooms.c)
target_link_libraries(predict_rooms PRIVATE gcoo gcoo_flags)
target_link_libraries(predict_accuracy PRIVATE gcoo gcoo_flags)
if(GCOO_HAVE_CUDA)
  # the peers (bench/spgemm_peer.h) are shared libraries loaded at run time (dlopen)
  add_executable(spgemm_bench ${CMAKE_CURRENT_LIST_DIR}/spgemm_bench.c
                              ${CMAKE_CURRENT_LIST_DIR}/spgemm_peers.c
                              ${CMAKE_CURRENT_LIST_DIR}/bench_stat.c
                              ${CMAKE_CURRENT_LIST_DIR}/bench_list.c)
  target_link_libraries(spgemm_bench PRIVATE gcoo gcoo_flags CUDA::cudart ${CMAKE_DL_LIBS})
  target_include_directories(spgemm_bench PRIVATE ${PROJECT_SOURCE_DIR}/kernels)
endif()
