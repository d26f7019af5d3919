// The detections kind's host post-processing (templates/stages/detections.h): both layouts, the
// score threshold and class filter, NMS order, ties and IoU edges, the object limit, empty input.
// Usage: detections_tests [GROUP...]; built and run by tests/stages/test_detections_cpp.py.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "check.h"
#include "detections.h"

using ascgen::detections::Box;
using ascgen::detections::Rules;
namespace det = ascgen::detections;

namespace {

// box_out of one frame, attribute by attribute with a stride of the box count (as ATC writes it)
struct Yolov3Frame {
  std::vector<float> boxes;
  int32_t count[8] = {0, 0, 0, 0, 0, 0, 0, 0};

  Yolov3Frame(int capacity, const std::vector<Box>& in) : boxes(6 * capacity, -1.0f) {
    int n = static_cast<int>(in.size());
    count[0] = n;
    for (int i = 0; i < n; ++i) {
      const float row[6] = {in[i].x1, in[i].y1,    in[i].x2,
                            in[i].y2, in[i].score, static_cast<float>(in[i].cls)};
      for (int a = 0; a < 6; ++a) boxes[n * a + i] = row[a];
    }
  }
};

Box box(float x1, float y1, float x2, float y2, float score, int cls) {
  return Box{x1, y1, x2, y2, score, cls, 0};
}

Rules loose() {
  Rules r;
  r.score = 0.0f;
  r.nms_iou = 0.5f;
  r.max_objects = 100;
  return r;
}

// decodes then suppresses; returns the kept boxes
std::vector<Box> run(std::vector<Box> decoded, const Rules& rules) {
  std::vector<Box> kept(static_cast<size_t>(rules.max_objects));
  for (size_t i = 0; i < decoded.size(); ++i) decoded[i].order = static_cast<int>(i);
  int k = det::suppress(decoded.data(), static_cast<int>(decoded.size()), rules, kept.data());
  kept.resize(static_cast<size_t>(k));
  return kept;
}

}  // namespace

TEST(iou, edges) {
  Box a = box(0, 0, 10, 10, 1, 0);
  CHECK_EQ(det::iou(a, a), 1.0f);
  CHECK_EQ(det::iou(a, box(10, 0, 20, 10, 1, 0)), 0.0f);  // touching edges: no overlap
  CHECK_EQ(det::iou(a, box(5, 0, 15, 10, 1, 0)), 50.0f / 150.0f);
  CHECK_EQ(det::iou(a, box(2, 2, 4, 4, 1, 0)), 4.0f / 100.0f);  // one inside the other
  CHECK_EQ(det::iou(a, box(3, 3, 3, 8, 1, 0)), 0.0f);           // no area
  CHECK_EQ(det::iou(a, box(8, 8, 2, 2, 1, 0)), 0.0f);           // corners swapped: no area
}

TEST(nms, highest_score_first_and_overlaps_dropped) {
  std::vector<Box> in = {box(0, 0, 10, 10, 0.6f, 0), box(1, 0, 11, 10, 0.9f, 0),
                         box(50, 50, 60, 60, 0.7f, 0)};
  std::vector<Box> kept = run(in, loose());
  CHECK_EQ(kept.size(), 2u);
  CHECK_EQ(kept[0].score, 0.9f);  // the 0.6 box overlaps it by 9/11: dropped
  CHECK_EQ(kept[1].score, 0.7f);
}

TEST(nms, ties_keep_decoding_order) {
  // equal scores: the box decoded first wins, and the order of the result follows decoding
  std::vector<Box> in = {box(100, 0, 110, 10, 0.8f, 0), box(0, 0, 10, 10, 0.8f, 0),
                         box(1, 0, 11, 10, 0.8f, 0)};
  std::vector<Box> kept = run(in, loose());
  CHECK_EQ(kept.size(), 2u);
  CHECK_EQ(kept[0].x1, 100.0f);
  CHECK_EQ(kept[1].x1, 0.0f);  // (1, 0, 11, 10) came after it: dropped
}

TEST(nms, iou_equal_to_the_threshold_is_kept) {
  // IoU of these two: 50 / 150 = 1/3 exactly as float division computes it
  Rules r = loose();
  r.nms_iou = 50.0f / 150.0f;
  std::vector<Box> in = {box(0, 0, 10, 10, 0.9f, 0), box(5, 0, 15, 10, 0.8f, 0)};
  CHECK_EQ(run(in, r).size(), 2u);
  r.nms_iou = std::nextafter(50.0f / 150.0f, 0.0f);  // just below: dropped
  CHECK_EQ(run(in, r).size(), 1u);
  r.nms_iou = 0.0f;  // any overlap drops, touching does not
  in.push_back(box(10, 0, 20, 10, 0.7f, 0));
  CHECK_EQ(run(in, r).size(), 2u);
}

TEST(nms, per_class_unless_agnostic) {
  std::vector<Box> in = {box(0, 0, 10, 10, 0.9f, 0), box(0, 0, 10, 10, 0.8f, 1)};
  CHECK_EQ(run(in, loose()).size(), 2u);
  Rules r = loose();
  r.agnostic = true;
  std::vector<Box> kept = run(in, r);
  CHECK_EQ(kept.size(), 1u);
  CHECK_EQ(kept[0].cls, 0);
}

TEST(nms, at_most_max_objects_the_best_first) {
  std::vector<Box> in;
  for (int i = 0; i < 10; ++i) {
    float x = 20.0f * static_cast<float>(i);
    in.push_back(box(x, 0, x + 10, 10, 0.1f * static_cast<float>(i), 0));
  }
  Rules r = loose();
  r.max_objects = 3;
  std::vector<Box> kept = run(in, r);
  CHECK_EQ(kept.size(), 3u);
  CHECK_EQ(kept[0].x1, 180.0f);
  CHECK_EQ(kept[2].x1, 140.0f);
}

TEST(yolov3, decodes_the_attribute_runs) {
  Yolov3Frame f(16, {box(1, 2, 3, 4, 0.9f, 7), box(10, 20, 30, 40, 0.8f, 2)});
  std::vector<Box> out(16);
  int n = det::decode_yolov3_detection_output(f.boxes.data(), f.count, 16, loose(), out.data());
  CHECK_EQ(n, 2);
  CHECK(out[0].x1 == 1 && out[0].y1 == 2 && out[0].x2 == 3 && out[0].y2 == 4);
  CHECK_EQ(out[0].cls, 7);
  CHECK(out[1].x1 == 10 && out[1].y1 == 20 && out[1].x2 == 30 && out[1].y2 == 40);
  CHECK_EQ(out[1].score, 0.8f);
  CHECK_EQ(out[1].cls, 2);
}

TEST(yolov3, threshold_and_class_filter) {
  Yolov3Frame f(8, {box(0, 0, 1, 1, 0.5f, 1), box(0, 0, 1, 1, 0.49f, 1), box(5, 5, 6, 6, 0.9f, 3),
                    box(9, 9, 10, 10, 0.9f, 4)});
  Rules r = loose();
  r.score = 0.5f;  // a score equal to the threshold passes
  const int keep[] = {1, 4};
  r.keep = keep;
  r.keep_count = 2;
  std::vector<Box> out(8);
  int n = det::decode_yolov3_detection_output(f.boxes.data(), f.count, 8, r, out.data());
  CHECK_EQ(n, 2);
  CHECK_EQ(out[0].score, 0.5f);
  CHECK_EQ(out[1].cls, 4);
}

TEST(yolov3, count_beyond_capacity_and_bad_values) {
  std::vector<Box> in = {box(0, 0, 1, 1, 0.9f, 0), box(0, 0, 1, 1, 0.9f, 0),
                         box(0, 0, 1, 1, std::numeric_limits<float>::quiet_NaN(), 0)};
  Yolov3Frame f(3, in);
  f.count[0] = 1000;  // the device says more than box_out holds: read box_out's capacity only
  std::vector<Box> out(3);
  int n = det::decode_yolov3_detection_output(f.boxes.data(), f.count, 3, loose(), out.data());
  CHECK_EQ(n, 2);  // the NaN score fails every threshold, even 0
  f = Yolov3Frame(3, in);
  f.boxes[3 * 5 + 1] = -1.0f;  // a negative class id: not a box
  n = det::decode_yolov3_detection_output(f.boxes.data(), f.count, 3, loose(), out.data());
  CHECK_EQ(n, 1);
  f.count[0] = -5;
  CHECK_EQ(det::decode_yolov3_detection_output(f.boxes.data(), f.count, 3, loose(), out.data()), 0);
}

TEST(yolov3, empty_frame) {
  Yolov3Frame f(4, {});
  std::vector<Box> out(4);
  Rules r = loose();
  int n = det::decode_yolov3_detection_output(f.boxes.data(), f.count, 4, r, out.data());
  CHECK_EQ(n, 0);
  Box kept[1];
  r.max_objects = 1;
  CHECK_EQ(det::suppress(out.data(), 0, r, kept), 0);
}

TEST(yolo_raw, centre_size_to_corners_and_best_class) {
  // two rows of [cx, cy, w, h, obj, c0, c1, c2]
  const float rows[] = {50, 40, 20, 10, 0.8f, 0.1f, 0.5f, 0.5f,  // c1 and c2 tie: the first
                        10, 10, 4,  4,  0.5f, 0.9f, 0.0f, 0.0f};
  Box out[2];
  int n = det::decode_yolo_raw(rows, 2, 3, loose(), out);
  CHECK_EQ(n, 2);
  CHECK(out[0].x1 == 40 && out[0].y1 == 35 && out[0].x2 == 60 && out[0].y2 == 45);
  CHECK_EQ(out[0].cls, 1);
  CHECK_EQ(out[0].score, 0.8f * 0.5f);
  CHECK_EQ(out[1].cls, 0);
  CHECK_EQ(out[1].score, 0.5f * 0.9f);
}

TEST(yolo_raw, threshold_filter_nms_and_limit) {
  // three overlapping class-0 candidates, one class-1 candidate, one below the threshold
  const float rows[] = {10,   10,   10,   10,   1.0f, 0.9f, 0.0f, 11,   10,   10,   10,  1.0f,
                        0.8f, 0.0f, 12,   10,   10,   10,   1.0f, 0.7f, 0.0f, 80,   80,  10,
                        10,   1.0f, 0.0f, 0.6f, 50,   50,   10,   10,   0.1f, 0.9f, 0.0f};
  Rules r = loose();
  r.score = 0.25f;
  Box decoded[5];
  int n = det::decode_yolo_raw(rows, 5, 2, r, decoded);
  CHECK_EQ(n, 4);  // 0.1 x 0.9 = 0.09 is below 0.25
  Box kept[100];
  int k = det::suppress(decoded, n, r, kept);
  CHECK_EQ(k, 2);
  CHECK_EQ(kept[0].score, 0.9f);
  CHECK_EQ(kept[1].cls, 1);
  const int only1[] = {1};
  r.keep = only1;
  r.keep_count = 1;
  CHECK_EQ(det::decode_yolo_raw(rows, 5, 2, r, decoded), 1);
  r.keep = nullptr;
  r.max_objects = 1;
  n = det::decode_yolo_raw(rows, 5, 2, r, decoded);
  CHECK_EQ(det::suppress(decoded, n, r, kept), 1);
}

TEST(yolo_raw, empty_input) {
  Box out[1];
  CHECK_EQ(det::decode_yolo_raw(nullptr, 0, 80, loose(), out), 0);
}

TEST(checksum, covers_count_classes_and_corners) {
  Box a[2] = {box(10, 20, 30, 40, 0.9f, 1), box(50, 60, 70, 80, 0.8f, 2)};
  const uint64_t both = det::checksum(a, 2);
  CHECK_EQ(det::checksum(a, 0), 0u);
  CHECK(det::checksum(a, 1) != both);
  Box moved[2] = {a[0], a[1]};
  moved[1].x2 = 70.01f;  // a hundredth of a pixel
  CHECK(det::checksum(moved, 2) != both);
  Box other[2] = {a[0], a[1]};
  other[1].cls = 3;
  CHECK(det::checksum(other, 2) != both);
  Box rescored[2] = {a[0], a[1]};
  rescored[1].score = 0.1f;  // the score is not part of it: the same boxes kept
  CHECK_EQ(det::checksum(rescored, 2), both);
}

TEST(describe, kept_boxes_as_json_rows) {
  std::string out = "x";  // appended to
  det::describe(nullptr, 0, out);
  CHECK(out == "x[]");
  Box a[2] = {box(10, 20, 30.5f, 40, 0.9f, 1), box(50, 60, 70, 80.25f, 0.75f, 2)};
  out.clear();
  det::describe(a, 2, out);
  CHECK(out == "[[1, 10.00, 20.00, 30.50, 40.00, 0.9000], [2, 50.00, 60.00, 70.00, 80.25, 0.7500]]");
}

int main(int argc, char** argv) {
  return check::run(argc, argv);
}
