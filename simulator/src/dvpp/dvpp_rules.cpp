// DVPP device rules (dvpp_rules.h).
#include "dvpp/dvpp_rules.h"

#include <map>
#include <mutex>
#include <unordered_map>

#include "api/runtime.h"
#include "core/device.h"
#include "core/memory.h"
#include "report/log.h"
#include "rules/rules.h"

namespace sim::dvpp {

// ---- one channel per stream ---------------------------------------------------

namespace {

// Per channel descriptor: the stream of its latest task and how many of its
// tasks have not completed. Shared with the tasks (a descriptor may be
// destroyed while they run).
struct ChannelUse {
  std::mutex mu;
  uint64_t stream_id = 0;
  std::string stream_label;
  int inflight = 0;
};

// The registries below are never destroyed: the device thread may complete a
// task after static destruction began (a process that exits without aclFinalize).
std::mutex& channels_mu() {
  static auto* m = new std::mutex;
  return *m;
}

std::unordered_map<const acldvppChannelDesc*, std::shared_ptr<ChannelUse>>& channel_uses() {
  static auto* m = new std::unordered_map<const acldvppChannelDesc*, std::shared_ptr<ChannelUse>>;
  return *m;
}

std::shared_ptr<ChannelUse> use_of(const acldvppChannelDesc* channel) {
  std::lock_guard<std::mutex> lock(channels_mu());
  auto& use = channel_uses()[channel];
  // A descriptor created again at the address of a destroyed one: its channel
  // id differs, but only in-flight work matters, and that is per use object.
  if (!use) use = std::make_shared<ChannelUse>();
  return use;
}

}  // namespace

aclError submit_on_channel(const char* api, acldvppChannelDesc* channel, void* stream,
                           TaskSpec spec) {
  uint64_t sid = 0;
  std::string label;
  {
    std::lock_guard<std::mutex> lock(device().mu());
    Stream* s = nullptr;
    if (aclError rc = resolve_stream(api, stream, &s)) return rc;
    sid = s->id;
    label = stream_label(s);
  }
  std::shared_ptr<ChannelUse> use = use_of(channel);
  {
    std::lock_guard<std::mutex> lock(use->mu);
    if (use->inflight > 0 && use->stream_id != sid)
      raise_rule(Rule::kDvppChannelOneStream, ACL_SUCCESS, api,
                 "channel %llu gets work on %s while %d task(s) of it from %s are still queued "
                 "or running: create one channel per stream that runs DVPP work",
                 static_cast<unsigned long long>(channel->channelId), label.c_str(), use->inflight,
                 use->stream_label.c_str());
    use->stream_id = sid;
    use->stream_label = label;
    ++use->inflight;
  }
  std::function<void()> inner = std::move(spec.work);
  spec.work = [inner, use] {
    if (inner) inner();
    std::lock_guard<std::mutex> lock(use->mu);
    --use->inflight;
  };
  aclError rc = submit(api, stream, std::move(spec));
  if (rc != ACL_SUCCESS) {
    std::lock_guard<std::mutex> lock(use->mu);
    --use->inflight;
  }
  return rc;
}

void channel_destroyed(const char* api, const acldvppChannelDesc* channel) {
  std::shared_ptr<ChannelUse> use;
  {
    std::lock_guard<std::mutex> lock(channels_mu());
    auto it = channel_uses().find(channel);
    if (it == channel_uses().end()) return;  // never used
    use = it->second;
    channel_uses().erase(it);  // in-flight tasks keep their own reference
  }
  std::lock_guard<std::mutex> lock(use->mu);
  if (use->inflight > 0)
    raise_rule(Rule::kDvppChannelDestroyPending, ACL_SUCCESS, api,
               "channel %llu destroyed while %d task(s) of it (last from %s) are still queued "
               "or running: synchronise the stream before acldvppDestroyChannel",
               static_cast<unsigned long long>(channel->channelId), use->inflight,
               use->stream_label.c_str());
}

void channel_desc_destroyed_first(const char* api, const acldvppChannelDesc* channel) {
  // A warning: the documents name the consequence (the later acldvppDestroyChannel fails,
  // dvpp.channel_desc_live), not a device fault. A cleanup that goes on after a failed
  // acldvppDestroyChannel does exactly this, and rightly.
  raise_rule(Rule::kDvppChannelDescOrder, ACL_SUCCESS, api,
             "channel %llu is still created: acldvppDestroyChannel(desc) first, then "
             "acldvppDestroyChannelDesc(desc) [source: %s]",
             static_cast<unsigned long long>(channel->channelId),
             rule_info(Rule::kDvppChannelDescOrder).source);
  channel_destroyed(api, channel);
}

aclError channel_desc_gone(const char* api, const acldvppChannelDesc* channel) {
  return raise_rule(Rule::kDvppChannelDescLive, ACL_ERROR_INVALID_PARAM, api,
                    "channel description %p was destroyed (acldvppDestroyChannelDesc) before its "
                    "channel: destroy the channel first [source: %s]",
                    static_cast<const void*>(channel),
                    rule_info(Rule::kDvppChannelDescLive).source);
}

// ---- decode result codes -------------------------------------------------------

struct PicSlot {
  acldvppPicDesc* live = nullptr;  // null once the descriptor is destroyed
  bool unread = false;             // a failure nobody read yet
  uint32_t code = 0;
  std::string why;
  const char* api = "";
};

namespace {

struct PicRegistry {
  std::mutex mu;
  std::unordered_map<const acldvppPicDesc*, std::shared_ptr<PicSlot>> slots;
  std::vector<std::shared_ptr<PicSlot>> orphans;  // destroyed with a decode in flight
};

PicRegistry& pics() {
  static auto* r = new PicRegistry;
  return *r;
}

void report_slot(const char* api, PicSlot& slot, const char* how) {
  slot.unread = false;
  raise_rule(Rule::kJpegdRetcodeUnread, ACL_SUCCESS, api,
             "a decode failed with result code %u (%s) and the program %s: read "
             "acldvppGetPicDescRetCode(outputDesc) after the stream synchronised and treat "
             "non-zero as a failed frame",
             slot.code, slot.why.c_str(), how);
}

}  // namespace

std::shared_ptr<PicSlot> decode_submitted(const char* api, acldvppPicDesc* desc) {
  PicRegistry& r = pics();
  std::lock_guard<std::mutex> lock(r.mu);
  auto& slot = r.slots[desc];
  if (!slot) {
    slot = std::make_shared<PicSlot>();
    slot->live = desc;
  }
  if (slot->unread)
    report_slot(api, *slot, "reused its descriptor for another decode without reading the code");
  slot->api = api;
  return slot;
}

void decode_done(const std::shared_ptr<PicSlot>& slot, uint32_t code, const std::string& why,
                 uint32_t width, uint32_t height) {
  PicRegistry& r = pics();
  std::lock_guard<std::mutex> lock(r.mu);
  if (slot->live != nullptr) slot->live->retCode = code;
  if (slot->live != nullptr && code == 0 && width != 0) {
    slot->live->width = width;
    slot->live->height = height;
  }
  slot->code = code;
  slot->why = why;
  slot->unread = code != 0;
  if (code != 0 && slot->live == nullptr)
    report_slot(slot->api, *slot, "destroyed the output descriptor before the decode completed");
}

acldvppPicDesc snapshot(const acldvppPicDesc& desc) {
  PicRegistry& r = pics();
  std::lock_guard<std::mutex> lock(r.mu);
  return desc;
}

uint32_t read_ret_code(const acldvppPicDesc* desc) {
  PicRegistry& r = pics();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.slots.find(desc);
  if (it != r.slots.end() && it->second->unread && desc->retCode == it->second->code)
    it->second->unread = false;
  return desc->retCode;
}

void pic_destroyed(const char* api, const acldvppPicDesc* desc) {
  PicRegistry& r = pics();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.slots.find(desc);
  if (it == r.slots.end()) return;
  if (it->second->unread)
    report_slot(api, *it->second, "destroyed its output descriptor without reading the code");
  it->second->live = nullptr;
  r.slots.erase(it);
}

void report_unread(const char* api) {
  {
    PicRegistry& r = pics();
    std::lock_guard<std::mutex> lock(r.mu);
    for (auto& kv : r.slots)
      if (kv.second->unread) report_slot(api, *kv.second, "never read the code");
  }
  forget_sub_buffers(nullptr);  // every block is released at teardown
}

// ---- sub-buffers of acldvppMalloc blocks ---------------------------------------

namespace {

struct SubBuffers {
  std::mutex mu;
  // block base -> (offset -> size) of output pictures written inside it
  std::unordered_map<uintptr_t, std::map<uintptr_t, size_t>> blocks;
};

SubBuffers& subs() {
  static auto* s = new SubBuffers;
  return *s;
}

size_t footprint(size_t size) {
  size_t m = (size + 31) / 32 * 32 + 32;  // ALIGN_UP(len, 32) + 32
  return (m + 127) / 128 * 128;           // the next start: ALIGN_UP(., 128)
}

}  // namespace

void check_sub_buffer(const char* api, const acldvppPicDesc& pic) {
  uintptr_t base = 0;
  MemKind kind = MemKind::kUnknown;
  if (pic.data == nullptr || pic.size == 0 || !block_of(pic.data, pic.size, &base, &kind) ||
      kind != MemKind::kDvpp)
    return;
  uintptr_t off = reinterpret_cast<uintptr_t>(pic.data) - base;
  SubBuffers& s = subs();
  std::lock_guard<std::mutex> lock(s.mu);
  auto& m = s.blocks[base];
  if (off == 0 && m.empty()) {  // the whole block, as allocated: nothing to check
    m[0] = pic.size;
    return;
  }
  if (off % 128 != 0)
    raise_rule(Rule::kDvppSubBuffer, ACL_SUCCESS, api,
               "output picture at offset %zu of DVPP block %p is not 128-byte aligned",
               static_cast<size_t>(off), reinterpret_cast<void*>(base));
  auto next = m.upper_bound(off);
  if (next != m.end() && off + footprint(pic.size) > next->first)
    raise_rule(Rule::kDvppSubBuffer, ACL_SUCCESS, api,
               "output picture at offset %zu of DVPP block %p (%u bytes) needs %zu bytes "
               "(ALIGN_UP(len, 32) + 32, next start 128-aligned) but the next sub-buffer starts "
               "at offset %zu",
               static_cast<size_t>(off), reinterpret_cast<void*>(base), pic.size,
               footprint(pic.size), static_cast<size_t>(next->first));
  if (next != m.begin()) {
    auto prev = std::prev(next);
    if (prev->first != off && prev->first + footprint(prev->second) > off)
      raise_rule(Rule::kDvppSubBuffer, ACL_SUCCESS, api,
                 "output picture at offset %zu of DVPP block %p starts inside the footprint of "
                 "the sub-buffer at offset %zu (%zu bytes: ALIGN_UP(len, 32) + 32, next start "
                 "128-aligned)",
                 static_cast<size_t>(off), reinterpret_cast<void*>(base),
                 static_cast<size_t>(prev->first), footprint(prev->second));
  }
  m[off] = pic.size;
}

void forget_sub_buffers(const void* base) {
  SubBuffers& s = subs();
  std::lock_guard<std::mutex> lock(s.mu);
  if (base == nullptr)
    s.blocks.clear();
  else
    s.blocks.erase(reinterpret_cast<uintptr_t>(base));
}

}  // namespace sim::dvpp
