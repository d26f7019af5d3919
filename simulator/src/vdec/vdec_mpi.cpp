// VDEC V2 (hi_mpi_vdec_*, acl/dvpp/hi_dvpp.h) on the device timeline.
//
// hi_mpi_sys_init opens the media system (profile key features.dvpp_v2: not on the
// 310). A channel has a decode stream of the calling thread's context; a send decodes
// its unit through the same content cache as V1 (vdec_stream.h), occupies a VDEC core
// for the profile's time (vdec_timing.h) and, when the task completes, writes each
// picture it yields (display order) into the oldest waiting send's picture and queues
// it for hi_mpi_vdec_get_frame. Back-pressure: a channel holds at most frame_buf_cnt
// (at least 1) frames sent and not yet released; a send beyond that waits up to its
// timeout for a release, then returns HI_ERR_VDEC_BUF_FULL (retry). get_frame waits up
// to its timeout (model time; -1 blocks) for a decoded frame, else HI_ERR_VDEC_BUF_EMPTY.
// The channel's decoder memory (engines.vdec) is taken at create for the attribute's
// largest picture [HIA aclcppdevg_03_0319; ACL_FACTS 8].
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "acl/dvpp/hi_dvpp.h"
#include "acl_sim/imaging/content_hash.h"
#include "api/api.h"
#include "api/runtime.h"
#include "core/clock.h"
#include "core/device.h"
#include "core/memory.h"
#include "core/profile.h"
#include "rules/hazard.h"
#include "rules/rules.h"
#include "vdec/vdec_mix.h"
#include "vdec/vdec_picture.h"
#include "vdec/vdec_stream.h"
#include "vdec/vdec_timing.h"

using namespace sim;
using sim::vdec::misfit;
using sim::vdec::outside_limits;
using sim::vdec::Target;
using sim::vdec::write_picture;
namespace img = acl_sim::imaging;

namespace {

struct Sent {
  hi_vdec_pic_info pic{};
  hi_vdec_stream unit{};
};

struct Ready {
  Sent sent;
  uint32_t width = 0, height = 0;
  std::shared_ptr<Task> task;  // the decode that wrote it: the host that gets it is ordered after
};

struct MpiChannel {
  hi_vdec_chn id = 0;
  hi_vdec_chn_attr attr{};
  bool receiving = false;
  vdec::StreamState state;
  Stream* decode = nullptr;
  void* memory = nullptr;
  std::deque<Sent> waiting;  // sent, no picture yet (host side, send order)
  std::mutex mu;             // guards ready and outstanding (the device thread adds to ready)
  std::condition_variable cv;
  std::deque<Ready> ready;  // decoded, not fetched
  int outstanding = 0;      // sent, not released
  uint64_t pictures = 0;    // pictures delivered so far (ACL_SIM_VDEC_CORRUPT counts them)
  explicit MpiChannel(img::VideoCodec codec) : state(codec) {}
  int limit() const { return attr.frame_buf_cnt > 0 ? static_cast<int>(attr.frame_buf_cnt) : 1; }
};

std::mutex g_mu;
std::map<hi_vdec_chn, std::shared_ptr<MpiChannel>> g_channels;

Target target_of(const hi_vdec_pic_info& pic) {
  Target t;
  t.data = reinterpret_cast<void*>(static_cast<uintptr_t>(pic.vir_addr));
  t.width = pic.width;
  t.height = pic.height;
  t.width_stride = pic.width_stride;
  t.height_stride = pic.height_stride;
  t.size = pic.buffer_size;
  t.nv21 = pic.pixel_format == HI_PIXEL_FORMAT_YVU_SEMIPLANAR_420;
  t.semiplanar_420 = t.nv21 || pic.pixel_format == HI_PIXEL_FORMAT_YUV_SEMIPLANAR_420;
  return t;
}

// The channel, or the code: system not initialised, id out of range, no such channel.
hi_s32 find(const char* api, hi_vdec_chn chn, std::shared_ptr<MpiChannel>* out) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!vdec::v2_system())
    return raise_rule(Rule::kVdecMpiArgs, HI_ERR_VDEC_SYS_NOT_READY, api, "hi_mpi_sys_init first");
  auto it = g_channels.find(chn);
  if (it == g_channels.end())
    return raise_rule(Rule::kVdecMpiArgs, HI_ERR_VDEC_UNEXIST, api, "channel %d does not exist",
                      chn);
  *out = it->second;
  return HI_SUCCESS;
}

struct Decoded {
  Sent sent;
  img::PictureRef picture;
  uint64_t identity = 0;
  bool write = false;
  bool corrupt = false;  // ACL_SIM_VDEC_CORRUPT (test-only): a byte flipped once written
};

// Enqueues a unit's VDEC task; at its end the pictures are written and become ready.
void enqueue(const char* api, const std::shared_ptr<MpiChannel>& ch, double service_us,
             const hi_vdec_stream* unit, std::vector<Decoded> done) {
  TaskSpec spec;
  spec.engine = Engine::kVdec;
  spec.service_us = service_us;
  spec.name = "vdec";
  double traffic = 0;
  if (unit != nullptr) {
    spec.reads.push_back({unit->addr, unit->len});
    traffic += unit->len;
  }
  for (const Decoded& d : done)
    if (d.write) {
      const Target t = target_of(d.sent.pic);
      const size_t bytes = static_cast<size_t>(t.width_stride) * t.height_stride * 3 / 2;
      spec.writes.push_back({t.data, bytes});
      traffic += 2.0 * static_cast<double>(bytes);
    }
  spec.traffic_bytes = traffic;
  auto shared = std::make_shared<std::vector<Decoded>>(std::move(done));
  auto self =
      std::make_shared<std::shared_ptr<Task>>();  // this task, set under ch->mu once enqueued
  std::weak_ptr<MpiChannel> weak = ch;
  spec.work = [shared, weak, self] {
    for (const Decoded& d : *shared) {
      if (d.write) write_picture(target_of(d.sent.pic), *d.picture, d.identity);
      if (d.write && d.corrupt) vdec::corrupt(target_of(d.sent.pic));
    }
    std::shared_ptr<MpiChannel> c = weak.lock();
    if (!c) return;
    std::lock_guard<std::mutex> lock(c->mu);
    for (const Decoded& d : *shared)
      c->ready.push_back({d.sent, d.picture->width, d.picture->height, *self});
    c->cv.notify_all();
  };
  const double stamp = charge_host();
  Device& dev = device();
  std::unique_lock<std::mutex> lk(dev.mu());
  hold_task_memory(api, &spec, dev.id());
  std::shared_ptr<Task> task =
      dev.enqueue(lk, ch->decode, TaskKind::kWork, std::move(spec), stamp, nullptr, api);
  std::lock_guard<std::mutex> lock(ch->mu);
  *self = std::move(task);
}

std::vector<Decoded> deliver(const char* api, MpiChannel* ch, const vdec::Emission& em) {
  std::vector<Decoded> out;
  for (size_t i = 0; i < em.pictures.size() && !ch->waiting.empty(); ++i) {
    Decoded d;
    d.sent = ch->waiting.front();
    ch->waiting.pop_front();
    d.picture = em.pictures[i];
    d.identity = img::hash_combine(em.key, i);
    d.corrupt = vdec::corrupted(static_cast<uint32_t>(ch->id), ch->pictures++);
    const std::string why = misfit(target_of(d.sent.pic), *d.picture);
    d.write = why.empty();
    if (!d.write) raise_rule(Rule::kVdecOutputGeometry, ACL_SUCCESS, api, "%s", why.c_str());
    if (const std::string size = outside_limits(*d.picture); !size.empty()) {
      raise_rule(Rule::kVdecStreamSize, ACL_SUCCESS, api, "%s", size.c_str());
      d.write = false;
    }
    out.push_back(std::move(d));
  }
  return out;
}

// Waits (ch->mu held by `lk`) until `ready` holds, for milli_sec of model time (-1: ever).
template <typename Pred>
bool wait_for(std::unique_lock<std::mutex>& lk, std::condition_variable& cv, hi_s32 milli_sec,
              Pred ready) {
  if (milli_sec < 0) {
    cv.wait(lk, ready);
    return true;
  }
  return cv.wait_until(lk, model_clock().deadline_after_ms(milli_sec), ready);
}

}  // namespace

extern "C" {

hi_s32 hi_mpi_sys_init(hi_void) {
  SIM_API_ENTER();  // ACL_SIM_FAIL and aclsimCallCount count it
  if (aclError rc = require_context(__func__)) return rc;
  if (aclError rc = vdec::use(vdec::DvppApi::kV2, __func__, HI_ERR_VDEC_NOT_PERM)) return rc;
  if (profile().num("features.dvpp_v2", 0) == 0)
    return raise_rule(Rule::kVdecV2Unsupported, HI_ERR_VDEC_NOT_SUPPORT, __func__,
                      "the %s has no DVPP V2 media API (features.dvpp_v2): use aclvdec* (V1)",
                      profile().str("soc").c_str());
  vdec::set_v2_system(true);
  return HI_SUCCESS;
}

hi_s32 hi_mpi_sys_exit(hi_void) {
  SIM_API_ENTER();  // ACL_SIM_FAIL and aclsimCallCount count it
  vdec::set_v2_system(false);
  return HI_SUCCESS;
}

hi_s32 hi_mpi_dvpp_malloc(hi_u32 dev_id, hi_void** dev_ptr, hi_u64 size) {
  SIM_API_ENTER();  // ACL_SIM_FAIL and aclsimCallCount count it
  (void)dev_id;     // the calling thread's current device
  if (aclError rc = require_context(__func__)) return rc;
  if (dev_ptr == nullptr)
    return raise_rule(Rule::kVdecMpiArgs, HI_ERR_VDEC_NULL_PTR, __func__, "dev_ptr is NULL");
  if (aclError rc = vdec::use(vdec::DvppApi::kV2, __func__, HI_ERR_VDEC_NOT_PERM)) return rc;
  return dvpp_alloc(__func__, dev_ptr, size);
}

hi_s32 hi_mpi_dvpp_free(hi_void* dev_ptr) {
  SIM_API_ENTER();  // ACL_SIM_FAIL and aclsimCallCount count it
  if (aclError rc = require_context(__func__)) return rc;
  return dvpp_free(__func__, dev_ptr);
}

hi_s32 hi_mpi_vdec_create_chn(hi_vdec_chn chn, const hi_vdec_chn_attr* attr) {
  SIM_API_ENTER();  // ACL_SIM_FAIL and aclsimCallCount count it
  if (aclError rc = require_context(__func__)) return rc;
  const auto limit = static_cast<hi_vdec_chn>(profile().num("limits.vdec_channels", 0));
  if (chn < 0 || chn >= limit)
    return raise_rule(Rule::kVdecChannelId, HI_ERR_VDEC_INVALID_CHN_ID, __func__,
                      "channel %d: the %s has VDEC channels 0..%d (limits.vdec_channels)", chn,
                      profile().str("soc").c_str(), limit - 1);
  if (attr == nullptr)
    return raise_rule(Rule::kVdecMpiArgs, HI_ERR_VDEC_NULL_PTR, __func__, "attr is NULL");
  if (aclError rc = vdec::use(vdec::DvppApi::kV2, __func__, HI_ERR_VDEC_NOT_PERM)) return rc;
  if (attr->type != HI_PT_H264 && attr->type != HI_PT_H265)
    return raise_rule(Rule::kVdecMpiArgs, HI_ERR_VDEC_NOT_SUPPORT, __func__,
                      "payload type %d: the simulator decodes HI_PT_H264 and HI_PT_H265 video",
                      static_cast<int>(attr->type));
  if (attr->mode != HI_VDEC_SEND_MODE_FRAME)
    return raise_rule(Rule::kVdecMpiArgs, HI_ERR_VDEC_NOT_SUPPORT, __func__,
                      "send mode %d: the simulator takes one frame per send "
                      "(HI_VDEC_SEND_MODE_FRAME)",
                      static_cast<int>(attr->mode));
  auto ch = std::make_shared<MpiChannel>(attr->type == HI_PT_H265 ? img::VideoCodec::kH265
                                                                  : img::VideoCodec::kH264);
  ch->id = chn;
  ch->attr = *attr;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (!vdec::v2_system())
      return raise_rule(Rule::kVdecMpiArgs, HI_ERR_VDEC_SYS_NOT_READY, __func__,
                        "hi_mpi_sys_init first");
    if (g_channels.count(chn) != 0)
      return raise_rule(Rule::kVdecChannelId, HI_ERR_VDEC_EXIST, __func__,
                        "channel %d already exists", chn);
  }
  const size_t bytes = vdec::channel_bytes(attr->pic_width, attr->pic_height);
  if (bytes > 0 && dvpp_alloc(__func__, &ch->memory, bytes) != ACL_SUCCESS)
    return raise_rule(Rule::kVdecChannelMemory, HI_ERR_VDEC_NO_MEM, __func__,
                      "channel %d needs %zu bytes of DVPP memory for %ux%u pictures", chn, bytes,
                      attr->pic_width, attr->pic_height);
  {
    Device& dev = device();
    std::lock_guard<std::mutex> lock(dev.mu());
    ch->decode = dev.create_stream(current_context(), false);
  }
  std::lock_guard<std::mutex> lock(g_mu);
  g_channels[chn] = std::move(ch);
  return HI_SUCCESS;
}

hi_s32 hi_mpi_vdec_destroy_chn(hi_vdec_chn chn) {
  SIM_API_ENTER();  // ACL_SIM_FAIL and aclsimCallCount count it
  std::shared_ptr<MpiChannel> ch;
  if (hi_s32 rc = find(__func__, chn, &ch)) return rc;
  if (ch->receiving)
    return raise_rule(Rule::kVdecMpiArgs, HI_ERR_VDEC_NOT_PERM, __func__,
                      "channel %d still receives: hi_mpi_vdec_stop_recv_stream first", chn);
  {
    Device& dev = device();
    std::unique_lock<std::mutex> lk(dev.mu());
    if (ch->decode->last) dev.wait_done(lk, ch->decode->last, nullptr);
    dev.destroy_stream(ch->decode);
  }
  if (ch->memory != nullptr) dvpp_free(__func__, ch->memory);
  std::lock_guard<std::mutex> lock(g_mu);
  g_channels.erase(chn);
  return HI_SUCCESS;
}

hi_s32 hi_mpi_vdec_set_chn_attr(hi_vdec_chn chn, const hi_vdec_chn_attr* attr) {
  SIM_API_ENTER();  // ACL_SIM_FAIL and aclsimCallCount count it
  std::shared_ptr<MpiChannel> ch;
  if (hi_s32 rc = find(__func__, chn, &ch)) return rc;
  if (attr == nullptr)
    return raise_rule(Rule::kVdecMpiArgs, HI_ERR_VDEC_NULL_PTR, __func__, "attr is NULL");
  if (attr->type != ch->attr.type || attr->pic_width > ch->attr.pic_width ||
      attr->pic_height > ch->attr.pic_height)
    return raise_rule(Rule::kVdecMpiArgs, HI_ERR_VDEC_NOT_PERM, __func__,
                      "channel %d: the payload type and the largest picture are fixed at create",
                      chn);
  std::lock_guard<std::mutex> lock(ch->mu);
  ch->attr = *attr;
  ch->cv.notify_all();  // frame_buf_cnt may have grown
  return HI_SUCCESS;
}

hi_s32 hi_mpi_vdec_get_chn_attr(hi_vdec_chn chn, hi_vdec_chn_attr* attr) {
  SIM_API_ENTER();  // ACL_SIM_FAIL and aclsimCallCount count it
  std::shared_ptr<MpiChannel> ch;
  if (hi_s32 rc = find(__func__, chn, &ch)) return rc;
  if (attr == nullptr)
    return raise_rule(Rule::kVdecMpiArgs, HI_ERR_VDEC_NULL_PTR, __func__, "attr is NULL");
  *attr = ch->attr;
  return HI_SUCCESS;
}

hi_s32 hi_mpi_vdec_start_recv_stream(hi_vdec_chn chn) {
  SIM_API_ENTER();  // ACL_SIM_FAIL and aclsimCallCount count it
  std::shared_ptr<MpiChannel> ch;
  if (hi_s32 rc = find(__func__, chn, &ch)) return rc;
  ch->receiving = true;
  return HI_SUCCESS;
}

hi_s32 hi_mpi_vdec_stop_recv_stream(hi_vdec_chn chn) {
  SIM_API_ENTER();  // ACL_SIM_FAIL and aclsimCallCount count it
  std::shared_ptr<MpiChannel> ch;
  if (hi_s32 rc = find(__func__, chn, &ch)) return rc;
  ch->receiving = false;
  return HI_SUCCESS;
}

hi_s32 hi_mpi_vdec_send_stream(hi_vdec_chn chn, const hi_vdec_stream* stream,
                               hi_vdec_pic_info* vdec_pic_info, hi_s32 milli_sec) {
  SIM_API_ENTER();  // ACL_SIM_FAIL and aclsimCallCount count it
  std::shared_ptr<MpiChannel> ch;
  if (hi_s32 rc = find(__func__, chn, &ch)) return rc;
  if (stream == nullptr)
    return raise_rule(Rule::kVdecMpiArgs, HI_ERR_VDEC_NULL_PTR, __func__, "stream is NULL");
  if (!ch->receiving)
    return raise_rule(Rule::kVdecMpiArgs, HI_ERR_VDEC_NOT_PERM, __func__,
                      "channel %d does not receive: hi_mpi_vdec_start_recv_stream first", chn);
  if (stream->end_of_stream && stream->len == 0) {
    const vdec::Emission em = ch->state.finish();
    std::vector<Decoded> done = deliver(__func__, ch.get(), em);
    {
      std::lock_guard<std::mutex> lock(ch->mu);
      ch->outstanding -= static_cast<int>(ch->waiting.size());  // never get a picture
      ch->cv.notify_all();
    }
    ch->waiting.clear();
    enqueue(__func__, ch, 0.0, nullptr, std::move(done));
    return HI_SUCCESS;
  }
  if (stream->addr == nullptr || stream->len == 0 ||
      classify(stream->addr, stream->len) != MemKind::kDvpp)
    return raise_rule(Rule::kVdecInputMemory, HI_ERR_VDEC_ILLEGAL_PARAM, __func__,
                      "stream %p (+%u bytes) is not inside one hi_mpi_dvpp_malloc block",
                      static_cast<void*>(stream->addr), stream->len);
  if (vdec_pic_info == nullptr)
    return raise_rule(Rule::kVdecMpiArgs, HI_ERR_VDEC_NULL_PTR, __func__, "vdec_pic_info is NULL");
  const Target out = target_of(*vdec_pic_info);
  if (out.data == nullptr || classify(out.data, out.size) != MemKind::kDvpp)
    return raise_rule(Rule::kVdecOutputMemory, HI_ERR_VDEC_ILLEGAL_PARAM, __func__,
                      "output picture %p (+%llu bytes) is not inside one hi_mpi_dvpp_malloc block",
                      out.data, static_cast<unsigned long long>(out.size));
  {
    std::unique_lock<std::mutex> lk(ch->mu);
    if (!wait_for(lk, ch->cv, milli_sec, [&] { return ch->outstanding < ch->limit(); }))
      return HI_ERR_VDEC_BUF_FULL;  // back-pressure, not a violation: fetch, release, retry
    ++ch->outstanding;
  }
  const vdec::Emission em = ch->state.next(stream->addr, stream->len);
  ch->waiting.push_back({*vdec_pic_info, *stream});
  if (!em.ok) {  // the unit yields no picture: its frame never comes
    ch->waiting.pop_back();
    std::lock_guard<std::mutex> lock(ch->mu);
    --ch->outstanding;
  }
  std::vector<Decoded> done = deliver(__func__, ch.get(), em);
  enqueue(__func__, ch, vdec::service_us(em.width, em.height), stream, std::move(done));
  return HI_SUCCESS;
}

hi_s32 hi_mpi_vdec_get_frame(hi_vdec_chn chn, hi_video_frame_info* frame_info,
                             hi_vdec_supplement_info* supplement, hi_vdec_stream* stream,
                             hi_s32 milli_sec) {
  SIM_API_ENTER();  // ACL_SIM_FAIL and aclsimCallCount count it
  std::shared_ptr<MpiChannel> ch;
  if (hi_s32 rc = find(__func__, chn, &ch)) return rc;
  if (frame_info == nullptr)
    return raise_rule(Rule::kVdecMpiArgs, HI_ERR_VDEC_NULL_PTR, __func__, "frame_info is NULL");
  Ready r;
  {
    std::unique_lock<std::mutex> lk(ch->mu);
    if (!wait_for(lk, ch->cv, milli_sec, [&] { return !ch->ready.empty(); }))
      return HI_ERR_VDEC_BUF_EMPTY;  // nothing decoded within the timeout: not a violation
    r = ch->ready.front();
    ch->ready.pop_front();
  }
  // The host has the frame: what the decode wrote is ordered before what it does next (as a
  // V1 callback or a stream synchronisation orders it).
  if (r.task && hazard::enabled()) hazard::observe(*r.task);
  hi_video_frame& f = frame_info->v_frame;
  f = hi_video_frame{};
  const hi_vdec_pic_info& pic = r.sent.pic;
  f.width = r.width;
  f.height = r.height;
  f.pixel_format = pic.pixel_format;
  f.width_stride[0] = f.width_stride[1] = pic.width_stride;
  f.height_stride[0] = pic.height_stride;
  f.height_stride[1] = pic.height_stride / 2;
  auto* y = reinterpret_cast<uint8_t*>(static_cast<uintptr_t>(pic.vir_addr));
  f.virt_addr[0] = y;
  f.virt_addr[1] = y + static_cast<size_t>(pic.width_stride) * pic.height_stride;
  f.pts = r.sent.unit.pts;
  frame_info->pool_id = 0;
  if (supplement != nullptr) *supplement = hi_vdec_supplement_info{ch->attr.type, 0, 0};
  if (stream != nullptr) *stream = r.sent.unit;
  return HI_SUCCESS;
}

hi_s32 hi_mpi_vdec_release_frame(hi_vdec_chn chn, const hi_video_frame_info* frame_info) {
  SIM_API_ENTER();  // ACL_SIM_FAIL and aclsimCallCount count it
  std::shared_ptr<MpiChannel> ch;
  if (hi_s32 rc = find(__func__, chn, &ch)) return rc;
  if (frame_info == nullptr)
    return raise_rule(Rule::kVdecMpiArgs, HI_ERR_VDEC_NULL_PTR, __func__, "frame_info is NULL");
  std::lock_guard<std::mutex> lock(ch->mu);
  if (ch->outstanding > 0) --ch->outstanding;
  ch->cv.notify_all();
  return HI_SUCCESS;
}

}  // extern "C"
