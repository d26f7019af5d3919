# How a generated program is built: its CMakeLists.txt includes this file and calls
# ascgen_add_program() with what is its own (name, runtime sources, default paths, device
# profile). CMake 3.10 at least: the oldest of the systems CANN supports (Ubuntu 18.04).
#
# The program builds against CANN when a toolkit is found, else against the ascgen AscendCL
# simulator. The toolkit is looked for as the CANN samples do: ASCEND_HOME_PATH,
# ASCEND_TOOLKIT_HOME, DDK_PATH, $HOME/Ascend/ascend-toolkit/latest (non-root install),
# /usr/local/Ascend/ascend-toolkit/latest, /usr/local/Ascend/cann; libraries from NPU_HOST_LIB
# alone when it is set, else, as the samples default it, the toolkit's link stubs first
# (runtime/lib64/stub, acllib/lib64/stub), then its lib64 for a layout without stubs (at run
# time the real libraries come from LD_LIBRARY_PATH, as set_env.sh sets it, so no RPATH points
# at them).
# Options:
#   -DASCGEN_BACKEND=auto|cann|sim   which AscendCL to link (default auto)
#   -DASCGEN_SANITIZE=address|thread ASan+UBSan, or TSan (-DASCGEN_SANITIZE_OPT: ascgen_flags.cmake)
#   -DASCGEN_SIMULATOR_DIR=PATH      the simulator's sources (default: the program's SIMULATOR_DIR)
#   -DASCGEN_RUNTIME_DIR=PATH        the ascgen runtime (default: the runtime/ folder generated
#                                    with the program)
#   -DASCGEN_RUNTIME_LIBRARY=FILE    the runtime's .cpp files compiled beforehand, with the
#                                    program's flags and backend (ascgen's build cache keeps one
#                                    per configuration); default: compiled here
#   -DCMAKE_TOOLCHAIN_FILE=RUNTIME/cmake/aarch64-linux-gnu.cmake
#                                    cross-compile for an aarch64 Atlas host (the toolkit's
#                                    arm64-linux tree is used when it has one)

set(ASCGEN_BACKEND "auto" CACHE STRING "AscendCL to link: auto, cann or sim")
set(ASCGEN_RUNTIME_LIBRARY "" CACHE FILEPATH "the runtime's .cpp files compiled beforehand (empty: compiled here)")
# The language level, the build type and the sanitizers: shared with the runtime library.
include("${CMAKE_CURRENT_LIST_DIR}/ascgen_flags.cmake")

# ascgen_add_program(NAME SOURCES file...
#   SIMULATOR_DIR dir        the simulator's sources, the default of -DASCGEN_SIMULATOR_DIR
#   RUNTIME_SOURCES file...  the runtime's .cpp files the program uses (in ASCGEN_RUNTIME_DIR)
#   DEFAULT_INPUT path       the default of --input
#   CANN_MODEL path          the default of --model against CANN (the spec's .om file)
#   SIM_MODEL path           the default of --model against the simulator (its model descriptor)
#   SIM_PROFILE path         the simulated device's profile
#   [CANN_OBJECTS_MODEL path SIM_OBJECTS_MODEL path]  the objects part's model (graph specs)
#   [CANN_LIBRARIES lib...]  CANN libraries beyond ascendcl, acl_dvpp and msprofiler
#   [HOST_DECODER])          link FFmpeg's libavcodec when found, for --verify of video streams
function(ascgen_add_program name)
  cmake_parse_arguments(arg "HOST_DECODER"
    "SIMULATOR_DIR;DEFAULT_INPUT;CANN_MODEL;SIM_MODEL;SIM_PROFILE;CANN_OBJECTS_MODEL;SIM_OBJECTS_MODEL"
    "SOURCES;RUNTIME_SOURCES;CANN_LIBRARIES" ${ARGN})
  set(ASCGEN_SIMULATOR_DIR "${arg_SIMULATOR_DIR}" CACHE PATH "ascgen simulator sources")

  set(cann_root "")
  foreach(candidate "$ENV{ASCEND_HOME_PATH}" "$ENV{ASCEND_TOOLKIT_HOME}" "$ENV{DDK_PATH}"
          "$ENV{HOME}/Ascend/ascend-toolkit/latest" "/usr/local/Ascend/ascend-toolkit/latest" "/usr/local/Ascend/cann")
    if(NOT cann_root AND candidate AND EXISTS "${candidate}")
      set(cann_root "${candidate}")
    endif()
  endforeach()
  if(cann_root AND CMAKE_CROSSCOMPILING AND CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64" AND EXISTS "${cann_root}/arm64-linux")
    set(cann_root "${cann_root}/arm64-linux")
  endif()
  set(backend "${ASCGEN_BACKEND}")
  if(backend STREQUAL "auto")
    set(backend "sim")
    if(cann_root)
      set(backend "cann")
    endif()
  endif()

  add_executable(${name} ${arg_SOURCES})
  if(ASCGEN_RUNTIME_LIBRARY)
    target_link_libraries(${name} PRIVATE "${ASCGEN_RUNTIME_LIBRARY}")
  else()
    foreach(source ${arg_RUNTIME_SOURCES})
      target_sources(${name} PRIVATE "${ASCGEN_RUNTIME_DIR}/${source}")
    endforeach()
  endif()
  target_include_directories(${name} PRIVATE "${ASCGEN_RUNTIME_DIR}")
  target_compile_options(${name} PRIVATE -Wall -Wextra -Werror)
  target_compile_definitions(${name} PRIVATE ENABLE_DVPP_INTERFACE ASCGEN_DEFAULT_INPUT="${arg_DEFAULT_INPUT}")
  find_package(Threads REQUIRED)
  target_link_libraries(${name} PRIVATE Threads::Threads)
  if(arg_HOST_DECODER)
    # --verify decodes each stream's file on the host with FFmpeg's libavcodec (ascgen_video_verify.h);
    # without it the program runs and refuses --verify.
    find_path(ascgen_avcodec_include libavcodec/avcodec.h)
    find_library(ascgen_avcodec avcodec)
    find_library(ascgen_avutil avutil)
    if(ascgen_avcodec_include AND ascgen_avcodec AND ascgen_avutil)
      target_include_directories(${name} SYSTEM PRIVATE "${ascgen_avcodec_include}")
      target_link_libraries(${name} PRIVATE "${ascgen_avcodec}" "${ascgen_avutil}")
      target_compile_definitions(${name} PRIVATE ASCGEN_HOST_DECODER=1)
    else()
      message(STATUS "${name}: libavcodec not found (Debian: apt-get install libavcodec-dev): --verify is refused")
    endif()
  endif()

  if(backend STREQUAL "cann")
    if(NOT cann_root)
      message(FATAL_ERROR "ASCGEN_BACKEND=cann but no toolkit found: source set_env.sh, or set DDK_PATH")
    endif()
    # SYSTEM: a warning inside CANN's headers must not fail this -Werror build.
    foreach(dir "${cann_root}/include" "${cann_root}/runtime/include" "${cann_root}/acllib/include")
      if(EXISTS "${dir}")
        target_include_directories(${name} SYSTEM PRIVATE "${dir}")
      endif()
    endforeach()
    # The samples link the stubs ($DDK_PATH/runtime/lib64/stub unless NPU_HOST_LIB says
    # otherwise): the real lib64 libraries need the driver's libraries to link.
    if(DEFINED ENV{NPU_HOST_LIB} AND NOT "$ENV{NPU_HOST_LIB}" STREQUAL "")
      set(cann_lib_dirs "$ENV{NPU_HOST_LIB}")
    else()
      set(cann_lib_dirs "${cann_root}/runtime/lib64/stub" "${cann_root}/acllib/lib64/stub" "${cann_root}/lib64")
    endif()
    # msprofiler: the profiling API (aclprof*, --profile), which CANN ships apart from ascendcl.
    foreach(lib ascendcl acl_dvpp msprofiler ${arg_CANN_LIBRARIES})
      find_library(ascgen_${lib} ${lib} PATHS ${cann_lib_dirs} NO_DEFAULT_PATH)
      if(NOT ascgen_${lib})
        string(REPLACE ";" ", " searched "${cann_lib_dirs}")
        message(FATAL_ERROR "lib${lib}.so not found in ${searched}; set NPU_HOST_LIB to the folder that has it")
      endif()
      target_link_libraries(${name} PRIVATE "${ascgen_${lib}}")
    endforeach()
    target_link_libraries(${name} PRIVATE dl rt)
    set_target_properties(${name} PROPERTIES SKIP_BUILD_RPATH TRUE INSTALL_RPATH "")
    target_compile_definitions(${name} PRIVATE ASCGEN_BACKEND_SIM=0 ASCGEN_DEFAULT_MODEL="${arg_CANN_MODEL}")
    if(arg_CANN_OBJECTS_MODEL)
      target_compile_definitions(${name} PRIVATE ASCGEN_OBJECTS_MODEL="${arg_CANN_OBJECTS_MODEL}")
    endif()
  elseif(backend STREQUAL "sim")
    # The simulated device and model are baked in, so the binary runs from any directory;
    # the environment variable ACL_SIM_PROFILE and the flag --model override them.
    # An installed simulator only where the caller points at one (CMAKE_PREFIX_PATH, acl_sim_DIR,
    # acl_sim_ROOT: ascgen build's keyed install): one left in a system prefix (/usr/local) by
    # an older checkout would otherwise shadow the sources this program was generated with.
    find_package(acl_sim CONFIG QUIET NO_SYSTEM_ENVIRONMENT_PATH NO_CMAKE_PACKAGE_REGISTRY NO_CMAKE_SYSTEM_PATH
      NO_CMAKE_SYSTEM_PACKAGE_REGISTRY)
    if(NOT TARGET acl_sim::acl_sim)
      add_subdirectory("${ASCGEN_SIMULATOR_DIR}" acl_sim EXCLUDE_FROM_ALL)
    endif()
    target_link_libraries(${name} PRIVATE acl_sim::acl_sim)
    target_compile_definitions(${name} PRIVATE ASCGEN_BACKEND_SIM=1 ASCGEN_SIM_PROFILE="${arg_SIM_PROFILE}"
      ASCGEN_DEFAULT_MODEL="${arg_SIM_MODEL}")
    if(arg_SIM_OBJECTS_MODEL)
      target_compile_definitions(${name} PRIVATE ASCGEN_OBJECTS_MODEL="${arg_SIM_OBJECTS_MODEL}")
    endif()
  else()
    message(FATAL_ERROR "ASCGEN_BACKEND must be auto, cann or sim, not '${ASCGEN_BACKEND}'")
  endif()
  message(STATUS "${name}: AscendCL backend ${backend}")
endfunction()
