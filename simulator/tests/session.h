// Test helpers: a device session (aclInit + aclrtSetDevice and back) and a
// profile writer for tests that need a tiny or broken device profile.
#ifndef ACL_SIM_TESTS_SESSION_H_
#define ACL_SIM_TESTS_SESSION_H_

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "acl_sim/acl_sim.h"

namespace testing_sim {

// The build's default flat profile (tests never rely on the environment).
inline std::string default_profile() {
  return ACL_SIM_TEST_PROFILE;
}

// This test process's own folder for the files it writes (profiles, model descriptors),
// made under $TMPDIR on first use and removed with everything in it when the process that
// made it exits (not by a forked child's exit). Never a fixed or pid-named path in /tmp: such
// files were left behind by every run, and two runs could meet in them.
inline const std::string& scratch_dir() {
  static const pid_t owner = getpid();
  static const std::string* dir = [] {
    std::string tmpl = (std::filesystem::temp_directory_path() / "acl_sim_test.XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) {
      std::perror("mkdtemp");
      std::abort();
    }
    std::atexit([] {
      if (getpid() != owner) return;
      std::error_code ignored;
      std::filesystem::remove_all(*dir, ignored);
    });
    return new std::string(tmpl);  // never freed: the atexit handler reads it last
  }();
  return *dir;
}

// `name` in scratch_dir().
inline std::string scratch_file(const std::string& name) {
  return scratch_dir() + "/" + name;
}

// Writes the default profile with `overrides` applied (value "" drops a key)
// to a scratch file and returns its path.
inline std::string write_profile(const std::string& tag,
                                 const std::map<std::string, std::string>& overrides) {
  std::ifstream in(default_profile());
  std::stringstream out;
  std::string line;
  while (std::getline(in, line)) {
    std::string key = line.substr(0, line.find('='));
    if (overrides.count(key)) continue;
    out << line << "\n";
  }
  for (const auto& kv : overrides)
    if (!kv.second.empty()) out << kv.first << "=" << kv.second << "\n";
  std::string path = scratch_file("profile_" + tag + ".flat");
  std::ofstream(path) << out.str();
  return path;
}

// The whole file in one read (not byte by byte through istreambuf_iterator: the clips' raw
// reference frames and the detector's 1080p JPEGs took most of sim.vdec's and sim.detector's
// CPU time under TSan at -O0). Empty when the file cannot be read.
inline std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return {};
  std::vector<uint8_t> bytes(static_cast<size_t>(in.tellg()));
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size())))
    return {};
  return bytes;
}

inline void use_profile(const std::string& path) {
  setenv("ACL_SIM_PROFILE", path.c_str(), 1);
}

inline void set_scale(double scale) {
  setenv("ACL_SIM_TIME_SCALE", std::to_string(scale).c_str(), 1);
}

// aclInit + aclrtSetDevice(0); the harness finalizes after every test.
inline aclError open_device(double scale = 1.0) {
  set_scale(scale);
  if (aclError rc = aclInit(nullptr)) return rc;
  return aclrtSetDevice(0);
}

// Run after each test: leaves the process uninitialised with defaults restored.
inline void cleanup() {
  aclFinalize();
  use_profile(default_profile());
  set_scale(1.0);
  aclsimSetFaults(nullptr);
}

}  // namespace testing_sim

#endif  // ACL_SIM_TESTS_SESSION_H_
