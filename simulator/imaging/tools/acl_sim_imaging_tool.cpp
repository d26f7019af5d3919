// acl_sim_imaging_tool: the imaging kernels from the command line, for the
// Python tests and for measurements. Every command prints one JSON object.
//
//   info   FILE [--align WxH]                 parse_jpeg_info + jpegd_accepts + geometry
//   decode FILE OUT [--align WxH | --stride WSxHS]   raw NV12 into OUT
//   resize IN OUT --src WxH [--src-stride WSxHS] [--src-roi L,T,R,B] --dst WxH
//          [--dst-stride WSxHS] [--dst-roi L,T,R,B] [--interp N] [--canvas FILE]
//   hash   FILE [--seed N]
//   bench  FILE [--iters N]                   decode / resize / cache costs (thread CPU time)
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "acl_sim/imaging/content_hash.h"
#include "acl_sim/imaging/image_cache.h"
#include "acl_sim/imaging/jpeg_decode.h"
#include "acl_sim/imaging/jpeg_info.h"
#include "acl_sim/imaging/resize.h"

namespace img = acl_sim::imaging;

namespace {

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "acl_sim_imaging_tool: %s\n", msg.c_str());
  std::exit(2);
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) die("cannot read " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const std::string& path, const uint8_t* data, size_t size) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) die("cannot write " + path);
}

// Positional arguments and --name value options.
struct Args {
  std::vector<std::string> pos;
  std::map<std::string, std::string> opt;
  bool has(const std::string& k) const { return opt.count(k) != 0; }
  std::string get(const std::string& k, const std::string& dflt = "") const {
    auto it = opt.find(k);
    return it == opt.end() ? dflt : it->second;
  }
};

Args parse_args(int argc, char** argv) {
  Args a;
  for (int i = 2; i < argc; ++i) {
    std::string s = argv[i];
    if (s.rfind("--", 0) == 0) {
      if (i + 1 >= argc) die("missing value for " + s);
      a.opt[s.substr(2)] = argv[++i];
    } else {
      a.pos.push_back(s);
    }
  }
  return a;
}

// "WxH" or "L,T,R,B" into numbers.
std::vector<uint32_t> numbers(const std::string& s, size_t count) {
  std::vector<uint32_t> out;
  const char* p = s.c_str();
  while (*p) {
    char* end = nullptr;
    out.push_back(static_cast<uint32_t>(std::strtoul(p, &end, 10)));
    if (end == p) die("bad number list: " + s);
    p = *end ? end + 1 : end;
  }
  if (out.size() != count) die("expected " + std::to_string(count) + " numbers: " + s);
  return out;
}

img::Roi roi_arg(const Args& a, const std::string& name, uint32_t w, uint32_t h) {
  if (!a.has(name)) return img::full_roi(w, h);
  const auto v = numbers(a.get(name), 4);
  return img::Roi{v[0], v[1], v[2], v[3]};
}

img::DecodeAlign align_arg(const Args& a) {
  const auto v = numbers(a.get("align", "128x16"), 2);
  return img::DecodeAlign{v[0], v[1]};
}

int cmd_info(const Args& a) {
  if (a.pos.size() != 1) die("usage: info FILE [--align WxH]");
  const std::vector<uint8_t> data = read_file(a.pos[0]);
  const img::JpegInfo i = img::parse_jpeg_info(data.data(), data.size());
  const img::JpegdVerdict v = img::jpegd_accepts(i, img::JpegdLimits{});
  const img::DecodeGeometry g = img::decode_geometry(i, align_arg(a));
  std::printf(
      "{\"valid\": %s, \"error\": \"%s\", \"width\": %u, \"height\": %u, \"components\": %u, "
      "\"precision\": %u, \"subsampling\": \"%s\", \"format\": %d, \"coding\": \"%s\", "
      "\"sof_marker\": %u, \"num_scans\": %u, \"interleaved\": %s, \"has_eoi\": %s, "
      "\"jpegd_accepted\": %s, \"jpegd_reject\": \"%s\", \"software_fallback\": %s, "
      "\"out_width\": %u, \"out_height\": %u, \"width_stride\": %u, \"height_stride\": %u, "
      "\"dec_size\": %" PRIu64 "}\n",
      i.valid ? "true" : "false", i.error, i.width, i.height, i.components, i.precision,
      img::to_string(i.subsampling), static_cast<int>(i.subsampling), img::to_string(i.coding),
      i.sof_marker, i.num_scans, i.interleaved ? "true" : "false", i.has_eoi ? "true" : "false",
      v.accepted() ? "true" : "false", img::to_string(v.reject),
      v.software_fallback ? "true" : "false", g.width, g.height, g.width_stride, g.height_stride,
      g.bytes);
  return 0;
}

int cmd_decode(const Args& a) {
  if (a.pos.size() != 2) die("usage: decode FILE OUT [--align WxH | --stride WSxHS]");
  const std::vector<uint8_t> data = read_file(a.pos[0]);
  const img::JpegInfo info = img::parse_jpeg_info(data.data(), data.size());
  img::DecodeGeometry g = img::decode_geometry(info, align_arg(a));
  if (a.has("stride")) {
    const auto s = numbers(a.get("stride"), 2);
    g.width_stride = s[0];
    g.height_stride = s[1];
  }
  std::vector<uint8_t> out(img::nv12_bytes(g.width_stride, g.height_stride));
  const img::DecodeStatus st = img::decode_jpeg_nv12(data.data(), data.size(), out.data(),
                                                     out.size(), g.width_stride, g.height_stride);
  if (st == img::DecodeStatus::kOk) write_file(a.pos[1], out.data(), out.size());
  std::printf(
      "{\"status\": \"%s\", \"ok\": %s, \"width\": %u, \"height\": %u, \"width_stride\": %u, "
      "\"height_stride\": %u, \"bytes\": %zu}\n",
      img::to_string(st), st == img::DecodeStatus::kOk ? "true" : "false", g.width, g.height,
      g.width_stride, g.height_stride, out.size());
  return st == img::DecodeStatus::kOk ? 0 : 1;
}

int cmd_resize(const Args& a) {
  if (a.pos.size() != 2 || !a.has("src") || !a.has("dst")) {
    die("usage: resize IN OUT --src WxH --dst WxH [--src-stride ..] [--dst-stride ..] ...");
  }
  const auto sd = numbers(a.get("src"), 2);
  const auto ss = numbers(a.get("src-stride", a.get("src")), 2);
  const auto dd = numbers(a.get("dst"), 2);
  const auto ds = numbers(a.get("dst-stride", a.get("dst")), 2);
  const std::vector<uint8_t> in = read_file(a.pos[0]);
  if (in.size() < img::nv12_bytes(ss[0], ss[1])) die("input smaller than ws*hs*3/2");
  std::vector<uint8_t> out = a.has("canvas") ? read_file(a.get("canvas"))
                                             : std::vector<uint8_t>(img::nv12_bytes(ds[0], ds[1]));
  if (out.size() != img::nv12_bytes(ds[0], ds[1])) die("canvas size is not ws*hs*3/2");
  const img::Nv12ConstView src(in.data(), sd[0], sd[1], ss[0], ss[1]);
  const img::Nv12View dst{out.data(), dd[0], dd[1], ds[0], ds[1]};
  const auto interp = static_cast<img::Interpolation>(std::stoul(a.get("interp", "1")));
  const img::ResizeStatus st = img::resize_nv12(src, roi_arg(a, "src-roi", sd[0], sd[1]), dst,
                                                roi_arg(a, "dst-roi", dd[0], dd[1]), interp);
  if (st == img::ResizeStatus::kOk) write_file(a.pos[1], out.data(), out.size());
  std::printf("{\"status\": \"%s\", \"ok\": %s}\n", img::to_string(st),
              st == img::ResizeStatus::kOk ? "true" : "false");
  return st == img::ResizeStatus::kOk ? 0 : 1;
}

int cmd_hash(const Args& a) {
  if (a.pos.size() != 1) die("usage: hash FILE [--seed N]");
  const std::vector<uint8_t> data = read_file(a.pos[0]);
  const uint64_t seed = std::stoull(a.get("seed", "0"));
  std::printf("{\"hash\": \"0x%016" PRIx64 "\", \"bytes\": %zu}\n",
              img::hash64(data.data(), data.size(), seed), data.size());
  return 0;
}

// CPU time of the calling thread in microseconds: on a shared machine wall
// time also counts other processes.
double thread_cpu_us() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

// Median thread CPU time of fn() in microseconds over `iters` runs.
template <class Fn>
double median_us(int iters, Fn fn) {
  std::vector<double> t;
  for (int i = 0; i < iters; ++i) {
    const double t0 = thread_cpu_us();
    fn();
    t.push_back(thread_cpu_us() - t0);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Mean thread CPU time in microseconds of fn() over a tight loop of n calls.
template <class Fn>
double mean_us(int n, Fn fn) {
  const double t0 = thread_cpu_us();
  for (int i = 0; i < n; ++i) fn();
  return (thread_cpu_us() - t0) / n;
}

int cmd_bench(const Args& a) {
  if (a.pos.size() != 1) die("usage: bench FILE [--iters N]");
  const int iters = std::max(1, std::stoi(a.get("iters", "5")));
  const std::vector<uint8_t> data = read_file(a.pos[0]);
  const img::JpegInfo info = img::parse_jpeg_info(data.data(), data.size());
  const img::DecodeGeometry g = img::decode_geometry(info, img::DecodeAlign{});
  if (g.width == 0) die("not a JPEG");
  img::Nv12Image frame(g.width, g.height, g.width_stride, g.height_stride);
  const double decode = median_us(iters, [&] {
    img::decode_jpeg_nv12(data.data(), data.size(), frame.bytes.data(), frame.bytes.size(),
                          g.width_stride, g.height_stride);
  });
  img::Nv12Image small(224, 224, 224, 224);
  const img::Roi src_roi = img::full_roi(g.width, g.height), dst_roi = img::full_roi(224, 224);
  const double resize = median_us(iters * 4, [&] {
    img::resize_nv12(frame.view(), src_roi, small.view(), dst_roi, img::Interpolation::kBilinear);
  });
  uint64_t sink = 0;
  const double parse =
      mean_us(200, [&] { sink ^= img::parse_jpeg_info(data.data(), data.size()).num_scans; });
  const double hash = mean_us(200, [&] { sink ^= img::hash64(data.data(), data.size()); });
  img::DecodeCache dcache;
  const img::DecodeResult first =
      dcache.decode(data.data(), data.size(), g.width_stride, g.height_stride);
  const double hit = mean_us(2000, [&] {
    sink ^= dcache.decode(data.data(), data.size(), g.width_stride, g.height_stride).content_hash;
  });
  const double lookup = mean_us(20000, [&] {
    sink ^=
        dcache.decode(first.content_hash, data.data(), data.size(), g.width_stride, g.height_stride)
            .content_hash;
  });
  img::ResizeCache rcache;
  rcache.resize_into(first.content_hash, frame.view(), src_roi, small.view(), dst_roi,
                     img::Interpolation::kBilinear);
  const double rhit = mean_us(20000, [&] {
    rcache.resize_into(first.content_hash, frame.view(), src_roi, small.view(), dst_roi,
                       img::Interpolation::kBilinear);
  });
  std::printf(
      "{\"width\": %u, \"height\": %u, \"jpeg_bytes\": %zu, \"decode_ms\": %.3f, "
      "\"resize_224_ms\": %.3f, \"parse_info_us\": %.2f, \"hash_jpeg_us\": %.2f, "
      "\"decode_cache_hit_us\": %.2f, "
      "\"decode_cache_lookup_us\": %.3f, \"resize_cache_hit_paste_us\": %.2f, \"sink\": %" PRIu64
      "}\n",
      g.width, g.height, data.size(), decode / 1000, resize / 1000, parse, hash, hit, lookup, rhit,
      sink & 1);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) die("usage: acl_sim_imaging_tool info|decode|resize|hash|bench ...");
  const std::string cmd = argv[1];
  const Args a = parse_args(argc, argv);
  if (cmd == "info") return cmd_info(a);
  if (cmd == "decode") return cmd_decode(a);
  if (cmd == "resize") return cmd_resize(a);
  if (cmd == "hash") return cmd_hash(a);
  if (cmd == "bench") return cmd_bench(a);
  die("unknown command " + cmd);
}
