// Rule corpus, part 4 (rules_corpus.h): the device rules of the simulated VDEC (V1), on the
// first frames of the test clip qvga_h264 (ctest fixture sim.vdec_clips). Each `bad` breaks
// one documented restriction; its twin does the same work the documented way.
#include "acl/dvpp/hi_dvpp.h"
#include "rules_corpus.h"
#include "vdec_clip.h"

namespace corpus {
namespace {

using namespace vdec_test;

constexpr size_t kFrames = 4;

struct Session {
  explicit Session(const char* name = "qvga_h264") : clip(load_clip(name, "h264", false)) {}
  Clip clip;
  bool open = clip.ok && aclInit(nullptr) == ACL_SUCCESS && aclrtSetDevice(0) == ACL_SUCCESS;
  int close() {
    aclrtResetDevice(0);
    return aclFinalize() == ACL_SUCCESS ? 0 : 1;
  }
};

// Sends the first kFrames units into `out` pictures (one each), then the end of stream.
bool play(aclvdecChannelDesc* ch, const Clip& clip, std::vector<acldvppPicDesc*>* out) {
  std::vector<acldvppStreamDesc*> in;
  bool ok = true;
  for (size_t i = 0; i < kFrames; ++i) {
    in.push_back(unit_desc(clip, i));
    ok = ok && aclvdecSendFrame(ch, in[i], (*out)[i], nullptr, nullptr) == ACL_SUCCESS;
  }
  ok = ok && send_eos(ch) == ACL_SUCCESS;
  for (auto* d : in) free_unit(d);
  return ok;
}

// The output pictures have the stream's size but a widthStride of 328 (not a multiple of 16);
// the twin's is ALIGN(320, 16) = 320.
void quiet(acldvppStreamDesc*, acldvppPicDesc*, void*) {}

int vdec_output_geometry(bool bad) {
  Session s;
  if (!s.open) return 2;
  int status = 0;
  {
    ReportThread reports;
    aclvdecChannelDesc* ch = channel_desc(0, reports.id(), quiet, H264_HIGH_LEVEL);
    if (aclvdecCreateChannel(ch) != ACL_SUCCESS) return 2;
    reports.start();
    std::vector<acldvppPicDesc*> out;
    for (size_t i = 0; i < kFrames; ++i) {
      out.push_back(output_picture(s.clip.width, s.clip.height));
      if (bad) {
        void* data = acldvppGetPicDescData(out[i]);
        acldvppFree(data);
        acldvppMalloc(&data, 328 * 240 * 3 / 2);
        acldvppSetPicDescData(out[i], data);
        acldvppSetPicDescSize(out[i], 328 * 240 * 3 / 2);
        acldvppSetPicDescWidthStride(out[i], 328);
      }
    }
    if (!play(ch, s.clip, &out)) status = 3;
    reports.stop();
    for (size_t i = 0; i < kFrames; ++i) {
      const uint32_t ret = acldvppGetPicDescRetCode(out[i]);
      if ((ret == 0) == bad) status = 3;  // the bad pictures carry a result code
      free_picture(out[i]);
    }
    aclvdecDestroyChannel(ch);
    aclvdecDestroyChannelDesc(ch);
  }
  const int closed = s.close();
  return status != 0 ? status : closed;
}

// The callback of the last frame destroys its own channel; the twin destroys it after the
// end of stream, from the thread that sent it.
aclvdecChannelDesc* g_channel = nullptr;
std::atomic<int> g_callbacks{0};
std::atomic<aclError> g_destroy_rc{ACL_SUCCESS};

void destroying(acldvppStreamDesc*, acldvppPicDesc*, void*) {
  if (++g_callbacks == static_cast<int>(kFrames)) g_destroy_rc = aclvdecDestroyChannel(g_channel);
}

int vdec_destroy_in_callback(bool bad) {
  Session s;
  if (!s.open) return 2;
  int status = 0;
  {
    ReportThread reports;
    g_channel = channel_desc(1, reports.id(), bad ? destroying : quiet, H264_HIGH_LEVEL);
    if (aclvdecCreateChannel(g_channel) != ACL_SUCCESS) return 2;
    reports.start();
    std::vector<acldvppPicDesc*> out;
    for (size_t i = 0; i < kFrames; ++i) out.push_back(output_picture(s.clip.width, s.clip.height));
    if (!play(g_channel, s.clip, &out)) status = 3;
    reports.stop();
    if (bad && g_destroy_rc != ACL_ERROR_FAILURE) status = 3;
    if (aclvdecDestroyChannel(g_channel) != ACL_SUCCESS) status = 3;
    aclvdecDestroyChannelDesc(g_channel);
    for (auto* p : out) free_picture(p);
  }
  const int closed = s.close();
  return status != 0 ? status : closed;
}

// A 96x96 stream, below the smallest picture VDEC decodes (128x128); the twin's is 320x240.
int vdec_stream_size(bool bad) {
  Session s(bad ? "tiny_h264" : "qvga_h264");
  if (!s.open) return 2;
  int status = 0;
  {
    ReportThread reports;
    aclvdecChannelDesc* ch = channel_desc(3, reports.id(), quiet, H264_HIGH_LEVEL);
    if (aclvdecCreateChannel(ch) != ACL_SUCCESS) return 2;
    reports.start();
    std::vector<acldvppPicDesc*> out;
    for (size_t i = 0; i < kFrames; ++i) out.push_back(output_picture(s.clip.width, s.clip.height));
    if (!play(ch, s.clip, &out)) status = 3;
    reports.stop();
    for (auto* p : out) {
      if ((acldvppGetPicDescRetCode(p) == 0) == bad) status = 3;
      free_picture(p);
    }
    aclvdecDestroyChannel(ch);
    aclvdecDestroyChannelDesc(ch);
  }
  const int closed = s.close();
  return status != 0 ? status : closed;
}

// A V1 channel, then the V2 media API in the same process; the twin stays with V1.
int dvpp_api_mix(bool bad) {
  Session s;
  if (!s.open) return 2;
  {
    ReportThread reports;
    aclvdecChannelDesc* ch = channel_desc(2, reports.id(), quiet, H264_HIGH_LEVEL);
    if (aclvdecCreateChannel(ch) != ACL_SUCCESS) return 2;
    aclvdecDestroyChannel(ch);
    aclvdecDestroyChannelDesc(ch);
  }
  if (bad) hi_mpi_sys_init();  // reported whatever it returns (the 310 has no V2 at all)
  return s.close();
}

}  // namespace

std::vector<Case> with_vdec_cases(std::vector<Case> base) {
  base.push_back(
      {"vdec_output_geometry", "RULE vdec.output_geometry ", 87, "", "", vdec_output_geometry});
  base.push_back({"vdec_destroy_in_callback", "RULE vdec.destroy_in_callback ", 87, "", "",
                  vdec_destroy_in_callback});
  base.push_back({"vdec_stream_size", "RULE vdec.stream_size ", 87, "", "", vdec_stream_size});
  base.push_back({"dvpp_api_mix", "RULE dvpp.api_mix ", 87, "", "", dvpp_api_mix});
  return base;
}

}  // namespace corpus
