// JPEGD and VPC through the public API, compared with the imaging kernels
// (every byte of the destination, stride padding included), and their errors.
#include <cstring>
#include <vector>

#include "acl_sim/imaging/jpeg_decode.h"
#include "acl_sim/imaging/resize.h"
#include "check.h"
#include "dvpp_helpers.h"
#include "session.h"

using namespace testing_sim;
namespace img = acl_sim::imaging;

namespace {

constexpr double kFast = 0.05;  // ACL_SIM_TIME_SCALE for these tests

// The kernel's NV12 decode of `jpeg` on the given strides.
std::vector<uint8_t> kernel_decode(const std::vector<uint8_t>& jpeg, uint32_t ws, uint32_t hs) {
  std::vector<uint8_t> out(img::nv12_bytes(ws, hs));
  if (img::decode_jpeg_nv12(jpeg.data(), jpeg.size(), out.data(), out.size(), ws, hs) !=
      img::DecodeStatus::kOk)
    out.clear();
  return out;
}

struct Decoded {
  void* data = nullptr;
  acldvppPicDesc* desc = nullptr;
};

// Decodes `jpeg` on the device into a fresh DVPP block with strides ws x hs.
Decoded device_decode(acldvppChannelDesc* ch, aclrtStream s, const std::vector<uint8_t>& jpeg,
                      uint32_t w, uint32_t h, uint32_t ws, uint32_t hs) {
  Decoded d;
  void* src = dvpp_upload(jpeg);
  uint32_t bytes = static_cast<uint32_t>(img::nv12_bytes(ws, hs));
  if (src == nullptr || acldvppMalloc(&d.data, bytes) != ACL_SUCCESS) return d;
  d.desc = make_pic(d.data, bytes, w, h, ws, hs);
  if (acldvppJpegDecodeAsync(ch, src, static_cast<uint32_t>(jpeg.size()), d.desc, s) ||
      aclrtSynchronizeStream(s))
    d.data = nullptr;
  acldvppFree(src);
  return d;
}

}  // namespace

TEST(jpeg, image_info_and_predicted_size) {
  CHECK_OK(open_device(kFast));
  std::vector<uint8_t> j = make_jpeg(333, 211, TJSAMP_422);
  uint32_t w = 0, h = 0, dec = 0;
  int32_t comps = 0;
  acldvppJpegFormat fmt = ACL_JPEG_CSS_UNKNOWN;
  CHECK_OK(
      acldvppJpegGetImageInfoV2(j.data(), static_cast<uint32_t>(j.size()), &w, &h, &comps, &fmt));
  CHECK_EQ(w, 333u);
  CHECK_EQ(h, 211u);
  CHECK_EQ(comps, 3);
  CHECK_EQ(fmt, ACL_JPEG_CSS_422);
  CHECK_OK(acldvppJpegPredictDecSize(j.data(), static_cast<uint32_t>(j.size()),
                                     PIXEL_FORMAT_YUV_SEMIPLANAR_420, &dec));
  CHECK_EQ(dec, 384u * 224 * 3 / 2);  // 332x210 on 128x16 strides
  CHECK_OK(acldvppJpegGetImageInfo(j.data(), static_cast<uint32_t>(j.size()), &w, &h, &comps));
}

TEST(jpeg, unsupported_and_invalid_streams) {
  CHECK_OK(open_device(kFast));
  std::vector<uint8_t> prog = make_jpeg(256, 128, TJSAMP_420, TJFLAG_PROGRESSIVE);
  uint32_t w = 0, h = 0;
  int32_t c = 0;
  CHECK_RULE(acldvppJpegGetImageInfo(prog.data(), static_cast<uint32_t>(prog.size()), &w, &h, &c),
             ACL_ERROR_UNSUPPORTED_JPEG, "jpeg_info.unsupported");
  std::vector<uint8_t> junk(1000, 0x5A);
  CHECK_RULE(acldvppJpegGetImageInfo(junk.data(), 1000, &w, &h, &c), ACL_ERROR_INVALID_PARAM,
             "jpeg_info.stream");
  // The asynchronous decode refuses it on the device: retCode, nothing written.
  acldvppChannelDesc* ch = make_channel();
  CHECK(ch != nullptr);
  aclrtStream s = nullptr;
  CHECK_OK(aclrtCreateStream(&s));
  void* src = dvpp_upload(prog);
  void* out = nullptr;
  uint32_t bytes = 256 * 128 * 3 / 2;
  CHECK_OK(acldvppMalloc(&out, bytes));
  CHECK_OK(aclrtMemset(out, bytes, 0x11, bytes));
  acldvppPicDesc* d = make_pic(out, bytes, 256, 128, 256, 128);
  CHECK_OK(acldvppJpegDecodeAsync(ch, src, static_cast<uint32_t>(prog.size()), d, s));
  CHECK_OK(aclrtSynchronizeStream(s));
  CHECK_EQ(acldvppGetPicDescRetCode(d), static_cast<uint32_t>(ACL_ERROR_UNSUPPORTED_JPEG));
  CHECK(download(out, bytes) == std::vector<uint8_t>(bytes, 0x11));
  acldvppDestroyPicDesc(d);
  CHECK_OK(acldvppFree(src));
  CHECK_OK(acldvppFree(out));
  destroy_channel(ch);
  CHECK_OK(aclrtDestroyStream(s));
}

TEST(jpeg, decode_matches_kernel_on_strides) {
  CHECK_OK(open_device(kFast));
  acldvppChannelDesc* ch = make_channel();
  aclrtStream s = nullptr;
  CHECK_OK(aclrtCreateStream(&s));
  std::vector<uint8_t> j = make_jpeg(333, 211, TJSAMP_420, 0, 3);
  // The JPEGD strides (128x16), then wider ones the program chose.
  const uint32_t strides[][2] = {{384, 224}, {512, 256}};
  for (const auto& st : strides) {
    Decoded d = device_decode(ch, s, j, 332, 210, st[0], st[1]);
    CHECK(d.data != nullptr);
    CHECK_EQ(acldvppGetPicDescRetCode(d.desc), 0u);
    std::vector<uint8_t> want = kernel_decode(j, st[0], st[1]);
    CHECK(!want.empty());
    CHECK(download(d.data, want.size()) == want);
    acldvppDestroyPicDesc(d.desc);
    CHECK_OK(acldvppFree(d.data));
  }
  destroy_channel(ch);
  CHECK_OK(aclrtDestroyStream(s));
  aclsimMemStats st{};
  CHECK_OK(aclsimGetMemStats(&st));
  CHECK_EQ(st.dvppAllocs, 0u);
  CHECK_EQ(st.deviceBytes, 0u);
}

// `jpeg` with an APP1 Exif segment after SOI whose first IFD holds Orientation `o`.
std::vector<uint8_t> with_orientation(const std::vector<uint8_t>& jpeg, uint8_t o) {
  const uint8_t app1[] = {0xFF, 0xE1, 0x00, 0x22, 'E', 'x', 'i', 'f', 0,    0,    'M', 'M',
                          0,    0x2A, 0,    0,    0,   8,   0,   1,   0x01, 0x12, 0,   3,
                          0,    0,    0,    1,    0,   o,   0,   0,   0,    0,    0,   0};
  std::vector<uint8_t> out(jpeg.size() + sizeof app1);
  std::memcpy(out.data(), jpeg.data(), 2);
  std::memcpy(out.data() + 2, app1, sizeof app1);
  std::memcpy(out.data() + 2 + sizeof app1, jpeg.data() + 2, jpeg.size() - 2);
  return out;
}

// JPEGD applies the EXIF orientation (issue 27 item 4; HIA aclcppdevg_03_0191 62RC1): a 64x32
// picture tagged 6 (turn 90 degrees clockwise) comes out 32x64, upright, and the output
// descriptor says so (aclcppdevg_03_0357: read the width and height back); strides that fit
// only the stored size make the decode fail (its result code).
TEST(jpeg, exif_orientation_turns_the_picture) {
  CHECK_OK(open_device(kFast));
  acldvppChannelDesc* ch = make_channel();
  aclrtStream s = nullptr;
  CHECK_OK(aclrtCreateStream(&s));
  const std::vector<uint8_t> plain = make_jpeg(64, 32, TJSAMP_420, 0, 5);
  const std::vector<uint8_t> turned = with_orientation(plain, 6);
  Decoded a = device_decode(ch, s, plain, 64, 32, 128, 32);
  Decoded b = device_decode(ch, s, turned, 64, 32, 128, 64);  // the header's size, set by a program
  CHECK(a.data != nullptr && b.data != nullptr);
  CHECK_EQ(acldvppGetPicDescRetCode(b.desc), 0u);
  CHECK_EQ(acldvppGetPicDescWidth(b.desc), 32u);
  CHECK_EQ(acldvppGetPicDescHeight(b.desc), 64u);
  const std::vector<uint8_t> y0 = download(a.data, 128 * 32), y6 = download(b.data, 128 * 64);
  // upright (x, y) of the turned picture is stored (y, 31 - x)
  for (uint32_t y = 0; y < 64; y += 7)
    for (uint32_t x = 0; x < 32; x += 5) CHECK_EQ(y6[y * 128 + x], y0[(31 - x) * 128 + y]);
  // the same picture mirrored (2) keeps its size
  Decoded m = device_decode(ch, s, with_orientation(plain, 2), 64, 32, 128, 32);
  CHECK(m.data != nullptr);
  CHECK_EQ(acldvppGetPicDescWidth(m.desc), 64u);
  const std::vector<uint8_t> y2 = download(m.data, 128 * 32);
  CHECK_EQ(y2[5 * 128 + 0], y0[5 * 128 + 63]);
  // strides for 64x32 cannot hold the turned 32x64 picture: the decode fails on the stream
  void* out = nullptr;
  CHECK_OK(acldvppMalloc(&out, 128 * 32 * 3 / 2));
  acldvppPicDesc* small = make_pic(out, 128 * 32 * 3 / 2, 64, 32, 128, 32);
  void* src = dvpp_upload(turned);
  CHECK_OK(acldvppJpegDecodeAsync(ch, src, static_cast<uint32_t>(turned.size()), small, s));
  CHECK_OK(aclrtSynchronizeStream(s));
  CHECK(acldvppGetPicDescRetCode(small) != 0u);
  for (Decoded* d : {&a, &b, &m}) {
    acldvppDestroyPicDesc(d->desc);
    CHECK_OK(acldvppFree(d->data));
  }
  acldvppDestroyPicDesc(small);
  CHECK_OK(acldvppFree(out));
  CHECK_OK(acldvppFree(src));
  destroy_channel(ch);
  CHECK_OK(aclrtDestroyStream(s));
}

TEST(jpeg, output_too_small_or_misaligned) {
  CHECK_OK(open_device(kFast));
  acldvppChannelDesc* ch = make_channel();
  aclrtStream s = nullptr;
  CHECK_OK(aclrtCreateStream(&s));
  std::vector<uint8_t> j = make_jpeg(256, 128);
  void* src = dvpp_upload(j);
  void* out = nullptr;
  CHECK_OK(acldvppMalloc(&out, 256 * 128 * 3 / 2));
  // widthStride 200 is not a multiple of 128: refused when the stream is parsed.
  acldvppPicDesc* d = make_pic(out, 256 * 128 * 3 / 2, 256, 128, 200, 128);
  CHECK_OK(acldvppJpegDecodeAsync(ch, src, static_cast<uint32_t>(j.size()), d, s));
  CHECK_OK(aclrtSynchronizeStream(s));
  CHECK_EQ(acldvppGetPicDescRetCode(d), static_cast<uint32_t>(ACL_ERROR_INVALID_PARAM));
  // Too small for the picture.
  acldvppPicDesc* small = make_pic(out, 1000, 256, 128, 256, 128);
  CHECK_OK(acldvppJpegDecodeAsync(ch, src, static_cast<uint32_t>(j.size()), small, s));
  CHECK_OK(aclrtSynchronizeStream(s));
  CHECK_EQ(acldvppGetPicDescRetCode(small), static_cast<uint32_t>(ACL_ERROR_INVALID_PARAM));
  // Refused at the call: a format JPEGD does not write, input not DVPP memory.
  acldvppSetPicDescFormat(small, PIXEL_FORMAT_RGB_888);
  CHECK_RULE(acldvppJpegDecodeAsync(ch, src, static_cast<uint32_t>(j.size()), small, s),
             ACL_ERROR_INVALID_PARAM, "jpegd.args");
  CHECK_RULE(acldvppJpegDecodeAsync(ch, j.data(), static_cast<uint32_t>(j.size()), d, s),
             ACL_ERROR_INVALID_PARAM, "jpegd.input_memory");
  acldvppDestroyPicDesc(d);
  acldvppDestroyPicDesc(small);
  CHECK_OK(acldvppFree(src));
  CHECK_OK(acldvppFree(out));
  destroy_channel(ch);
  CHECK_OK(aclrtDestroyStream(s));
}

// The descriptor is taken at submit, the JPEG bytes at completion.
TEST(jpeg, descriptor_at_submit_bytes_at_completion) {
  CHECK_OK(open_device(kFast));
  acldvppChannelDesc* ch = make_channel();
  aclrtStream s1 = nullptr, s2 = nullptr;
  CHECK_OK(aclrtCreateStream(&s1));
  CHECK_OK(aclrtCreateStream(&s2));
  std::vector<uint8_t> a = make_jpeg(256, 128, TJSAMP_420, 0, 1);
  std::vector<uint8_t> b = make_jpeg(256, 128, TJSAMP_420, 0, 2);
  size_t slot = std::max(a.size(), b.size()) + 8;  // + the 8 bytes JPEGD zeroes after EOI
  void* src = dvpp_upload(a, slot);
  void* host = nullptr;
  CHECK_OK(aclrtMallocHost(&host, slot));
  std::memcpy(host, b.data(), b.size());
  uint32_t bytes = 256 * 128 * 3 / 2;
  void *out = nullptr, *other = nullptr;
  CHECK_OK(acldvppMalloc(&out, bytes));
  CHECK_OK(acldvppMalloc(&other, bytes));
  aclrtEvent ev = nullptr;
  CHECK_OK(aclrtCreateEventWithFlag(&ev, ACL_EVENT_SYNC));
  // s1 overwrites the slot with b (after a 1 MiB copy), then records ev.
  void* big = nullptr;
  void* big_host = nullptr;
  CHECK_OK(aclrtMalloc(&big, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_OK(aclrtMallocHost(&big_host, 1 << 20));
  CHECK_OK(aclrtMemcpyAsync(big, 1 << 20, big_host, 1 << 20, ACL_MEMCPY_HOST_TO_DEVICE, s1));
  CHECK_OK(aclrtMemcpyAsync(src, slot, host, b.size(), ACL_MEMCPY_HOST_TO_DEVICE, s1));
  CHECK_OK(aclrtRecordEvent(ev, s1));
  CHECK_OK(aclrtStreamWaitEvent(s2, ev));
  acldvppPicDesc* d = make_pic(out, bytes, 256, 128, 256, 128);
  CHECK_OK(acldvppJpegDecodeAsync(ch, src, static_cast<uint32_t>(b.size()), d, s2));
  acldvppSetPicDescData(d, other);  // reused for the next frame: must not matter
  CHECK_OK(aclrtSynchronizeStream(s2));
  CHECK_EQ(acldvppGetPicDescRetCode(d), 0u);
  CHECK(download(out, bytes) == kernel_decode(b, 256, 128));
  acldvppDestroyPicDesc(d);
  CHECK_OK(aclrtDestroyEvent(ev));
  for (void* p : {src, out, other}) CHECK_OK(acldvppFree(p));
  CHECK_OK(aclrtFree(big));
  CHECK_OK(aclrtFreeHost(big_host));
  CHECK_OK(aclrtFreeHost(host));
  destroy_channel(ch);
  CHECK_OK(aclrtDestroyStream(s1));
  CHECK_OK(aclrtDestroyStream(s2));
}

TEST(vpc, resize_matches_kernel_padding_untouched) {
  CHECK_OK(open_device(kFast));
  acldvppChannelDesc* ch = make_channel();
  aclrtStream s = nullptr;
  CHECK_OK(aclrtCreateStream(&s));
  std::vector<uint8_t> j = make_jpeg(640, 480, TJSAMP_420, 0, 5);
  Decoded d = device_decode(ch, s, j, 640, 480, 640, 480);
  CHECK(d.data != nullptr);
  std::vector<uint8_t> src = download(d.data, 640 * 480 * 3 / 2);
  // Output 224x224 on 240x226 strides, pre-filled so the padding can be checked.
  const uint32_t ws = 240, hs = 226, bytes = ws * hs * 3 / 2;
  void* out = nullptr;
  CHECK_OK(acldvppMalloc(&out, bytes));
  acldvppPicDesc* o = make_pic(out, bytes, 224, 224, ws, hs);
  acldvppResizeConfig* rc = acldvppCreateResizeConfig();
  CHECK_OK(acldvppSetResizeConfigInterpolation(rc, 1));
  std::vector<uint8_t> want(bytes, 0xAB);
  img::Nv12ConstView sv(src.data(), 640, 480, 640, 480);
  img::Nv12View dv{want.data(), 224, 224, ws, hs};
  CHECK(img::resize_nv12(sv, img::full_roi(640, 480), dv, img::full_roi(224, 224),
                         img::Interpolation::kBilinear) == img::ResizeStatus::kOk);
  // Twice: the decoded (tagged) source goes through the resize cache, then a
  // copy of it (untagged) is resampled directly; both must give the kernel's bytes.
  for (int round = 0; round < 3; ++round) {
    void* in = d.data;
    if (round == 2) in = dvpp_upload(src);
    acldvppPicDesc* i = make_pic(in, 640 * 480 * 3 / 2, 640, 480, 640, 480);
    CHECK_OK(aclrtMemset(out, bytes, 0xAB, bytes));
    CHECK_OK(acldvppVpcResizeAsync(ch, i, o, rc, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK(download(out, bytes) == want);
    acldvppDestroyPicDesc(i);
    if (round == 2) CHECK_OK(acldvppFree(in));
  }
  acldvppDestroyResizeConfig(rc);
  acldvppDestroyPicDesc(o);
  acldvppDestroyPicDesc(d.desc);
  CHECK_OK(acldvppFree(out));
  CHECK_OK(acldvppFree(d.data));
  destroy_channel(ch);
  CHECK_OK(aclrtDestroyStream(s));
}

TEST(vpc, crop_paste_and_batch_match_kernel) {
  CHECK_OK(open_device(kFast));
  acldvppChannelDesc* ch = make_channel();
  aclrtStream s = nullptr;
  CHECK_OK(aclrtCreateStream(&s));
  std::vector<uint8_t> j = make_jpeg(320, 240, TJSAMP_420, 0, 7);
  Decoded d = device_decode(ch, s, j, 320, 240, 384, 240);
  CHECK(d.data != nullptr);
  std::vector<uint8_t> src = download(d.data, 384 * 240 * 3 / 2);
  img::Nv12ConstView sv(src.data(), 320, 240, 384, 240);
  acldvppPicDesc* in = make_pic(d.data, 384 * 240 * 3 / 2, 320, 240, 384, 240);
  // Crop (10,20)-(209,119) and paste it resized to (32,16)-(131,65) of a canvas.
  const uint32_t bytes = 256 * 128 * 3 / 2;
  void* canvas = nullptr;
  CHECK_OK(acldvppMalloc(&canvas, bytes));
  CHECK_OK(aclrtMemset(canvas, bytes, 0x33, bytes));
  acldvppPicDesc* out = make_pic(canvas, bytes, 256, 128, 256, 128);
  acldvppRoiConfig* crop = acldvppCreateRoiConfig(10, 209, 20, 119);
  acldvppRoiConfig* paste = acldvppCreateRoiConfig(32, 131, 16, 65);
  CHECK_OK(acldvppVpcCropAndPasteAsync(ch, in, out, crop, paste, s));
  CHECK_OK(aclrtSynchronizeStream(s));
  std::vector<uint8_t> want(bytes, 0x33);
  img::Nv12View dv{want.data(), 256, 128, 256, 128};
  CHECK(img::resize_nv12(sv, img::Roi{10, 20, 209, 119}, dv, img::Roi{32, 16, 131, 65},
                         img::Interpolation::kDefault) == img::ResizeStatus::kOk);
  CHECK(download(canvas, bytes) == want);
  // Batch crop: one source, two ROIs, two outputs of 64x32.
  acldvppBatchPicDesc* sb = acldvppCreateBatchPicDesc(1);
  acldvppBatchPicDesc* db = acldvppCreateBatchPicDesc(2);
  acldvppPicDesc* s0 = acldvppGetPicDesc(sb, 0);
  acldvppSetPicDescData(s0, d.data);
  acldvppSetPicDescSize(s0, 384 * 240 * 3 / 2);
  acldvppSetPicDescFormat(s0, PIXEL_FORMAT_YUV_SEMIPLANAR_420);
  acldvppSetPicDescWidth(s0, 320);
  acldvppSetPicDescHeight(s0, 240);
  acldvppSetPicDescWidthStride(s0, 384);
  acldvppSetPicDescHeightStride(s0, 240);
  void* outs[2] = {nullptr, nullptr};
  acldvppRoiConfig* rois[2] = {acldvppCreateRoiConfig(0, 127, 0, 63),
                               acldvppCreateRoiConfig(100, 299, 50, 149)};
  for (uint32_t k = 0; k < 2; ++k) {
    CHECK_OK(acldvppMalloc(&outs[k], 64 * 32 * 3 / 2));
    acldvppPicDesc* o = acldvppGetPicDesc(db, k);
    acldvppSetPicDescData(o, outs[k]);
    acldvppSetPicDescSize(o, 64 * 32 * 3 / 2);
    acldvppSetPicDescFormat(o, PIXEL_FORMAT_YUV_SEMIPLANAR_420);
    acldvppSetPicDescWidth(o, 64);
    acldvppSetPicDescHeight(o, 32);
    acldvppSetPicDescWidthStride(o, 64);
    acldvppSetPicDescHeightStride(o, 32);
  }
  uint32_t roiNums[1] = {2};
  CHECK_OK(acldvppVpcBatchCropAsync(ch, sb, roiNums, 1, db, rois, s));
  CHECK_OK(aclrtSynchronizeStream(s));
  for (uint32_t k = 0; k < 2; ++k) {
    std::vector<uint8_t> w(64 * 32 * 3 / 2, 0);
    std::vector<uint8_t> got = download(outs[k], w.size());
    img::Nv12View ov{w.data(), 64, 32, 64, 32};
    img::Roi r = k == 0 ? img::Roi{0, 0, 127, 63} : img::Roi{100, 50, 299, 149};
    CHECK(img::resize_nv12(sv, r, ov, img::full_roi(64, 32), img::Interpolation::kDefault) ==
          img::ResizeStatus::kOk);
    CHECK(got == w);
    CHECK_OK(acldvppFree(outs[k]));
    acldvppDestroyRoiConfig(rois[k]);
  }
  acldvppDestroyBatchPicDesc(sb);
  acldvppDestroyBatchPicDesc(db);
  acldvppDestroyRoiConfig(crop);
  acldvppDestroyRoiConfig(paste);
  acldvppDestroyPicDesc(in);
  acldvppDestroyPicDesc(out);
  acldvppDestroyPicDesc(d.desc);
  CHECK_OK(acldvppFree(canvas));
  CHECK_OK(acldvppFree(d.data));
  destroy_channel(ch);
  CHECK_OK(aclrtDestroyStream(s));
}

TEST(vpc, refused_at_the_call) {
  CHECK_OK(open_device(kFast));
  acldvppChannelDesc* ch = make_channel();
  aclrtStream s = nullptr;
  CHECK_OK(aclrtCreateStream(&s));
  void *a = nullptr, *b = nullptr;
  CHECK_OK(acldvppMalloc(&a, 640 * 480 * 3 / 2));
  CHECK_OK(acldvppMalloc(&b, 224 * 224 * 3 / 2));
  acldvppPicDesc* in = make_pic(a, 640 * 480 * 3 / 2, 640, 480, 640, 480);
  acldvppPicDesc* out = make_pic(b, 224 * 224 * 3 / 2, 224, 224, 224, 224);
  acldvppResizeConfig* rc = acldvppCreateResizeConfig();
  // Input width stride not a multiple of 16.
  acldvppSetPicDescWidthStride(in, 648 - 4);
  CHECK_RULE(acldvppVpcResizeAsync(ch, in, out, rc, s), ACL_ERROR_INVALID_PARAM, "vpc.args");
  acldvppSetPicDescWidthStride(in, 640);
  // Output buffer smaller than ws*hs*3/2.
  acldvppSetPicDescSize(out, 224 * 224);
  CHECK_RULE(acldvppVpcResizeAsync(ch, in, out, rc, s), ACL_ERROR_INVALID_PARAM, "vpc.args");
  acldvppSetPicDescSize(out, 224 * 224 * 3 / 2);
  // Odd left edge of the crop area.
  acldvppRoiConfig* odd = acldvppCreateRoiConfig(1, 100, 0, 99);
  CHECK_RULE(acldvppVpcCropAsync(ch, in, out, odd, s), ACL_ERROR_INVALID_PARAM, "vpc.args");
  // Output in host memory.
  std::vector<uint8_t> host(224 * 224 * 3 / 2 + 256);
  void* aligned = reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(host.data()) + 127) & ~127u);
  acldvppSetPicDescData(out, aligned);
  CHECK_RULE(acldvppVpcResizeAsync(ch, in, out, rc, s), ACL_ERROR_INVALID_PARAM, "vpc.memory");
  acldvppSetPicDescData(out, b);
  CHECK_OK(acldvppVpcResizeAsync(ch, in, out, rc, s));
  CHECK_OK(aclrtSynchronizeStream(s));
  acldvppDestroyRoiConfig(odd);
  acldvppDestroyResizeConfig(rc);
  acldvppDestroyPicDesc(in);
  acldvppDestroyPicDesc(out);
  CHECK_OK(acldvppFree(a));
  CHECK_OK(acldvppFree(b));
  destroy_channel(ch);
  CHECK_OK(aclrtDestroyStream(s));
}

// VPC input widthStride: ALIGN(w, 16) on the 310 (align.vpc_in.width 16), equal to the width
// on the A2/A3 (910B profile: align.vpc_in.width 1) [HIA aclcppdevg_03_0337 900beta2, Table 1].
TEST(vpc, input_stride_alignment_per_profile) {
  for (bool a2 : {false, true}) {
    if (a2) use_profile(write_profile("vpc_in_a2", {{"align.vpc_in.width", "1"}}));
    CHECK_OK(open_device(kFast));
    acldvppChannelDesc* ch = make_channel();
    aclrtStream s = nullptr;
    CHECK_OK(aclrtCreateStream(&s));
    void *a = nullptr, *b = nullptr;
    CHECK_OK(acldvppMalloc(&a, 100 * 64 * 3 / 2));
    CHECK_OK(acldvppMalloc(&b, 64 * 64 * 3 / 2));
    acldvppPicDesc* in = make_pic(a, 100 * 64 * 3 / 2, 100, 64, 100, 64);  // stride = width
    acldvppPicDesc* out = make_pic(b, 64 * 64 * 3 / 2, 64, 64, 64, 64);
    acldvppResizeConfig* cfg = acldvppCreateResizeConfig();
    if (a2)
      CHECK_OK(acldvppVpcResizeAsync(ch, in, out, cfg, s));
    else
      CHECK_RULE(acldvppVpcResizeAsync(ch, in, out, cfg, s), ACL_ERROR_INVALID_PARAM, "vpc.args");
    CHECK_OK(aclrtSynchronizeStream(s));
    acldvppDestroyResizeConfig(cfg);
    acldvppDestroyPicDesc(in);
    acldvppDestroyPicDesc(out);
    CHECK_OK(acldvppFree(a));
    CHECK_OK(acldvppFree(b));
    destroy_channel(ch);
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclFinalize());
  }
}

TEST(vpc, service_time_from_profile) {
  // 10 resizes to 224x224 on one stream: 10 x (300 + 1196 x 0.050176) us of VPC
  // time plus dispatch; the model clock must show it.
  CHECK_OK(open_device(1.0));
  acldvppChannelDesc* ch = make_channel();
  aclrtStream s = nullptr;
  CHECK_OK(aclrtCreateStream(&s));
  // A decoded (content-tagged) source: after the first resize, each one is a
  // resize-cache hit, so the device thread's own CPU does not stretch the run.
  Decoded d = device_decode(ch, s, make_jpeg(640, 480), 640, 480, 640, 480);
  CHECK(d.data != nullptr);
  void *a = d.data, *b = nullptr;
  CHECK_OK(acldvppMalloc(&b, 224 * 224 * 3 / 2));
  acldvppPicDesc* in = make_pic(a, 640 * 480 * 3 / 2, 640, 480, 640, 480);
  acldvppPicDesc* out = make_pic(b, 224 * 224 * 3 / 2, 224, 224, 224, 224);
  acldvppResizeConfig* rc = acldvppCreateResizeConfig();
  CHECK_OK(acldvppVpcResizeAsync(ch, in, out, rc, s));  // warms the resize cache
  CHECK_OK(aclrtSynchronizeStream(s));
  double t0 = aclsimNowUs();
  for (int i = 0; i < 10; ++i) CHECK_OK(acldvppVpcResizeAsync(ch, in, out, rc, s));
  std::fprintf(stderr, "vpc: 10 submits took %.0f us\n", aclsimNowUs() - t0);
  CHECK_OK(aclrtSynchronizeStream(s));
  double took = aclsimNowUs() - t0;
  double want = 10 * (300 + 1196 * 224.0 * 224 / 1e6);
  CHECK(took >= want);
  std::fprintf(stderr, "vpc: 10 resizes took %.0f us of model time (service %.0f)\n", took, want);
  CHECK(took < want * 10 + 50000);  // the host's own wall time also passes (sanitizers)
  acldvppDestroyResizeConfig(rc);
  acldvppDestroyPicDesc(in);
  acldvppDestroyPicDesc(out);
  acldvppDestroyPicDesc(d.desc);
  CHECK_OK(acldvppFree(a));
  CHECK_OK(acldvppFree(b));
  destroy_channel(ch);
  CHECK_OK(aclrtDestroyStream(s));
}

// Decoding into a slot that still holds the same frame skips the copy; any
// other content in the slot (another frame, a memset) is replaced.
TEST(jpeg, repeated_decodes_into_one_slot) {
  CHECK_OK(open_device(kFast));
  acldvppChannelDesc* ch = make_channel();
  aclrtStream s = nullptr;
  CHECK_OK(aclrtCreateStream(&s));
  std::vector<uint8_t> a = make_jpeg(256, 128, TJSAMP_420, 0, 1);
  std::vector<uint8_t> b = make_jpeg(256, 128, TJSAMP_420, 0, 2);
  void* sa = dvpp_upload(a);
  void* sb = dvpp_upload(b);
  const uint32_t bytes = 256 * 128 * 3 / 2;
  void* out = nullptr;
  CHECK_OK(acldvppMalloc(&out, bytes));
  acldvppPicDesc* d = make_pic(out, bytes, 256, 128, 256, 128);
  std::vector<uint8_t> want_a = kernel_decode(a, 256, 128), want_b = kernel_decode(b, 256, 128);
  struct Step {
    void* src;
    size_t size;
    bool memset_first;
    const std::vector<uint8_t>* want;
  } steps[] = {{sa, a.size(), false, &want_a},
               {sa, a.size(), false, &want_a},
               {sb, b.size(), false, &want_b},
               {sa, a.size(), false, &want_a},
               {sa, a.size(), true, &want_a}};
  for (const Step& st : steps) {
    if (st.memset_first) CHECK_OK(aclrtMemset(out, bytes, 0, bytes));
    CHECK_OK(acldvppJpegDecodeAsync(ch, st.src, static_cast<uint32_t>(st.size), d, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK(download(out, bytes) == *st.want);
  }
  acldvppDestroyPicDesc(d);
  for (void* p : {sa, sb, out}) CHECK_OK(acldvppFree(p));
  destroy_channel(ch);
  CHECK_OK(aclrtDestroyStream(s));
}
