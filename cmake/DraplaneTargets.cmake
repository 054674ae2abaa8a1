# Helper functions that give every component the same shape:
#   draplane_library(NAME SRCS ... DEPS ...)   -> static library draplane_NAME
#   draplane_test(NAME SRCS ... DEPS ... [LABELS slow])
#                                              -> GoogleTest binary registered with ctest,
#                                                 labelled "unit", or "slow" when it takes long
#   draplane_benchmark(NAME SRCS ... DEPS ...) -> Google Benchmark binary
#   draplane_fuzzer(NAME SRCS ... DEPS ...)    -> libFuzzer binary (clang only)
# Include paths are rooted at src/, so code includes "api/codec.h".

function(draplane_library name)
  cmake_parse_arguments(ARG "" "" "SRCS;DEPS" ${ARGN})
  add_library(draplane_${name} STATIC ${ARG_SRCS})
  target_include_directories(draplane_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(draplane_${name} PUBLIC ${ARG_DEPS})
endfunction()

function(draplane_test name)
  if(NOT DRAPLANE_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "" "SRCS;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SRCS})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main)
  if(DRAPLANE_TSAN)
    # ThreadSanitizer sees Debian's (uninstrumented) abseil synchronise
    # through these annotations; -rdynamic lets them interpose the
    # library's own calls too.
    target_sources(${name} PRIVATE
        ${PROJECT_SOURCE_DIR}/src/testing/tsan_abseil_sync_annotations.cc)
    target_link_libraries(${name} PRIVATE ${CMAKE_DL_LIBS})
    target_link_options(${name} PRIVATE -rdynamic)
  endif()
  target_compile_definitions(${name} PRIVATE
      DRAPLANE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  include(GoogleTest)
  # One label per test (gtest_discover_tests cannot pass a list value):
  # "unit", or the one given (e.g. "slow").
  set(label unit)
  if(ARG_LABELS)
    set(label ${ARG_LABELS})
  endif()
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60
      PROPERTIES ENVIRONMENT "DRAPLANE_SOURCE_DIR=${PROJECT_SOURCE_DIR}"
                 LABELS ${label})
endfunction()

function(draplane_benchmark name)
  cmake_parse_arguments(ARG "" "" "SRCS;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SRCS})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} benchmark::benchmark
      draplane_malloc)
endfunction()

function(draplane_fuzzer name)
  cmake_parse_arguments(ARG "" "" "SRCS;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SRCS})
  target_compile_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(${name} PRIVATE ${ARG_DEPS})
endfunction()
