// VDEC V1 channels (aclvdecCreateChannel / DestroyChannel / SendFrame /
// SendSkippedFrame) on the device timeline.
//
// A channel owns two streams of its context: the decode stream, whose tasks run
// on engine kVdec, and the callback stream, subscribed to the report thread the
// description names (aclrtProcessReport on that thread runs the callbacks), as
// aclvdecCreateChannel does on the device [HIA aclcppdevg_03_0330; ACL_FACTS 8].
//
// A send decodes its access unit at once on the calling thread through the
// content-keyed cache (vdec_stream.h: pixel work once per distinct content); the
// pictures it yields fill the oldest sends still waiting for a picture (display
// order: with B-frames a picture comes out a few sends later). The send's task
// occupies a VDEC core for the profile's time (vdec_timing.h) and, when it
// completes, writes those pictures into their output descriptors (NV12 at the
// descriptor's strides; a destination that already holds that very picture is
// not rewritten); each filled send then gets its callback on the callback stream.
// A skipped frame's callback gets a NULL output. The end of stream (a stream
// descriptor with eos set) drains the decoder, gives sends left without a picture
// the result code kNoPicture, and returns once every callback has returned.
// The unit's bytes are read at the send (not when the task starts).
#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "acl_sim/imaging/content_hash.h"
#include "api/api.h"
#include "api/runtime.h"
#include "core/device.h"
#include "core/memory.h"
#include "core/profile.h"
#include "dvpp/dvpp_content.h"
#include "report/log.h"
#include "rules/callback_rules.h"
#include "rules/rules.h"
#include "vdec/vdec_desc.h"
#include "vdec/vdec_fields.h"
#include "vdec/vdec_mix.h"
#include "vdec/vdec_picture.h"
#include "vdec/vdec_stream.h"
#include "vdec/vdec_timing.h"

using namespace sim;
namespace img = acl_sim::imaging;

namespace sim::vdec {

struct Pending {
  acldvppStreamDesc* input = nullptr;
  acldvppPicDesc* output = nullptr;  // NULL: a skipped frame
  void* user = nullptr;
};

struct Channel {
  uint32_t id = 0;
  int32_t device = 0;
  uint64_t thread = 0;
  aclvdecCallback callback = nullptr;
  Stream* decode = nullptr;
  Stream* report = nullptr;
  StreamState state;
  std::deque<Pending> waiting;  // sent, no picture yet (send order)
  std::shared_ptr<Task> last_callback;
  void* memory = nullptr;  // the channel's decoder memory (DVPP), from its first picture size
  uint64_t pictures = 0;   // pictures delivered so far (ACL_SIM_VDEC_CORRUPT counts them)
  img::VideoCodec codec;
  FieldParser fields;       // H.264: which units are field pictures
  bool half_frame = false;  // the last unit was the first field of a frame
  explicit Channel(img::VideoCodec c) : state(c), codec(c) {}
};

}  // namespace sim::vdec

using sim::vdec::Channel;
using sim::vdec::outside_limits;
using sim::vdec::Pending;
using sim::vdec::Target;

namespace {

// Result code of a send that yields no picture: the first field of an interlaced (field-coded)
// frame, whose picture comes with the second, normal [HA canncommercial/601 aclcppdevg_03_0208;
// ACL_FACTS 8]; the simulator also gives it to every send left without a picture at the end of
// stream.
constexpr uint32_t kNoPicture = 0x20000;
// Result code of a unit the decoder refused (a simulator choice: no code is documented).
constexpr uint32_t kDecodeError = ACL_ERROR_FAILURE;

std::mutex g_ids_mu;
std::map<std::pair<int32_t, uint32_t>, Channel*> g_ids;  // live channels by (device, id)
thread_local const Channel* t_in_callback = nullptr;

// One send's outcome: its picture (or none) and its result code.
struct Delivery {
  Pending pending;
  img::PictureRef picture;
  uint64_t identity = 0;  // the picture's content identity (tags)
  acldvppPicDesc out;     // snapshot of the output descriptor at its send
  uint32_t ret = 0;
  bool corrupt = false;  // ACL_SIM_VDEC_CORRUPT (test-only): a byte flipped once written
};

struct Call {
  aclvdecCallback fn = nullptr;
  Pending pending;
  const Channel* channel = nullptr;
};

void run_callback(void* p) {
  std::unique_ptr<Call> call(static_cast<Call*>(p));
  callback_rules::Outside outside;  // a VDEC callback is not a launched host function
  const Channel* saved = t_in_callback;
  t_in_callback = call->channel;
  call->fn(call->pending.input, call->pending.output, call->pending.user);
  t_in_callback = saved;
}

Target target_of(const acldvppPicDesc& pic) {
  Target t;
  t.data = pic.data;
  t.width = pic.width;
  t.height = pic.height;
  t.width_stride = pic.widthStride;
  t.height_stride = pic.heightStride;
  t.size = pic.size;
  t.nv21 = pic.format == PIXEL_FORMAT_YVU_SEMIPLANAR_420;
  t.semiplanar_420 = t.nv21 || pic.format == PIXEL_FORMAT_YUV_SEMIPLANAR_420;
  return t;
}

bool writes(const Delivery& d) {
  return d.picture && d.ret == 0 && d.pending.output != nullptr;
}

// Enqueues the decode task of one send (or of the end of stream) and the callbacks of
// the sends it completes.
void enqueue(const char* api, Channel* ch, double service_us, const void* unit, size_t unit_size,
             std::vector<Delivery> deliveries) {
  TaskSpec spec;
  spec.engine = Engine::kVdec;
  spec.service_us = service_us;
  spec.name = "vdec";
  double traffic = static_cast<double>(unit_size);
  if (unit != nullptr) spec.reads.push_back({unit, unit_size});
  for (const Delivery& d : deliveries)
    if (writes(d)) {
      size_t bytes = static_cast<size_t>(d.out.widthStride) * d.out.heightStride * 3 / 2;
      spec.writes.push_back({d.out.data, bytes});
      traffic += 2.0 * static_cast<double>(bytes);  // the picture written, a reference read
    }
  spec.traffic_bytes = traffic;
  auto shared = std::make_shared<std::vector<Delivery>>(std::move(deliveries));
  spec.work = [shared] {
    for (const Delivery& d : *shared) {
      if (writes(d)) write_picture(target_of(d.out), *d.picture, d.identity);
      if (writes(d) && d.corrupt) vdec::corrupt(target_of(d.out));
      if (d.pending.output != nullptr) d.pending.output->retCode = d.ret;
    }
  };
  double stamp = charge_host();
  Device& dev = device();
  std::unique_lock<std::mutex> lk(dev.mu());
  hold_task_memory(api, &spec, dev.id());
  auto task = dev.enqueue(lk, ch->decode, TaskKind::kWork, std::move(spec), stamp, nullptr, api);
  for (const Delivery& d : *shared) {
    TaskSpec cs;
    cs.name = "vdec_callback";
    auto t = dev.enqueue(lk, ch->report, TaskKind::kCallback, std::move(cs), stamp, task, api);
    t->callback = run_callback;
    t->user_data = new Call{ch->callback, d.pending, ch};
    t->blocking = true;
    ch->last_callback = t;
  }
}

// Delivers `em`'s pictures to the oldest waiting sends.
std::vector<Delivery> deliver(const char* api, Channel* ch, const vdec::Emission& em) {
  std::vector<Delivery> out;
  for (size_t i = 0; i < em.pictures.size() && !ch->waiting.empty(); ++i) {
    Delivery d;
    d.pending = ch->waiting.front();
    ch->waiting.pop_front();
    d.picture = em.pictures[i];
    d.identity = img::hash_combine(em.key, i);
    d.corrupt = vdec::corrupted(ch->id, ch->pictures++);
    if (d.pending.output != nullptr) {
      d.out = *d.pending.output;
      const std::string why = misfit(target_of(d.out), *d.picture);
      if (!why.empty()) {
        raise_rule(Rule::kVdecOutputGeometry, ACL_SUCCESS, api, "%s", why.c_str());
        d.ret = kDecodeError;
      }
    }
    if (const std::string why = outside_limits(*d.picture); !why.empty()) {
      raise_rule(Rule::kVdecStreamSize, ACL_SUCCESS, api, "%s", why.c_str());
      d.ret = kDecodeError;
    }
    out.push_back(std::move(d));
  }
  return out;
}

aclError reserve_memory(const char* api, Channel* ch, uint32_t w, uint32_t h) {
  if (ch->memory != nullptr || w == 0) return ACL_SUCCESS;
  const size_t bytes = vdec::channel_bytes(w, h);
  if (bytes == 0) return ACL_SUCCESS;
  aclError rc = dvpp_alloc(api, &ch->memory, bytes);
  if (rc != ACL_SUCCESS)  // the DVPP budget's own rule names the bytes
    return raise_rule(Rule::kVdecChannelMemory, ACL_ERROR_RT_MEMORY_ALLOCATION, api,
                      "channel %u needs %zu bytes of DVPP memory for its %ux%u stream "
                      "(engines.vdec channel_fixed_bytes + channel_frames frames): fewer "
                      "channels, or smaller streams",
                      ch->id, bytes, w, h);
  return ACL_SUCCESS;
}

aclError end_of_stream(const char* api, Channel* ch) {
  vdec::Emission em = ch->state.finish();
  std::vector<Delivery> deliveries = deliver(api, ch, em);
  while (!ch->waiting.empty()) {
    Delivery d;
    d.pending = ch->waiting.front();
    ch->waiting.pop_front();
    d.ret = kNoPicture;
    deliveries.push_back(std::move(d));
  }
  enqueue(api, ch, 0.0, nullptr, 0, std::move(deliveries));
  Device& dev = device();
  std::unique_lock<std::mutex> lk(dev.mu());
  if (ch->last_callback) dev.wait_done(lk, ch->last_callback, nullptr);
  return ACL_SUCCESS;
}

aclError send(const char* api, aclvdecChannelDesc* desc, acldvppStreamDesc* input,
              acldvppPicDesc* output, void* user, bool skipped) {
  if (aclError rc = require_context(api)) return rc;
  if (desc == nullptr) return null_arg(api, "channelDesc");
  if (input == nullptr) return null_arg(api, "input");
  Channel* ch = desc->channel.get();
  if (ch == nullptr)
    return raise_rule(Rule::kVdecChannelState, ACL_ERROR_INVALID_PARAM, api,
                      "channel %u is not created (aclvdecCreateChannel first)", desc->channelId);
  if (input->eos != 0) return end_of_stream(api, ch);
  if (input->data == nullptr || input->size == 0 ||
      classify(input->data, input->size) != MemKind::kDvpp)
    return raise_rule(Rule::kVdecInputMemory, ACL_ERROR_INVALID_PARAM, api,
                      "stream data %p (+%u bytes) is not inside one acldvppMalloc block",
                      input->data, input->size);
  if (!skipped) {
    if (output == nullptr) return null_arg(api, "output");
    if (output->data == nullptr || classify(output->data, output->size) != MemKind::kDvpp)
      return raise_rule(Rule::kVdecOutputMemory, ACL_ERROR_INVALID_PARAM, api,
                        "output picture %p (+%u bytes) is not inside one acldvppMalloc block",
                        output->data, output->size);
  }
  const auto* unit = static_cast<const uint8_t*>(input->data);
  vdec::Emission em = ch->state.next(unit, input->size);
  if (aclError rc = reserve_memory(api, ch, em.width, em.height)) return rc;
  // The first field of a frame is answered at once, with no picture (kNoPicture): the frame's
  // picture goes to the second field's send.
  const bool field =
      ch->codec == img::VideoCodec::kH264 && ch->fields.field_picture(unit, input->size);
  const bool first_field = field && !ch->half_frame && em.ok;
  ch->half_frame = first_field;
  const Pending pending{input, skipped ? nullptr : output, user};
  if (!first_field) ch->waiting.push_back(pending);
  std::vector<Delivery> deliveries;
  if (!em.ok) {
    log(LogLevel::kWarn,
        "%s: channel %u: the decoder refused a unit of %u bytes (%s): result "
        "code %u in its output descriptor",
        api, ch->id, input->size, em.why.c_str(), kDecodeError);
    Delivery d;
    d.pending = ch->waiting.back();
    ch->waiting.pop_back();
    d.ret = kDecodeError;
    deliveries.push_back(std::move(d));
  }
  std::vector<Delivery> filled = deliver(api, ch, em);
  deliveries.insert(deliveries.end(), filled.begin(), filled.end());
  if (first_field) {  // after the sends before it (callbacks in send order)
    Delivery d;
    d.pending = pending;
    d.ret = kNoPicture;
    deliveries.push_back(std::move(d));
  }
  // a field is half the frame's rows (vdec_timing.h: the time follows the pixels)
  enqueue(api, ch, vdec::service_us(em.width, field ? em.height / 2 : em.height), input->data,
          input->size, std::move(deliveries));
  return ACL_SUCCESS;
}

bool valid_codec(acldvppStreamFormat f) {
  return f == H265_MAIN_LEVEL || f == H264_BASELINE_LEVEL || f == H264_MAIN_LEVEL ||
         f == H264_HIGH_LEVEL;
}

}  // namespace

extern "C" {

aclError aclvdecCreateChannel(aclvdecChannelDesc* channelDesc) {
  SIM_API_ENTER();
  if (aclError rc = require_context(__func__)) return rc;
  if (channelDesc == nullptr) return null_arg(__func__, "channelDesc");
  if (channelDesc->channel)
    return raise_rule(Rule::kVdecChannelState, ACL_ERROR_INVALID_PARAM, __func__,
                      "channel %u is already created", channelDesc->channelId);
  const auto limit = static_cast<uint32_t>(profile().num("limits.vdec_channels", 0));
  const uint32_t id = channelDesc->channelId;
  if (id >= limit)
    return raise_rule(Rule::kVdecChannelId, ACL_ERROR_INVALID_PARAM, __func__,
                      "channel id %u: the %s has VDEC channels 0..%d (limits.vdec_channels)", id,
                      profile().str("soc").c_str(), static_cast<int>(limit) - 1);
  const char* bad = nullptr;
  if (channelDesc->callback == nullptr)
    bad = "no callback (aclvdecSetChannelDescCallback)";
  else if (channelDesc->threadId == 0)
    bad = "no report thread (aclvdecSetChannelDescThreadId)";
  else if (!valid_codec(channelDesc->enType))
    bad = "enType is not an acldvppStreamFormat";
  else if (channelDesc->outPicFormat != PIXEL_FORMAT_YUV_SEMIPLANAR_420 &&
           channelDesc->outPicFormat != PIXEL_FORMAT_YVU_SEMIPLANAR_420)
    bad = "the output format is not NV12 or NV21";
  if (bad != nullptr)
    return raise_rule(Rule::kVdecChannelDesc, ACL_ERROR_INVALID_PARAM, __func__, "channel %u: %s",
                      id, bad);
  if (aclError rc = vdec::use(vdec::DvppApi::kV1, __func__, ACL_ERROR_FEATURE_UNSUPPORTED))
    return rc;
  Device& dev = device();
  auto ch = std::make_shared<Channel>(
      channelDesc->enType == H265_MAIN_LEVEL ? img::VideoCodec::kH265 : img::VideoCodec::kH264);
  ch->id = id;
  ch->device = dev.id();
  ch->thread = channelDesc->threadId;
  ch->callback = channelDesc->callback;
  {
    std::lock_guard<std::mutex> lock(g_ids_mu);
    if (!g_ids.emplace(std::make_pair(ch->device, id), ch.get()).second)
      return raise_rule(Rule::kVdecChannelId, ACL_ERROR_INVALID_PARAM, __func__,
                        "channel id %u is already in use on device %d", id, ch->device);
  }
  {
    std::lock_guard<std::mutex> lock(dev.mu());
    ch->decode = dev.create_stream(current_context(), false);
    ch->report = dev.create_stream(current_context(), false);
    int32_t other = 0;
    callback_rules::serve_on(ch->thread, dev.id(), &other);
    ch->report->subscribed = true;
    ch->report->report_thread = ch->thread;
    ReportQueue& q = dev.reports(ch->thread);
    ++q.subscriptions;
    q.cv.notify_all();
  }
  channelDesc->channel = std::move(ch);
  return ACL_SUCCESS;
}

aclError aclvdecDestroyChannel(aclvdecChannelDesc* channelDesc) {
  SIM_API_ENTER();
  if (channelDesc == nullptr) return null_arg(__func__, "channelDesc");
  if (t_in_callback != nullptr)
    return raise_rule(Rule::kVdecDestroyInCallback, ACL_ERROR_FAILURE, __func__,
                      "called inside the callback of VDEC channel %u: destroying waits for "
                      "that very callback; destroy channels after the end of stream, from "
                      "another thread",
                      t_in_callback->id);
  std::shared_ptr<Channel> ch = channelDesc->channel;
  if (!ch)
    return raise_rule(Rule::kVdecChannelState, ACL_ERROR_INVALID_PARAM, __func__,
                      "channel %u is not created", channelDesc->channelId);
  if (!ch->waiting.empty())
    log(LogLevel::kWarn,
        "%s: channel %u: %zu frame(s) sent after the last end of stream never get a "
        "picture (send a stream descriptor with eos set before destroying)",
        __func__, ch->id, ch->waiting.size());
  Device& dev = device();
  {
    std::unique_lock<std::mutex> lk(dev.mu());
    if (ch->last_callback) dev.wait_done(lk, ch->last_callback, nullptr);
    if (ch->decode->last) dev.wait_done(lk, ch->decode->last, nullptr);
    ReportQueue& q = dev.reports(ch->thread);
    --q.subscriptions;
    q.cv.notify_all();
    dev.destroy_stream(ch->report);
    dev.destroy_stream(ch->decode);
  }
  if (ch->memory != nullptr) dvpp_free(__func__, ch->memory);
  {
    std::lock_guard<std::mutex> lock(g_ids_mu);
    g_ids.erase(std::make_pair(ch->device, ch->id));
  }
  channelDesc->channel.reset();
  return ACL_SUCCESS;
}

aclError aclvdecSendFrame(aclvdecChannelDesc* channelDesc, acldvppStreamDesc* input,
                          acldvppPicDesc* output, aclvdecFrameConfig* config, void* userData) {
  SIM_API_ENTER();
  (void)config;
  return send(__func__, channelDesc, input, output, userData, false);
}

aclError aclvdecSendSkippedFrame(aclvdecChannelDesc* channelDesc, acldvppStreamDesc* input,
                                 aclvdecFrameConfig* config, void* userData) {
  SIM_API_ENTER();
  (void)config;
  return send(__func__, channelDesc, input, nullptr, userData, true);
}

}  // extern "C"
