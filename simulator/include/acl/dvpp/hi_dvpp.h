// ascgen AscendCL simulator: DVPP V2 media API (acl/dvpp/hi_dvpp.h, library
// libacl_dvpp_mpi): system init/exit, DVPP memory, the video decoder (VDEC channels,
// send_stream / get_frame / release_frame) and the vision preprocessor (VPC channels,
// resize / crop_resize / crop_resize_paste tasks and their results).
//
// Names, values and signatures of CANN's hi_dvpp.h as the public documentation
// and samples give them (HIA acldevg aclcppdevg_000062 900, aclcppdevg_03_0319;
// VPC: HIA aclcppdevg_03_0637 900, aclcppdevg_03_0564 80RC1alpha002;
// Ascend/samples cplusplus/level1_single_api/7_dvpp/vdec_sample), written by us.
// Only what the simulator implements is declared. CANN's media headers are not in
// any package registry, so the conformance build cannot compare struct layouts:
// the structs below have CANN's field names for the fields declared, not
// necessarily its layout. V2 is on the 310P, 310B, A2 and A3 (profile key
// features.dvpp_v2); a process must not mix it with V1 (acldvpp/aclvdec).
#ifndef ACL_DVPP_HI_DVPP_H_
#define ACL_DVPP_HI_DVPP_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t hi_s32;
typedef uint32_t hi_u32;
typedef int16_t hi_s16;
typedef uint8_t hi_u8;
typedef uint64_t hi_u64;
typedef void hi_void;
typedef double hi_double;
typedef enum { HI_FALSE = 0, HI_TRUE = 1 } hi_bool;

#define HI_SUCCESS 0
#define HI_FAILURE (-1)
#define HI_MAX_COLOR_COMPONENT 3

// VDEC error codes (module 5, error level).
#define HI_ERR_VDEC_INVALID_CHN_ID 0xA0058002
#define HI_ERR_VDEC_ILLEGAL_PARAM 0xA0058003
#define HI_ERR_VDEC_EXIST 0xA0058004
#define HI_ERR_VDEC_UNEXIST 0xA0058005
#define HI_ERR_VDEC_NULL_PTR 0xA0058006
#define HI_ERR_VDEC_NOT_SUPPORT 0xA0058008
#define HI_ERR_VDEC_NOT_PERM 0xA0058009
#define HI_ERR_VDEC_NO_MEM 0xA005800C
#define HI_ERR_VDEC_BUF_EMPTY 0xA005800E  // get_frame: no decoded frame within the timeout
#define HI_ERR_VDEC_BUF_FULL 0xA005800F   // send_stream: no room for the stream, retry
#define HI_ERR_VDEC_SYS_NOT_READY 0xA0058010

// VPC error codes (module 7, error level).
#define HI_ERR_VPC_INVALID_CHN_ID 0xA0078002
#define HI_ERR_VPC_ILLEGAL_PARAM 0xA0078003
#define HI_ERR_VPC_EXIST 0xA0078004
#define HI_ERR_VPC_UNEXIST 0xA0078005
#define HI_ERR_VPC_NULL_PTR 0xA0078006
#define HI_ERR_VPC_NOT_SUPPORT 0xA0078008
#define HI_ERR_VPC_NOT_PERM 0xA0078009
#define HI_ERR_VPC_NO_MEM 0xA007800C
#define HI_ERR_VPC_BUF_EMPTY \
  0xA007800E  // get_process_result: the task is not done within the timeout
#define HI_ERR_VPC_SYS_NOT_READY 0xA0078010

// Payload types (RTP numbering).
typedef enum { HI_PT_JPEG = 26, HI_PT_H264 = 96, HI_PT_H265 = 265 } hi_payload_type;

typedef enum {
  HI_PIXEL_FORMAT_YUV_400 = 0,
  HI_PIXEL_FORMAT_YUV_SEMIPLANAR_420 = 1,  // NV12
  HI_PIXEL_FORMAT_YVU_SEMIPLANAR_420 = 2,  // NV21
  HI_PIXEL_FORMAT_UNKNOWN = 10000
} hi_pixel_format;

typedef enum {
  HI_VDEC_SEND_MODE_STREAM = 0,
  HI_VDEC_SEND_MODE_FRAME,   // one complete frame per send
  HI_VDEC_SEND_MODE_COMPAT,  // a frame in several sends
  HI_VDEC_SEND_MODE_BUTT
} hi_vdec_send_mode;

typedef enum {
  HI_VIDEO_DEC_MODE_IPB = 0,
  HI_VIDEO_DEC_MODE_IP,
  HI_VIDEO_DEC_MODE_I,
  HI_VIDEO_DEC_MODE_BUTT
} hi_video_dec_mode;

typedef enum {
  HI_VIDEO_OUT_ORDER_DISPLAY = 0,
  HI_VIDEO_OUT_ORDER_DEC,
  HI_VIDEO_OUT_ORDER_BUTT
} hi_video_out_order;

typedef hi_s32 hi_vdec_chn;

typedef struct {
  hi_u32 ref_frame_num;  // 0..16
  hi_bool temporal_mvp_en;
  hi_u32 tmv_buf_size;
} hi_vdec_video_attr;

typedef struct {
  hi_payload_type type;
  hi_vdec_send_mode mode;
  hi_u32 pic_width;  // largest picture of the stream
  hi_u32 pic_height;
  hi_u32 stream_buf_size;
  hi_u32 frame_buf_size;
  hi_u32 frame_buf_cnt;
  union {
    hi_vdec_video_attr video_attr;
  };
} hi_vdec_chn_attr;

// One unit of the stream: with end_of_stream set (and no data) the decoder outputs
// every frame it holds.
typedef struct {
  hi_bool end_of_frame;
  hi_bool end_of_stream;
  hi_bool need_display;
  hi_u64 pts;
  hi_u64 private_data;
  hi_u32 len;
  hi_u8* addr;  // DVPP memory (hi_mpi_dvpp_malloc)
} hi_vdec_stream;

// The output picture of a send: NV12/NV21 at vir_addr (hi_mpi_dvpp_malloc memory).
typedef struct {
  hi_u32 width;
  hi_u32 height;
  hi_u32 width_stride;
  hi_u32 height_stride;
  hi_pixel_format pixel_format;
  hi_u64 vir_addr;
  hi_u32 buffer_size;
  hi_s16 offset_top;
  hi_s16 offset_bottom;
  hi_s16 offset_left;
  hi_s16 offset_right;
} hi_vdec_pic_info;

typedef struct {
  hi_u32 width;
  hi_u32 height;
  hi_pixel_format pixel_format;
  hi_u32 width_stride[HI_MAX_COLOR_COMPONENT];
  hi_u32 height_stride[HI_MAX_COLOR_COMPONENT];
  hi_void* virt_addr[HI_MAX_COLOR_COMPONENT];  // Y, then UV
  hi_u32 time_ref;
  hi_u64 pts;
  hi_u32 frame_flag;
} hi_video_frame;

typedef struct {
  hi_video_frame v_frame;
  hi_u32 pool_id;
} hi_video_frame_info;

typedef struct {
  hi_payload_type type;
  hi_u32 frame_type;  // I, P, B
  hi_u32 err_rate;
} hi_vdec_supplement_info;

// System: once per process, after aclrtSetDevice; exit before aclFinalize.
hi_s32 hi_mpi_sys_init(hi_void);
hi_s32 hi_mpi_sys_exit(hi_void);

// DVPP memory for streams and pictures.
hi_s32 hi_mpi_dvpp_malloc(hi_u32 dev_id, hi_void** dev_ptr, hi_u64 size);
hi_s32 hi_mpi_dvpp_free(hi_void* dev_ptr);

// Channels: ids 0 .. limits.vdec_channels - 1 (256 on the 310P).
hi_s32 hi_mpi_vdec_create_chn(hi_vdec_chn chn, const hi_vdec_chn_attr* attr);
hi_s32 hi_mpi_vdec_destroy_chn(hi_vdec_chn chn);
hi_s32 hi_mpi_vdec_set_chn_attr(hi_vdec_chn chn, const hi_vdec_chn_attr* attr);
hi_s32 hi_mpi_vdec_get_chn_attr(hi_vdec_chn chn, hi_vdec_chn_attr* attr);
hi_s32 hi_mpi_vdec_start_recv_stream(hi_vdec_chn chn);
hi_s32 hi_mpi_vdec_stop_recv_stream(hi_vdec_chn chn);

// Asynchronous: queues one frame (HI_VDEC_SEND_MODE_FRAME) and the picture it is
// decoded into. milli_sec: -1 blocks, 0 does not, > 0 waits that long for room;
// HI_ERR_VDEC_BUF_FULL when there is none (fetch and release frames, then retry).
hi_s32 hi_mpi_vdec_send_stream(hi_vdec_chn chn, const hi_vdec_stream* stream,
                               hi_vdec_pic_info* vdec_pic_info, hi_s32 milli_sec);
// The next decoded frame (display order) and the stream unit it came from;
// HI_ERR_VDEC_BUF_EMPTY when none comes within milli_sec (-1 blocks).
hi_s32 hi_mpi_vdec_get_frame(hi_vdec_chn chn, hi_video_frame_info* frame_info,
                             hi_vdec_supplement_info* supplement, hi_vdec_stream* stream,
                             hi_s32 milli_sec);
hi_s32 hi_mpi_vdec_release_frame(hi_vdec_chn chn, const hi_video_frame_info* frame_info);

// ---- VPC ----------------------------------------------------------------------------

typedef hi_s32 hi_vpc_chn;

// One picture VPC reads or writes: DVPP memory (hi_mpi_dvpp_malloc) of picture_buffer_size
// bytes; strides as the device's VPC requires (310P YUV420SP: width_stride = ALIGN(width, 16)
// in [32, 16384], height_stride = ALIGN(height, 2), ws * hs * 3 / 2 bytes).
typedef struct {
  hi_void* picture_address;
  hi_u32 picture_buffer_size;
  hi_u32 picture_width;
  hi_u32 picture_height;
  hi_u32 picture_width_stride;
  hi_u32 picture_height_stride;
  hi_pixel_format picture_format;
} hi_vpc_pic_info;

typedef struct {
  hi_u32 top_offset;
  hi_u32 left_offset;
  hi_u32 crop_width;
  hi_u32 crop_height;
} hi_vpc_crop_region;

typedef struct {
  hi_u32 resize_width;
  hi_u32 resize_height;
  hi_u32 interpolation;
} hi_vpc_resize_info;

typedef struct {
  hi_vpc_pic_info dest_pic_info;
  hi_vpc_crop_region crop_region;
  hi_vpc_resize_info resize_info;
} hi_vpc_crop_resize_region;

// crop_region of the source, resized to resize_info, written at (dest_left_offset,
// dest_top_offset) of dest_pic_info (whose other pixels VPC leaves as they are).
typedef struct {
  hi_vpc_pic_info dest_pic_info;
  hi_vpc_crop_region crop_region;
  hi_vpc_resize_info resize_info;
  hi_u32 dest_top_offset;
  hi_u32 dest_left_offset;
} hi_vpc_crop_resize_paste_region;

typedef struct {
  hi_s32 attr;       // reserved
  hi_u32 pic_width;  // the largest picture of the channel
  hi_u32 pic_height;
} hi_vpc_chn_attr;

// A channel (the id it gets back: the lowest free one, below limits.vpc_channels) and its end.
hi_s32 hi_mpi_vpc_sys_create_chn(hi_vpc_chn* chnl, const hi_vpc_chn_attr* attr);
hi_s32 hi_mpi_vpc_destroy_chn(hi_vpc_chn chn);

// Asynchronous: each call queues one task and returns its id in *task_id; the output is the
// program's once hi_mpi_vpc_get_process_result(chn, task_id) has returned HI_SUCCESS.
// fx, fy: 0 (the output picture's size gives the scale); interpolation 0 (bilinear) or 1
// (nearest neighbour).
hi_s32 hi_mpi_vpc_resize(hi_vpc_chn chn, const hi_vpc_pic_info* source_pic,
                         hi_vpc_pic_info* dest_pic, hi_double fx, hi_double fy,
                         hi_u32 interpolation, hi_u32* task_id, hi_s32 milli_sec);
hi_s32 hi_mpi_vpc_crop_resize(hi_vpc_chn chn, const hi_vpc_pic_info* source_pic,
                              hi_vpc_crop_resize_region crop_resize_info[], hi_u32 count,
                              hi_u32* task_id, hi_s32 milli_sec);
hi_s32 hi_mpi_vpc_crop_resize_paste(hi_vpc_chn chn, const hi_vpc_pic_info* source_pic,
                                    hi_vpc_crop_resize_paste_region crop_resize_paste_info[],
                                    hi_u32 count, hi_u32* task_id, hi_s32 milli_sec);
// Waits up to milli_sec (-1 blocks, 0 does not) for task task_id of the channel:
// HI_SUCCESS once it is done (and forgotten), HI_ERR_VPC_BUF_EMPTY when it is not done yet.
hi_s32 hi_mpi_vpc_get_process_result(hi_vpc_chn chn, hi_u32 task_id, hi_s32 milli_sec);

#ifdef __cplusplus
}
#endif

#endif  // ACL_DVPP_HI_DVPP_H_
