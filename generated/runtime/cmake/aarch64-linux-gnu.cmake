# Cross-compiling for an aarch64 Atlas host from x86_64 (Debian/Ubuntu: apt install
# g++-aarch64-linux-gnu): cmake -S . -B build -DCMAKE_TOOLCHAIN_FILE=runtime/cmake/aarch64-linux-gnu.cmake
# With CANN, point DDK_PATH at the toolkit that holds the arm64-linux tree.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(ASCGEN_CROSS_PREFIX "aarch64-linux-gnu-" CACHE STRING "prefix of the cross compiler's executables")
set(CMAKE_C_COMPILER "${ASCGEN_CROSS_PREFIX}gcc")
set(CMAKE_CXX_COMPILER "${ASCGEN_CROSS_PREFIX}g++")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)  # the toolkit is found by absolute paths
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
