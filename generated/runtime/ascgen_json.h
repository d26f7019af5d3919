// ascgen_json.h: the small JSON writer of the program's report. No AscendCL here.
// Emitted verbatim by ascgen; hand-written, reviewed once, shared by every pipeline.
#ifndef ASCGEN_JSON_H_
#define ASCGEN_JSON_H_

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

namespace ascgen {

class Json {
 public:
  Json& key(const char* k) {
    sep();
    out_ += '"';
    out_ += k;
    out_ += "\": ";
    fresh_ = true;
    return *this;
  }
  Json& str(const std::string& v) {
    value_sep();
    out_ += '"';
    for (char c : v) {
      if (c == '"' || c == '\\') out_ += '\\';
      if (static_cast<unsigned char>(c) >= 0x20) out_ += c;
    }
    out_ += '"';
    return *this;
  }
  Json& num(double v) {
    if (!std::isfinite(v)) return null();  // JSON has no nan or inf
    value_sep();
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    out_ += buf;
    return *this;
  }
  Json& integer(int64_t v) {
    value_sep();
    out_ += std::to_string(v);
    return *this;
  }
  Json& boolean(bool v) {
    value_sep();
    out_ += v ? "true" : "false";
    return *this;
  }
  Json& null() {
    value_sep();
    out_ += "null";
    return *this;
  }
  Json& raw(const std::string& json) {  // a value that is already JSON text
    value_sep();
    out_ += json;
    return *this;
  }
  Json& open(char c) {
    value_sep();
    out_ += c;
    fresh_ = true;
    return *this;
  }
  Json& close(char c) {
    out_ += c;
    fresh_ = false;
    return *this;
  }
  const std::string& text() const { return out_; }

 private:
  void sep() {
    if (!fresh_) out_ += ", ";
    fresh_ = false;
  }
  void value_sep() { sep(); }
  std::string out_;
  bool fresh_ = true;
};

}  // namespace ascgen

#endif  // ASCGEN_JSON_H_
