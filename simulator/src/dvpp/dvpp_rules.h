// DVPP device rules (rules.h): one channel per stream, decode result codes read,
// sub-buffers of acldvppMalloc blocks laid out as documented.
#ifndef ACL_SIM_SRC_DVPP_RULES_H_
#define ACL_SIM_SRC_DVPP_RULES_H_

#include <cstdint>
#include <memory>
#include <string>

#include "core/task.h"
#include "dvpp/dvpp_desc.h"

namespace sim::dvpp {

// Submits a JPEGD/VPC task of `channel` on `stream` (sim::submit). Rule
// dvpp.channel_one_stream: the channel still has queued or running work from
// another stream ("do not use a channel concurrently across streams").
aclError submit_on_channel(const char* api, acldvppChannelDesc* channel, void* stream,
                           TaskSpec spec);

// acldvppDestroyChannel: rule dvpp.channel_destroy_pending when tasks of the channel have
// not completed (they still use it); forgets the channel's use record.
void channel_destroyed(const char* api, const acldvppChannelDesc* channel);
// acldvppDestroyChannelDesc of a channel not destroyed yet: warning dvpp.channel_desc_order
// (the descriptor goes, the program's later acldvppDestroyChannel fails), and the
// dvpp.channel_destroy_pending check.
void channel_desc_destroyed_first(const char* api, const acldvppChannelDesc* channel);
// acldvppDestroyChannel of a descriptor acldvppDestroyChannelDesc already destroyed:
// ACL_ERROR_INVALID_PARAM (CANN: "an error is reported"), argument rule dvpp.channel_desc_live.
aclError channel_desc_gone(const char* api, const acldvppChannelDesc* channel);

// Decode result codes (rule jpegd.retcode_unread). A JPEGD task holds the
// output descriptor's slot; the device thread writes the result code through
// it at completion (nothing once the descriptor is destroyed).
struct PicSlot;
// acldvppJpegDecodeAsync accepted a decode into `desc`; reports an earlier
// failure into it that nobody read.
std::shared_ptr<PicSlot> decode_submitted(const char* api, acldvppPicDesc* desc);
// At the decode's completion (device thread): code 0 = decoded.
// A decode completed with `code`; when it decoded, JPEGD writes the picture's size (upright,
// even: width x height) into the live output descriptor [HIA aclcppdevg_03_0357: read the
// output width and height back with acldvppGetPicDesc*].
void decode_done(const std::shared_ptr<PicSlot>& slot, uint32_t code, const std::string& why,
                 uint32_t width = 0, uint32_t height = 0);
// acldvppGetPicDescRetCode: reads the code (under the registry's lock) and
// marks a failure as seen.
uint32_t read_ret_code(const acldvppPicDesc* desc);

// A copy of a picture descriptor taken at submission, under the lock that the decoder's
// completion holds while it writes the descriptor's result code (a VPC task may be submitted
// while the decode that fills its input descriptor still runs).
acldvppPicDesc snapshot(const acldvppPicDesc& desc);
// acldvppDestroyPicDesc: reports an unread failure, detaches the slot.
void pic_destroyed(const char* api, const acldvppPicDesc* desc);
// aclFinalize / device teardown, after the device drained: every failure still
// unread is reported once.
void report_unread(const char* api);

// Rule dvpp.sub_buffer: `pic` (an output picture) starts inside an acldvppMalloc
// block, not at its start: its offset must be 128-aligned and it must keep
// ALIGN_UP(size, 32) + 32 bytes, rounded up to 128, clear of the next
// sub-buffer written in that block (and the previous one of it).
void check_sub_buffer(const char* api, const acldvppPicDesc& pic);
// acldvppFree of `base` (nullptr: every block, at teardown): forget its sub-buffers.
void forget_sub_buffers(const void* base);

}  // namespace sim::dvpp

#endif  // ACL_SIM_SRC_DVPP_RULES_H_
