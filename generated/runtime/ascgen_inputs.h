// ascgen_inputs.h: a generated program's inputs: the files of a folder (or one file), read
// once at start-up, or pattern tensors; and comparing an output with its reference. No
// AscendCL here. Emitted verbatim by ascgen; hand-written, reviewed once.
#ifndef ASCGEN_INPUTS_H_
#define ASCGEN_INPUTS_H_

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ascgen_files.h"

namespace ascgen {

struct InputFile {
  std::string name;
  std::vector<uint8_t> bytes;
};

// One distinct input, prepared once at start-up: frames cycle through the inputs.
struct Input {
  int index = 0;
  std::string name;
  std::vector<uint8_t> bytes;
  uint32_t width = 0, height = 0;  // of the picture (JPEG inputs)
};

constexpr size_t kMaxInputFiles = 4096;  // inputs are held in memory, all of them

// A deterministic pseudo-random tensor: input i of a tensor source.
std::vector<uint8_t> pattern_tensor(size_t bytes, uint64_t seed);

// A file, or every *.jpg / *.jpeg (or every file ending in `suffix`) in a folder, sorted by name
// (a reproducible frame order).
// Each must be a regular file of at most max_bytes; at most kMaxInputFiles of them.
std::vector<InputFile> load_inputs(const std::string& path, size_t max_bytes,
                                   const char* suffix = nullptr);

bool same_bytes(const std::vector<uint8_t>& expected, const uint8_t* got, size_t n);

}  // namespace ascgen

#endif  // ASCGEN_INPUTS_H_
