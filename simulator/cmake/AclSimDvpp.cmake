# The DVPP and model sources of acl_sim use the pixel kernels (acl_sim_imaging,
# built by imaging/CMakeLists.txt). Included by the simulator's CMakeLists after
# add_subdirectory(imaging): links them in and makes the installed package
# (find_package(acl_sim)) carry acl_sim_imaging, libturbojpeg and libavcodec/libavutil too.
if(NOT TARGET acl_sim_imaging)
  message(FATAL_ERROR "acl_sim needs simulator/imaging (target acl_sim_imaging)")
endif()
target_link_libraries(acl_sim PRIVATE acl_sim_imaging)

# libturbojpeg as an absolute path for the installed interface (the build uses
# whatever imaging/CMakeLists.txt found).
find_library(ACL_SIM_TURBOJPEG_LIBRARY NAMES turbojpeg)
find_library(ACL_SIM_AVCODEC_LIBRARY NAMES avcodec)
find_library(ACL_SIM_AVUTIL_LIBRARY NAMES avutil)
get_target_property(_acl_sim_imaging_links acl_sim_imaging INTERFACE_LINK_LIBRARIES)
list(TRANSFORM _acl_sim_imaging_links REPLACE "^(.+)$" "$<BUILD_INTERFACE:\\1>")
set_target_properties(acl_sim_imaging PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES
    "$<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/imaging/include>;$<INSTALL_INTERFACE:include>"
  INTERFACE_LINK_LIBRARIES
    "${_acl_sim_imaging_links};$<INSTALL_INTERFACE:Threads::Threads>;$<INSTALL_INTERFACE:${ACL_SIM_TURBOJPEG_LIBRARY}>;$<INSTALL_INTERFACE:${ACL_SIM_AVCODEC_LIBRARY}>;$<INSTALL_INTERFACE:${ACL_SIM_AVUTIL_LIBRARY}>")

if(ACL_SIM_INSTALL)
  include(GNUInstallDirs)
  install(TARGETS acl_sim_imaging EXPORT acl_simTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(DIRECTORY imaging/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endif()
