// detections (ascgen/stages/detections.py): a detector's output turned into at most N objects
// on the host: box decode, score threshold, class filter, non-maximum suppression. No AscendCL
// here, and no allocation: the caller gives every buffer, sized once at start-up.
//
// Two layouts of one frame's output (float32 throughout):
// - yolov3_detection_output: the two outputs of ATC's YoloV3DetectionOutput operator (CANN
//   operator list, "YoloV3DetectionOutput"): box_out, then box_out_num. box_out_num holds the
//   frame's box count in its first int32 (of 8); box_out holds those boxes attribute by
//   attribute, each attribute a run of `count` floats: x1..., y1..., x2..., y2..., score...,
//   class... (as the CANN samples read it: data[count * attribute + i]), in the model input's
//   pixels. The operator has done its own NMS; ascgen's threshold, filter, NMS and limit apply
//   again on top (with the operator's thresholds or looser, they keep what it kept).
// - yolo_raw: a raw YOLO head, rows of [cx, cy, w, h, objectness, class scores...]
//   ([candidates, 5 + classes]); a row's score is objectness x its best class score, its class
//   the first class with that score.
//
// Rules, the same for both: a box is kept when score >= the threshold (NaN is not); its class
// must be in the filter when one is given; NMS visits boxes by score, highest first, ties in
// the order they were decoded, and drops a box whose IoU with a kept box of the same class
// (any class when class-agnostic) is above nms_iou (an IoU equal to it is kept); a box with no
// area overlaps nothing; at most max_objects are kept, the best first.
#ifndef ASCGEN_STAGES_DETECTIONS_H_
#define ASCGEN_STAGES_DETECTIONS_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace ascgen::detections {

struct Box {
  float x1, y1, x2, y2;  // corners, in the model input's pixels
  float score;
  int cls;
  int order;  // position in decoding order: breaks ties of score
};

struct Rules {
  float score = 0.5f;         // keep a box whose score is at least this
  float nms_iou = 0.45f;      // drop a box overlapping a kept one by more than this
  int max_objects = 32;       // keep at most this many
  const int* keep = nullptr;  // the class filter (nullptr: every class)
  int keep_count = 0;
  bool agnostic = false;  // NMS across classes
};

inline bool class_wanted(const Rules& rules, int cls) {
  if (rules.keep == nullptr) return true;
  return std::find(rules.keep, rules.keep + rules.keep_count, cls) != rules.keep + rules.keep_count;
}

inline float area(const Box& b) {
  float w = b.x2 - b.x1, h = b.y2 - b.y1;
  return w > 0.0f && h > 0.0f ? w * h : 0.0f;
}

// Intersection over union; 0 when either box has no area.
inline float iou(const Box& a, const Box& b) {
  float ua = area(a), ub = area(b);
  if (ua <= 0.0f || ub <= 0.0f) return 0.0f;
  float w = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
  float h = std::min(a.y2, b.y2) - std::max(a.y1, b.y1);
  float inter = w > 0.0f && h > 0.0f ? w * h : 0.0f;
  return inter / (ua + ub - inter);
}

// Appends a decoded box to `out` when it passes the threshold and the filter; returns the new
// count.
inline int offer(const Rules& rules, const Box& b, Box* out, int n, int capacity) {
  if (n >= capacity || !(b.score >= rules.score) || !class_wanted(rules, b.cls)) return n;
  out[n] = b;
  out[n].order = n;
  return n + 1;
}

// One frame of the YoloV3DetectionOutput layout: `boxes` (box_out, room for `capacity` boxes)
// and `count` (box_out_num). A count beyond `capacity` is read as `capacity`. Writes the boxes
// that pass into `out` (room for `capacity`) and returns how many.
inline int decode_yolov3_detection_output(const float* boxes, const int32_t* count, int capacity,
                                          const Rules& rules, Box* out) {
  int total = std::min(std::max(count[0], 0), capacity);
  int n = 0;
  for (int i = 0; i < total; ++i) {
    float cls = boxes[total * 5 + i];
    if (!(cls >= 0.0f && cls < 65536.0f)) continue;  // not a class id (NaN included)
    Box b{boxes[i],
          boxes[total + i],
          boxes[total * 2 + i],
          boxes[total * 3 + i],
          boxes[total * 4 + i],
          static_cast<int>(cls),
          0};
    n = offer(rules, b, out, n, capacity);
  }
  return n;
}

// One frame of a raw YOLO head: `rows` candidates of 5 + `classes` floats. Writes the boxes that
// pass into `out` (room for `rows`) and returns how many.
inline int decode_yolo_raw(const float* data, int rows, int classes, const Rules& rules, Box* out) {
  int n = 0;
  for (int r = 0; r < rows; ++r) {
    const float* row = data + static_cast<long>(r) * (5 + classes);
    int best = 0;
    for (int c = 1; c < classes; ++c) {
      if (row[5 + c] > row[5 + best]) best = c;
    }
    float cx = row[0], cy = row[1], hw = row[2] / 2, hh = row[3] / 2;
    Box b{cx - hw, cy - hh, cx + hw, cy + hh, row[4] * row[5 + best], best, 0};
    n = offer(rules, b, out, n, rows);
  }
  return n;
}

// Greedy NMS over the `n` decoded boxes in `boxes` (reordered in place); writes at most
// max_objects boxes to `kept` (room for max_objects), best first, and returns how many.
inline int suppress(Box* boxes, int n, const Rules& rules, Box* kept) {
  std::sort(boxes, boxes + n, [](const Box& a, const Box& b) {
    return a.score != b.score ? a.score > b.score : a.order < b.order;
  });
  int k = 0;
  for (int i = 0; i < n && k < rules.max_objects; ++i) {
    bool overlaps = false;
    for (int j = 0; j < k && !overlaps; ++j) {
      bool rivals = rules.agnostic || kept[j].cls == boxes[i].cls;
      overlaps = rivals && iou(kept[j], boxes[i]) > rules.nms_iou;
    }
    if (!overlaps) kept[k++] = boxes[i];
  }
  return k;
}

// The kept boxes of one frame folded into a number (their count, classes and corners to a
// hundredth of a pixel), so a program's checksum covers what post-processing found.
inline uint64_t checksum(const Box* kept, int k) {
  uint64_t sum = static_cast<uint64_t>(k);
  for (int i = 0; i < k; ++i) {
    const float v[4] = {kept[i].x1, kept[i].y1, kept[i].x2, kept[i].y2};
    sum = sum * 31 + static_cast<uint64_t>(kept[i].cls);
    for (float x : v)
      sum = sum * 31 + static_cast<uint64_t>(static_cast<int64_t>(std::lround(x * 100.0f)));
  }
  return sum;
}

// The kept boxes of one frame as JSON, [[class, x1, y1, x2, y2, score], ...] (corners in the
// model input's pixels), appended to `out`: what --verify's report says the frame holds.
inline void describe(const Box* kept, int k, std::string& out) {
  out += '[';
  for (int i = 0; i < k; ++i) {
    char row[160];
    std::snprintf(row, sizeof row, "%s[%d, %.2f, %.2f, %.2f, %.2f, %.4f]", i ? ", " : "",
                  kept[i].cls, static_cast<double>(kept[i].x1), static_cast<double>(kept[i].y1),
                  static_cast<double>(kept[i].x2), static_cast<double>(kept[i].y2),
                  static_cast<double>(kept[i].score));
    out += row;
  }
  out += ']';
}

}  // namespace ascgen::detections

#endif  // ASCGEN_STAGES_DETECTIONS_H_
