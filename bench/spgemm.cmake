# bench/spgemm.cmake: the SpGEMM and predictor benchmarks (helper spgemm); included from
# bench/CMakeLists.txt with include(${CMAKE_CURRENT_SOURCE_DIR}/spgemm.cmake).
add_executable(predict_accuracy ${CMAKE_CURRENT_LIST_DIR}/predict_accuracy.c)
add_executable(predict_rooms ${CMAKE_CURRENT_LIST_DIR}/predict_rooms.c)
target_link_libraries(predict_rooms PRIVATE gcoo gcoo_flags)
target_link_libraries(predict_accuracy PRIVATE gcoo gcoo_flags)
if(GCOO_HAVE_CUDA)
  add_executable(spgemm_bench ${CMAKE_CURRENT_LIST_DIR}/spgemm_bench.c)
  target_link_libraries(spgemm_bench PRIVATE gcoo gcoo_flags)
  target_include_directories(spgemm_bench PRIVATE ${PROJECT_SOURCE_DIR}/kernels)
endif()
