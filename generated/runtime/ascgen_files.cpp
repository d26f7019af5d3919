// ascgen_files.cpp: what ascgen_files.h declares (README.md: how it is compiled).

#include "ascgen_files.h"

namespace ascgen {

std::string shown(const std::string& text, size_t max) {
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

const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string cannot_write(const std::string& path) {
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

std::vector<uint8_t> read_file(const std::string& path, size_t max_bytes, const char* what,
                               const char* limit) {
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

std::vector<uint8_t> read_file(const std::string& path) {
  return read_file(path, kMaxHostFileBytes);
}

}  // namespace ascgen
