// Fault injection and call counting reach the DVPP descriptor entry points
// (check_api_enter.py checks every exported function statically).
#define ENABLE_DVPP_INTERFACE
#include "acl/ops/acl_dvpp.h"
#include "check.h"
#include "session.h"

using namespace testing_sim;

TEST(faults, dvpp_descriptor_calls_count_and_fail) {
  CHECK_OK(open_device(0.05));
  CHECK_OK(aclsimSetFaults(
      "acldvppCreatePicDesc:2,acldvppSetPicDescWidth:1,acldvppCreateChannelDesc:1,"
      "acldvppCreateResizeConfig:1,acldvppCreateRoiConfig:1,acldvppGetPicDescWidth:1"));
  acldvppPicDesc* pic = acldvppCreatePicDesc();
  CHECK(pic != nullptr);
  CHECK(acldvppCreatePicDesc() == nullptr);
  CHECK(acldvppSetPicDescWidth(pic, 16) != ACL_SUCCESS);
  CHECK_OK(acldvppSetPicDescWidth(pic, 16));
  CHECK_EQ(acldvppGetPicDescWidth(pic), 0u);  // injected: the failure value
  CHECK_EQ(acldvppGetPicDescWidth(pic), 16u);
  CHECK(acldvppCreateChannelDesc() == nullptr);
  CHECK(acldvppCreateResizeConfig() == nullptr);
  CHECK(acldvppCreateRoiConfig(0, 15, 0, 15) == nullptr);
  CHECK_EQ(aclsimCallCount("acldvppCreatePicDesc"), 2u);
  CHECK_EQ(aclsimCallCount("acldvppSetPicDescWidth"), 2u);
  CHECK_OK(acldvppDestroyPicDesc(pic));
  CHECK_EQ(aclsimCallCount("acldvppDestroyPicDesc"), 1u);
}
