// The simulated detector (descriptor key `detector=`, model_file.h): a model whose outputs are
// real detections of coloured shapes in its NV12 input, in the layouts the host post-processing
// reads (templates/stages/detections.h).
//
// Per batch item, input 0 is one NV12 (YUV420SP) picture of detector.width x detector.height on
// its strides. The detection, on the chroma plane (one sample per 2x2 pixels):
// - the background's chroma is the picture's median U and median V (the test pictures'
//   background is grey texture: luma varies, chroma stays near neutral);
// - a sample is foreground when its (U, V) is more than kChromaThreshold from it;
// - 4-connected foreground samples form a component; one of fewer than kMinSamples is noise;
// - its box is the component's extent in pixels, [x1, y1, x2, y2) (x2/y2 exclusive);
// - its score is contrast / (contrast + kScoreHalf), contrast being the distance in (U, V)
//   between the component's mean and the mean of the background samples in a ring of
//   kRingSamples around its box (its local background);
// - its class is the palette colour (pipelines/data/make_shapes.py PALETTE) nearest to its mean
//   (U, V), among the first `classes`.
// At most max_boxes per picture, the best score first (ties: top-left first).
//
// Output layouts (float32 unless said), per batch item:
// - yolov3_detection_output (ATC's YoloV3DetectionOutput, CANN operator list): output 0 box_out,
//   6 x max_boxes floats of which the first 6 x n hold the n boxes attribute by attribute, each
//   attribute a run of n values: x1..., y1..., x2..., y2..., score..., class... (the rest 0);
//   output 1 box_out_num, 8 int32: n, then zeros.
// - yolo_raw: output 0, max_boxes rows of 5 + classes floats: cx, cy, w, h, objectness (the
//   score), then a one-hot class score (1 for its class); rows after the n boxes are all 0.
// Pixel work happens once per distinct picture: results are cached by the item's content hash.
#ifndef ACL_SIM_SRC_MODEL_DETECTOR_H_
#define ACL_SIM_SRC_MODEL_DETECTOR_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/model_file.h"

namespace sim {

struct Detection {
  float x1, y1, x2, y2;  // pixels of the model input, x2/y2 exclusive
  float score;           // in (0, 1)
  int cls;
};

constexpr int kChromaThreshold = 48;  // (U, V) distance from the background: foreground
constexpr int kMinSamples = 6;        // chroma samples: smaller components are noise
constexpr int kRingSamples = 3;       // the local background around a box, in chroma samples
constexpr float kScoreHalf = 32.0f;   // the contrast that scores 0.5

// Detections in one NV12 picture (no cache).
std::vector<Detection> detect_shapes(const uint8_t* nv12, const ModelFile::Detector& d);

// Writes a detector model's outputs (0, and 1 for yolov3_detection_output) for `batch` items of
// input 0 (through the cache); returns how many outputs it wrote.
size_t detector_outputs(const ModelFile& file, const void* input, void* const* outputs,
                        uint32_t batch);

// Pictures really analysed (cache misses) since the process started: tests prove the cache.
uint64_t detector_analyses();

}  // namespace sim

#endif  // ACL_SIM_SRC_MODEL_DETECTOR_H_
