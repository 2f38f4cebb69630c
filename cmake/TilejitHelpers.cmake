# SPDX-License-Identifier: Apache-2.0
# Shared CMake helpers: warnings for our own targets, sanitizer flags, and test registration.

if(TILEJIT_SANITIZE)
  # -g1 (after the build type's -g, so it wins): line tables are all a sanitizer report needs.
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined -g1)
  add_link_options(-fsanitize=address,undefined)
endif()

# -Wall -Wextra -Werror on a target we own (never on generated or third-party code).
function(tilejit_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror)
endfunction()

# tilejit_add_library(name SOURCES...): a static library rooted at the repository top, so
# includes read "common/status.h".
function(tilejit_add_library name)
  add_library(${name} STATIC ${ARGN})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  tilejit_warnings(${name})
endfunction()

# tilejit_test_code(target): flags for test code, which is half of the build's compile time
# and almost none of the suite's run time. -O1 in optimised builds (the code under test keeps
# the build's flags). Unity batches: half of a test file's compile time is parsing the same
# headers (gtest, the IR), so a target's files compile in batches of up to 8 per translation
# unit (runner_tests: 66 s as 11 units, 20 s as one). A test file therefore keeps its helpers
# in an anonymous namespace with names that do not clash with its target's other files.
function(tilejit_test_code target)
  if(CMAKE_BUILD_TYPE MATCHES "^(RelWithDebInfo|Release)$")
    target_compile_options(${target} PRIVATE -O1)
  endif()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
endfunction()

# tilejit_add_test(name LABEL label SOURCES ... LIBS ...): one gtest binary, every case
# registered with CTest under the label (unit, e2e or heavy).
function(tilejit_add_test name)
  cmake_parse_arguments(T "" "LABEL;TIMEOUT" "SOURCES;LIBS" ${ARGN})
  if(NOT T_LABEL)
    set(T_LABEL unit)
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  add_executable(${name} ${T_SOURCES})
  tilejit_test_code(${name})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gmock GTest::gtest GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE
    TILEJIT_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    TILEJIT_TESTDATA_DIR="${TILEJIT_TESTDATA_DIR}"
    TILEJIT_SHARED_KERNELS_DIR="${TILEJIT_SHARED_KERNELS_DIR}")
  tilejit_warnings(${name})
  gtest_discover_tests(${name}
    PROPERTIES LABELS ${T_LABEL} TIMEOUT ${T_TIMEOUT}
    DISCOVERY_TIMEOUT 120)
endfunction()

# tilejit_install_configured(TEMPLATE DESTINATION NAME [VAR VALUE]...): installs TEMPLATE as
# DESTINATION/NAME (relative to the prefix) with its @VARIABLES@ filled in at install time.
# `cmake --install BUILD --prefix P` chooses the prefix only then, so a configure-time value
# such as CMAKE_INSTALL_FULL_BINDIR would name the configured prefix, not P. The script sets
# CMAKE_INSTALL_FULL_BINDIR, _LIBDIR and _DOCDIR from the install-time prefix, then each VAR
# (a VALUE may use them, escaped: "\${CMAKE_INSTALL_FULL_BINDIR}/tilejitd", and generator
# expressions). The file is written straight into $DESTDIR/prefix (never into the build tree,
# which two installs to different prefixes may share) and listed in install_manifest.txt.
function(tilejit_install_configured template destination name)
  set(code "")
  foreach(dir BINDIR LIBDIR DOCDIR)
    if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
      string(APPEND code "set(CMAKE_INSTALL_FULL_${dir} \"${CMAKE_INSTALL_${dir}}\")\n")
    else()
      string(APPEND code
        "set(CMAKE_INSTALL_FULL_${dir} \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_${dir}}\")\n")
    endif()
  endforeach()
  # Pairs by index: a list would drop an empty VALUE.
  math(EXPR last "${ARGC} - 1")
  if(last GREATER 2)
    foreach(i RANGE 3 ${last} 2)
      math(EXPR j "${i} + 1")
      string(APPEND code "set(${ARGV${i}} \"${ARGV${j}}\")\n")
    endforeach()
  endif()
  string(APPEND code "
    set(tilejit_configured_out \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${destination}/${name}\")
    message(STATUS \"Installing: \${tilejit_configured_out}\")
    configure_file(\"${template}\" \"\${tilejit_configured_out}\" @ONLY NO_SOURCE_PERMISSIONS)
    list(APPEND CMAKE_INSTALL_MANIFEST_FILES \"\${tilejit_configured_out}\")\n")
  install(CODE "${code}")
endfunction()
