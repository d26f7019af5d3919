// ascgen_inputs.cpp: what ascgen_inputs.h declares (README.md: how it is compiled).

#include "ascgen_inputs.h"

namespace ascgen {

std::vector<uint8_t> pattern_tensor(size_t bytes, uint64_t seed) {
  std::vector<uint8_t> out(bytes);
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i < bytes; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    out[i] = static_cast<uint8_t>(x);
  }
  return out;
}

std::vector<InputFile> load_inputs(const std::string& path, size_t max_bytes, const char* suffix) {
  std::vector<std::string> files;
  struct stat st{};
  if (stat(path.c_str(), &st) != 0)
    throw std::runtime_error("cannot read input '" + path + "': " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) {
    DIR* dir = opendir(path.c_str());
    if (dir == nullptr)
      throw std::runtime_error("cannot read input '" + path + "': " + std::strerror(errno));
    while (dirent* e = readdir(dir)) {
      std::string name = e->d_name;
      std::string lower = name;
      std::transform(lower.begin(), lower.end(), lower.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      auto ends = [&](const char* suffix) {
        size_t n = std::strlen(suffix);
        return lower.size() >= n && lower.compare(lower.size() - n, n, suffix) == 0;
      };
      if (suffix != nullptr ? ends(suffix) : ends(".jpg") || ends(".jpeg"))
        files.push_back(path + "/" + name);
    }
    closedir(dir);
    std::sort(files.begin(), files.end());
    if (files.empty())
      throw std::runtime_error(std::string("no ") + (suffix ? suffix : ".jpg or .jpeg") +
                               " files in '" + path + "'");
    if (files.size() > kMaxInputFiles)
      throw std::runtime_error("'" + path + "' holds " + std::to_string(files.size()) +
                               " inputs, more than " + std::to_string(kMaxInputFiles) +
                               "; use a folder with fewer");
  } else {
    files.push_back(path);
  }
  std::vector<InputFile> inputs;
  for (const std::string& f : files) {
    InputFile in{f, read_file(f, max_bytes)};
    if (in.bytes.empty()) throw std::runtime_error("input '" + f + "' is empty");
    inputs.push_back(std::move(in));
  }
  return inputs;
}

bool same_bytes(const std::vector<uint8_t>& expected, const uint8_t* got, size_t n) {
  return expected.size() == n && std::memcmp(expected.data(), got, n) == 0;
}

}  // namespace ascgen
