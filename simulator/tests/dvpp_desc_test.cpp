// Unit test of the DVPP descriptor objects and the device parameter checks
// (simulator/src/dvpp/dvpp_desc.{h,cpp}, dvpp_check.cpp). Plain C++, no framework; the device is
// set only because a channel is created in the current context.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "acl/acl.h"
#include "acl_sim/acl_sim.h"
#include "dvpp/dvpp_desc.h"

namespace {

int g_failures = 0;

#define EXPECT(cond)                                                          \
  do {                                                                        \
    if (!(cond)) {                                                            \
      std::fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond); \
      ++g_failures;                                                           \
    }                                                                         \
  } while (0)

// A check fails with INVALID_PARAM and its message mentions `needle`.
#define EXPECT_FAIL(check, needle)                                                             \
  do {                                                                                         \
    const sim::dvpp::Check c_ = (check);                                                       \
    if (c_.code != ACL_ERROR_INVALID_PARAM || c_.message.find(needle) == std::string::npos) {  \
      std::fprintf(stderr, "%s:%d: expected failure mentioning '%s', got %d '%s'\n", __FILE__, \
                   __LINE__, needle, c_.code, c_.message.c_str());                             \
      ++g_failures;                                                                            \
    }                                                                                          \
  } while (0)

#define EXPECT_OK(check)                                                                     \
  do {                                                                                       \
    const sim::dvpp::Check c_ = (check);                                                     \
    if (!c_.ok()) {                                                                          \
      std::fprintf(stderr, "%s:%d: expected OK, got %d '%s'\n", __FILE__, __LINE__, c_.code, \
                   c_.message.c_str());                                                      \
      ++g_failures;                                                                          \
    }                                                                                        \
  } while (0)

// The ascend310 figures, as `ascgen profile ascend310 --flat` prints them.
const std::map<std::string, double> kAscend310 = {
    {"align.vpc_in.width", 16},
    {"align.vpc_in.height", 2},
    {"align.vpc_out.width", 16},
    {"align.vpc_out.height", 2},
    {"align.jpegd_out.width", 128},
    {"align.jpegd_out.height", 16},
    {"align.dvpp_addr", 128},
    {"limits.vpc_stride.min_width", 32},
    {"limits.vpc_stride.min_height", 6},
    {"limits.vpc_stride.max_width", 4096},
    {"limits.vpc_stride.max_height", 4096},
    {"limits.vpc_in.min_width", 10},
    {"limits.vpc_in.min_height", 6},
    {"limits.vpc_in.max_width", 8192},
    {"limits.vpc_in.max_height", 8192},
    {"limits.vpc_out.min_width", 10},
    {"limits.vpc_out.min_height", 6},
    {"limits.vpc_out.max_width", 4096},
    {"limits.vpc_out.max_height", 4096},
    {"limits.jpegd_in.min_width", 32},
    {"limits.jpegd_in.min_height", 32},
    {"limits.jpegd_in.max_width", 8192},
    {"limits.jpegd_in.max_height", 8192},
    {"limits.resize_ratio.min", 0.03125},
    {"limits.resize_ratio.max", 16.0},
};

sim::dvpp::Limits limits_310() {
  sim::dvpp::Limits lim;
  std::string error;
  auto num = [](const std::string& key) -> std::optional<double> {
    auto it = kAscend310.find(key);
    if (it == kAscend310.end()) return std::nullopt;
    return it->second;
  };
  if (!sim::dvpp::limits_from_profile(num, nullptr, &lim, &error)) {
    std::fprintf(stderr, "limits_from_profile: %s\n", error.c_str());
    std::exit(1);
  }
  return lim;
}

alignas(128) unsigned char g_buffer[256];

// A valid NV12 picture with 16x2-aligned strides.
acldvppPicDesc nv12(uint32_t w, uint32_t h) {
  acldvppPicDesc p;
  p.data = g_buffer;
  p.format = PIXEL_FORMAT_YUV_SEMIPLANAR_420;
  p.width = w;
  p.height = h;
  p.widthStride = sim::dvpp::align_up(w, 16);
  p.heightStride = sim::dvpp::align_up(h, 2);
  p.size = p.widthStride * p.heightStride * 3 / 2;
  return p;
}

void test_pic_desc_api() {
  acldvppPicDesc* p = acldvppCreatePicDesc();
  EXPECT(p != nullptr);
  EXPECT(acldvppGetPicDescFormat(p) == PIXEL_FORMAT_YUV_400);  // documented default
  EXPECT(acldvppGetPicDescData(p) == nullptr && acldvppGetPicDescSize(p) == 0);
  EXPECT(acldvppSetPicDescData(p, g_buffer) == ACL_SUCCESS);
  EXPECT(acldvppSetPicDescSize(p, 3110400) == ACL_SUCCESS);
  EXPECT(acldvppSetPicDescFormat(p, PIXEL_FORMAT_YVU_SEMIPLANAR_420) == ACL_SUCCESS);
  EXPECT(acldvppSetPicDescWidth(p, 1920) == ACL_SUCCESS);
  EXPECT(acldvppSetPicDescHeight(p, 1080) == ACL_SUCCESS);
  EXPECT(acldvppSetPicDescWidthStride(p, 1920) == ACL_SUCCESS);
  EXPECT(acldvppSetPicDescHeightStride(p, 1088) == ACL_SUCCESS);
  EXPECT(acldvppSetPicDescRetCode(p, 7) == ACL_SUCCESS);
  EXPECT(acldvppGetPicDescData(p) == g_buffer);
  EXPECT(acldvppGetPicDescSize(p) == 3110400);
  EXPECT(acldvppGetPicDescFormat(p) == PIXEL_FORMAT_YVU_SEMIPLANAR_420);
  EXPECT(acldvppGetPicDescWidth(p) == 1920 && acldvppGetPicDescHeight(p) == 1080);
  EXPECT(acldvppGetPicDescWidthStride(p) == 1920 && acldvppGetPicDescHeightStride(p) == 1088);
  EXPECT(acldvppGetPicDescRetCode(p) == 7);
  EXPECT(acldvppDestroyPicDesc(p) == ACL_SUCCESS);
  // NULL handling: setters fail, getters return defaults.
  EXPECT(acldvppSetPicDescWidth(nullptr, 1) == ACL_ERROR_INVALID_PARAM);
  EXPECT(acldvppDestroyPicDesc(nullptr) == ACL_ERROR_INVALID_PARAM);
  EXPECT(acldvppGetPicDescWidth(nullptr) == 0 && acldvppGetPicDescData(nullptr) == nullptr);
}

void test_batch_roi_resize_channel_api() {
  EXPECT(acldvppCreateBatchPicDesc(0) == nullptr);
  acldvppBatchPicDesc* b = acldvppCreateBatchPicDesc(3);
  EXPECT(b != nullptr);
  acldvppPicDesc* p2 = acldvppGetPicDesc(b, 2);
  EXPECT(p2 != nullptr && p2 != acldvppGetPicDesc(b, 1));
  EXPECT(acldvppGetPicDesc(b, 3) == nullptr && acldvppGetPicDesc(nullptr, 0) == nullptr);
  EXPECT(acldvppSetPicDescWidth(p2, 224) == ACL_SUCCESS && acldvppGetPicDescWidth(p2) == 224);
  EXPECT(acldvppDestroyBatchPicDesc(b) == ACL_SUCCESS);

  acldvppRoiConfig* roi = acldvppCreateRoiConfig(0, 223, 2, 225);
  EXPECT(roi != nullptr && roi->left == 0 && roi->right == 223 && roi->top == 2);
  EXPECT(acldvppSetRoiConfigLeft(roi, 4) == ACL_SUCCESS && roi->left == 4);
  EXPECT(acldvppSetRoiConfigRight(roi, 9) == ACL_SUCCESS && roi->right == 9);
  EXPECT(acldvppSetRoiConfigTop(roi, 6) == ACL_SUCCESS && roi->top == 6);
  EXPECT(acldvppSetRoiConfigBottom(roi, 11) == ACL_SUCCESS && roi->bottom == 11);
  EXPECT(acldvppSetRoiConfig(roi, 10, 21, 30, 41) == ACL_SUCCESS);
  EXPECT(roi->left == 10 && roi->right == 21 && roi->top == 30 && roi->bottom == 41);
  EXPECT(acldvppSetRoiConfig(nullptr, 0, 1, 0, 1) == ACL_ERROR_INVALID_PARAM);
  EXPECT(acldvppDestroyRoiConfig(roi) == ACL_SUCCESS);

  acldvppResizeConfig* rc = acldvppCreateResizeConfig();
  EXPECT(rc != nullptr && acldvppGetResizeConfigInterpolation(rc) == 0);
  EXPECT(acldvppSetResizeConfigInterpolation(rc, 2) == ACL_SUCCESS);
  EXPECT(acldvppGetResizeConfigInterpolation(rc) == 2);
  EXPECT(acldvppDestroyResizeConfig(rc) == ACL_SUCCESS);

  acldvppChannelDesc* ch = acldvppCreateChannelDesc();
  EXPECT(ch != nullptr);
  EXPECT(acldvppSetChannelDescMode(ch, 8) == ACL_ERROR_INVALID_PARAM);
  EXPECT(acldvppSetChannelDescMode(ch, DVPP_CHNMODE_VPC) == ACL_SUCCESS);
  EXPECT_FAIL(sim::dvpp::validate_channel(ch, DVPP_CHNMODE_VPC), "not created");
  EXPECT(acldvppCreateChannel(ch) == ACL_SUCCESS);
  EXPECT(acldvppCreateChannel(ch) == ACL_ERROR_INVALID_PARAM);  // twice
  EXPECT(acldvppSetChannelDescMode(ch, DVPP_CHNMODE_JPEGD) == ACL_ERROR_INVALID_PARAM);
  EXPECT_OK(sim::dvpp::validate_channel(ch, DVPP_CHNMODE_VPC));
  EXPECT_FAIL(sim::dvpp::validate_channel(ch, DVPP_CHNMODE_JPEGD), "mode");
  EXPECT(sim::dvpp::live_counts().channels == 1);
  acldvppChannelDesc* ch2 = acldvppCreateChannelDesc();
  EXPECT(acldvppCreateChannel(ch2) == ACL_SUCCESS);
  EXPECT(acldvppGetChannelDescChannelId(ch2) != acldvppGetChannelDescChannelId(ch));
  EXPECT(acldvppDestroyChannel(ch) == ACL_SUCCESS);
  EXPECT(acldvppDestroyChannel(ch) == ACL_ERROR_INVALID_PARAM);
  EXPECT(acldvppDestroyChannel(ch2) == ACL_SUCCESS);
  EXPECT(acldvppDestroyChannelDesc(ch) == ACL_SUCCESS);
  EXPECT(acldvppDestroyChannelDesc(ch2) == ACL_SUCCESS);
  EXPECT(acldvppDestroyChannelDesc(ch2) == ACL_ERROR_INVALID_PARAM);  // twice: not freed again
  EXPECT_FAIL(sim::dvpp::validate_channel(nullptr, DVPP_CHNMODE_VPC), "NULL");
  // The description destroyed before its channel: a warning, and the later
  // acldvppDestroyChannel reports an error (acldvppDestroyChannel Restrictions) without
  // reading the freed description (ASan).
  acldvppChannelDesc* ch3 = acldvppCreateChannelDesc();
  EXPECT(acldvppCreateChannel(ch3) == ACL_SUCCESS);
  aclsimClearLastRule();
  EXPECT(acldvppDestroyChannelDesc(ch3) == ACL_SUCCESS);
  EXPECT(std::string(aclsimLastRule()) == "dvpp.channel_desc_order");
  EXPECT(sim::dvpp::live_counts().channels == 0);
  EXPECT(acldvppDestroyChannel(ch3) == ACL_ERROR_INVALID_PARAM);
  EXPECT(std::string(aclsimLastRule()) == "dvpp.channel_desc_live");
}

void test_vpc_picture_checks(const sim::dvpp::Limits& lim) {
  EXPECT_OK(sim::dvpp::validate_vpc_input(nv12(1920, 1080), lim));
  EXPECT_OK(sim::dvpp::validate_vpc_output(nv12(224, 224), lim));
  acldvppPicDesc p = nv12(1920, 1080);
  p.data = nullptr;
  EXPECT_FAIL(sim::dvpp::validate_vpc_input(p, lim), "data is NULL");
  p = nv12(1920, 1080);
  p.data = g_buffer + 64;
  EXPECT_FAIL(sim::dvpp::validate_vpc_input(p, lim), "align.dvpp_addr");
  p = nv12(1920, 1080);
  p.format = PIXEL_FORMAT_RGB_BAYER_8BPP;
  EXPECT_FAIL(sim::dvpp::validate_vpc_input(p, lim), "not supported");
  p = nv12(1920, 1080);
  p.width = 1919;
  EXPECT_FAIL(sim::dvpp::validate_vpc_input(p, lim), "even");
  p = nv12(1920, 1080);
  p.height = 1079;
  EXPECT_FAIL(sim::dvpp::validate_vpc_input(p, lim), "even");
  p = nv12(1920, 1080);
  p.widthStride = 1928;  // not a multiple of 16
  EXPECT_FAIL(sim::dvpp::validate_vpc_input(p, lim), "align.vpc_in.width=16");
  p = nv12(1920, 1080);
  p.widthStride = 1904;  // multiple of 16 but < width
  EXPECT_FAIL(sim::dvpp::validate_vpc_input(p, lim), ">= width");
  p = nv12(1920, 1080);
  p.heightStride = 1081;
  EXPECT_FAIL(sim::dvpp::validate_vpc_input(p, lim), "align.vpc_in.height=2");
  p = nv12(1920, 1080);
  p.heightStride = 1078;
  EXPECT_FAIL(sim::dvpp::validate_vpc_input(p, lim), ">= height");
  p = nv12(1920, 1080);
  p.size -= 1;
  EXPECT_FAIL(sim::dvpp::validate_vpc_input(p, lim), "size must be >= 3110400");
  p = nv12(16, 6);  // stride 16 < 32
  EXPECT_FAIL(sim::dvpp::validate_vpc_input(p, lim), "limits.vpc_stride");
  p = nv12(8, 6);  // width 8 < 10
  EXPECT_FAIL(sim::dvpp::validate_vpc_input(p, lim), "outside 10x6");
  // 8K NV12 input is accepted, but not as output (max 4096) nor as RGB.
  EXPECT_OK(sim::dvpp::validate_vpc_input(nv12(7680, 4320), lim));
  EXPECT_FAIL(sim::dvpp::validate_vpc_output(nv12(7680, 4320), lim), "outside 10x6..4096x4096");
  p = nv12(4608, 64);
  p.format = PIXEL_FORMAT_YUV_400;
  EXPECT_FAIL(sim::dvpp::validate_vpc_input(p, lim), "limits.vpc_stride");
  // Packed RGB888: stride in bytes, 3 bytes per pixel.
  p = nv12(100, 50);
  p.format = PIXEL_FORMAT_RGB_888;
  p.widthStride = 304;  // ALIGN16(300)
  p.size = 304 * 50;
  EXPECT_OK(sim::dvpp::validate_vpc_input(p, lim));
  p.widthStride = 288;
  EXPECT_FAIL(sim::dvpp::validate_vpc_input(p, lim), ">= width*3");
  // The 310 VPC writes only NV12/NV21.
  p = nv12(224, 224);
  p.format = PIXEL_FORMAT_RGB_888;
  EXPECT_FAIL(sim::dvpp::validate_vpc_output(p, lim), "output format");
  EXPECT(sim::dvpp::buffer_bytes(PIXEL_FORMAT_YUV_SEMIPLANAR_422, 32, 8) == 512);
  EXPECT(sim::dvpp::buffer_bytes(PIXEL_FORMAT_YUV_SEMIPLANAR_444, 32, 8) == 768);
  EXPECT(sim::dvpp::bytes_per_pixel(PIXEL_FORMAT_BGRA_8888) == 4);
  EXPECT(sim::dvpp::bytes_per_pixel(PIXEL_FORMAT_UYVY_PACKED_422) == 2);
}

void test_jpegd_checks(const sim::dvpp::Limits& lim) {
  acldvppPicDesc out;
  out.data = g_buffer;
  out.format = PIXEL_FORMAT_YUV_SEMIPLANAR_420;
  out.size = 1;
  EXPECT_OK(sim::dvpp::validate_jpegd_output(out, lim));
  out.format = PIXEL_FORMAT_RGB_888;
  EXPECT_FAIL(sim::dvpp::validate_jpegd_output(out, lim), "NV12, NV21 or UNKNOWN");
  out.format = PIXEL_FORMAT_UNKNOWN;
  out.size = 0;
  EXPECT_FAIL(sim::dvpp::validate_jpegd_output(out, lim), "size is 0");
  // 1920x1080 on the 310: strides 1920x1088 (128x16), 3133440 bytes.
  const sim::dvpp::JpegdGeometry g =
      sim::dvpp::jpegd_output_geometry(1921, 1080, PIXEL_FORMAT_YUV_SEMIPLANAR_420, lim);
  EXPECT(g.widthStride == 2048 && g.heightStride == 1088 && g.bytes == 2048u * 1088 * 3 / 2);
  out.format = PIXEL_FORMAT_YUV_SEMIPLANAR_420;
  out.size = 1920 * 1088 * 3 / 2;
  EXPECT_OK(sim::dvpp::validate_jpegd_result(out, 1920, 1080, out.format, lim));
  out.size -= 1;
  EXPECT_FAIL(sim::dvpp::validate_jpegd_result(out, 1920, 1080, out.format, lim), "size must be");
  out.size = 1920 * 1088 * 3 / 2;
  out.widthStride = 1936;  // 16-aligned but not 128-aligned
  EXPECT_FAIL(sim::dvpp::validate_jpegd_result(out, 1920, 1080, out.format, lim),
              "align.jpegd_out.width=128");
  out.widthStride = 1920;
  out.heightStride = 1080;
  EXPECT_FAIL(sim::dvpp::validate_jpegd_result(out, 1920, 1080, out.format, lim),
              "align.jpegd_out.height=16");
  EXPECT_FAIL(sim::dvpp::validate_jpegd_result(out, 16, 16, out.format, lim), "limits.jpegd_in");
}

void test_roi_scale_resize(const sim::dvpp::Limits& lim) {
  const acldvppPicDesc pic = nv12(1920, 1080);
  EXPECT_OK(sim::dvpp::validate_roi({0, 223, 0, 223}, pic, lim, "crop area"));
  EXPECT_OK(sim::dvpp::validate_roi({1696, 1919, 856, 1079}, pic, lim, "crop area"));
  EXPECT_FAIL(sim::dvpp::validate_roi({1, 223, 0, 223}, pic, lim, "crop area"), "even");
  EXPECT_FAIL(sim::dvpp::validate_roi({0, 224, 0, 223}, pic, lim, "crop area"), "odd");
  EXPECT_FAIL(sim::dvpp::validate_roi({0, 7, 0, 5}, pic, lim, "crop area"), "outside 10x6");
  EXPECT_FAIL(sim::dvpp::validate_roi({0, 4097, 0, 99}, nv12(7680, 4320), lim, "crop area"),
              "outside");
  EXPECT_FAIL(sim::dvpp::validate_roi({1700, 1921, 0, 99}, pic, lim, "paste area"), "paste area");
  EXPECT_FAIL(sim::dvpp::validate_roi({20, 11, 0, 99}, pic, lim, "crop area"), "right must be");
  EXPECT_OK(sim::dvpp::validate_scale(1920, 1080, 224, 224, lim));
  EXPECT_FAIL(sim::dvpp::validate_scale(4096, 4096, 100, 100, lim), "limits.resize_ratio");
  EXPECT_FAIL(sim::dvpp::validate_scale(10, 6, 224, 224, lim), "limits.resize_ratio");
  acldvppResizeConfig rc;
  rc.interpolation = 4;
  EXPECT_OK(sim::dvpp::validate_resize_config(rc, lim));
  rc.interpolation = 5;
  EXPECT_FAIL(sim::dvpp::validate_resize_config(rc, lim), "interpolation 5");
}

void test_batch(const sim::dvpp::Limits&) {
  acldvppBatchPicDesc* src = acldvppCreateBatchPicDesc(2);
  acldvppBatchPicDesc* dst = acldvppCreateBatchPicDesc(3);
  acldvppRoiConfig* a = acldvppCreateRoiConfig(0, 15, 0, 15);
  acldvppRoiConfig* areas[3] = {a, a, a};
  uint32_t roi_nums[2] = {1, 2};
  EXPECT_OK(sim::dvpp::validate_batch(src, roi_nums, 2, dst, areas, "cropAreas"));
  EXPECT_FAIL(sim::dvpp::validate_batch(src, roi_nums, 1, dst, areas, "cropAreas"), "size 1");
  roi_nums[1] = 1;
  EXPECT_FAIL(sim::dvpp::validate_batch(src, roi_nums, 2, dst, areas, "cropAreas"),
              "sum(roiNums) = 2");
  roi_nums[1] = 2;
  areas[2] = nullptr;
  EXPECT_FAIL(sim::dvpp::validate_batch(src, roi_nums, 2, dst, areas, "cropAreas"),
              "cropAreas[2] is NULL");
  EXPECT_FAIL(sim::dvpp::validate_batch(nullptr, roi_nums, 2, dst, areas, "cropAreas"), "NULL");
  acldvppDestroyRoiConfig(a);
  acldvppDestroyBatchPicDesc(src);
  acldvppDestroyBatchPicDesc(dst);
}

void test_operation_checks(const sim::dvpp::Limits& lim) {
  acldvppChannelDesc ch;
  ch.created = true;
  const acldvppPicDesc in = nv12(1920, 1080);
  acldvppPicDesc out = nv12(224, 224);
  acldvppResizeConfig rc;
  EXPECT_OK(sim::dvpp::check_vpc_resize(&ch, &in, &out, &rc, lim));
  EXPECT_FAIL(sim::dvpp::check_vpc_resize(&ch, &in, &out, nullptr, lim), "resize config is NULL");
  EXPECT_FAIL(sim::dvpp::check_vpc_resize(&ch, nullptr, &out, &rc, lim), "NULL");
  acldvppChannelDesc closed;
  EXPECT_FAIL(sim::dvpp::check_vpc_resize(&closed, &in, &out, &rc, lim), "not created");
  // Crop 448x448 from the middle, resize to 224x224; then a crop outside.
  acldvppRoiConfig crop{736, 1183, 316, 763};
  EXPECT_OK(sim::dvpp::check_vpc_crop(&ch, &in, &out, &crop, nullptr, nullptr, false, false, lim));
  crop.right = 1920;
  EXPECT_FAIL(sim::dvpp::check_vpc_crop(&ch, &in, &out, &crop, nullptr, nullptr, false, false, lim),
              "odd");
  crop.right = 1921;
  EXPECT_FAIL(sim::dvpp::check_vpc_crop(&ch, &in, &out, &crop, nullptr, nullptr, false, false, lim),
              "not inside");
  // Crop and paste into the left half of a 448x224 canvas.
  crop = {0, 1919, 0, 1079};
  acldvppRoiConfig paste{0, 223, 0, 223};
  out = nv12(448, 224);
  EXPECT_OK(sim::dvpp::check_vpc_crop(&ch, &in, &out, &crop, &paste, nullptr, false, true, lim));
  EXPECT_FAIL(sim::dvpp::check_vpc_crop(&ch, &in, &out, &crop, nullptr, nullptr, false, true, lim),
              "paste area is NULL");
  paste.right = 449;
  EXPECT_FAIL(sim::dvpp::check_vpc_crop(&ch, &in, &out, &crop, &paste, nullptr, false, true, lim),
              "paste area");
  // JPEGD: channel mode, data and the output description.
  acldvppPicDesc jout;
  jout.data = g_buffer;
  jout.format = PIXEL_FORMAT_YUV_SEMIPLANAR_420;
  jout.size = 4096;
  EXPECT_OK(sim::dvpp::check_jpeg_decode(&ch, g_buffer, 100, &jout, lim));
  EXPECT_FAIL(sim::dvpp::check_jpeg_decode(&ch, nullptr, 100, &jout, lim), "JPEG input");
  acldvppChannelDesc vpc_only;
  vpc_only.created = true;
  vpc_only.mode = DVPP_CHNMODE_VPC;
  EXPECT_FAIL(sim::dvpp::check_jpeg_decode(&vpc_only, g_buffer, 100, &jout, lim), "mode");
  // Batch: 2 sources, 1 + 2 ROIs; the third destination is misaligned.
  acldvppBatchPicDesc src{{nv12(1920, 1080), nv12(640, 480)}};
  acldvppBatchPicDesc dst{{nv12(224, 224), nv12(224, 224), nv12(224, 224)}};
  acldvppRoiConfig r0{0, 447, 0, 447}, r1{0, 223, 0, 223}, r2{64, 287, 32, 255};
  acldvppRoiConfig* crops[3] = {&r0, &r1, &r2};
  uint32_t roi_nums[2] = {1, 2};
  EXPECT_OK(sim::dvpp::check_vpc_batch(&ch, &src, roi_nums, 2, &dst, crops, nullptr, nullptr, false,
                                       false, lim));
  EXPECT_FAIL(sim::dvpp::check_vpc_batch(&ch, &src, roi_nums, 2, &dst, crops, nullptr, nullptr,
                                         false, true, lim),
              "pasteAreas must not be NULL");
  dst.pics[2].widthStride = 232;
  EXPECT_FAIL(sim::dvpp::check_vpc_batch(&ch, &src, roi_nums, 2, &dst, crops, nullptr, nullptr,
                                         false, false, lim),
              "source picture 1, ROI 2: VPC output");
  dst.pics[2].widthStride = 224;
  r2.right = 703;  // outside the 640-wide second source
  EXPECT_FAIL(sim::dvpp::check_vpc_batch(&ch, &src, roi_nums, 2, &dst, crops, nullptr, nullptr,
                                         false, false, lim),
              "ROI 2: crop area");
}

void test_limits_from_profile() {
  sim::dvpp::Limits lim;
  std::string error;
  auto missing = [](const std::string& key) -> std::optional<double> {
    if (key == "align.jpegd_out.width") return std::nullopt;
    auto it = kAscend310.find(key);
    return it == kAscend310.end() ? std::nullopt : std::optional<double>(it->second);
  };
  EXPECT(!sim::dvpp::limits_from_profile(missing, nullptr, &lim, &error));
  EXPECT(error.find("align.jpegd_out.width") != std::string::npos);
  const sim::dvpp::Limits l310 = limits_310();
  EXPECT(l310.jpegd_out_align_w == 128 && l310.vpc_stride.min_width == 32);
  EXPECT(l310.vpc_out_formats.size() == 2 && l310.max_interpolation == 4);
  auto num = [](const std::string& key) -> std::optional<double> {
    if (key == "dvpp.resize.max_interpolation") return 2.0;
    auto it = kAscend310.find(key);
    return it == kAscend310.end() ? std::nullopt : std::optional<double>(it->second);
  };
  auto str = [](const std::string& key) -> std::optional<std::string> {
    if (key == "dvpp.vpc_out.formats") return std::string("1,2,12");
    return std::nullopt;
  };
  EXPECT(sim::dvpp::limits_from_profile(num, str, &lim, &error));
  EXPECT(lim.max_interpolation == 2 && lim.vpc_out_formats.size() == 3);
  EXPECT(lim.vpc_out_formats[2] == PIXEL_FORMAT_RGB_888);
}

}  // namespace

int main() {
  // A channel is created in the calling thread's current context (acldvppCreateChannel).
  acldvppChannelDesc* early = acldvppCreateChannelDesc();
  EXPECT(acldvppCreateChannel(early) == ACL_ERROR_UNINITIALIZE);
  EXPECT(aclInit(nullptr) == ACL_SUCCESS);
  EXPECT(acldvppCreateChannel(early) == ACL_ERROR_RT_CONTEXT_NULL);
  EXPECT(std::string(aclsimLastRule()) == "context.current_required");
  EXPECT(acldvppDestroyChannelDesc(early) == ACL_SUCCESS);
  EXPECT(aclrtSetDevice(0) == ACL_SUCCESS);
  const sim::dvpp::Limits lim = limits_310();
  test_pic_desc_api();
  test_batch_roi_resize_channel_api();
  test_vpc_picture_checks(lim);
  test_jpegd_checks(lim);
  test_roi_scale_resize(lim);
  test_batch(lim);
  test_operation_checks(lim);
  test_limits_from_profile();
  EXPECT(aclrtResetDevice(0) == ACL_SUCCESS);
  EXPECT(aclFinalize() == ACL_SUCCESS);
  const sim::dvpp::LiveCounts live = sim::dvpp::live_counts();
  EXPECT(live.pic == 0 && live.batch == 0 && live.roi == 0 && live.resize == 0);
  EXPECT(live.channel_desc == 0 && live.channels == 0);
  if (g_failures != 0) {
    std::fprintf(stderr, "dvpp_desc_test: %d failure(s)\n", g_failures);
    return 1;
  }
  std::printf("dvpp_desc_test: all checks passed\n");
  return 0;
}
