# Installation rules (completed by the packaging work, issue 6).
install(TARGETS gcoo gcoo_static gcoo_dist
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/gcoo DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/gcoo/config.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gcoo)
