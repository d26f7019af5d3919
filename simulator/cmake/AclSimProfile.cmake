# Resolves ACL_SIM_DEFAULT_PROFILE. When the cache variable is empty, try to
# generate the ascend310 flat profile with the ascgen Python package so ctest
# works out of the box; otherwise leave it empty (aclInit then needs
# ACL_SIM_PROFILE and says so).
if(ACL_SIM_DEFAULT_PROFILE STREQUAL "")
  find_package(Python3 COMPONENTS Interpreter QUIET)
  set(_acl_sim_flat ${CMAKE_CURRENT_BINARY_DIR}/profiles/ascend310.flat)
  if(Python3_Interpreter_FOUND)
    execute_process(
      COMMAND ${Python3_EXECUTABLE} -m ascgen profile ascend310 --flat
      OUTPUT_VARIABLE _acl_sim_profile_text
      RESULT_VARIABLE _acl_sim_profile_rc
      ERROR_QUIET)
    if(_acl_sim_profile_rc EQUAL 0 AND _acl_sim_profile_text MATCHES "memory.device_bytes")
      file(WRITE ${_acl_sim_flat} "${_acl_sim_profile_text}")
      set(ACL_SIM_DEFAULT_PROFILE ${_acl_sim_flat})
    endif()
  endif()
  if(ACL_SIM_DEFAULT_PROFILE STREQUAL "")
    message(WARNING "acl_sim: no ACL_SIM_DEFAULT_PROFILE and `python -m ascgen profile` failed; "
                    "programs must set ACL_SIM_PROFILE")
  else()
    message(STATUS "acl_sim: default profile ${ACL_SIM_DEFAULT_PROFILE}")
  endif()
endif()
