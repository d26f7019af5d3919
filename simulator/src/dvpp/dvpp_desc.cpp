// DVPP descriptor objects: the acldvpp* create/destroy/set/get entry points
// and the channel lifecycle. Validation lives in dvpp_check.cpp.
#include "dvpp/dvpp_desc.h"

#include "api/api.h"
#include "api/runtime.h"
#include "dvpp/dvpp_rules.h"
#include "vdec/vdec_mix.h"

#include <atomic>
#include <mutex>
#include <new>
#include <unordered_set>

namespace sim::dvpp {
namespace {

struct Counters {
  std::atomic<long> pic{0}, batch{0}, roi{0}, resize{0}, channel_desc{0}, channels{0};
  std::atomic<uint64_t> next_channel_id{0};
};

Counters& counters() {
  static Counters c;
  return c;
}

template <class T, class... Args>
T* make(std::atomic<long>& live, Args&&... args) {
  T* obj = new (std::nothrow) T{std::forward<Args>(args)...};
  if (obj != nullptr) ++live;
  return obj;
}

template <class T>
aclError destroy(T* obj, std::atomic<long>& live) {
  if (obj == nullptr) return ACL_ERROR_INVALID_PARAM;
  delete obj;
  --live;
  return ACL_SUCCESS;
}

template <class T, class F>
aclError set(T* obj, F&& assign) {
  if (obj == nullptr) return ACL_ERROR_INVALID_PARAM;
  assign(*obj);
  return ACL_SUCCESS;
}

// Channel descriptors not yet destroyed: acldvppDestroyChannel must tell a live descriptor
// from one acldvppDestroyChannelDesc already freed (rule dvpp.channel_desc_order).
std::mutex& channel_descs_mu() {
  static auto* m = new std::mutex;  // never destroyed, as the rule registries
  return *m;
}
std::unordered_set<const acldvppChannelDesc*>& channel_descs() {
  static auto* s = new std::unordered_set<const acldvppChannelDesc*>;
  return *s;
}
bool channel_desc_live(const acldvppChannelDesc* desc) {
  std::lock_guard<std::mutex> lock(channel_descs_mu());
  return channel_descs().count(desc) != 0;
}

constexpr uint32_t kAllChannelModes = DVPP_CHNMODE_VPC | DVPP_CHNMODE_JPEGD | DVPP_CHNMODE_JPEGE;

}  // namespace

LiveCounts live_counts() {
  Counters& c = counters();
  return LiveCounts{c.pic.load(),    c.batch.load(),        c.roi.load(),
                    c.resize.load(), c.channel_desc.load(), c.channels.load()};
}

}  // namespace sim::dvpp

using sim::dvpp::counters;

// ---- channels ----------------------------------------------------------------

acldvppChannelDesc* acldvppCreateChannelDesc() {
  SIM_API_ENTER_OR(nullptr);
  acldvppChannelDesc* desc = sim::dvpp::make<acldvppChannelDesc>(counters().channel_desc);
  if (desc != nullptr) {
    std::lock_guard<std::mutex> lock(sim::dvpp::channel_descs_mu());
    sim::dvpp::channel_descs().insert(desc);
  }
  return desc;
}

aclError acldvppDestroyChannelDesc(acldvppChannelDesc* channelDesc) {
  SIM_API_ENTER();
  if (channelDesc == nullptr || !sim::dvpp::channel_desc_live(channelDesc))
    return ACL_ERROR_INVALID_PARAM;
  // CANN expects acldvppDestroyChannel first (a later acldvppDestroyChannel reports an
  // error): rule dvpp.channel_desc_order. The channel is released here so that its count
  // stays right.
  if (channelDesc->created) {
    sim::dvpp::channel_desc_destroyed_first(__func__, channelDesc);
    --counters().channels;
  }
  {
    std::lock_guard<std::mutex> lock(sim::dvpp::channel_descs_mu());
    sim::dvpp::channel_descs().erase(channelDesc);
  }
  return sim::dvpp::destroy(channelDesc, counters().channel_desc);
}

uint64_t acldvppGetChannelDescChannelId(const acldvppChannelDesc* channelDesc) {
  SIM_API_ENTER_OR(0);
  return channelDesc == nullptr ? 0 : channelDesc->channelId;
}

aclError acldvppSetChannelDescMode(acldvppChannelDesc* channelDesc, uint32_t mode) {
  SIM_API_ENTER();
  if (channelDesc == nullptr || channelDesc->created) return ACL_ERROR_INVALID_PARAM;
  if (mode == 0 || (mode & ~sim::dvpp::kAllChannelModes) != 0) return ACL_ERROR_INVALID_PARAM;
  channelDesc->mode = mode;
  return ACL_SUCCESS;
}

// Bookkeeping, in the calling thread's current context: a channel is a device resource, and
// a thread uses a context's resources only after aclrtSetDevice / aclrtSetCurrentContext
// (ACL_FACTS 1.4; DVPP V1 flow: aclInit, aclrtSetDevice, then the channel [hicann/docs
// DVPP_V1_JPEGD.md]): 107002 otherwise, argument check context.current_required. Per-device
// channel limits and the creation cost on the timeline are not modelled.
aclError acldvppCreateChannel(acldvppChannelDesc* channelDesc) {
  SIM_API_ENTER();
  if (aclError rc = sim::require_context(__func__)) return rc;
  if (channelDesc == nullptr || channelDesc->created) return ACL_ERROR_INVALID_PARAM;
  if (aclError rc =
          sim::vdec::use(sim::vdec::DvppApi::kV1, __func__, ACL_ERROR_FEATURE_UNSUPPORTED))
    return rc;
  channelDesc->channelId = counters().next_channel_id++;
  channelDesc->created = true;
  ++counters().channels;
  return ACL_SUCCESS;
}

aclError acldvppDestroyChannel(acldvppChannelDesc* channelDesc) {
  SIM_API_ENTER();
  if (channelDesc == nullptr) return ACL_ERROR_INVALID_PARAM;
  if (!sim::dvpp::channel_desc_live(channelDesc))
    return sim::dvpp::channel_desc_gone(__func__, channelDesc);
  if (!channelDesc->created) return ACL_ERROR_INVALID_PARAM;
  sim::dvpp::channel_destroyed(__func__, channelDesc);
  channelDesc->created = false;
  --counters().channels;
  return ACL_SUCCESS;
}

// ---- picture descriptors ---------------------------------------------------------

acldvppPicDesc* acldvppCreatePicDesc() {
  SIM_API_ENTER_OR(nullptr);
  return sim::dvpp::make<acldvppPicDesc>(counters().pic);
}

aclError acldvppDestroyPicDesc(acldvppPicDesc* picDesc) {
  SIM_API_ENTER();
  if (picDesc != nullptr) sim::dvpp::pic_destroyed(__func__, picDesc);
  return sim::dvpp::destroy(picDesc, counters().pic);
}

aclError acldvppSetPicDescData(acldvppPicDesc* picDesc, void* dataDev) {
  SIM_API_ENTER();
  return sim::dvpp::set(picDesc, [&](acldvppPicDesc& p) { p.data = dataDev; });
}

aclError acldvppSetPicDescSize(acldvppPicDesc* picDesc, uint32_t size) {
  SIM_API_ENTER();
  return sim::dvpp::set(picDesc, [&](acldvppPicDesc& p) { p.size = size; });
}

aclError acldvppSetPicDescFormat(acldvppPicDesc* picDesc, acldvppPixelFormat format) {
  SIM_API_ENTER();
  return sim::dvpp::set(picDesc, [&](acldvppPicDesc& p) { p.format = format; });
}

aclError acldvppSetPicDescWidth(acldvppPicDesc* picDesc, uint32_t width) {
  SIM_API_ENTER();
  return sim::dvpp::set(picDesc, [&](acldvppPicDesc& p) { p.width = width; });
}

aclError acldvppSetPicDescHeight(acldvppPicDesc* picDesc, uint32_t height) {
  SIM_API_ENTER();
  return sim::dvpp::set(picDesc, [&](acldvppPicDesc& p) { p.height = height; });
}

aclError acldvppSetPicDescWidthStride(acldvppPicDesc* picDesc, uint32_t widthStride) {
  SIM_API_ENTER();
  return sim::dvpp::set(picDesc, [&](acldvppPicDesc& p) { p.widthStride = widthStride; });
}

aclError acldvppSetPicDescHeightStride(acldvppPicDesc* picDesc, uint32_t heightStride) {
  SIM_API_ENTER();
  return sim::dvpp::set(picDesc, [&](acldvppPicDesc& p) { p.heightStride = heightStride; });
}

aclError acldvppSetPicDescRetCode(acldvppPicDesc* picDesc, uint32_t retCode) {
  SIM_API_ENTER();
  return sim::dvpp::set(picDesc, [&](acldvppPicDesc& p) { p.retCode = retCode; });
}

void* acldvppGetPicDescData(const acldvppPicDesc* picDesc) {
  SIM_API_ENTER_OR(nullptr);
  return picDesc == nullptr ? nullptr : picDesc->data;
}

uint32_t acldvppGetPicDescSize(const acldvppPicDesc* picDesc) {
  SIM_API_ENTER_OR(0);
  return picDesc == nullptr ? 0 : picDesc->size;
}

acldvppPixelFormat acldvppGetPicDescFormat(const acldvppPicDesc* picDesc) {
  SIM_API_ENTER_OR(PIXEL_FORMAT_YUV_400);
  return picDesc == nullptr ? PIXEL_FORMAT_YUV_400 : picDesc->format;
}

uint32_t acldvppGetPicDescWidth(const acldvppPicDesc* picDesc) {
  SIM_API_ENTER_OR(0);
  return picDesc == nullptr ? 0 : picDesc->width;
}

uint32_t acldvppGetPicDescHeight(const acldvppPicDesc* picDesc) {
  SIM_API_ENTER_OR(0);
  return picDesc == nullptr ? 0 : picDesc->height;
}

uint32_t acldvppGetPicDescWidthStride(const acldvppPicDesc* picDesc) {
  SIM_API_ENTER_OR(0);
  return picDesc == nullptr ? 0 : picDesc->widthStride;
}

uint32_t acldvppGetPicDescHeightStride(const acldvppPicDesc* picDesc) {
  SIM_API_ENTER_OR(0);
  return picDesc == nullptr ? 0 : picDesc->heightStride;
}

uint32_t acldvppGetPicDescRetCode(const acldvppPicDesc* picDesc) {
  SIM_API_ENTER_OR(0);
  return picDesc == nullptr ? 0 : sim::dvpp::read_ret_code(picDesc);
}

// ---- batches -------------------------------------------------------------------

acldvppBatchPicDesc* acldvppCreateBatchPicDesc(uint32_t batchSize) {
  SIM_API_ENTER_OR(nullptr);
  if (batchSize == 0) return nullptr;
  acldvppBatchPicDesc* batch = sim::dvpp::make<acldvppBatchPicDesc>(counters().batch);
  if (batch == nullptr) return nullptr;
  try {
    batch->pics.resize(batchSize);
  } catch (const std::bad_alloc&) {
    sim::dvpp::destroy(batch, counters().batch);
    return nullptr;
  }
  return batch;
}

acldvppPicDesc* acldvppGetPicDesc(acldvppBatchPicDesc* batchPicDesc, uint32_t index) {
  SIM_API_ENTER_OR(nullptr);
  if (batchPicDesc == nullptr || index >= batchPicDesc->pics.size()) return nullptr;
  return &batchPicDesc->pics[index];
}

aclError acldvppDestroyBatchPicDesc(acldvppBatchPicDesc* batchPicDesc) {
  SIM_API_ENTER();
  return sim::dvpp::destroy(batchPicDesc, counters().batch);
}

// ---- regions of interest ---------------------------------------------------------

acldvppRoiConfig* acldvppCreateRoiConfig(uint32_t left, uint32_t right, uint32_t top,
                                         uint32_t bottom) {
  SIM_API_ENTER_OR(nullptr);
  // Values are checked when an operation uses the ROI, as on the device.
  return sim::dvpp::make<acldvppRoiConfig>(counters().roi, left, right, top, bottom);
}

aclError acldvppDestroyRoiConfig(acldvppRoiConfig* roiConfig) {
  SIM_API_ENTER();
  return sim::dvpp::destroy(roiConfig, counters().roi);
}

aclError acldvppSetRoiConfigLeft(acldvppRoiConfig* config, uint32_t left) {
  SIM_API_ENTER();
  return sim::dvpp::set(config, [&](acldvppRoiConfig& r) { r.left = left; });
}

aclError acldvppSetRoiConfigRight(acldvppRoiConfig* config, uint32_t right) {
  SIM_API_ENTER();
  return sim::dvpp::set(config, [&](acldvppRoiConfig& r) { r.right = right; });
}

aclError acldvppSetRoiConfigTop(acldvppRoiConfig* config, uint32_t top) {
  SIM_API_ENTER();
  return sim::dvpp::set(config, [&](acldvppRoiConfig& r) { r.top = top; });
}

aclError acldvppSetRoiConfigBottom(acldvppRoiConfig* config, uint32_t bottom) {
  SIM_API_ENTER();
  return sim::dvpp::set(config, [&](acldvppRoiConfig& r) { r.bottom = bottom; });
}

aclError acldvppSetRoiConfig(acldvppRoiConfig* config, uint32_t left, uint32_t right, uint32_t top,
                             uint32_t bottom) {
  SIM_API_ENTER();
  return sim::dvpp::set(config, [&](acldvppRoiConfig& r) { r = {left, right, top, bottom}; });
}

// ---- resize configuration ----------------------------------------------------------

acldvppResizeConfig* acldvppCreateResizeConfig() {
  SIM_API_ENTER_OR(nullptr);
  return sim::dvpp::make<acldvppResizeConfig>(counters().resize);
}

aclError acldvppDestroyResizeConfig(acldvppResizeConfig* resizeConfig) {
  SIM_API_ENTER();
  return sim::dvpp::destroy(resizeConfig, counters().resize);
}

aclError acldvppSetResizeConfigInterpolation(acldvppResizeConfig* resizeConfig,
                                             uint32_t interpolation) {
  SIM_API_ENTER();
  // Range checked at use against the device's limit (validate_resize_config).
  return sim::dvpp::set(resizeConfig,
                        [&](acldvppResizeConfig& c) { c.interpolation = interpolation; });
}

uint32_t acldvppGetResizeConfigInterpolation(const acldvppResizeConfig* resizeConfig) {
  SIM_API_ENTER_OR(0);
  return resizeConfig == nullptr ? 0 : resizeConfig->interpolation;
}
