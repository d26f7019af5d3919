// Create, destroy, set and get of the VDEC V1 descriptors (vdec_desc.h).
// Setters on a NULL descriptor return ACL_ERROR_INVALID_PARAM (rule args.non_null);
// getters return the documented defaults (0, NULL, H265_MAIN_LEVEL) for NULL.
#include "vdec/vdec_desc.h"

#include <new>

#include "api/api.h"
#include "rules/rules.h"

using namespace sim;

namespace {

template <typename T, typename V>
aclError set_field(const char* api, T* desc, V T::* field, V value) {
  if (desc == nullptr) return null_arg(api, "descriptor");
  desc->*field = value;
  return ACL_SUCCESS;
}

template <typename T, typename V>
V get_field(const T* desc, V T::* field, V fallback) {
  return desc != nullptr ? desc->*field : fallback;
}

}  // namespace

extern "C" {

aclvdecChannelDesc* aclvdecCreateChannelDesc() {
  SIM_API_ENTER_OR(nullptr);
  return new (std::nothrow) aclvdecChannelDesc;
}

aclError aclvdecDestroyChannelDesc(aclvdecChannelDesc* channelDesc) {
  SIM_API_ENTER();
  if (channelDesc == nullptr) return null_arg(__func__, "channelDesc");
  if (channelDesc->channel)
    return raise_rule(Rule::kVdecChannelState, ACL_ERROR_INVALID_PARAM, __func__,
                      "channel %u is still created: aclvdecDestroyChannel first",
                      channelDesc->channelId);
  delete channelDesc;
  return ACL_SUCCESS;
}

aclError aclvdecSetChannelDescChannelId(aclvdecChannelDesc* d, uint32_t channelId) {
  SIM_API_ENTER();
  return set_field(__func__, d, &aclvdecChannelDesc::channelId, channelId);
}
aclError aclvdecSetChannelDescThreadId(aclvdecChannelDesc* d, uint64_t threadId) {
  SIM_API_ENTER();
  return set_field(__func__, d, &aclvdecChannelDesc::threadId, threadId);
}
aclError aclvdecSetChannelDescCallback(aclvdecChannelDesc* d, aclvdecCallback callback) {
  SIM_API_ENTER();
  return set_field(__func__, d, &aclvdecChannelDesc::callback, callback);
}
aclError aclvdecSetChannelDescEnType(aclvdecChannelDesc* d, acldvppStreamFormat enType) {
  SIM_API_ENTER();
  return set_field(__func__, d, &aclvdecChannelDesc::enType, enType);
}
aclError aclvdecSetChannelDescOutPicFormat(aclvdecChannelDesc* d, acldvppPixelFormat format) {
  SIM_API_ENTER();
  return set_field(__func__, d, &aclvdecChannelDesc::outPicFormat, format);
}
aclError aclvdecSetChannelDescOutPicWidth(aclvdecChannelDesc* d, uint32_t width) {
  SIM_API_ENTER();
  return set_field(__func__, d, &aclvdecChannelDesc::outPicWidth, width);
}
aclError aclvdecSetChannelDescOutPicHeight(aclvdecChannelDesc* d, uint32_t height) {
  SIM_API_ENTER();
  return set_field(__func__, d, &aclvdecChannelDesc::outPicHeight, height);
}
aclError aclvdecSetChannelDescRefFrameNum(aclvdecChannelDesc* d, uint32_t refFrameNum) {
  SIM_API_ENTER();
  return set_field(__func__, d, &aclvdecChannelDesc::refFrameNum, refFrameNum);
}

uint32_t aclvdecGetChannelDescChannelId(const aclvdecChannelDesc* d) {
  SIM_API_ENTER_OR(0u);
  return get_field(d, &aclvdecChannelDesc::channelId, 0u);
}
uint64_t aclvdecGetChannelDescThreadId(const aclvdecChannelDesc* d) {
  SIM_API_ENTER_OR(uint64_t{0});
  return get_field(d, &aclvdecChannelDesc::threadId, uint64_t{0});
}
aclvdecCallback aclvdecGetChannelDescCallback(const aclvdecChannelDesc* d) {
  SIM_API_ENTER_OR(static_cast<aclvdecCallback>(nullptr));
  return get_field(d, &aclvdecChannelDesc::callback, static_cast<aclvdecCallback>(nullptr));
}
acldvppStreamFormat aclvdecGetChannelDescEnType(const aclvdecChannelDesc* d) {
  SIM_API_ENTER_OR(H265_MAIN_LEVEL);
  return get_field(d, &aclvdecChannelDesc::enType, H265_MAIN_LEVEL);
}
acldvppPixelFormat aclvdecGetChannelDescOutPicFormat(const aclvdecChannelDesc* d) {
  SIM_API_ENTER_OR(PIXEL_FORMAT_YUV_SEMIPLANAR_420);
  return get_field(d, &aclvdecChannelDesc::outPicFormat, PIXEL_FORMAT_YUV_SEMIPLANAR_420);
}
uint32_t aclvdecGetChannelDescOutPicWidth(const aclvdecChannelDesc* d) {
  SIM_API_ENTER_OR(0u);
  return get_field(d, &aclvdecChannelDesc::outPicWidth, 0u);
}
uint32_t aclvdecGetChannelDescOutPicHeight(const aclvdecChannelDesc* d) {
  SIM_API_ENTER_OR(0u);
  return get_field(d, &aclvdecChannelDesc::outPicHeight, 0u);
}
uint32_t aclvdecGetChannelDescRefFrameNum(const aclvdecChannelDesc* d) {
  SIM_API_ENTER_OR(0u);
  return get_field(d, &aclvdecChannelDesc::refFrameNum, 0u);
}

acldvppStreamDesc* acldvppCreateStreamDesc() {
  SIM_API_ENTER_OR(nullptr);
  return new (std::nothrow) acldvppStreamDesc;
}
aclError acldvppDestroyStreamDesc(acldvppStreamDesc* streamDesc) {
  SIM_API_ENTER();
  if (streamDesc == nullptr) return null_arg(__func__, "streamDesc");
  delete streamDesc;
  return ACL_SUCCESS;
}
aclError acldvppSetStreamDescData(acldvppStreamDesc* d, void* dataDev) {
  SIM_API_ENTER();
  return set_field(__func__, d, &acldvppStreamDesc::data, dataDev);
}
aclError acldvppSetStreamDescSize(acldvppStreamDesc* d, uint32_t size) {
  SIM_API_ENTER();
  return set_field(__func__, d, &acldvppStreamDesc::size, size);
}
aclError acldvppSetStreamDescFormat(acldvppStreamDesc* d, acldvppStreamFormat format) {
  SIM_API_ENTER();
  return set_field(__func__, d, &acldvppStreamDesc::format, format);
}
aclError acldvppSetStreamDescTimestamp(acldvppStreamDesc* d, uint64_t timestamp) {
  SIM_API_ENTER();
  return set_field(__func__, d, &acldvppStreamDesc::timestamp, timestamp);
}
aclError acldvppSetStreamDescRetCode(acldvppStreamDesc* d, uint32_t retCode) {
  SIM_API_ENTER();
  return set_field(__func__, d, &acldvppStreamDesc::retCode, retCode);
}
aclError acldvppSetStreamDescEos(acldvppStreamDesc* d, uint8_t eos) {
  SIM_API_ENTER();
  return set_field(__func__, d, &acldvppStreamDesc::eos, eos);
}
void* acldvppGetStreamDescData(const acldvppStreamDesc* d) {
  SIM_API_ENTER_OR(static_cast<void*>(nullptr));
  return get_field(d, &acldvppStreamDesc::data, static_cast<void*>(nullptr));
}
uint32_t acldvppGetStreamDescSize(const acldvppStreamDesc* d) {
  SIM_API_ENTER_OR(0u);
  return get_field(d, &acldvppStreamDesc::size, 0u);
}
acldvppStreamFormat acldvppGetStreamDescFormat(const acldvppStreamDesc* d) {
  SIM_API_ENTER_OR(H264_BASELINE_LEVEL);
  return get_field(d, &acldvppStreamDesc::format, H264_BASELINE_LEVEL);
}
uint64_t acldvppGetStreamDescTimestamp(const acldvppStreamDesc* d) {
  SIM_API_ENTER_OR(uint64_t{0});
  return get_field(d, &acldvppStreamDesc::timestamp, uint64_t{0});
}
uint32_t acldvppGetStreamDescRetCode(const acldvppStreamDesc* d) {
  SIM_API_ENTER_OR(0u);
  return get_field(d, &acldvppStreamDesc::retCode, 0u);
}
uint8_t acldvppGetStreamDescEos(const acldvppStreamDesc* d) {
  SIM_API_ENTER_OR(uint8_t{0});
  return get_field(d, &acldvppStreamDesc::eos, uint8_t{0});
}

aclvdecFrameConfig* aclvdecCreateFrameConfig() {
  SIM_API_ENTER_OR(nullptr);
  return new (std::nothrow) aclvdecFrameConfig;
}
aclError aclvdecDestroyFrameConfig(aclvdecFrameConfig* vdecFrameConfig) {
  SIM_API_ENTER();
  if (vdecFrameConfig == nullptr) return null_arg(__func__, "vdecFrameConfig");
  delete vdecFrameConfig;
  return ACL_SUCCESS;
}

}  // extern "C"
