// DVPP memory, JPEG header queries and JPEGD decode (acldvpp* entry points).
//
// acldvppJpegDecodeAsync is a task on engine kJpegd. Timing is fixed at submit:
//   service_us = engines.jpegd.base_us + engines.jpegd.per_mpixel_us * Mpixels
// where Mpixels is the source picture as the output descriptor describes it
// (width x height, which JPEGD outputs rounded down to even; the strides when
// width/height are unset), the same formula as ascgen's planner. The output
// descriptor is copied at submit (a program may reuse it for the next frame);
// the JPEG bytes are read when the task completes, which is when a slot reused
// too early shows up. A stream JPEGD refuses at that point (not a JPEG,
// progressive, arithmetic, too small or large, output too small for it) writes
// nothing, logs a warning, and sets the output descriptor's retCode
// (ACL_ERROR_UNSUPPORTED_JPEG or ACL_ERROR_INVALID_PARAM): on the device the
// decode fails on the stream, not in the call. A failure is data, not a program
// error -- unless the program never reads the code (acldvppGetPicDescRetCode):
// device rule jpegd.retcode_unread (dvpp_rules.h). One channel per stream:
// dvpp.channel_one_stream; output sub-buffers: dvpp.sub_buffer.
#include <cstring>
#include <string>

#include "acl/acl.h"
#include "acl_sim/imaging/content_hash.h"
#include "acl_sim/imaging/jpeg_decode.h"
#include "acl_sim/imaging/jpeg_info.h"
#include "api/api.h"
#include "api/runtime.h"
#include "core/memory.h"
#include "core/task.h"
#include "dvpp/dvpp_content.h"
#include "dvpp/dvpp_desc.h"
#include "dvpp/dvpp_rules.h"
#include "report/log.h"
#include "rules/rules.h"
#include "vdec/vdec_mix.h"

using namespace sim;
namespace img = acl_sim::imaging;

namespace {

constexpr aclError kUnsupportedJpeg = ACL_ERROR_UNSUPPORTED_JPEG;
// Bytes after the data JPEGD zeroes in its input buffer (rule jpegd.eoi_margin).
constexpr size_t kEoiMargin = 8;

bool is_unsupported(img::JpegdReject r) {
  return r != img::JpegdReject::kNone && r != img::JpegdReject::kInvalidStream &&
         r != img::JpegdReject::kTooSmall && r != img::JpegdReject::kTooLarge;
}

// Parses a host-side JPEG as acldvppJpegGetImageInfo does: unparsable streams are
// ACL_ERROR_INVALID_PARAM, streams JPEGD cannot decode ACL_ERROR_UNSUPPORTED_JPEG.
aclError parse_header(const char* api, const void* data, uint32_t size, img::JpegInfo* info) {
  // The JPEG helpers reach the image processor through the DVPP manager, whose first use
  // creates a stream and device memory: without a device the processor is null and the call
  // fails with ACL_ERROR_INTERNAL_ERROR (device rule dvpp.jpeg_info_device).
  if (!initialized() || current_context() == nullptr)
    return raise_rule(Rule::kDvppJpegInfoDevice, ACL_ERROR_INTERNAL_ERROR, api,
                      "the calling thread has no device (%s): aclInit, aclrtSetDevice (or set "
                      "a context) first, or parse the JPEG header on the host",
                      initialized() ? "no current context" : "before aclInit");
  if (data == nullptr || size == 0)
    return raise_rule(Rule::kJpegInfoArgs, ACL_ERROR_INVALID_PARAM, api, "data %p, size %u", data,
                      size);
  MemKind kind = classify(data, size);
  if (kind == MemKind::kDevice || kind == MemKind::kDvpp)
    // The JPEG helpers parse host memory; on a PCIe card (ACL_HOST) device
    // memory is not mapped into the host: the host load would fault.
    return raise_rule(Rule::kHostDevicePointer, ACL_ERROR_INVALID_PARAM, api,
                      "data %p (+%u bytes) is %s memory, not host memory: parse the JPEG's "
                      "host copy before uploading it",
                      data, size,
                      kind == MemKind::kDvpp ? "DVPP (acldvppMalloc)" : "device (aclrtMalloc)");
  *info = img::parse_jpeg_info(static_cast<const uint8_t*>(data), size);
  dvpp::Limits lim;
  img::JpegdLimits jl;
  if (dvpp::current_limits(&lim, nullptr)) jl = dvpp::jpegd_limits(lim);
  img::JpegdVerdict v = img::jpegd_accepts(*info, jl);
  if (v.reject == img::JpegdReject::kInvalidStream)
    return raise_rule(Rule::kJpegInfoStream, ACL_ERROR_INVALID_PARAM, api, "not a JPEG stream: %s",
                      info->error);
  if (is_unsupported(v.reject))
    return raise_rule(Rule::kJpegInfoUnsupported, ACL_ERROR_UNSUPPORTED_JPEG, api,
                      "%ux%u %s JPEG: JPEGD does not decode a %s", info->width, info->height,
                      img::to_string(info->subsampling), img::to_string(v.reject));
  return ACL_SUCCESS;
}

// The semi-planar format JPEGD writes for `requested` (UNKNOWN keeps the source's).
acldvppPixelFormat written_format(acldvppPixelFormat requested, img::Subsampling s) {
  if (requested != PIXEL_FORMAT_UNKNOWN) return requested;
  switch (s) {
    case img::Subsampling::k444:
      return PIXEL_FORMAT_YUV_SEMIPLANAR_444;
    case img::Subsampling::k422:
      return PIXEL_FORMAT_YUV_SEMIPLANAR_422;
    case img::Subsampling::k440:
      return PIXEL_FORMAT_YUV_SEMIPLANAR_440;
    case img::Subsampling::kGray:
      return PIXEL_FORMAT_YUV_400;
    default:
      return PIXEL_FORMAT_YUV_SEMIPLANAR_420;
  }
}

void swap_chroma(uint8_t* frame, uint32_t ws, uint32_t hs) {
  uint8_t* uv = frame + static_cast<size_t>(ws) * hs;
  size_t n = static_cast<size_t>(ws) * hs / 2;
  for (size_t i = 0; i + 1 < n; i += 2) std::swap(uv[i], uv[i + 1]);
}

// What a JPEGD task needs, copied at submit.
struct DecodeJob {
  const uint8_t* src = nullptr;
  uint32_t size = 0;
  acldvppPicDesc out;                   // snapshot
  std::shared_ptr<dvpp::PicSlot> slot;  // the live descriptor, for its retCode
  dvpp::Limits lim;
};

// A decode's outcome: code 0 = decoded.
struct Outcome {
  aclError code = ACL_SUCCESS;
  std::string why;
  uint32_t width = 0, height = 0;  // the picture written (upright, even), for the descriptor
};

// Writes the even w x h NV12 picture `src` (strides sws x shs) into `dst` (strides dws x dhs)
// turned upright by EXIF orientation `o` (2..8; 5..8 swap width and height), as JPEGD does
// [HIA aclcppdevg_03_0191 62RC1, aclpythondevg_01_0476 800]: each output pixel (x, y) of the
// upright picture comes from the stored one at the position the orientation names.
void orient_nv12(const uint8_t* src, uint32_t sws, uint32_t shs, uint32_t w, uint32_t h, uint32_t o,
                 uint8_t* dst, uint32_t dws, uint32_t dhs) {
  const bool turned = o >= 5;
  auto copy_plane = [&](const uint8_t* s, uint8_t* d, uint32_t pw, uint32_t ph, uint32_t bytes) {
    const uint32_t ow = turned ? ph : pw, oh = turned ? pw : ph;  // in units of `bytes`
    for (uint32_t y = 0; y < oh; ++y) {
      for (uint32_t x = 0; x < ow; ++x) {
        uint32_t sx = x, sy = y;
        switch (o) {
          case 2:
            sx = pw - 1 - x;
            break;
          case 3:
            sx = pw - 1 - x;
            sy = ph - 1 - y;
            break;
          case 4:
            sy = ph - 1 - y;
            break;
          case 5:
            sx = y;
            sy = x;
            break;
          case 6:
            sx = y;
            sy = ph - 1 - x;
            break;
          case 7:
            sx = pw - 1 - y;
            sy = ph - 1 - x;
            break;
          case 8:
            sx = pw - 1 - y;
            sy = x;
            break;
          default:
            break;
        }
        std::memcpy(d + static_cast<size_t>(y) * dws + static_cast<size_t>(x) * bytes,
                    s + static_cast<size_t>(sy) * sws + static_cast<size_t>(sx) * bytes, bytes);
      }
    }
  };
  copy_plane(src, dst, w, h, 1);  // luma
  copy_plane(src + static_cast<size_t>(sws) * shs, dst + static_cast<size_t>(dws) * dhs, w / 2,
             h / 2, 2);  // chroma: U and V pairs at half resolution
}

// A failed decode is data (the picture's result code), not a program error.
Outcome fail_decode(const DecodeJob& job, aclError code, const char* what, const std::string& why) {
  log(LogLevel::kWarn,
      "acldvppJpegDecodeAsync: decode of %u bytes failed (%s: %s): result code %d in the output "
      "descriptor",
      job.size, what, why.c_str(), code);
  return Outcome{code, std::string(what) + ": " + why};
}

// Runs at the task's completion on the device thread.
Outcome run_decode(const DecodeJob& job) {
  img::JpegInfo info = img::parse_jpeg_info(job.src, job.size);
  img::JpegdVerdict v = img::jpegd_accepts(info, dvpp::jpegd_limits(job.lim));
  if (!v.accepted()) {
    aclError code = is_unsupported(v.reject) ? kUnsupportedJpeg : ACL_ERROR_INVALID_PARAM;
    return fail_decode(job, code, "stream refused",
                       std::string("JPEG input refused: ") + img::to_string(v.reject) +
                           (info.valid ? "" : std::string(" (") + info.error + ")"));
  }
  acldvppPixelFormat fmt = written_format(job.out.format, info.subsampling);
  // JPEGD applies the EXIF orientation: 5..8 come out height x width.
  const uint32_t o = info.orientation;
  const uint32_t up_w = o >= 5 ? info.height : info.width, up_h = o >= 5 ? info.width : info.height;
  dvpp::Check c = dvpp::validate_jpegd_result(job.out, up_w, up_h, fmt, job.lim);
  if (!c.ok()) return fail_decode(job, c.code, "output descriptor", c.message);
  if (fmt != PIXEL_FORMAT_YUV_SEMIPLANAR_420 && fmt != PIXEL_FORMAT_YVU_SEMIPLANAR_420) {
    raise_rule(Rule::kJpegdKeepFormat, ACL_SUCCESS, "acldvppJpegDecodeAsync",
               "the simulator writes NV12 for a %s source with output format UNKNOWN",
               img::to_string(info.subsampling));
  }
  dvpp::JpegdGeometry g = dvpp::jpegd_output_geometry(up_w, up_h, fmt, job.lim);
  uint32_t ws = job.out.widthStride != 0 ? job.out.widthStride : g.widthStride;
  uint32_t hs = job.out.heightStride != 0 ? job.out.heightStride : g.heightStride;
  // A turned or mirrored picture is decoded as stored, then written upright.
  const dvpp::JpegdGeometry stored =
      o == 1 ? g : dvpp::jpegd_output_geometry(info.width, info.height, fmt, job.lim);
  const uint32_t dws = o == 1 ? ws : stored.widthStride, dhs = o == 1 ? hs : stored.heightStride;
  uint64_t content = img::hash64(job.src, job.size);
  uint64_t misses = dvpp::decode_cache().stats().misses;
  img::DecodeResult r = dvpp::decode_cache().decode(content, job.src, job.size, dws, dhs);
  dvpp::count_decode(dvpp::decode_cache().stats().misses != misses);
  if (r.status != img::DecodeStatus::kOk) {
    aclError code =
        r.status == img::DecodeStatus::kUnsupported ? kUnsupportedJpeg : ACL_ERROR_INVALID_PARAM;
    return fail_decode(job, code, "decode",
                       std::string("libjpeg-turbo: ") + img::to_string(r.status));
  }
  size_t bytes = o == 1 ? r.image->bytes.size() : static_cast<size_t>(ws) * hs * 3 / 2;
  if (bytes > job.out.size)
    return fail_decode(job, ACL_ERROR_INVALID_PARAM, "output size",
                       "output size " + std::to_string(job.out.size) + " < " +
                           std::to_string(bytes) + " bytes of its strides " + std::to_string(ws) +
                           "x" + std::to_string(hs));
  auto* dst = static_cast<uint8_t*>(job.out.data);
  bool nv21 = job.out.format == PIXEL_FORMAT_YVU_SEMIPLANAR_420;
  uint64_t id = img::hash_combine(img::hash_combine(content, ws), hs * 2u + (nv21 ? 1u : 0u));
  if (o != 1) id = img::hash_combine(id, o);
  // A turned or mirrored picture's size goes back into the descriptor (the program reads it).
  const Outcome done{ACL_SUCCESS, "", o == 1 ? 0 : up_w & ~1u, o == 1 ? 0 : up_h & ~1u};
  // A slot that still holds this very frame (tag and fingerprint match: the
  // ring came round to the same input) needs no copy.
  uint64_t held = 0;
  if (dvpp::tag_get(dst, bytes, &held) && held == id) return done;
  if (o == 1)
    std::memcpy(dst, r.image->bytes.data(), bytes);
  else
    orient_nv12(r.image->bytes.data(), dws, dhs, info.width & ~1u, info.height & ~1u, o, dst, ws,
                hs);
  if (nv21) swap_chroma(dst, ws, hs);
  dvpp::tag_set(dst, bytes, id);
  return done;
}

}  // namespace

extern "C" {

aclError acldvppMalloc(void** devPtr, size_t size) {
  SIM_API_ENTER();
  if (aclError rc = require_context(__func__)) return rc;
  if (aclError rc = vdec::use(vdec::DvppApi::kV1, __func__, ACL_ERROR_FEATURE_UNSUPPORTED))
    return rc;
  return dvpp_alloc(__func__, devPtr, size);
}

aclError acldvppFree(void* devPtr) {
  SIM_API_ENTER();
  if (aclError rc = require_context(__func__)) return rc;
  aclError rc = dvpp_free(__func__, devPtr);
  if (rc == ACL_SUCCESS) {
    dvpp::tag_clear(devPtr, 1);
    dvpp::forget_sub_buffers(devPtr);
  }
  return rc;
}

aclError acldvppJpegGetImageInfo(const void* data, uint32_t size, uint32_t* width, uint32_t* height,
                                 int32_t* components) {
  SIM_API_ENTER();
  img::JpegInfo info;
  if (aclError rc = parse_header(__func__, data, size, &info)) return rc;
  if (width != nullptr) *width = info.width;
  if (height != nullptr) *height = info.height;
  if (components != nullptr) *components = static_cast<int32_t>(info.components);
  return ACL_SUCCESS;
}

aclError acldvppJpegGetImageInfoV2(const void* data, uint32_t size, uint32_t* width,
                                   uint32_t* height, int32_t* components,
                                   acldvppJpegFormat* format) {
  SIM_API_ENTER();
  img::JpegInfo info;
  if (aclError rc = parse_header(__func__, data, size, &info)) return rc;
  if (width != nullptr) *width = info.width;
  if (height != nullptr) *height = info.height;
  if (components != nullptr) *components = static_cast<int32_t>(info.components);
  if (format != nullptr) *format = static_cast<acldvppJpegFormat>(info.subsampling);
  return ACL_SUCCESS;
}

aclError acldvppJpegPredictDecSize(const void* data, uint32_t dataSize,
                                   acldvppPixelFormat outputPixelFormat, uint32_t* decSize) {
  SIM_API_ENTER();
  if (decSize == nullptr)
    return raise_rule(Rule::kJpegInfoArgs, ACL_ERROR_INVALID_PARAM, __func__, "decSize is NULL");
  if (outputPixelFormat != PIXEL_FORMAT_YUV_SEMIPLANAR_420 &&
      outputPixelFormat != PIXEL_FORMAT_YVU_SEMIPLANAR_420 &&
      outputPixelFormat != PIXEL_FORMAT_UNKNOWN)
    return raise_rule(Rule::kJpegdOutputFormat, ACL_ERROR_INVALID_PARAM, __func__,
                      "JPEGD writes NV12, NV21 or UNKNOWN (keep the source's), not %s",
                      dvpp::format_name(outputPixelFormat));
  img::JpegInfo info;
  if (aclError rc = parse_header(__func__, data, dataSize, &info)) return rc;
  dvpp::Limits lim;
  const char* err = "";
  if (!dvpp::current_limits(&lim, &err))
    return raise_rule(Rule::kProfileDvpp, ACL_ERROR_UNINITIALIZE, __func__, "%s", err);
  acldvppPixelFormat fmt = written_format(outputPixelFormat, info.subsampling);
  uint32_t w = info.width & ~1u, h = info.height & ~1u;  // NV12 rounds odd sizes down
  *decSize = static_cast<uint32_t>(dvpp::jpegd_output_geometry(w, h, fmt, lim).bytes);
  return ACL_SUCCESS;
}

aclError acldvppJpegDecodeAsync(acldvppChannelDesc* channelDesc, const void* data, uint32_t size,
                                acldvppPicDesc* outputDesc, aclrtStream stream) {
  SIM_API_ENTER();
  if (aclError rc = require_context(__func__)) return rc;
  if (aclError rc = vdec::use(vdec::DvppApi::kV1, __func__, ACL_ERROR_FEATURE_UNSUPPORTED))
    return rc;
  DecodeJob job;
  const char* err = "";
  if (!dvpp::current_limits(&job.lim, &err))
    return raise_rule(Rule::kProfileDvpp, ACL_ERROR_UNINITIALIZE, __func__, "%s", err);
  dvpp::Check c = dvpp::check_jpeg_decode(channelDesc, data, size, outputDesc, job.lim);
  if (!c.ok()) return raise_rule(Rule::kJpegdArgs, c.code, __func__, "%s", c.message.c_str());
  if (classify(data, size) != MemKind::kDvpp)
    return raise_rule(Rule::kJpegdInputMemory, ACL_ERROR_INVALID_PARAM, __func__,
                      "JPEG input %p (+%u bytes) is not inside one acldvppMalloc block", data,
                      size);
  if (classify(outputDesc->data, outputDesc->size) != MemKind::kDvpp)
    return raise_rule(Rule::kJpegdOutputMemory, ACL_ERROR_INVALID_PARAM, __func__,
                      "output %p (+%u bytes) is not inside one acldvppMalloc block",
                      outputDesc->data, outputDesc->size);
  // JPEGD zeroes the 8 bytes after the EOI marker in its input buffer: they must be the
  // buffer's own (device rule jpegd.eoi_margin), and the task writes them.
  if (classify(data, static_cast<size_t>(size) + kEoiMargin) != MemKind::kDvpp)
    return raise_rule(Rule::kJpegdEoiMargin, ACL_ERROR_INVALID_PARAM, __func__,
                      "JPEG input %p (+%u bytes): the %zu bytes after it, which JPEGD zeroes, "
                      "run past its acldvppMalloc block; allocate the input with them",
                      data, size, kEoiMargin);
  job.src = static_cast<const uint8_t*>(data);
  job.size = size;
  job.out = *outputDesc;

  double w = job.out.width != 0 ? job.out.width : job.out.widthStride;
  double h = job.out.height != 0 ? job.out.height : job.out.heightStride;
  TaskSpec spec;
  spec.engine = Engine::kJpegd;
  spec.service_us = engine_param(Engine::kJpegd, "base_us") +
                    engine_param(Engine::kJpegd, "per_mpixel_us") * w * h / 1e6;
  spec.reads = {{data, size}};
  spec.writes = {{job.out.data, job.out.size},
                 {static_cast<const uint8_t*>(data) + size, kEoiMargin}};
  dvpp::check_sub_buffer(__func__, job.out);
  job.slot = dvpp::decode_submitted(__func__, outputDesc);
  spec.work = [job] {
    Outcome o = run_decode(job);
    std::memset(const_cast<uint8_t*>(job.src) + job.size, 0, kEoiMargin);
    dvpp::decode_done(job.slot, static_cast<uint32_t>(o.code), o.why, o.width, o.height);
  };
  spec.name = "jpegd";
  return dvpp::submit_on_channel(__func__, channelDesc, stream, std::move(spec));
}

}  // extern "C"
