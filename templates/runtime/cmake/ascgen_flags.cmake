# The compiler flags of a generated program and of the runtime's .cpp files, one place for both:
# a program's build (ascgen_program.cmake) includes it, and so does the build of a prebuilt runtime library
# (-DASCGEN_RUNTIME_LIBRARY=), whose objects must be compiled as the program's are.
#   -DASCGEN_SANITIZE=address|thread   ASan+UBSan, or TSan
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE Release)
endif()

set(ASCGEN_SANITIZE "" CACHE STRING "address (ASan+UBSan) or thread (TSan)")
if(ASCGEN_SANITIZE STREQUAL "address")
  set(sanitize_flags -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
elseif(ASCGEN_SANITIZE STREQUAL "thread")
  set(sanitize_flags -fsanitize=thread)
elseif(ASCGEN_SANITIZE)
  message(FATAL_ERROR "ASCGEN_SANITIZE must be address or thread, not '${ASCGEN_SANITIZE}'")
endif()
add_compile_options(${sanitize_flags})
string(REPLACE ";" " " sanitize_link "${sanitize_flags}")
set(CMAKE_EXE_LINKER_FLAGS "${CMAKE_EXE_LINKER_FLAGS} ${sanitize_link}")
set(CMAKE_SHARED_LINKER_FLAGS "${CMAKE_SHARED_LINKER_FLAGS} ${sanitize_link}")
# Sanitizer builds are also debug builds: assert() and libstdc++'s checks live, and
# -O1 as the sanitizers recommend (a third of -O3's compile time under ASan+UBSan);
# -DASCGEN_SANITIZE_OPT=-O0 compiles ASan+UBSan in 60 % of -O1's time (ascgen's test builds).
set(ASCGEN_SANITIZE_OPT "-O1" CACHE STRING "the sanitizer builds' optimisation level")
if(ASCGEN_SANITIZE)
  add_compile_options(${ASCGEN_SANITIZE_OPT} -UNDEBUG -D_GLIBCXX_ASSERTIONS)
endif()
