// Reader of the simulated model descriptor (model_file.h).
#include "model/model_file.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "report/log.h"
#include "rules/rules.h"

namespace sim {
namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  size_t e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

bool to_u64(const std::string& text, uint64_t* out) {
  if (text.empty() || text[0] == '-') return false;
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (errno != 0 || end == nullptr || *end != '\0') return false;
  *out = v;
  return true;
}

bool to_double(const std::string& text, double* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  *out = std::strtod(text.c_str(), &end);
  return end != nullptr && *end == '\0';
}

class Reader {
 public:
  Reader(const char* api, const std::string& path) : api_(api), path_(path) {}
  std::map<std::string, std::string> values;

  aclError bad(const std::string& key, const char* why) const {
    return raise_rule(Rule::kModelDescriptor, ACL_ERROR_PARSE_MODEL, api_, "%s: key '%s' %s",
                      path_.c_str(), key.c_str(), why);
  }
  // A required unsigned integer > 0 (>= 0 when zero_ok).
  aclError u64(const std::string& key, uint64_t* out, bool zero_ok = false) const {
    auto it = values.find(key);
    if (it == values.end()) return bad(key, "is missing");
    if (!to_u64(it->second, out) || (*out == 0 && !zero_ok))
      return bad(key, "must be a positive integer");
    return ACL_SUCCESS;
  }

 private:
  const char* api_;
  std::string path_;
};

// `hw_gears=32x80,32x160,...`: distinct positive height x width pairs (at most ACL_MAX_HW_NUM,
// 128), not with batch gears; input 0's bytes per item are a whole number of elements of the
// largest gear (hw_element_bytes each).
aclError read_hw_gears(Reader& r, ModelFile* m) {
  if (m->dynamic()) return r.bad("hw_gears", "cannot join batch gears: one kind of gears a model");
  std::stringstream list(r.values["hw_gears"]);
  std::string item;
  while (std::getline(list, item, ',')) {
    item = trim(item);
    size_t x = item.find('x');
    ModelFile::HwGear g;
    if (x == std::string::npos || !to_u64(item.substr(0, x), &g.h) ||
        !to_u64(item.substr(x + 1), &g.w) || g.h == 0 || g.w == 0 || g.h > 65536 || g.w > 65536)
      return r.bad("hw_gears", "must be height x width pairs such as 32x80, separated by commas");
    for (const ModelFile::HwGear& o : m->hw_gears)
      if (o.h == g.h && o.w == g.w) return r.bad("hw_gears", "lists a gear twice");
    m->hw_gears.push_back(g);
  }
  if (m->hw_gears.empty() || m->hw_gears.size() > 128)
    return r.bad("hw_gears", "needs 1 to 128 gears (ACL_MAX_HW_NUM)");
  const size_t per_item = m->input_bytes.empty() ? 0 : m->input_bytes[0] / m->batch;
  const uint64_t most = m->hw_max_elements();
  if (per_item == 0 || m->input_bytes[0] % m->batch != 0 || per_item % most != 0)
    return r.bad("hw_gears", "needs input.0.bytes to be batch x largest gear's elements x bytes");
  m->hw_element_bytes = per_item / most;
  return ACL_SUCCESS;
}

// `detector=` and its keys (model_file.h, model_detector.h): the input holds `batch` NV12
// pictures; the outputs have the layout's sizes exactly.
aclError read_detector(Reader& r, ModelFile* m) {
  using Layout = ModelFile::Detector::Layout;
  ModelFile::Detector& d = m->detector;
  const std::string& name = r.values["detector"];
  if (name == "yolov3_detection_output")
    d.layout = Layout::kYoloV3DetectionOutput;
  else if (name == "yolo_raw")
    d.layout = Layout::kYoloRaw;
  else
    return r.bad("detector", "must be yolov3_detection_output or yolo_raw");
  if (m->dynamic_hw()) return r.bad("detector", "cannot have hw_gears: its input is one picture");
  struct Key {
    const char* name;
    uint32_t* out;
    uint64_t most;
  };
  for (const Key& k :
       {Key{"detector.classes", &d.classes, 1024}, Key{"detector.width", &d.width, 8192},
        Key{"detector.height", &d.height, 8192}, Key{"detector.max_boxes", &d.max_boxes, 1024}}) {
    uint64_t v = 0;
    if (aclError rc = r.u64(k.name, &v)) return rc;
    if (v > k.most) return r.bad(k.name, ("must be at most " + std::to_string(k.most)).c_str());
    *k.out = static_cast<uint32_t>(v);
  }
  if (d.width % 2 != 0 || d.height % 2 != 0)
    return r.bad("detector.width", "and detector.height must be even (an NV12 picture)");
  d.width_stride = (d.width + 15) / 16 * 16;
  d.height_stride = (d.height + 1) / 2 * 2;
  for (const Key& k : {Key{"detector.width_stride", &d.width_stride, 0},
                       Key{"detector.height_stride", &d.height_stride, 0}}) {
    if (!r.values.count(k.name)) continue;
    uint64_t v = 0;
    if (aclError rc = r.u64(k.name, &v)) return rc;
    *k.out = static_cast<uint32_t>(v > 65536 ? 0 : v);
  }
  if (d.width_stride < d.width || d.height_stride < d.height || d.height_stride % 2 != 0)
    return r.bad("detector.width_stride",
                 "and detector.height_stride must hold the picture "
                 "(the height stride even)");
  if (m->input_bytes.empty() || m->input_bytes[0] != size_t{m->batch} * d.picture_bytes())
    return r.bad("input.0.bytes",
                 "must be batch x width_stride x height_stride x 3 / 2 for a "
                 "detector (NV12 pictures)");
  const size_t per_box = d.layout == Layout::kYoloRaw ? 5 + d.classes : 6;
  const size_t boxes = size_t{m->batch} * d.max_boxes * per_box * 4;
  if (d.layout == Layout::kYoloV3DetectionOutput &&
      (m->output_bytes.size() != 2 || m->output_bytes[1] != size_t{m->batch} * 8 * 4))
    return r.bad("outputs",
                 "must be 2 for yolov3_detection_output: box_out, then box_out_num "
                 "(output.1.bytes = batch x 8 int32)");
  if (m->output_bytes.empty() || m->output_bytes[0] != boxes)
    return r.bad("output.0.bytes", d.layout == Layout::kYoloRaw
                                       ? "must be batch x max_boxes x (5 + classes) x 4"
                                       : "must be batch x 6 x max_boxes x 4 (box_out)");
  return ACL_SUCCESS;
}

}  // namespace

double ModelFile::latency_at(uint32_t b) const {
  auto hit = latency_ms.find(b);
  if (hit != latency_ms.end()) return hit->second;
  auto first = latency_ms.begin();
  auto last = std::prev(latency_ms.end());
  if (b < first->first) return first->second * b / first->first;
  if (b > last->first) return last->second * b / last->first;
  auto hi = latency_ms.upper_bound(b);
  auto lo = std::prev(hi);
  return lo->second +
         (hi->second - lo->second) * (b - lo->first) / static_cast<double>(hi->first - lo->first);
}

aclError read_model_file(const char* api, const char* path, ModelFile* out) {
  if (path == nullptr || *path == '\0')
    return raise_rule(Rule::kModelPath, ACL_ERROR_INVALID_PARAM, api,
                      "model path is NULL or empty");
  std::ifstream in(path);
  if (!in)
    return raise_rule(Rule::kModelFile, ACL_ERROR_INVALID_FILE, api, "cannot read model file '%s'",
                      path);
  Reader r(api, path);
  std::string line;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    size_t eq = line.find('=');
    if (eq == std::string::npos)
      return raise_rule(Rule::kModelDescriptor, ACL_ERROR_PARSE_MODEL, api,
                        "%s:%d: expected key=value (not an ascgen simulated model?)", path, lineno);
    r.values[trim(line.substr(0, eq))] = trim(line.substr(eq + 1));
  }
  ModelFile m;
  m.path = path;
  auto fmt = r.values.find("format");
  if (fmt == r.values.end() || fmt->second != "acl_sim_model")
    return r.bad("format", "must be acl_sim_model");
  uint64_t v = 0;
  if (aclError rc = r.u64("version", &v)) return rc;
  if (v != 1) return r.bad("version", "must be 1");
  m.name = r.values.count("name") ? r.values["name"] : "model";
  if (aclError rc = r.u64("batch", &v)) return rc;
  if (v > 128) return r.bad("batch", "exceeds ACL_MAX_BATCH_NUM (128)");
  m.batch = static_cast<uint32_t>(v);
  for (const char* side : {"input", "output"}) {
    uint64_t count = 0;
    std::string plural = std::string(side) + "s";
    if (aclError rc = r.u64(plural, &count)) return rc;
    if (count > 64) return r.bad(plural, "must be at most 64");
    auto& sizes = side[0] == 'i' ? m.input_bytes : m.output_bytes;
    for (uint64_t i = 0; i < count; ++i) {
      if (aclError rc = r.u64(std::string(side) + "." + std::to_string(i) + ".bytes", &v))
        return rc;
      sizes.push_back(static_cast<size_t>(v));
    }
  }
  if (aclError rc = r.u64("memory_bytes", &v)) return rc;
  m.memory_bytes = static_cast<size_t>(v);
  m.weight_bytes = m.memory_bytes / 2 / 32 * 32;
  if (r.values.count("weight_bytes")) {
    if (aclError rc = r.u64("weight_bytes", &v, true)) return rc;
    if (v > m.memory_bytes) return r.bad("weight_bytes", "exceeds memory_bytes");
    m.weight_bytes = static_cast<size_t>(v);
  }
  m.traffic_bytes = m.weight_bytes;
  if (r.values.count("traffic_bytes")) {
    if (aclError rc = r.u64("traffic_bytes", &v, true)) return rc;
    m.traffic_bytes = static_cast<size_t>(v);
  }
  if (r.values.count("traffic_bytes_per_item")) {
    if (aclError rc = r.u64("traffic_bytes_per_item", &v, true)) return rc;
    m.traffic_bytes_per_item = static_cast<size_t>(v);
  }
  const std::string prefix = "latency_ms.";
  for (const auto& kv : r.values) {
    if (kv.first.compare(0, prefix.size(), prefix) != 0) continue;
    uint64_t b = 0;
    double ms = 0;
    if (!to_u64(kv.first.substr(prefix.size()), &b) || b == 0 || b > 4096)
      return r.bad(kv.first, "needs a batch size: latency_ms.<batch>");
    if (!to_double(kv.second, &ms) || !(ms > 0)) return r.bad(kv.first, "must be a number > 0");
    m.latency_ms[static_cast<uint32_t>(b)] = ms;
  }
  if (m.latency_ms.empty()) return r.bad("latency_ms.<batch>", "is missing (at least one)");
  if (r.values.count("gears")) {
    std::stringstream list(r.values["gears"]);
    std::string item;
    while (std::getline(list, item, ',')) {
      uint64_t g = 0;
      if (!to_u64(trim(item), &g) || g == 0 || g > m.batch ||
          (!m.gears.empty() && g <= m.gears.back()))
        return r.bad("gears", "must be ascending batch sizes in 1..batch, separated by commas");
      m.gears.push_back(static_cast<uint32_t>(g));
    }
    if (m.gears.empty() || m.gears.back() != m.batch || m.gears.size() > 100)
      return r.bad("gears", "must end with the model's batch (at most 100 gears)");
    m.input_bytes.push_back(ModelFile::kMbatchBytes);  // ascend_mbatch_shape_data
  }
  if (r.values.count("hw_gears")) {
    if (aclError rc = read_hw_gears(r, &m)) return rc;
    m.input_bytes.push_back(ModelFile::kMbatchBytes);  // ascend_mbatch_shape_data
  }
  if (r.values.count("detector"))
    if (aclError rc = read_detector(r, &m)) return rc;
  m.output_hw_scaled.assign(m.output_bytes.size(), false);
  for (size_t k = 0; k < m.output_bytes.size(); ++k) {
    const std::string key = "output." + std::to_string(k) + ".hw_scaled";
    if (!r.values.count(key)) continue;
    if (aclError rc = r.u64(key, &v, true)) return rc;
    if (v > 1) return r.bad(key, "must be 0 or 1");
    if (v == 1 && !m.dynamic_hw()) return r.bad(key, "needs hw_gears: only an HW gear scales it");
    const uint64_t most = m.dynamic_hw() ? m.hw_max_elements() : 1;
    for (const ModelFile::HwGear& g : m.hw_gears)
      if (v == 1 && (m.output_bytes[k] / m.batch) * g.elements() % (most * 4) != 0)
        return r.bad(
            key, "needs output bytes per item that split into whole float32 values at every gear");
    m.output_hw_scaled[k] = v == 1;
  }
  *out = std::move(m);
  return ACL_SUCCESS;
}

}  // namespace sim
