// vdec (stages/vdec.j2): a stream's VDEC channel, V1 (aclvdec*): created with the report thread
// that runs its callbacks (aclvdecCreateChannel subscribes it and creates the channel's own
// streams), one stream descriptor per send in flight, and the end of stream, whose send returns
// once every frame is decoded and every callback has returned (ACL_FACTS 8; HA
// aclcppdevg_03_0330, 03_0348). A callback never destroys the channel (HA canncommercial/601
// aclcppdevg_03_0208): the channel is destroyed at teardown, after the end of stream.
// Emitted verbatim by ascgen into the programs that have such a stage; hand-written, reviewed once.
#ifndef ASCGEN_STAGES_VDEC_H_
#define ASCGEN_STAGES_VDEC_H_

#include <cstdint>
#include <vector>

#include "acl/acl.h"
#include "acl/ops/acl_dvpp.h"
#include "ascgen_dvpp.h"
#include "ascgen_pools.h"

namespace ascgen {
namespace video {

// Channel `id` of the calling process, its callbacks run by `report_thread`; destroyed (channel,
// then description) at teardown.
inline aclvdecChannelDesc* open_v1_channel(const char* stage, uint32_t id, uint64_t report_thread,
                                           aclvdecCallback callback, acldvppStreamFormat format,
                                           acldvppPixelFormat picture, Cleanup& cleanup) {
  aclvdecChannelDesc* ch = require(aclvdecCreateChannelDesc(), stage, "aclvdecCreateChannelDesc");
  cleanup.add("aclvdecDestroyChannelDesc", [ch] { return aclvdecDestroyChannelDesc(ch); });
  check(aclvdecSetChannelDescChannelId(ch, id), stage, "aclvdecSetChannelDescChannelId");
  check(aclvdecSetChannelDescThreadId(ch, report_thread), stage, "aclvdecSetChannelDescThreadId");
  check(aclvdecSetChannelDescCallback(ch, callback), stage, "aclvdecSetChannelDescCallback");
  check(aclvdecSetChannelDescEnType(ch, format), stage, "aclvdecSetChannelDescEnType");
  check(aclvdecSetChannelDescOutPicFormat(ch, picture), stage, "aclvdecSetChannelDescOutPicFormat");
  check(aclvdecCreateChannel(ch), stage, "aclvdecCreateChannel");
  cleanup.add("aclvdecDestroyChannel", [ch] { return aclvdecDestroyChannel(ch); });
  return ch;
}

// `count` stream descriptors (one per send in flight), destroyed at teardown.
inline std::vector<acldvppStreamDesc*> stream_descs(const char* stage, int count,
                                                    Cleanup& cleanup) {
  std::vector<acldvppStreamDesc*> out;
  for (int k = 0; k < count; ++k) {
    acldvppStreamDesc* d = require(acldvppCreateStreamDesc(), stage, "acldvppCreateStreamDesc");
    cleanup.add("acldvppDestroyStreamDesc", [d] { return acldvppDestroyStreamDesc(d); });
    out.push_back(d);
  }
  return out;
}

// One access unit in DVPP memory as a send's input, stamped with its send number.
inline void set_unit(const char* stage, acldvppStreamDesc* d, const uint8_t* data, size_t size,
                     uint64_t stamp) {
  check(acldvppSetStreamDescData(d, const_cast<uint8_t*>(data)), stage, "acldvppSetStreamDescData");
  check(acldvppSetStreamDescSize(d, static_cast<uint32_t>(size)), stage,
        "acldvppSetStreamDescSize");
  check(acldvppSetStreamDescTimestamp(d, stamp), stage, "acldvppSetStreamDescTimestamp");
}

// The end of the stream: a descriptor with the EOS flag and no data; returns once every frame
// sent is decoded and every callback has returned.
inline void end_v1_stream(const char* stage, aclvdecChannelDesc* ch) {
  acldvppStreamDesc* eos = require(acldvppCreateStreamDesc(), stage, "acldvppCreateStreamDesc");
  const char* call = "acldvppSetStreamDescEos";
  aclError ret = acldvppSetStreamDescEos(eos, 1);
  if (ret == ACL_SUCCESS) {
    call = "aclvdecSendFrame";
    ret = aclvdecSendFrame(ch, eos, nullptr, nullptr, nullptr);
  }
  const aclError destroyed = acldvppDestroyStreamDesc(eos);
  check(ret, stage, call);
  check(destroyed, stage, "acldvppDestroyStreamDesc");
}

}  // namespace video
}  // namespace ascgen

#endif  // ASCGEN_STAGES_VDEC_H_
