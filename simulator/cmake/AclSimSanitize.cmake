# ACL_SIM_SANITIZE=address|thread: instrument everything built in this tree
# (library, imaging kernels, tests) so no uninstrumented code calls back in.
if(ACL_SIM_SANITIZE STREQUAL "address")
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
elseif(ACL_SIM_SANITIZE STREQUAL "thread")
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
elseif(NOT ACL_SIM_SANITIZE STREQUAL "")
  message(FATAL_ERROR "ACL_SIM_SANITIZE must be '', 'address' or 'thread', not '${ACL_SIM_SANITIZE}'")
endif()
# Sanitizer builds are also the debug builds: assert() live whatever the build
# type, and libstdc++'s own checks (bounds of operator[], front() of empty, ...);
# -O1 as the sanitizers recommend (much faster to compile than -O2/-O3).
if(NOT ACL_SIM_SANITIZE STREQUAL "")
  add_compile_options(-O1 -UNDEBUG -D_GLIBCXX_ASSERTIONS)
endif()
