# SPDX-License-Identifier: Apache-2.0
# cmake -DLIB=libtilejit_runtime.so -DNM=nm -P check_runtime_exports.cmake
# Fails unless the library's dynamic symbol table defines the C ABI's entry points and nothing
# else: no C++ symbol of the static tilejit libraries linked into it may leak to a host
# process (where it could clash with another copy, e.g. torch's or a second tilejit).
cmake_minimum_required(VERSION 3.25)
execute_process(COMMAND ${NM} -D --defined-only ${LIB}
                OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} -D ${LIB} failed (${rc})")
endif()
string(REPLACE "\n" ";" lines "${out}")
set(exported)
foreach(line IN LISTS lines)
  # "<address> <type> <name>"
  if(line MATCHES "^[0-9a-fA-F]+ [A-Za-z] ([^ ]+)$")
    set(name ${CMAKE_MATCH_1})
    if(NOT name MATCHES "^tj_")
      message(FATAL_ERROR "${LIB} exports ${name}, which is not part of the tj_* C ABI")
    endif()
    list(APPEND exported ${name})
  endif()
endforeach()
foreach(required tj_runtime_version tj_last_error tj_module_load tj_launch tj_report_free)
  if(NOT required IN_LIST exported)
    message(FATAL_ERROR "${LIB} does not export ${required}")
  endif()
endforeach()
list(LENGTH exported n)
message(STATUS "${LIB}: ${n} exported symbols, all tj_*")
