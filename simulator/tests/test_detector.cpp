// The simulated detector (src/model/model_detector.h): on the shape pictures of
// pipelines/data/make_shapes.py (made at test time by the fixture sim.detector_shapes), decoded
// and resized to the model's input as a pipeline would, its detections are the drawn boxes.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "acl/acl_mdl.h"
#include "acl_sim/imaging/jpeg_decode.h"
#include "acl_sim/imaging/jpeg_info.h"
#include "acl_sim/imaging/resize.h"
#include "check.h"
#include "dvpp_helpers.h"
#include "model/model_detector.h"
#include "session.h"

using namespace testing_sim;
namespace img = acl_sim::imaging;

namespace {

constexpr uint32_t kSide = 416;  // the detector's input: 416 x 416 NV12 (strides 416 x 416)
constexpr uint32_t kBatch = 2;
constexpr uint32_t kBoxes = 32;
constexpr uint32_t kClasses = 6;
constexpr size_t kPicture = size_t{kSide} * kSide * 3 / 2;
constexpr float kTolerance = 2.0f;  // pixels of the model input (chroma is 2 x 2 pixels)

struct Truth {
  uint32_t width = 0, height = 0;
  struct Box {
    int cls;
    float x1, y1, x2, y2;
  };
  std::vector<Box> boxes;
};

std::string shape_path(const std::string& name, const char* ext) {
  return std::string(ACL_SIM_TEST_SHAPES) + "/" + name + ext;
}

Truth read_truth(const std::string& name) {
  Truth t;
  std::ifstream in(shape_path(name, ".txt"));
  size_t n = 0;
  in >> t.width >> t.height >> n;
  for (size_t i = 0; i < n && in; ++i) {
    Truth::Box b{};
    in >> b.cls >> b.x1 >> b.y1 >> b.x2 >> b.y2;
    t.boxes.push_back(b);
  }
  return t;
}

// The picture as the model sees it: JPEG decoded to NV12, then resized to kSide x kSide.
std::vector<uint8_t> model_picture(const std::string& name) {
  const std::vector<uint8_t> jpeg = testing_sim::read_file(shape_path(name, ".jpg"));
  const img::JpegInfo info = img::parse_jpeg_info(jpeg.data(), jpeg.size());
  const img::DecodeGeometry g = img::decode_geometry(info, img::DecodeAlign{});
  std::vector<uint8_t> decoded(g.bytes), out(kPicture);
  if (img::decode_jpeg_nv12(jpeg.data(), jpeg.size(), decoded.data(), decoded.size(),
                            g.width_stride, g.height_stride) != img::DecodeStatus::kOk)
    return {};
  const img::Nv12ConstView src(decoded.data(), g.width, g.height, g.width_stride, g.height_stride);
  const img::Nv12View dst{out.data(), kSide, kSide, kSide, kSide};
  if (img::resize_nv12(src, img::full_roi(g.width, g.height), dst, img::full_roi(kSide, kSide),
                       img::Interpolation::kBilinear) != img::ResizeStatus::kOk)
    return {};
  return out;
}

std::string detector_model(const char* layout) {
  const bool raw = std::strcmp(layout, "yolo_raw") == 0;
  const size_t per_box = raw ? 5 + kClasses : 6;
  std::string body = "format=acl_sim_model\nversion=1\nname=detect\nbatch=2\ninputs=1\n";
  body += "input.0.bytes=" + std::to_string(kBatch * kPicture) + "\n";
  body += raw ? "outputs=1\n" : "outputs=2\n";
  body += "output.0.bytes=" + std::to_string(kBatch * kBoxes * per_box * 4) + "\n";
  if (!raw) body += "output.1.bytes=" + std::to_string(kBatch * 8 * 4) + "\n";
  body += "memory_bytes=1048576\nlatency_ms.2=3.0\n";
  body += std::string("detector=") + layout + "\ndetector.classes=6\ndetector.width=416\n";
  body += "detector.height=416\ndetector.max_boxes=32\n";
  std::string path = scratch_file("detector_" + std::string(layout) + ".model");
  std::ofstream(path) << body;
  return path;
}

struct Found {
  float x1, y1, x2, y2, score;
  int cls;
};

// Executes the model on two pictures; returns each one's detections (decoded from the layout).
std::vector<std::vector<Found>> execute(const char* layout, const std::vector<uint8_t>& a,
                                        const std::vector<uint8_t>& b) {
  const bool raw = std::strcmp(layout, "yolo_raw") == 0;
  const std::string path = detector_model(layout);
  uint32_t id = 0;
  std::vector<std::vector<Found>> result;
  if (aclmdlLoadFromFile(path.c_str(), &id) != ACL_SUCCESS) return result;
  const size_t row = raw ? 5 + kClasses : 6;
  const size_t sizes[2] = {kBatch * kBoxes * row * 4, kBatch * 8 * 4};
  void *in = nullptr, *out[2] = {nullptr, nullptr};
  aclrtMalloc(&in, kBatch * kPicture, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMemcpy(in, kPicture, a.data(), kPicture, ACL_MEMCPY_HOST_TO_DEVICE);
  aclrtMemcpy(static_cast<uint8_t*>(in) + kPicture, kPicture, b.data(), kPicture,
              ACL_MEMCPY_HOST_TO_DEVICE);
  aclmdlDataset* ins = aclmdlCreateDataset();
  aclmdlDataset* outs = aclmdlCreateDataset();
  aclDataBuffer* bin = aclCreateDataBuffer(in, kBatch * kPicture);
  aclmdlAddDatasetBuffer(ins, bin);
  std::vector<aclDataBuffer*> bouts;
  for (int o = 0; o < (raw ? 1 : 2); ++o) {
    aclrtMalloc(&out[o], sizes[o], ACL_MEM_MALLOC_HUGE_FIRST);
    bouts.push_back(aclCreateDataBuffer(out[o], sizes[o]));
    aclmdlAddDatasetBuffer(outs, bouts.back());
  }
  if (aclmdlExecute(id, ins, outs) == ACL_SUCCESS) {
    std::vector<uint8_t> boxes = download(out[0], sizes[0]);
    std::vector<uint8_t> counts = raw ? std::vector<uint8_t>() : download(out[1], sizes[1]);
    const auto* f = reinterpret_cast<const float*>(boxes.data());
    for (uint32_t k = 0; k < kBatch; ++k) {
      std::vector<Found> item;
      const float* base = f + k * kBoxes * row;
      if (raw) {
        for (uint32_t r = 0; r < kBoxes; ++r) {
          const float* p = base + r * row;
          if (p[4] <= 0.0f) continue;
          int cls = 0;
          for (uint32_t c = 1; c < kClasses; ++c) cls = p[5 + c] > p[5 + cls] ? int(c) : cls;
          item.push_back(
              {p[0] - p[2] / 2, p[1] - p[3] / 2, p[0] + p[2] / 2, p[1] + p[3] / 2, p[4], cls});
        }
      } else {
        int32_t n = 0;
        std::memcpy(&n, counts.data() + k * 32, 4);
        for (int32_t i = 0; i < n; ++i)
          item.push_back({base[i], base[n + i], base[2 * n + i], base[3 * n + i], base[4 * n + i],
                          static_cast<int>(base[5 * n + i])});
      }
      result.push_back(item);
    }
  }
  for (aclDataBuffer* d : bouts) aclDestroyDataBuffer(d);
  aclDestroyDataBuffer(bin);
  aclmdlDestroyDataset(ins);
  aclmdlDestroyDataset(outs);
  aclrtFree(in);
  for (void* p : out)
    if (p != nullptr) aclrtFree(p);
  aclmdlUnload(id);
  unlink(path.c_str());
  return result;
}

// Every true box (scaled to the model input) has exactly one detection of its class within
// kTolerance on each edge, and there are no others.
void check_matches(const std::string& name, const std::vector<Found>& found) {
  const Truth t = read_truth(name);
  CHECK(t.width > 0);
  CHECK_EQ(found.size(), t.boxes.size());
  const float sx = static_cast<float>(kSide) / t.width, sy = static_cast<float>(kSide) / t.height;
  float worst = 0.0f;
  for (const Truth::Box& b : t.boxes) {
    int matches = 0;
    for (const Found& f : found) {
      const float err = std::max({std::fabs(f.x1 - b.x1 * sx), std::fabs(f.y1 - b.y1 * sy),
                                  std::fabs(f.x2 - b.x2 * sx), std::fabs(f.y2 - b.y2 * sy)});
      if (f.cls != b.cls || err > kTolerance) continue;
      ++matches;
      worst = std::max(worst, err);
      CHECK(f.score > 0.5f && f.score < 1.0f);
    }
    if (matches != 1)
      std::fprintf(stderr, "%s: box class %d [%g %g %g %g] matched %d times\n", name.c_str(), b.cls,
                   b.x1 * sx, b.y1 * sy, b.x2 * sx, b.y2 * sy, matches);
    CHECK_EQ(matches, 1);
  }
  std::printf("%s: %zu boxes, worst edge %.2f px\n", name.c_str(), found.size(), worst);
}

void check_layout(const char* layout) {
  CHECK_OK(open_device(0.05));
  const char* names[] = {"shapes_vga_8obj",   "shapes_720p_8obj", "shapes_1080p_8obj",
                         "shapes_1080p_1obj", "shapes_vga_1obj",  "shapes_vga_0obj"};
  for (size_t i = 0; i + 1 < std::size(names); i += 2) {
    const std::vector<uint8_t> a = model_picture(names[i]), b = model_picture(names[i + 1]);
    CHECK(a.size() == kPicture && b.size() == kPicture);
    if (a.size() != kPicture || b.size() != kPicture) return;
    const std::vector<std::vector<Found>> got = execute(layout, a, b);
    CHECK_EQ(got.size(), size_t{kBatch});
    if (got.size() != kBatch) return;
    check_matches(names[i], got[0]);
    check_matches(names[i + 1], got[1]);
  }
}

}  // namespace

TEST(detector, yolov3_detection_output_finds_the_drawn_boxes) {
  check_layout("yolov3_detection_output");
}

TEST(detector, yolo_raw_finds_the_drawn_boxes) {
  check_layout("yolo_raw");
}

TEST(detector, zero_objects_count_zero_and_a_repeated_picture_is_analysed_once) {
  CHECK_OK(open_device(0.05));
  const std::vector<uint8_t> empty = model_picture("shapes_720p_0obj");
  CHECK_EQ(empty.size(), kPicture);
  if (empty.size() != kPicture) return;
  const uint64_t before = sim::detector_analyses();
  std::vector<std::vector<Found>> got = execute("yolov3_detection_output", empty, empty);
  CHECK_EQ(got.size(), size_t{kBatch});
  for (const auto& item : got) CHECK_EQ(item.size(), size_t{0});
  CHECK_EQ(sim::detector_analyses() - before, uint64_t{1});  // two items, one distinct picture
  got = execute("yolov3_detection_output", empty, empty);
  CHECK_EQ(sim::detector_analyses() - before, uint64_t{1});  // and again: from the cache
}

TEST(detector, descriptor_keys_are_checked) {
  CHECK_OK(open_device(0.05));
  const std::string good = detector_model("yolov3_detection_output");
  std::ifstream in(good);
  const std::string body((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  unlink(good.c_str());
  const std::pair<std::string, std::string> bad[] = {
      {"detector=yolov3_detection_output", "detector=ssd"},
      {"detector.max_boxes=32", "detector.max_boxes=16"},  // box_out no longer its size
      {"detector.width=416", "detector.width=415"},        // odd
      {"outputs=2", "outputs=1"},
      {"detector.classes=6\n", ""},  // missing
  };
  for (const auto& [from, to] : bad) {
    std::string text = body;
    text.replace(text.find(from), from.size(), to);
    const std::string path = scratch_file("detector_bad.model");
    std::ofstream(path) << text;
    uint32_t id = 0;
    CHECK_RULE(aclmdlLoadFromFile(path.c_str(), &id), ACL_ERROR_PARSE_MODEL, "model.descriptor");
    unlink(path.c_str());
  }
}
