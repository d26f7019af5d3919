// Paddle Serving's padding rule: its two conditions and their boundaries, the documented
// examples, and the batch's padded shape.
#include <cstdint>

#include "ascgen_batcher.h"
#include "check.h"

using namespace ascgen::serving;

TEST(padding, absolute_condition_boundary) {
  // 1 element against 1025: 1024 padded elements more, and 2 * 1 < 1025: only condition 1
  CHECK(padding_acceptable(1025, 1));
  CHECK(!padding_acceptable(1026, 1));  // 1025 more: neither condition
  CHECK(padding_acceptable(1024, 0));
  CHECK(padding_acceptable(2000, 976));   // 1024 more (and 2 * 976 < 2000)
  CHECK(!padding_acceptable(2000, 975));  // 1025 more, and 2 * 975 < 2000
}

TEST(padding, relative_condition_boundary) {
  // exactly half kept: accepted (at least half); one element more padded: not
  CHECK(padding_acceptable(10000, 5000));
  CHECK(!padding_acceptable(10001, 5000));
  CHECK(padding_acceptable(1000000, 500000));
  CHECK(!padding_acceptable(1000002, 500000));
  CHECK(padding_acceptable(7, 7));  // no padding at all
}

TEST(padding, documented_scenarios) {
  // Paddle Serving, doc/C++_Serving/Asynchronous_Framwork_CN.md, "动态批量":
  // 1: [500, 500] with [400, 400]: 90000 elements apart, 0.64 kept: merged (condition 2;
  //    the page labels it condition 1)
  PaddedShape a;
  a.add(make_shape({500, 500}));
  CHECK(a.accepts(make_shape({400, 400})));
  // 2: [1, 1] with [2, 2]: 3 elements apart, 0.25 kept: merged (condition 1; the page
  //    labels it condition 2)
  PaddedShape b;
  b.add(make_shape({1, 1}));
  CHECK(b.accepts(make_shape({2, 2})));
  // 3: [3, 320, 320] with [3, 960, 960]: 2457600 apart, 0.11 kept: not merged
  PaddedShape c;
  c.add(make_shape({3, 320, 320}));
  CHECK(!c.accepts(make_shape({3, 960, 960})));
}

TEST(padding, paddle_code_divides_the_wrong_way) {
  // bsf.h computes padded / original >= 0.5 in size_t: at least 1 for any pair, so it would
  // merge scenario 3. The intent is original / padded >= 0.5.
  const size_t padded = 3 * 960 * 960, original = 3 * 320 * 320;
  CHECK(padded / original >= 0.5);                          // Paddle's condition, always true
  CHECK(!(static_cast<double>(original) / padded >= 0.5));  // the intent
  CHECK(!padding_acceptable(static_cast<int64_t>(padded), static_cast<int64_t>(original)));
}

TEST(padding, padded_shape_is_the_elementwise_maximum) {
  PaddedShape p;
  p.add(make_shape({30, 40}));
  CHECK(p.accepts(make_shape({40, 30})));  // padded [40, 40] = 1600, 1600 - 1200 <= 1024
  p.add(make_shape({40, 30}));
  CHECK(p.padded() == make_shape({40, 40}));
  CHECK_EQ(p.real_elements(), int64_t{2400});
  CHECK_EQ(p.padded_elements(), int64_t{3200});
}

TEST(padding, every_request_counts_not_just_the_last) {
  // the smallest request decides: 100 then 1000 (within 1024) then 1200: 1200 is within
  // 1024 of 1000 and keeps more than half of it, but the first request would keep 1/12
  PaddedShape p;
  p.add(make_shape({100}));
  CHECK(p.accepts(make_shape({1000})));
  p.add(make_shape({1000}));
  CHECK(p.accepts(make_shape({1124})));   // 1124 - 100 = 1024
  CHECK(!p.accepts(make_shape({1200})));  // 1100 more than the smallest, which keeps 1/12
}

TEST(padding, rank_must_match) {
  PaddedShape p;
  p.add(make_shape({3, 32, 100}));
  CHECK(!p.accepts(make_shape({3200})));
  CHECK(p.accepts(make_shape({3, 32, 100})));
  PaddedShape fixed;  // rank 0: the model's one shape
  fixed.add(Shape{});
  CHECK(fixed.accepts(Shape{}));
  CHECK_EQ(fixed.padded_elements(), int64_t{1});
}

TEST(padding, too_many_dimensions) {
  CHECK_THROWS(make_shape({1, 2, 3, 4, 5}));
}
