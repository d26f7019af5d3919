// ascgen AscendCL simulator: DVPP V1 API (acl/ops/acl_dvpp.h).
//
// The acldvpp* subset that ascgen-generated programs use (JPEG decode, VPC
// crop/resize/paste, and video decode: aclvdec*), with the names, enum values and signatures of
// CANN's acl/ops/acl_dvpp.h, written from the public AscendCL documentation.
//
// As in CANN, the enums are bare `enum X {...};` used unqualified in the
// prototypes, so this header is C++ only, and it refuses to compile unless
// ENABLE_DVPP_INTERFACE is defined.
#if !defined(ENABLE_DVPP_INTERFACE)
#error "acl/ops/acl_dvpp.h needs the macro ENABLE_DVPP_INTERFACE (add -DENABLE_DVPP_INTERFACE)."
#endif

#ifndef INC_EXTERNAL_ACL_OPS_ACL_DVPP_H_
#define INC_EXTERNAL_ACL_OPS_ACL_DVPP_H_

#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"
#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct acldvppPicDesc acldvppPicDesc;
typedef struct acldvppBatchPicDesc acldvppBatchPicDesc;
typedef struct acldvppRoiConfig acldvppRoiConfig;
typedef struct acldvppResizeConfig acldvppResizeConfig;
typedef struct acldvppBorderConfig acldvppBorderConfig;
typedef struct acldvppChannelDesc acldvppChannelDesc;
typedef struct acldvppJpegeConfig acldvppJpegeConfig;
typedef struct aclvdecChannelDesc aclvdecChannelDesc;
typedef struct acldvppStreamDesc acldvppStreamDesc;
typedef struct aclvdecFrameConfig aclvdecFrameConfig;

// VDEC callback, run on the report thread the channel names (aclvdecSetChannelDescThreadId)
// once per frame sent: `input` and `userData` as given to the send, `output` the picture
// descriptor of that send (NULL for aclvdecSendSkippedFrame). It must not destroy the channel.
typedef void (*aclvdecCallback)(acldvppStreamDesc* input, acldvppPicDesc* output, void* userData);

// Pixel formats. Semi-planar YUV stores a Y plane then interleaved chroma;
// "YUV" puts U first (NV12), "YVU" puts V first (NV21).
enum acldvppPixelFormat {
  PIXEL_FORMAT_YUV_400 = 0,
  PIXEL_FORMAT_YUV_SEMIPLANAR_420 = 1,  // NV12
  PIXEL_FORMAT_YVU_SEMIPLANAR_420 = 2,  // NV21
  PIXEL_FORMAT_YUV_SEMIPLANAR_422 = 3,
  PIXEL_FORMAT_YVU_SEMIPLANAR_422 = 4,
  PIXEL_FORMAT_YUV_SEMIPLANAR_444 = 5,
  PIXEL_FORMAT_YVU_SEMIPLANAR_444 = 6,
  PIXEL_FORMAT_YUYV_PACKED_422 = 7,
  PIXEL_FORMAT_UYVY_PACKED_422 = 8,
  PIXEL_FORMAT_YVYU_PACKED_422 = 9,
  PIXEL_FORMAT_VYUY_PACKED_422 = 10,
  PIXEL_FORMAT_YUV_PACKED_444 = 11,
  PIXEL_FORMAT_RGB_888 = 12,
  PIXEL_FORMAT_BGR_888 = 13,
  PIXEL_FORMAT_ARGB_8888 = 14,
  PIXEL_FORMAT_ABGR_8888 = 15,
  PIXEL_FORMAT_RGBA_8888 = 16,
  PIXEL_FORMAT_BGRA_8888 = 17,
  PIXEL_FORMAT_YUV_SEMI_PLANNER_420_10BIT = 18,
  PIXEL_FORMAT_YVU_SEMI_PLANNER_420_10BIT = 19,
  PIXEL_FORMAT_YVU_PLANAR_420 = 20,
  PIXEL_FORMAT_YVU_PLANAR_422 = 21,
  PIXEL_FORMAT_YVU_PLANAR_444 = 22,
  PIXEL_FORMAT_RGB_444 = 23,
  PIXEL_FORMAT_BGR_444 = 24,
  PIXEL_FORMAT_ARGB_4444 = 25,
  PIXEL_FORMAT_ABGR_4444 = 26,
  PIXEL_FORMAT_RGBA_4444 = 27,
  PIXEL_FORMAT_BGRA_4444 = 28,
  PIXEL_FORMAT_RGB_555 = 29,
  PIXEL_FORMAT_BGR_555 = 30,
  PIXEL_FORMAT_RGB_565 = 31,
  PIXEL_FORMAT_BGR_565 = 32,
  PIXEL_FORMAT_ARGB_1555 = 33,
  PIXEL_FORMAT_ABGR_1555 = 34,
  PIXEL_FORMAT_RGBA_1555 = 35,
  PIXEL_FORMAT_BGRA_1555 = 36,
  PIXEL_FORMAT_ARGB_8565 = 37,
  PIXEL_FORMAT_ABGR_8565 = 38,
  PIXEL_FORMAT_RGBA_8565 = 39,
  PIXEL_FORMAT_BGRA_8565 = 40,
  PIXEL_FORMAT_RGB_BAYER_8BPP = 50,
  PIXEL_FORMAT_RGB_BAYER_10BPP = 51,
  PIXEL_FORMAT_RGB_BAYER_12BPP = 52,
  PIXEL_FORMAT_RGB_BAYER_14BPP = 53,
  PIXEL_FORMAT_RGB_BAYER_16BPP = 54,
  PIXEL_FORMAT_BGR_888_PLANAR = 70,
  PIXEL_FORMAT_HSV_888_PACKAGE = 71,
  PIXEL_FORMAT_HSV_888_PLANAR = 72,
  PIXEL_FORMAT_LAB_888_PACKAGE = 73,
  PIXEL_FORMAT_LAB_888_PLANAR = 74,
  PIXEL_FORMAT_S8C1 = 75,
  PIXEL_FORMAT_S8C2_PACKAGE = 76,
  PIXEL_FORMAT_S8C2_PLANAR = 77,
  PIXEL_FORMAT_S16C1 = 78,
  PIXEL_FORMAT_U8C1 = 79,
  PIXEL_FORMAT_U16C1 = 80,
  PIXEL_FORMAT_S32C1 = 81,
  PIXEL_FORMAT_U32C1 = 82,
  PIXEL_FORMAT_U64C1 = 83,
  PIXEL_FORMAT_S64C1 = 84,
  PIXEL_FORMAT_YUV_SEMIPLANAR_440 = 1000,
  PIXEL_FORMAT_YVU_SEMIPLANAR_440 = 1001,
  PIXEL_FORMAT_FLOAT32 = 1002,
  PIXEL_FORMAT_BUTT = 1003,
  // As a JPEGD output format: keep the source's chroma subsampling.
  PIXEL_FORMAT_UNKNOWN = 10000
};

// Video stream formats (the VDEC channel's enType and a stream descriptor's format).
enum acldvppStreamFormat {
  H265_MAIN_LEVEL = 0,
  H264_BASELINE_LEVEL = 1,
  H264_MAIN_LEVEL = 2,
  H264_HIGH_LEVEL = 3
};

// Channel modes, a bitmask for acldvppSetChannelDescMode. A channel without a
// mode serves every engine.
enum acldvppChannelMode { DVPP_CHNMODE_VPC = 1, DVPP_CHNMODE_JPEGD = 2, DVPP_CHNMODE_JPEGE = 4 };

// Border fill types (make-border operations; declared for completeness).
enum acldvppBorderType {
  BORDER_CONSTANT = 0,
  BORDER_REPLICATE = 1,
  BORDER_REFLECT = 2,
  BORDER_REFLECT_101 = 3
};

// Chroma subsampling of a JPEG file, reported by acldvppJpegGetImageInfoV2.
enum acldvppJpegFormat {
  ACL_JPEG_CSS_444 = 0,
  ACL_JPEG_CSS_422 = 1,
  ACL_JPEG_CSS_420 = 2,
  ACL_JPEG_CSS_GRAY = 3,
  ACL_JPEG_CSS_440 = 4,
  ACL_JPEG_CSS_411 = 5,
  ACL_JPEG_CSS_UNKNOWN = 1000
};

// ---------------------------------------------------------------------------
// DVPP memory. Every picture buffer given to JPEGD or VPC must come from
// acldvppMalloc: the start is 128-byte aligned and the size is rounded up to
// a multiple of 32, plus 32 bytes.

ACL_FUNC_VISIBILITY aclError acldvppMalloc(void** devPtr, size_t size);
ACL_FUNC_VISIBILITY aclError acldvppFree(void* devPtr);

// ---------------------------------------------------------------------------
// Channels. Creating a channel is expensive: create it once, reuse it.

ACL_FUNC_VISIBILITY acldvppChannelDesc* acldvppCreateChannelDesc();
ACL_FUNC_VISIBILITY aclError acldvppDestroyChannelDesc(acldvppChannelDesc* channelDesc);
// Valid after acldvppCreateChannel.
ACL_FUNC_VISIBILITY uint64_t acldvppGetChannelDescChannelId(const acldvppChannelDesc* channelDesc);
// Optional, before acldvppCreateChannel: OR of acldvppChannelMode values.
ACL_FUNC_VISIBILITY aclError acldvppSetChannelDescMode(acldvppChannelDesc* channelDesc,
                                                       uint32_t mode);
ACL_FUNC_VISIBILITY aclError acldvppCreateChannel(acldvppChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY aclError acldvppDestroyChannel(acldvppChannelDesc* channelDesc);

// ---------------------------------------------------------------------------
// Picture descriptors. Width/height are the picture; widthStride (bytes per
// row) and heightStride (rows) the aligned buffer geometry; size the bytes.

ACL_FUNC_VISIBILITY acldvppPicDesc* acldvppCreatePicDesc();
ACL_FUNC_VISIBILITY aclError acldvppDestroyPicDesc(acldvppPicDesc* picDesc);

// dataDev must be memory from acldvppMalloc.
ACL_FUNC_VISIBILITY aclError acldvppSetPicDescData(acldvppPicDesc* picDesc, void* dataDev);
ACL_FUNC_VISIBILITY aclError acldvppSetPicDescSize(acldvppPicDesc* picDesc, uint32_t size);
ACL_FUNC_VISIBILITY aclError acldvppSetPicDescFormat(acldvppPicDesc* picDesc,
                                                     acldvppPixelFormat format);
ACL_FUNC_VISIBILITY aclError acldvppSetPicDescWidth(acldvppPicDesc* picDesc, uint32_t width);
ACL_FUNC_VISIBILITY aclError acldvppSetPicDescHeight(acldvppPicDesc* picDesc, uint32_t height);
ACL_FUNC_VISIBILITY aclError acldvppSetPicDescWidthStride(acldvppPicDesc* picDesc,
                                                          uint32_t widthStride);
ACL_FUNC_VISIBILITY aclError acldvppSetPicDescHeightStride(acldvppPicDesc* picDesc,
                                                           uint32_t heightStride);
ACL_FUNC_VISIBILITY aclError acldvppSetPicDescRetCode(acldvppPicDesc* picDesc, uint32_t retCode);

// Getters return 0 / NULL / PIXEL_FORMAT_YUV_400 for a NULL descriptor.
ACL_FUNC_VISIBILITY void* acldvppGetPicDescData(const acldvppPicDesc* picDesc);
ACL_FUNC_VISIBILITY uint32_t acldvppGetPicDescSize(const acldvppPicDesc* picDesc);
ACL_FUNC_VISIBILITY acldvppPixelFormat acldvppGetPicDescFormat(const acldvppPicDesc* picDesc);
ACL_FUNC_VISIBILITY uint32_t acldvppGetPicDescWidth(const acldvppPicDesc* picDesc);
ACL_FUNC_VISIBILITY uint32_t acldvppGetPicDescHeight(const acldvppPicDesc* picDesc);
ACL_FUNC_VISIBILITY uint32_t acldvppGetPicDescWidthStride(const acldvppPicDesc* picDesc);
ACL_FUNC_VISIBILITY uint32_t acldvppGetPicDescHeightStride(const acldvppPicDesc* picDesc);
// Per-picture status written by the engine; 0 means success.
ACL_FUNC_VISIBILITY uint32_t acldvppGetPicDescRetCode(const acldvppPicDesc* picDesc);

// Batches of picture descriptors, for the batch VPC operations. Configure
// each element through the pointer acldvppGetPicDesc returns.
ACL_FUNC_VISIBILITY acldvppBatchPicDesc* acldvppCreateBatchPicDesc(uint32_t batchSize);
ACL_FUNC_VISIBILITY acldvppPicDesc* acldvppGetPicDesc(acldvppBatchPicDesc* batchPicDesc,
                                                      uint32_t index);
ACL_FUNC_VISIBILITY aclError acldvppDestroyBatchPicDesc(acldvppBatchPicDesc* batchPicDesc);

// ---------------------------------------------------------------------------
// Regions of interest, inclusive pixel coordinates: left and top even, right
// and bottom odd, so width = right - left + 1 is even.

ACL_FUNC_VISIBILITY acldvppRoiConfig* acldvppCreateRoiConfig(uint32_t left, uint32_t right,
                                                             uint32_t top, uint32_t bottom);
ACL_FUNC_VISIBILITY aclError acldvppDestroyRoiConfig(acldvppRoiConfig* roiConfig);
ACL_FUNC_VISIBILITY aclError acldvppSetRoiConfigLeft(acldvppRoiConfig* config, uint32_t left);
ACL_FUNC_VISIBILITY aclError acldvppSetRoiConfigRight(acldvppRoiConfig* config, uint32_t right);
ACL_FUNC_VISIBILITY aclError acldvppSetRoiConfigTop(acldvppRoiConfig* config, uint32_t top);
ACL_FUNC_VISIBILITY aclError acldvppSetRoiConfigBottom(acldvppRoiConfig* config, uint32_t bottom);
ACL_FUNC_VISIBILITY aclError acldvppSetRoiConfig(acldvppRoiConfig* config, uint32_t left,
                                                 uint32_t right, uint32_t top, uint32_t bottom);

// ---------------------------------------------------------------------------
// Resize configuration. Interpolation on the Ascend 310: 0 default (high-order
// filter), 1 bilinear, 2 nearest (OpenCV-like), 3 bilinear, 4 nearest
// (TensorFlow-like).

ACL_FUNC_VISIBILITY acldvppResizeConfig* acldvppCreateResizeConfig();
ACL_FUNC_VISIBILITY aclError acldvppDestroyResizeConfig(acldvppResizeConfig* resizeConfig);
ACL_FUNC_VISIBILITY aclError acldvppSetResizeConfigInterpolation(acldvppResizeConfig* resizeConfig,
                                                                 uint32_t interpolation);
ACL_FUNC_VISIBILITY uint32_t
acldvppGetResizeConfigInterpolation(const acldvppResizeConfig* resizeConfig);

// ---------------------------------------------------------------------------
// JPEG helpers. `data` is the JPEG file in HOST memory.

ACL_FUNC_VISIBILITY aclError acldvppJpegGetImageInfo(const void* data, uint32_t size,
                                                     uint32_t* width, uint32_t* height,
                                                     int32_t* components);
ACL_FUNC_VISIBILITY aclError acldvppJpegGetImageInfoV2(const void* data, uint32_t size,
                                                       uint32_t* width, uint32_t* height,
                                                       int32_t* components,
                                                       acldvppJpegFormat* format);
// Output buffer bytes JPEGD needs to decode `data` into outputPixelFormat.
ACL_FUNC_VISIBILITY aclError acldvppJpegPredictDecSize(const void* data, uint32_t dataSize,
                                                       acldvppPixelFormat outputPixelFormat,
                                                       uint32_t* decSize);

// ---------------------------------------------------------------------------
// Asynchronous operations: queued on `stream`; the output descriptor and its
// memory may be read only after the stream has been synchronized.

// Decodes the JPEG bitstream at `data` (DVPP memory, `size` bytes).
ACL_FUNC_VISIBILITY aclError acldvppJpegDecodeAsync(acldvppChannelDesc* channelDesc,
                                                    const void* data, uint32_t size,
                                                    acldvppPicDesc* outputDesc, aclrtStream stream);

ACL_FUNC_VISIBILITY aclError acldvppVpcResizeAsync(acldvppChannelDesc* channelDesc,
                                                   acldvppPicDesc* inputDesc,
                                                   acldvppPicDesc* outputDesc,
                                                   acldvppResizeConfig* resizeConfig,
                                                   aclrtStream stream);

// Crops cropArea out of the input; resizes when the ROI and output differ.
ACL_FUNC_VISIBILITY aclError acldvppVpcCropAsync(acldvppChannelDesc* channelDesc,
                                                 acldvppPicDesc* inputDesc,
                                                 acldvppPicDesc* outputDesc,
                                                 acldvppRoiConfig* cropArea, aclrtStream stream);

ACL_FUNC_VISIBILITY aclError acldvppVpcCropResizeAsync(
    acldvppChannelDesc* channelDesc, acldvppPicDesc* inputDesc, acldvppPicDesc* outputDesc,
    acldvppRoiConfig* cropArea, acldvppResizeConfig* resizeConfig, aclrtStream stream);

// Crops cropArea and pastes it, resized, into pasteArea of the output; the
// rest of the output picture is left as it was.
ACL_FUNC_VISIBILITY aclError acldvppVpcCropAndPasteAsync(
    acldvppChannelDesc* channelDesc, acldvppPicDesc* inputDesc, acldvppPicDesc* outputDesc,
    acldvppRoiConfig* cropArea, acldvppRoiConfig* pasteArea, aclrtStream stream);

ACL_FUNC_VISIBILITY aclError acldvppVpcCropResizePasteAsync(
    acldvppChannelDesc* channelDesc, acldvppPicDesc* inputDesc, acldvppPicDesc* outputDesc,
    acldvppRoiConfig* cropArea, acldvppRoiConfig* pasteArea, acldvppResizeConfig* resizeConfig,
    aclrtStream stream);

// Batch operations: srcBatchPicDescs holds `size` pictures; roiNums[i] is the
// number of ROIs cut from picture i; dstBatchPicDescs and cropAreas (and
// pasteAreas) hold one entry per ROI, sum(roiNums) in all.
ACL_FUNC_VISIBILITY aclError acldvppVpcBatchCropAsync(acldvppChannelDesc* channelDesc,
                                                      acldvppBatchPicDesc* srcBatchPicDescs,
                                                      uint32_t* roiNums, uint32_t size,
                                                      acldvppBatchPicDesc* dstBatchPicDescs,
                                                      acldvppRoiConfig* cropAreas[],
                                                      aclrtStream stream);

ACL_FUNC_VISIBILITY aclError acldvppVpcBatchCropResizeAsync(
    acldvppChannelDesc* channelDesc, acldvppBatchPicDesc* srcBatchPicDescs, uint32_t* roiNums,
    uint32_t size, acldvppBatchPicDesc* dstBatchPicDescs, acldvppRoiConfig* cropAreas[],
    acldvppResizeConfig* resizeConfig, aclrtStream stream);

ACL_FUNC_VISIBILITY aclError acldvppVpcBatchCropAndPasteAsync(
    acldvppChannelDesc* channelDesc, acldvppBatchPicDesc* srcBatchPicDescs, uint32_t* roiNums,
    uint32_t size, acldvppBatchPicDesc* dstBatchPicDescs, acldvppRoiConfig* cropAreas[],
    acldvppRoiConfig* pasteAreas[], aclrtStream stream);

ACL_FUNC_VISIBILITY aclError acldvppVpcBatchCropResizePasteAsync(
    acldvppChannelDesc* channelDesc, acldvppBatchPicDesc* srcBatchPicDescs, uint32_t* roiNums,
    uint32_t size, acldvppBatchPicDesc* dstBatchPicDescs, acldvppRoiConfig* cropAreas[],
    acldvppRoiConfig* pasteAreas[], acldvppResizeConfig* resizeConfig, aclrtStream stream);

// ---------------------------------------------------------------------------
// Video decode (VDEC V1). Per channel: create a description, set the channel id
// (0..31 on the Ascend 310), the report thread (aclrtSubscribeReport is done by
// aclvdecCreateChannel on the streams it creates), the callback and the stream
// format; then aclvdecCreateChannel. Each aclvdecSendFrame passes one complete
// Annex-B frame (stream descriptor over acldvppMalloc memory) and an NV12/NV21
// output picture (acldvppMalloc memory; widthStride = ALIGN(width, 16), at least
// 32; heightStride = ALIGN(height, 2)). End of stream: a stream descriptor with
// eos set and no data; that send returns once every frame was decoded and every
// callback returned. A channel is not thread-safe.

ACL_FUNC_VISIBILITY aclvdecChannelDesc* aclvdecCreateChannelDesc();
ACL_FUNC_VISIBILITY aclError aclvdecDestroyChannelDesc(aclvdecChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY aclError aclvdecSetChannelDescChannelId(aclvdecChannelDesc* channelDesc,
                                                            uint32_t channelId);
ACL_FUNC_VISIBILITY aclError aclvdecSetChannelDescThreadId(aclvdecChannelDesc* channelDesc,
                                                           uint64_t threadId);
ACL_FUNC_VISIBILITY aclError aclvdecSetChannelDescCallback(aclvdecChannelDesc* channelDesc,
                                                           aclvdecCallback callback);
ACL_FUNC_VISIBILITY aclError aclvdecSetChannelDescEnType(aclvdecChannelDesc* channelDesc,
                                                         acldvppStreamFormat enType);
ACL_FUNC_VISIBILITY aclError aclvdecSetChannelDescOutPicFormat(aclvdecChannelDesc* channelDesc,
                                                               acldvppPixelFormat outPicFormat);
ACL_FUNC_VISIBILITY aclError aclvdecSetChannelDescOutPicWidth(aclvdecChannelDesc* channelDesc,
                                                              uint32_t outPicWidth);
ACL_FUNC_VISIBILITY aclError aclvdecSetChannelDescOutPicHeight(aclvdecChannelDesc* channelDesc,
                                                               uint32_t outPicHeight);
ACL_FUNC_VISIBILITY aclError aclvdecSetChannelDescRefFrameNum(aclvdecChannelDesc* channelDesc,
                                                              uint32_t refFrameNum);
ACL_FUNC_VISIBILITY uint32_t aclvdecGetChannelDescChannelId(const aclvdecChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY uint64_t aclvdecGetChannelDescThreadId(const aclvdecChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY aclvdecCallback
aclvdecGetChannelDescCallback(const aclvdecChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY acldvppStreamFormat
aclvdecGetChannelDescEnType(const aclvdecChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY acldvppPixelFormat
aclvdecGetChannelDescOutPicFormat(const aclvdecChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY uint32_t
aclvdecGetChannelDescOutPicWidth(const aclvdecChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY uint32_t
aclvdecGetChannelDescOutPicHeight(const aclvdecChannelDesc* channelDesc);
ACL_FUNC_VISIBILITY uint32_t
aclvdecGetChannelDescRefFrameNum(const aclvdecChannelDesc* channelDesc);

// Stream descriptors: one coded frame (data in acldvppMalloc memory), its
// format, timestamp and the end-of-stream flag.
ACL_FUNC_VISIBILITY acldvppStreamDesc* acldvppCreateStreamDesc();
ACL_FUNC_VISIBILITY aclError acldvppDestroyStreamDesc(acldvppStreamDesc* streamDesc);
ACL_FUNC_VISIBILITY aclError acldvppSetStreamDescData(acldvppStreamDesc* streamDesc, void* dataDev);
ACL_FUNC_VISIBILITY aclError acldvppSetStreamDescSize(acldvppStreamDesc* streamDesc, uint32_t size);
ACL_FUNC_VISIBILITY aclError acldvppSetStreamDescFormat(acldvppStreamDesc* streamDesc,
                                                        acldvppStreamFormat format);
ACL_FUNC_VISIBILITY aclError acldvppSetStreamDescTimestamp(acldvppStreamDesc* streamDesc,
                                                           uint64_t timestamp);
ACL_FUNC_VISIBILITY aclError acldvppSetStreamDescRetCode(acldvppStreamDesc* streamDesc,
                                                         uint32_t retCode);
ACL_FUNC_VISIBILITY aclError acldvppSetStreamDescEos(acldvppStreamDesc* streamDesc, uint8_t eos);
ACL_FUNC_VISIBILITY void* acldvppGetStreamDescData(const acldvppStreamDesc* streamDesc);
ACL_FUNC_VISIBILITY uint32_t acldvppGetStreamDescSize(const acldvppStreamDesc* streamDesc);
ACL_FUNC_VISIBILITY acldvppStreamFormat
acldvppGetStreamDescFormat(const acldvppStreamDesc* streamDesc);
ACL_FUNC_VISIBILITY uint64_t acldvppGetStreamDescTimestamp(const acldvppStreamDesc* streamDesc);
ACL_FUNC_VISIBILITY uint32_t acldvppGetStreamDescRetCode(const acldvppStreamDesc* streamDesc);
ACL_FUNC_VISIBILITY uint8_t acldvppGetStreamDescEos(const acldvppStreamDesc* streamDesc);

// Per-frame decode configuration (no settable field in this subset).
ACL_FUNC_VISIBILITY aclvdecFrameConfig* aclvdecCreateFrameConfig();
ACL_FUNC_VISIBILITY aclError aclvdecDestroyFrameConfig(aclvdecFrameConfig* vdecFrameConfig);

// Creates the channel: its decode and callback streams, subscribed to the
// description's report thread.
ACL_FUNC_VISIBILITY aclError aclvdecCreateChannel(aclvdecChannelDesc* channelDesc);
// Not from inside the channel's callback.
ACL_FUNC_VISIBILITY aclError aclvdecDestroyChannel(aclvdecChannelDesc* channelDesc);
// config may be NULL.
ACL_FUNC_VISIBILITY aclError aclvdecSendFrame(aclvdecChannelDesc* channelDesc,
                                              acldvppStreamDesc* input, acldvppPicDesc* output,
                                              aclvdecFrameConfig* config, void* userData);
// Decodes the frame (later frames may reference it) without output: the
// callback gets a NULL output.
ACL_FUNC_VISIBILITY aclError aclvdecSendSkippedFrame(aclvdecChannelDesc* channelDesc,
                                                     acldvppStreamDesc* input,
                                                     aclvdecFrameConfig* config, void* userData);

#ifdef __cplusplus
}
#endif

#endif  // INC_EXTERNAL_ACL_OPS_ACL_DVPP_H_
