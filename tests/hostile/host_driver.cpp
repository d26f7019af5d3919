// Drives the host side of the runtime (templates/runtime/ascgen_options.h, ascgen_inputs.h,
// ascgen_json.h) without a device: parses the flags as a generated
// program does and prints them as JSON; with ASCGEN_DRIVER_LOAD=1 it also loads --input as a
// program loads its inputs (limit: ASCGEN_DRIVER_MAX bytes, default 1 MiB). Built by
// tests/hostile/harness.py for the hostile-input corpus.
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "ascgen_inputs.h"
#include "ascgen_json.h"
#include "ascgen_options.h"

int main(int argc, char** argv) {
  ascgen::Options defaults;
  defaults.input = "default-input";
  const ascgen::Options o = ascgen::parse_options(argc, argv, defaults);
  ascgen::Json j;
  j.open('{');
  j.key("threads").integer(o.threads).key("depth").integer(o.depth);
  j.key("duration_s").num(o.duration_s).key("warmup_s").num(o.warmup_s).key("frames").integer(o.frames);
  j.key("input").str(o.input).key("model").str(o.model).key("json").str(o.json_path).key("pin").str(o.pin);
  j.key("verify").boolean(o.verify).key("quiet").boolean(o.quiet);
  j.key("quiet_progress").boolean(ascgen::quiet_progress());
  if (const char* load = std::getenv("ASCGEN_DRIVER_LOAD"); load && load[0] == '1') {
    const char* max = std::getenv("ASCGEN_DRIVER_MAX");
    try {
      auto inputs = ascgen::load_inputs(o.input, max ? std::strtoull(max, nullptr, 10) : size_t{1} << 20);
      j.key("inputs").integer(static_cast<int64_t>(inputs.size()));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "driver: %s\n", e.what());
      return 3;
    }
  }
  j.close('}');
  std::printf("%s\n", j.text().c_str());
  return 0;
}
