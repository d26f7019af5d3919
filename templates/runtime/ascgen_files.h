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

inline std::string shown(const std::string& text, size_t max = 40) {
  std::string out;
  for (size_t i = 0; i < text.size() && i < max; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  if (text.size() > max) out += "...";
  return out;
}

// What `path` is when it is not a regular file ("a FIFO", ...), for messages.
inline const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Whether `path` can be written: an existing file is opened for writing (not truncated); a
// new one is created and removed. Checked at start-up, before any device work.
inline std::string cannot_write(const std::string& path) {
  struct stat st{};
  if (stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return "it is a folder";
    int fd = open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return std::strerror(errno);
    close(fd);
    return "";
  }
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return std::strerror(errno);
  close(fd);
  unlink(path.c_str());
  return "";
}

constexpr size_t kMaxHostFileBytes = size_t{1} << 30;  // read_file without a limit of its own

// The bytes of the regular file `path`, at most `max_bytes` of them. Opened without blocking
// (a FIFO would wait for a writer) and never read past max_bytes + 1 (/dev/zero never ends).
// `what` names the file in messages ("input", "trace"), `limit` its limit ("the spec's
// max_bytes").
inline std::vector<uint8_t> read_file(const std::string& path, size_t max_bytes,
                                      const char* what = "input",
                                      const char* limit = "the spec's max_bytes") {
  const std::string named = std::string(what) + " '" + shown(path, kShownPath) + "'";
  int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) throw std::runtime_error("cannot read " + named + ": " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  struct stat st{};
  if (fstat(fd, &st) != 0)
    throw std::runtime_error("cannot read " + named + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw std::runtime_error(named + " is " + file_kind(st.st_mode) + ", not a regular file");
  auto too_big = [&](size_t bytes) {
    return std::runtime_error(named + " has " + std::to_string(bytes) + " bytes, more than " +
                              limit + " " + std::to_string(max_bytes));
  };
  if (static_cast<uint64_t>(st.st_size) > max_bytes) throw too_big(static_cast<size_t>(st.st_size));
  // st_size is a hint (0 for /proc files): read until the end, never past max_bytes + 1.
  std::vector<uint8_t> out(std::min(max_bytes, static_cast<size_t>(st.st_size)) + 1);
  size_t got = 0;
  for (;;) {
    if (got == out.size()) {
      if (got > max_bytes) throw too_big(got);
      out.resize(std::min(max_bytes + 1, got * 2));
    }
    ssize_t r = read(fd, out.data() + got, out.size() - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw std::runtime_error("cannot read " + named + ": " + std::strerror(errno));
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  if (got > max_bytes) throw too_big(got);
  out.resize(got);
  return out;
}

inline std::vector<uint8_t> read_file(const std::string& path) {
  return read_file(path, kMaxHostFileBytes);
}

}  // namespace ascgen

#endif  // ASCGEN_FILES_H_
