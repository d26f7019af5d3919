// The vpc_crop kind's box-to-region arithmetic (templates/stages/vpc_crop.h): the mapping back to
// the picture, the device's ROI rules (left/top even, right/bottom odd, inside the picture), the
// size range, the expand ratio, boxes at the edges and boxes that are not numbers.
// Usage: vpc_crop_tests [GROUP...]; built and run by tests/stages/test_vpc_crop_cpp.py.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "check.h"
#include "vpc_crop.h"

namespace crop = ascgen::crop;
using crop::Roi;

namespace {

const crop::Mapping kSame = {1.0f, 1.0f, 0.0f, 0.0f};

crop::Rules rules(uint32_t min_w, uint32_t min_h, uint32_t max_w, uint32_t max_h, float expand) {
  crop::Rules r;
  r.min_w = min_w;
  r.min_h = min_h;
  r.max_w = max_w;
  r.max_h = max_h;
  r.expand = expand;
  return r;
}

// The device's rules for a region of a w x h picture.
bool valid(const Roi& r, uint32_t w, uint32_t h) {
  return r.left % 2 == 0 && r.top % 2 == 0 && r.right % 2 == 1 && r.bottom % 2 == 1 &&
         r.left < r.right && r.top < r.bottom && r.right < (w & ~1u) && r.bottom < (h & ~1u);
}

}  // namespace

TEST(map, stretch_and_letterbox_invert_the_detector_input) {
  // a 1920x1080 picture stretched to 416x416: model x 208 is picture x 960
  crop::Mapping s = crop::stretch(1920, 1080, 416, 416);
  Roi r = crop::snap_roi(104, 104, 312, 312, s, 1920, 1080, rules(10, 6, 4096, 4096, 1.0f));
  CHECK_EQ(r.left, 480u);
  CHECK_EQ(r.width(), 960u);
  CHECK_EQ(r.top, 270u);
  CHECK_EQ(r.height(), 540u);
  // letterboxed: the picture was pasted at (0, 92)-(415, 325) of a 416x416 input (scale 416/1920)
  crop::Mapping l = crop::letterboxed(1920, 1080, Roi{0, 415, 92, 325});
  Roi b = crop::snap_roi(0, 92, 416, 326, l, 1920, 1080, rules(10, 6, 4096, 4096, 1.0f));
  CHECK_EQ(b.left, 0u);
  CHECK_EQ(b.right, 1919u);
  CHECK_EQ(b.top, 0u);
  CHECK_EQ(b.bottom, 1079u);
}

TEST(snap, even_left_top_odd_right_bottom) {
  Roi r = crop::snap_roi(101.3f, 51.7f, 160.2f, 90.9f, kSame, 640, 480, rules(10, 6, 4096, 4096, 1.0f));
  CHECK(valid(r, 640, 480));
  CHECK_EQ(r.width(), 60u);   // 58.9 -> 59 -> 60
  CHECK_EQ(r.height(), 40u);  // 39.2 -> 40
  CHECK_EQ(r.left, 100u);     // centre 130.75 - 30 = 100.75 -> 100
  CHECK_EQ(r.top, 50u);       // centre 71.3 - 20 = 51.3 -> 51 -> 50
}

TEST(snap, small_boxes_grow_to_the_smallest_region) {
  Roi r = crop::snap_roi(300, 200, 302, 201, kSame, 640, 480, rules(14, 14, 4096, 4096, 1.0f));
  CHECK(valid(r, 640, 480));
  CHECK_EQ(r.width(), 14u);
  CHECK_EQ(r.height(), 14u);
  Roi dot = crop::snap_roi(5, 5, 5, 5, kSame, 640, 480, rules(10, 6, 4096, 4096, 1.0f));
  CHECK(valid(dot, 640, 480));
  CHECK_EQ(dot.width(), 10u);
  CHECK_EQ(dot.height(), 6u);
  CHECK_EQ(dot.left, 0u);  // centre 5 - 5 = 0
  CHECK_EQ(dot.top, 2u);
}

TEST(snap, large_boxes_shrink_to_the_largest_region_and_the_picture) {
  Roi r = crop::snap_roi(0, 0, 3000, 3000, kSame, 4000, 4000, rules(10, 6, 1024, 512, 1.0f));
  CHECK(valid(r, 4000, 4000));
  CHECK_EQ(r.width(), 1024u);
  CHECK_EQ(r.height(), 512u);
  CHECK_EQ(r.left, 988u);  // centred on 1500
  Roi all = crop::snap_roi(-50, -50, 9999, 9999, kSame, 641, 479, rules(10, 6, 4096, 4096, 1.0f));
  CHECK(valid(all, 641, 479));
  CHECK_EQ(all.left, 0u);
  CHECK_EQ(all.right, 639u);  // an odd width reads as the even one below it
  CHECK_EQ(all.bottom, 477u);
}

TEST(snap, boxes_at_an_edge_keep_their_size_and_move_in) {
  Roi r = crop::snap_roi(620, 470, 660, 490, kSame, 640, 480, rules(10, 6, 4096, 4096, 1.0f));
  CHECK(valid(r, 640, 480));
  CHECK_EQ(r.width(), 40u);
  CHECK_EQ(r.height(), 20u);
  CHECK_EQ(r.right, 639u);
  CHECK_EQ(r.bottom, 479u);
  Roi l = crop::snap_roi(-30, -8, 10, 8, kSame, 640, 480, rules(10, 6, 4096, 4096, 1.0f));
  CHECK_EQ(l.left, 0u);
  CHECK_EQ(l.top, 0u);
  CHECK_EQ(l.width(), 40u);
}

TEST(snap, expand_grows_about_the_centre) {
  Roi plain = crop::snap_roi(200, 100, 300, 200, kSame, 640, 480, rules(10, 6, 4096, 4096, 1.0f));
  Roi grown = crop::snap_roi(200, 100, 300, 200, kSame, 640, 480, rules(10, 6, 4096, 4096, 1.2f));
  CHECK_EQ(plain.width(), 100u);
  CHECK_EQ(grown.width(), 120u);
  CHECK_EQ(grown.height(), 120u);
  CHECK_EQ(grown.left, 190u);
  CHECK_EQ(grown.top, 90u);
}

TEST(snap, corners_swapped_and_not_numbers) {
  Roi swapped = crop::snap_roi(300, 200, 200, 100, kSame, 640, 480, rules(10, 6, 4096, 4096, 1.0f));
  CHECK_EQ(swapped.left, 200u);
  CHECK_EQ(swapped.width(), 100u);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  Roi r = crop::snap_roi(nan, inf, nan, -inf, kSame, 640, 480, rules(10, 6, 4096, 4096, 1.0f));
  CHECK(valid(r, 640, 480));
  CHECK_EQ(r.left, 0u);
  CHECK_EQ(r.top, 0u);
  CHECK_EQ(r.width(), 10u);
}

TEST(snap, every_random_box_is_a_valid_region) {
  std::mt19937 rng(29);
  std::uniform_real_distribution<float> coord(-100.0f, 2100.0f);
  std::uniform_int_distribution<uint32_t> side(32, 2000);
  int bad = 0;
  for (int n = 0; n < 20000; ++n) {
    const uint32_t w = side(rng), h = side(rng);
    const crop::Rules r = rules(14, 14, 2048, 2048, 1.0f + static_cast<float>(n % 5) / 10.0f);
    Roi roi = crop::snap_roi(coord(rng), coord(rng), coord(rng), coord(rng), kSame, w, h, r);
    const bool sized = roi.width() >= 14 && roi.height() >= 14 && roi.width() <= 2048 && roi.height() <= 2048;
    if (!valid(roi, w, h) || !sized) ++bad;
  }
  CHECK_EQ(bad, 0);
}

// An NV12 picture of w x h (strides w, h) whose samples are f(x, y, plane).
std::vector<uint8_t> picture(uint32_t w, uint32_t h, uint8_t (*f)(uint32_t, uint32_t, int)) {
  std::vector<uint8_t> p(static_cast<size_t>(w) * h * 3 / 2);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) p[static_cast<size_t>(y) * w + x] = f(x, y, 0);
  for (uint32_t y = 0; y < h / 2; ++y)
    for (uint32_t x = 0; x < w; ++x) p[static_cast<size_t>(w) * h + y * w + x] = f(x, y, 1);
  return p;
}

TEST(reference, a_crop_of_a_flat_picture_is_exact_and_a_wrong_one_is_not) {
  auto flat = [](uint32_t, uint32_t, int plane) -> uint8_t { return plane == 0 ? 90 : 128; };
  const std::vector<uint8_t> src = picture(64, 48, flat), out = picture(16, 16, flat);
  const Roi roi{10, 41, 4, 35};
  CHECK(crop::crop_error({src.data(), 64, 48}, roi, {out.data(), 16, 16}, 16, 16) == 0.0);
  auto other = [](uint32_t, uint32_t, int plane) -> uint8_t { return plane == 0 ? 100 : 128; };
  const std::vector<uint8_t> wrong = picture(16, 16, other);
  const double e = crop::crop_error({src.data(), 64, 48}, roi, {wrong.data(), 16, 16}, 16, 16);
  CHECK(e > crop::kCropTolerance);  // 10 levels on luma: 6.7 over all samples
}

TEST(reference, a_gradient_resized_by_two_matches_its_half_pixel_samples) {
  auto ramp = [](uint32_t x, uint32_t, int plane) -> uint8_t {
    return static_cast<uint8_t>(plane == 0 ? 4 * x : 128);
  };
  const std::vector<uint8_t> src = picture(64, 8, ramp);
  // the region x 0..31 halved: output x reads source 2x + 0.5, luma 8x + 2
  std::vector<uint8_t> out = picture(16, 4, [](uint32_t x, uint32_t, int plane) -> uint8_t {
    return static_cast<uint8_t>(plane == 0 ? 8 * x + 2 : 128);
  });
  CHECK(crop::crop_error({src.data(), 64, 8}, {0, 31, 0, 7}, {out.data(), 16, 4}, 16, 4) < 0.01);
  out[5] = static_cast<uint8_t>(out[5] + 60);  // one luma sample off by 60
  CHECK(crop::crop_error({src.data(), 64, 8}, {0, 31, 0, 7}, {out.data(), 16, 4}, 16, 4) > 0.5);
}

int main(int argc, char** argv) {
  return check::run(argc, argv);
}
