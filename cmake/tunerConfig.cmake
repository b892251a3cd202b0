# tuner's CMake package, installed in PREFIX/lib/cmake/tuner: find_package(tuner CONFIG) sets
# TUNER_EXECUTABLE (PREFIX/bin/tuner) and defines tuner_add_kernel (docs/bundle.md#cmake).
if(CMAKE_VERSION VERSION_LESS 3.19)
  set(tuner_FOUND FALSE)
  set(tuner_NOT_FOUND_MESSAGE "tuner's CMake package needs CMake 3.19 or later")
  return()
endif()
get_filename_component(_tuner_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(TUNER_EXECUTABLE "${_tuner_prefix}/bin/tuner")
if(NOT EXISTS "${TUNER_EXECUTABLE}")
  set(tuner_FOUND FALSE)
  set(tuner_NOT_FOUND_MESSAGE "no ${TUNER_EXECUTABLE} beside ${CMAKE_CURRENT_LIST_FILE}")
  return()
endif()

# _tuner_architectures(TARGET CC...): compile TARGET for the compute capabilities CC (90, 80,
# ...) and those of its earlier kernels, each as SASS, the newest also as PTX: the -gencode
# flags a bundle's header names
function(_tuner_architectures target)
  get_target_property(ccs ${target} TUNER_ARCHITECTURES)
  if(NOT ccs)
    set(ccs "")
  endif()
  list(APPEND ccs ${ARGN})
  list(REMOVE_DUPLICATES ccs)
  list(SORT ccs COMPARE NATURAL)
  list(GET ccs -1 newest)
  set(archs "")
  foreach(cc IN LISTS ccs)
    if(cc STREQUAL newest)
      list(APPEND archs ${cc})
    else()
      list(APPEND archs ${cc}-real)
    endif()
  endforeach()
  set_target_properties(${target} PROPERTIES TUNER_ARCHITECTURES "${ccs}"
                                             CUDA_ARCHITECTURES "${archs}")
endfunction()

# tuner_add_kernel(<target> RESULTS <dir> [OUTPUT_DIR <dir>])
# RESULTS is a kernel's directory of GPU directories (out/<kernel>, as tuner bundle reads it):
# tuner bundle writes <kernel>_bundle.{cu,h} into OUTPUT_DIR (default: <target>'s binary
# directory's tuner/<target>) as a build step, again whenever a results.json, config.yaml or
# template.cu under RESULTS changes; the .cu is one of <target>'s sources, OUTPUT_DIR one of
# its include directories. Or RESULTS is one run's directory (out/<kernel>/<gpu>, with
# best.cu): it becomes an include directory, for the application's #include "best.cu".
# Either way <target>'s CUDA_ARCHITECTURES become the GPUs' compute capabilities, found at
# configure time: by tuner bundle into a scratch directory (its header's nvcc flags), or from
# the run's results.json. Each results.json is a configure dependency, so a change re-reads them.
function(tuner_add_kernel target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "RESULTS;OUTPUT_DIR" "")
  if(arg_UNPARSED_ARGUMENTS OR NOT arg_RESULTS)
    message(FATAL_ERROR "usage: tuner_add_kernel(<target> RESULTS <dir> [OUTPUT_DIR <dir>])")
  endif()
  get_filename_component(res "${arg_RESULTS}" ABSOLUTE)
  set(out "${arg_OUTPUT_DIR}")
  if(NOT out)
    set(out "${CMAKE_CURRENT_BINARY_DIR}/tuner/${target}")
  endif()
  get_filename_component(out "${out}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")

  if(EXISTS "${res}/best.cu")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${res}/results.json")
    file(READ "${res}/results.json" json)
    string(JSON cc ERROR_VARIABLE err GET "${json}" compute_capability)
    if(err)
      message(FATAL_ERROR "tuner_add_kernel: ${res}/results.json: no compute_capability: ${err}")
    endif()
    string(REPLACE "." "" cc "${cc}")
    target_include_directories(${target} PRIVATE "${res}")
    _tuner_architectures(${target} ${cc})
    return()
  endif()

  # what tuner bundle reads; CONFIGURE_DEPENDS: a GPU directory added or removed re-runs
  # CMake, which finds the new list and the new architectures
  file(GLOB_RECURSE deps CONFIGURE_DEPENDS "${res}/results.json" "${res}/config.yaml"
       "${res}/template.cu")
  file(GLOB_RECURSE jsons "${res}/results.json")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${jsons})

  set(probe "${CMAKE_CURRENT_BINARY_DIR}/tuner/${target}.probe")
  file(REMOVE_RECURSE "${probe}")
  execute_process(COMMAND "${TUNER_EXECUTABLE}" bundle -q --out "${probe}" "${res}"
                  RESULT_VARIABLE rc)
  file(GLOB h "${probe}/*_bundle.h")
  if(NOT rc EQUAL 0 OR NOT h)
    message(FATAL_ERROR "tuner_add_kernel: tuner bundle ${res} failed (exit ${rc})")
  endif()
  get_filename_component(kernel "${h}" NAME)
  string(REGEX REPLACE "_bundle\\.h$" "" kernel "${kernel}")
  file(STRINGS "${h}" flags REGEX "^ \\* nvcc flags: " LIMIT_COUNT 1)
  file(REMOVE_RECURSE "${probe}")
  string(REGEX MATCHALL "code=sm_[0-9]+" ccs "${flags}")
  string(REPLACE "code=sm_" "" ccs "${ccs}")
  if(NOT ccs)
    message(FATAL_ERROR "tuner_add_kernel: no 'nvcc flags: -gencode ...' in tuner bundle's header")
  endif()

  # the inputs' list, written when it changes: a GPU directory removed leaves only older
  # inputs, and the list re-runs tuner bundle then
  set(list "${CMAKE_CURRENT_BINARY_DIR}/tuner/${target}.${kernel}.inputs")
  string(REPLACE ";" "\n" text "${deps}")
  set(was "")
  if(EXISTS "${list}")
    file(READ "${list}" was)
  endif()
  if(NOT was STREQUAL text)
    file(WRITE "${list}" "${text}")
  endif()
  add_custom_command(OUTPUT "${out}/${kernel}_bundle.cu" "${out}/${kernel}_bundle.h"
                     COMMAND "${TUNER_EXECUTABLE}" bundle --out "${out}" "${res}"
                     DEPENDS "${TUNER_EXECUTABLE}" "${list}" ${deps}
                     COMMENT "tuner bundle ${res}" VERBATIM)
  target_sources(${target} PRIVATE "${out}/${kernel}_bundle.cu" "${out}/${kernel}_bundle.h")
  target_include_directories(${target} PRIVATE "${out}")
  _tuner_architectures(${target} ${ccs})
endfunction()
