// The simulator's stand-in for a compiled model (.om): a key=value text file
// written by ascgen's code generator (ascgen/codegen/model_descriptor.py).
//
//   format=acl_sim_model        version=1        name=infer       batch=16
//   inputs=1   input.0.bytes=1204224     outputs=1   output.0.bytes=64000
//   memory_bytes=115343360      latency_ms.1=2.504   latency_ms.16=21.78
//   weight_bytes=...            (optional: the weight part of memory_bytes for
//                                aclmdlQuerySize; default half of it)
//   traffic_bytes=...           (optional: bytes one execution moves through
//                                DDR besides its inputs and outputs: weights,
//                                activations; default weight_bytes, the
//                                weights read once; docs/shared_bandwidth.md)
//   detector=yolov3_detection_output | yolo_raw   (optional: a simulated detector whose
//   detector.classes=6  detector.width=416  detector.height=416  detector.max_boxes=32
//   [detector.width_stride=416  detector.height_stride=416]   outputs are real detections of
//                                its NV12 input; model_detector.h)
#ifndef ACL_SIM_SRC_MODEL_FILE_H_
#define ACL_SIM_SRC_MODEL_FILE_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "acl/acl_base.h"

namespace sim {

struct ModelFile {
  std::string path;
  std::string name;
  uint32_t batch = 1;
  std::vector<size_t> input_bytes;
  std::vector<size_t> output_bytes;
  size_t memory_bytes = 0;
  size_t weight_bytes = 0;                // part of memory_bytes
  size_t traffic_bytes = 0;               // per execution, besides inputs and outputs
  size_t traffic_bytes_per_item = 0;      // of traffic_bytes, per batch item (a gear moves fewer)
  std::map<uint32_t, double> latency_ms;  // by batch size, at least one entry
  // Dynamic batch gears (descriptor `gears=1,2,4,8,16`, ascending, the last is `batch`); empty:
  // a static model. A dynamic model has one more input, the last, named
  // ascend_mbatch_shape_data (what ATC adds, ACL_FACTS 5 "Dynamic batch").
  std::vector<uint32_t> gears;
  // Dynamic height/width gears (descriptor `hw_gears=32x80,32x160`, ATC's --dynamic_image_size):
  // input 0 holds `batch` items of h * w elements of hw_element_bytes each at the gear set
  // before the execute; its size is the largest gear's. The same extra input as batch gears;
  // a model has one kind of gears or none (ACL_FACTS 5).
  struct HwGear {
    uint64_t h = 0, w = 0;
    uint64_t elements() const { return h * w; }
  };
  std::vector<HwGear> hw_gears;
  size_t hw_element_bytes = 0;  // input 0's bytes per element (channels times element size)
  // Outputs that follow the HW gear (descriptor `output.N.hw_scaled=1`, a CRNN's time steps
  // follow the width): at a gear each item's output is its share of the largest gear's
  // elements, the items packed from the start; aclmdlGetCurOutputDims gives that shape.
  std::vector<bool> output_hw_scaled;
  // Output `index`'s bytes per item at `elements` (a gear's h * w): all of them unless it
  // follows the gear.
  size_t output_item_bytes(size_t index, uint64_t elements) const {
    const size_t item = output_bytes[index] / batch;
    if (index >= output_hw_scaled.size() || !output_hw_scaled[index] || elements == 0) return item;
    return static_cast<size_t>(item * elements / hw_max_elements());
  }
  static constexpr size_t kMbatchBytes = 8;
  bool dynamic() const { return !gears.empty(); }
  bool dynamic_hw() const { return !hw_gears.empty(); }
  // The model has the ascend_mbatch_shape_data input (dynamic batch or dynamic HW).
  bool has_mbatch_input() const { return dynamic() || dynamic_hw(); }
  size_t mbatch_index() const { return input_bytes.size() - 1; }
  uint64_t hw_max_elements() const {
    uint64_t m = 0;
    for (const HwGear& g : hw_gears) m = g.elements() > m ? g.elements() : m;
    return m;
  }

  // A simulated detector (descriptor `detector=...`; model_detector.h): input 0 holds `batch`
  // NV12 pictures of width x height on the strides (default: VPC's, ALIGN(w,16) x ALIGN(h,2)).
  struct Detector {
    enum class Layout { kNone, kYoloV3DetectionOutput, kYoloRaw };
    Layout layout = Layout::kNone;
    uint32_t classes = 0, width = 0, height = 0, width_stride = 0, height_stride = 0;
    uint32_t max_boxes = 0;  // box_out's capacity (post_nms_topn), or the raw head's rows
    size_t picture_bytes() const { return size_t{width_stride} * height_stride * 3 / 2; }
  };
  Detector detector;
  bool is_detector() const { return detector.layout != Detector::Layout::kNone; }

  size_t work_bytes() const { return memory_bytes - weight_bytes; }
  // Latency of one execution at `batch`: the table's entry, else linear
  // interpolation between the neighbouring entries, proportional beyond the
  // ends (ascgen/stages/model.py: latency_ms).
  double latency_at(uint32_t batch) const;
};

// Reads `path`. ACL_ERROR_INVALID_FILE when it cannot be read,
// ACL_ERROR_PARSE_MODEL when it is not a valid descriptor; either way logs one
// line naming the file (and the key) under `api`.
aclError read_model_file(const char* api, const char* path, ModelFile* out);

}  // namespace sim

#endif  // ACL_SIM_SRC_MODEL_FILE_H_
