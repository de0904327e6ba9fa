# Writes rockpack_build_info.hpp (what `rockpack --version` reports) from the source tree's
# `git describe`. Run at every build (cmake -P), it rewrites the header only when its content
# changes, so a new commit recompiles one file and an unchanged tree nothing.
#   cmake -DSOURCE_DIR=... -DOUTPUT=... -DBUILD_TYPE=... [-DGIT=git] -P build_info.cmake
set(ROCKPACK_GIT_DESCRIBE "")
if(GIT AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT}" describe --always --dirty --tags
                  WORKING_DIRECTORY "${SOURCE_DIR}" OUTPUT_VARIABLE ROCKPACK_GIT_DESCRIBE
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
set(CMAKE_BUILD_TYPE "${BUILD_TYPE}")
configure_file("${SOURCE_DIR}/cmake/build_info.hpp.in" "${OUTPUT}" @ONLY)
