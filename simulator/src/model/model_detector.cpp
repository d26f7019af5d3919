// The simulated detector (model_detector.h): connected components of strongly coloured chroma.
#include "model/model_detector.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include "acl_sim/imaging/content_hash.h"

namespace sim {
namespace {

// pipelines/data/make_shapes.py PALETTE, in the same order (class id = position).
constexpr uint8_t kPalette[][3] = {
    {255, 0, 0}, {0, 200, 0}, {0, 0, 255}, {255, 220, 0}, {255, 0, 255}, {0, 200, 255},
};
constexpr int kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);

// JFIF (full-range BT.601) chroma of an RGB colour: what a JPEG and its NV12 decode hold.
void chroma_of(const uint8_t rgb[3], float* u, float* v) {
  *u = 128.0f - 0.168736f * rgb[0] - 0.331264f * rgb[1] + 0.5f * rgb[2];
  *v = 128.0f + 0.5f * rgb[0] - 0.418688f * rgb[1] - 0.081312f * rgb[2];
}

int median_of(const uint32_t (&histogram)[256], uint64_t total) {
  uint64_t seen = 0;
  for (int i = 0; i < 256; ++i) {
    seen += histogram[i];
    if (2 * seen >= total) return i;
  }
  return 255;
}

struct Component {
  int x1, y1, x2, y2;  // chroma samples, inclusive
  uint64_t count = 0;
  double sum_u = 0, sum_v = 0;
};

class ChromaPlane {
 public:
  ChromaPlane(const uint8_t* nv12, const ModelFile::Detector& d)
      : uv_(nv12 + size_t{d.width_stride} * d.height_stride),
        stride_(d.width_stride),
        w_(static_cast<int>(d.width / 2)),
        h_(static_cast<int>(d.height / 2)) {}
  int w() const { return w_; }
  int h() const { return h_; }
  int u(int x, int y) const { return uv_[size_t(y) * stride_ + 2 * size_t(x)]; }
  int v(int x, int y) const { return uv_[size_t(y) * stride_ + 2 * size_t(x) + 1]; }

 private:
  const uint8_t* uv_;
  size_t stride_;
  int w_, h_;
};

// Labels 4-connected foreground samples; returns the components (label k + 1 in `labels`).
std::vector<Component> components(const std::vector<uint8_t>& fg, const ChromaPlane& p,
                                  std::vector<int>* labels) {
  const int w = p.w(), h = p.h();
  labels->assign(fg.size(), 0);
  std::vector<Component> out;
  std::vector<int> todo;
  for (int start = 0; start < w * h; ++start) {
    if (!fg[size_t(start)] || (*labels)[size_t(start)] != 0) continue;
    Component c{start % w, start / w, start % w, start / w};
    const int label = static_cast<int>(out.size()) + 1;
    (*labels)[size_t(start)] = label;
    todo.assign(1, start);
    while (!todo.empty()) {
      const int at = todo.back();
      todo.pop_back();
      const int x = at % w, y = at / w;
      c.x1 = std::min(c.x1, x), c.x2 = std::max(c.x2, x);
      c.y1 = std::min(c.y1, y), c.y2 = std::max(c.y2, y);
      ++c.count, c.sum_u += p.u(x, y), c.sum_v += p.v(x, y);
      const int next[4][2] = {{x - 1, y}, {x + 1, y}, {x, y - 1}, {x, y + 1}};
      for (const auto& n : next) {
        if (n[0] < 0 || n[1] < 0 || n[0] >= w || n[1] >= h) continue;
        const int k = n[1] * w + n[0];
        if (fg[size_t(k)] && (*labels)[size_t(k)] == 0) {
          (*labels)[size_t(k)] = label;
          todo.push_back(k);
        }
      }
    }
    out.push_back(c);
  }
  return out;
}

// Mean (U, V) of the background samples in a ring of kRingSamples around the component's box;
// false when the ring holds none.
bool ring_mean(const Component& c, const ChromaPlane& p, const std::vector<uint8_t>& fg, float* u,
               float* v) {
  const int x1 = std::max(0, c.x1 - kRingSamples), x2 = std::min(p.w() - 1, c.x2 + kRingSamples);
  const int y1 = std::max(0, c.y1 - kRingSamples), y2 = std::min(p.h() - 1, c.y2 + kRingSamples);
  double su = 0, sv = 0;
  uint64_t n = 0;
  for (int y = y1; y <= y2; ++y) {
    for (int x = x1; x <= x2; ++x) {
      const bool inside = x >= c.x1 && x <= c.x2 && y >= c.y1 && y <= c.y2;
      if (inside || fg[size_t(y) * size_t(p.w()) + size_t(x)]) continue;
      su += p.u(x, y), sv += p.v(x, y), ++n;
    }
  }
  if (n == 0) return false;
  *u = static_cast<float>(su / n), *v = static_cast<float>(sv / n);
  return true;
}

int nearest_class(float u, float v, uint32_t classes) {
  int best = 0;
  float best_d = 0;
  for (int k = 0; k < kPaletteSize && k < static_cast<int>(classes); ++k) {
    float pu = 0, pv = 0;
    chroma_of(kPalette[k], &pu, &pv);
    const float d = (u - pu) * (u - pu) + (v - pv) * (v - pv);
    if (k == 0 || d < best_d) best = k, best_d = d;
  }
  return best;
}

struct Cache {
  std::mutex mu;
  std::map<uint64_t, std::vector<Detection>> by_key;
};

Cache& cache() {
  static Cache c;
  return c;
}

std::atomic<uint64_t> g_analyses{0};

std::vector<Detection> cached_detect(const uint8_t* nv12, const ModelFile::Detector& d) {
  using acl_sim::imaging::hash_combine;
  uint64_t key = acl_sim::imaging::hash64(nv12, d.picture_bytes());
  for (uint64_t v : {uint64_t{d.width}, uint64_t{d.height}, uint64_t{d.width_stride},
                     uint64_t{d.classes}, uint64_t{d.max_boxes}})
    key = hash_combine(key, v);
  {
    std::lock_guard<std::mutex> lock(cache().mu);
    auto hit = cache().by_key.find(key);
    if (hit != cache().by_key.end()) return hit->second;
  }
  std::vector<Detection> found = detect_shapes(nv12, d);
  g_analyses.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(cache().mu);
  if (cache().by_key.size() >= 4096) cache().by_key.clear();  // bounded: distinct inputs are few
  cache().by_key.emplace(key, found);
  return found;
}

void write_yolov3(const std::vector<Detection>& found, uint32_t capacity, float* box_out,
                  int32_t* box_out_num) {
  const size_t n = found.size();
  std::memset(box_out, 0, sizeof(float) * 6 * capacity);
  std::memset(box_out_num, 0, sizeof(int32_t) * 8);
  for (size_t i = 0; i < n; ++i) {
    const Detection& b = found[i];
    const float attributes[6] = {b.x1, b.y1, b.x2, b.y2, b.score, static_cast<float>(b.cls)};
    for (size_t a = 0; a < 6; ++a) box_out[n * a + i] = attributes[a];
  }
  box_out_num[0] = static_cast<int32_t>(n);
}

void write_raw(const std::vector<Detection>& found, uint32_t rows, uint32_t classes, float* out) {
  const size_t row = 5 + classes;
  std::memset(out, 0, sizeof(float) * row * rows);
  for (size_t i = 0; i < found.size(); ++i) {
    const Detection& b = found[i];
    float* r = out + i * row;
    r[0] = (b.x1 + b.x2) / 2, r[1] = (b.y1 + b.y2) / 2;
    r[2] = b.x2 - b.x1, r[3] = b.y2 - b.y1;
    r[4] = b.score;
    r[5 + b.cls] = 1.0f;
  }
}

}  // namespace

std::vector<Detection> detect_shapes(const uint8_t* nv12, const ModelFile::Detector& d) {
  const ChromaPlane p(nv12, d);
  const int w = p.w(), h = p.h();
  uint32_t hu[256] = {}, hv[256] = {};
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) ++hu[p.u(x, y)], ++hv[p.v(x, y)];
  const uint64_t total = uint64_t(w) * uint64_t(h);
  const int bu = median_of(hu, total), bv = median_of(hv, total);
  std::vector<uint8_t> fg(size_t(w) * size_t(h));
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const int du = p.u(x, y) - bu, dv = p.v(x, y) - bv;
      fg[size_t(y) * size_t(w) + size_t(x)] =
          du * du + dv * dv > kChromaThreshold * kChromaThreshold;
    }
  }
  std::vector<int> labels;
  std::vector<Detection> found;
  for (const Component& c : components(fg, p, &labels)) {
    if (c.count < kMinSamples) continue;
    const float mu = static_cast<float>(c.sum_u / c.count);
    const float mv = static_cast<float>(c.sum_v / c.count);
    float ru = static_cast<float>(bu), rv = static_cast<float>(bv);
    ring_mean(c, p, fg, &ru, &rv);
    const float contrast = std::sqrt((mu - ru) * (mu - ru) + (mv - rv) * (mv - rv));
    Detection b{static_cast<float>(2 * c.x1),
                static_cast<float>(2 * c.y1),
                static_cast<float>(std::min(2 * c.x2 + 2, static_cast<int>(d.width))),
                static_cast<float>(std::min(2 * c.y2 + 2, static_cast<int>(d.height))),
                contrast / (contrast + kScoreHalf),
                nearest_class(mu, mv, d.classes)};
    found.push_back(b);
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const Detection& a, const Detection& b) { return a.score > b.score; });
  if (found.size() > d.max_boxes) found.resize(d.max_boxes);
  return found;
}

size_t detector_outputs(const ModelFile& file, const void* input, void* const* outputs,
                        uint32_t batch) {
  const ModelFile::Detector& d = file.detector;
  const auto* in = static_cast<const uint8_t*>(input);
  for (uint32_t k = 0; k < batch; ++k) {
    const std::vector<Detection> found = cached_detect(in + k * d.picture_bytes(), d);
    if (d.layout == ModelFile::Detector::Layout::kYoloV3DetectionOutput) {
      write_yolov3(found, d.max_boxes,
                   static_cast<float*>(outputs[0]) + size_t{k} * 6 * d.max_boxes,
                   static_cast<int32_t*>(outputs[1]) + size_t{k} * 8);
    } else {
      const size_t row = 5 + d.classes;
      write_raw(found, d.max_boxes, d.classes,
                static_cast<float*>(outputs[0]) + size_t{k} * d.max_boxes * row);
    }
  }
  return d.layout == ModelFile::Detector::Layout::kYoloV3DetectionOutput ? 2 : 1;
}

uint64_t detector_analyses() {
  return g_analyses.load(std::memory_order_relaxed);
}

}  // namespace sim
