// ascgen_files.h: reading and checking the files a generated program is given: what a path is
// when it is not a regular file, whether one can be written, and bounded reads that never
// block on a FIFO nor run on forever (/dev/zero). No AscendCL here.
// Emitted verbatim by ascgen; hand-written, reviewed once, shared by every pipeline.
#ifndef ASCGEN_FILES_H_
#define ASCGEN_FILES_H_

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace ascgen {

// `text` as a message may echo it: at most `max` bytes of it, control and non-ASCII bytes as
// \xNN, "..." when cut (a flag's value or a file's line can be binary, or megabytes long).
constexpr size_t kShownPath = 200;  // a path in a message: its first 200 bytes

std::string shown(const std::string& text, size_t max = 40);

// What `path` is when it is not a regular file ("a FIFO", ...), for messages.
const char* file_kind(mode_t mode);

// Whether `path` can be written: an existing file is opened for writing (not truncated); a
// new one is created and removed. Checked at start-up, before any device work.
std::string cannot_write(const std::string& path);

constexpr size_t kMaxHostFileBytes = size_t{1} << 30;  // read_file without a limit of its own

// The bytes of the regular file `path`, at most `max_bytes` of them. Opened without blocking
// (a FIFO would wait for a writer) and never read past max_bytes + 1 (/dev/zero never ends).
// `what` names the file in messages ("input", "trace"), `limit` its limit ("the spec's
// max_bytes").
std::vector<uint8_t> read_file(const std::string& path, size_t max_bytes,
                               const char* what = "input",
                               const char* limit = "the spec's max_bytes");

std::vector<uint8_t> read_file(const std::string& path);

}  // namespace ascgen

#endif  // ASCGEN_FILES_H_
