# What `cmake --install` puts where (GNUInstallDirs), the CMake package
# (find_package(dglink CONFIG)), the pkg-config files and the Debian packages
# (cpack -G DEB); docs/install.md. Two components, one Debian package each:
#   runtime      dglink     the dispatch layer, the adapters, the runtime and support
#                           libraries (by SONAME), the dglink and dglink-post-link
#                           programs, the header device code includes, the docs
#   development  dglink-dev the public headers, the libraries' link-time names, the
#                           bundle library, the CMake package and the pkg-config files
# scripts/check-install.sh proves the result in CI.
include(CMakePackageConfigHelpers)

set(DGLINK_CMAKE_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/dglink)

# The libraries programs link: lib<name>.so.<major> and its file in runtime, the
# lib<name>.so link (what -l finds) in development.
install(TARGETS dglink_support dglink_dispatch dglink_runtime
  EXPORT dglinkTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT development
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The bundle reader and writer (compiler/bundle), for tools and runtimes that read bundles.
install(TARGETS dglink_bundle
  EXPORT dglinkTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development)
# `--strip` (and cpack, CPACK_STRIP_FILES) leave archives alone, and the archive's debug
# information names the build machine's source tree: strip that part only.
install(CODE "
  if(CMAKE_INSTALL_DO_STRIP)
    execute_process(COMMAND \"${CMAKE_STRIP}\" --strip-debug
      \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/$<TARGET_FILE_NAME:dglink_bundle>\"
      RESULT_VARIABLE StripResult)
    if(NOT StripResult EQUAL 0)
      message(FATAL_ERROR \"stripping the debug information of $<TARGET_FILE_NAME:dglink_bundle> failed\")
    endif()
  endif()" COMPONENT development)

# The adapters: the dispatch layer opens them by their SONAME beside itself; nothing
# links them, so they have no lib<name>.so link.
get_property(DglinkAdapters GLOBAL PROPERTY DGLINK_ADAPTER_TARGETS)
install(TARGETS ${DglinkAdapters}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_SKIP)
# The LLVM side of common/device_code (SPIR-V translation), which the OpenCL adapter
# opens from beside itself when a device takes no IL; nothing links it.
if(TARGET dglink_device_code_llvm)
  install(TARGETS dglink_device_code_llvm LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime)
endif()
# The Unified Runtime adapters (docs/ur.md), when the UR face is built: the UR loader
# opens them by the paths UR_ADAPTERS_FORCE_LOAD names.
get_property(DglinkUrAdapters GLOBAL PROPERTY DGLINK_UR_ADAPTERS)
if(DglinkUrAdapters)
  install(TARGETS ${DglinkUrAdapters} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime)
endif()

# The programs, also as imported targets (dglink::dglink, dglink::dglink-post-link) so
# that a project can compile its device code at build time.
set(DglinkPrograms dglink)
if(TARGET dglink-post-link)
  list(APPEND DglinkPrograms dglink-post-link)
endif()
install(TARGETS ${DglinkPrograms}
  EXPORT dglinkTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)

# The public headers only: the PI ABI, the dispatch layer's discovery API, the runtime's
# C++ API and CP027's symbol API, the bundle API with the two support headers it includes, the version.
install(FILES
  ${CMAKE_SOURCE_DIR}/include/dglink/pi.h
  ${CMAKE_SOURCE_DIR}/include/dglink/dispatch.h
  ${CMAKE_SOURCE_DIR}/include/dglink/runtime.h
  ${CMAKE_SOURCE_DIR}/include/dglink/symbol.h
  ${DGLINK_GENERATED_INCLUDE_DIR}/dglink/version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/dglink COMPONENT development)
install(FILES ${CMAKE_SOURCE_DIR}/compiler/include/dglink/compiler/bundle.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/dglink/compiler COMPONENT development)
install(FILES
  ${CMAKE_SOURCE_DIR}/common/support/include/dglink/support/api.h
  ${CMAKE_SOURCE_DIR}/common/support/include/dglink/support/image.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/dglink/support COMPONENT development)
# The header device code includes to declare device globals: dglink-post-link passes
# its folder to clang, so it comes with the program, not with the development files.
install(FILES ${CMAKE_SOURCE_DIR}/compiler/include/dglink/device_global.h
              ${CMAKE_SOURCE_DIR}/compiler/include/dglink/virtual_functions.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/dglink COMPONENT runtime)

install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT runtime)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs
  COMPONENT runtime FILES_MATCHING PATTERN "*.md")

# find_package(dglink CONFIG): dglink::pi, dglink::runtime, dglink::bundle,
# dglink::support and the programs; a version file that accepts the same major version.
install(EXPORT dglinkTargets NAMESPACE dglink:: DESTINATION ${DGLINK_CMAKE_PACKAGE_DIR}
  COMPONENT development)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/dglinkConfig.cmake.in
  ${CMAKE_BINARY_DIR}/package/dglinkConfig.cmake
  INSTALL_DESTINATION ${DGLINK_CMAKE_PACKAGE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/package/dglinkConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/package/dglinkConfig.cmake
              ${CMAKE_BINARY_DIR}/package/dglinkConfigVersion.cmake
  DESTINATION ${DGLINK_CMAKE_PACKAGE_DIR} COMPONENT development)

# pkg-config: dglink (the PI C API, libdglink_pi) and dglink-runtime (the C++ runtime).
# Their prefix is found from the .pc file's own folder, so the tree can move.
file(RELATIVE_PATH DGLINK_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig
     ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" DGLINK_PC_TO_PREFIX "${DGLINK_PC_TO_PREFIX}")
foreach(PcFile dglink dglink-runtime)
  configure_file(${CMAKE_SOURCE_DIR}/cmake/${PcFile}.pc.in ${CMAKE_BINARY_DIR}/package/${PcFile}.pc
                 @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/package/${PcFile}.pc
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT development)
endforeach()

# The Debian packages: cpack -G DEB in the build folder. Their dependencies are what
# dpkg-shlibdeps reads from the ELF files (the OpenCL ICD loader, LLVM 15, the C++
# library, ...) plus the Level Zero loader, which the Level Zero adapter opens at run
# time; CUDA and HIP are opened at run time too and stay optional (the adapters report
# zero platforms without them).
set(DGLINK_PACKAGE_CONTACT "dglink maintainers <dglink-maintainers@example.invalid>"
    CACHE STRING "The Maintainer of the Debian packages")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME dglink)
set(CPACK_PACKAGE_VENDOR dglink)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${DGLINK_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "PI backend adapters for device-global access and device-code linking")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime development)
set(CPACK_COMPONENT_DEVELOPMENT_DEPENDS runtime)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON) # dglink-dev: Depends dglink (= version)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY "=")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME dglink)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS "libze1")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_RECOMMENDS "clang-15, pocl-opencl-icd | opencl-icd")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SUGGESTS "lld-15, rocm-device-libs")
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION
    "PI backend adapters (Level Zero, OpenCL, CUDA, HIP) for device-global access and device-code linking\n\
libdglink_pi, the dispatch library a SYCL runtime loads, finds the adapters beside\n\
itself; the runtime library, and the dglink and dglink-post-link programs.")
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME dglink-dev)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SECTION libdevel)
set(CPACK_COMPONENT_DEVELOPMENT_DESCRIPTION
    "dglink development files\n\
The public headers, the bundle library, the CMake package (find_package(dglink)) and\n\
the pkg-config files of dglink.")
include(CPack)
