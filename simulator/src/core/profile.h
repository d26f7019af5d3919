// Device profile: the flat key=value form of an ascgen profile
// (`ascgen profile ascend310 --flat`), read at aclInit from $ACL_SIM_PROFILE or,
// if unset, from the path baked in at build time (ACL_SIM_DEFAULT_PROFILE).
#ifndef ACL_SIM_SRC_PROFILE_H_
#define ACL_SIM_SRC_PROFILE_H_

#include <map>
#include <string>

namespace sim {

class Profile {
 public:
  // Reads and validates `path`. On failure returns false and sets `error` to a
  // message naming the file and the missing or bad key.
  bool load(const std::string& path, std::string* error);

  bool has(const std::string& key) const { return values_.count(key) != 0; }
  // Numeric value of a key; `fallback` when absent or not a number.
  double num(const std::string& key, double fallback = 0.0) const;
  std::string str(const std::string& key, const std::string& fallback = "") const;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::map<std::string, std::string> values_;
};

// The profile loaded by aclInit (empty before).
const Profile& profile();
Profile& mutable_profile();

// Where aclInit looks: $ACL_SIM_PROFILE, else the build-time default.
std::string profile_path();

}  // namespace sim

#endif  // ACL_SIM_SRC_PROFILE_H_
