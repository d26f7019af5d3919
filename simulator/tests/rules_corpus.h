// The rule corpus: small hand-written programs, each breaking one documented
// device rule ("bad") beside its correct twin ("good"). rules_corpus_main.cpp
// runs both as child processes and checks that the bad one is reported (its
// RULE or HAZARD line, exit status 87 or 86, never a crash or a silent pass)
// and that the good one runs clean (exit 0, no RULE or HAZARD line).
#ifndef ACL_SIM_TESTS_RULES_CORPUS_H_
#define ACL_SIM_TESTS_RULES_CORPUS_H_

#include <cstdint>
#include <string>
#include <vector>

struct acldvppPicDesc;  // acl/ops/acl_dvpp.h (which needs ENABLE_DVPP_INTERFACE)

namespace corpus {

struct Case {
  const char* name;
  const char* expect;  // what the bad twin must print: "RULE <id> " or "HAZARD"
  int status;          // the bad twin's exit status (87 rules, 86 hazards, 1 leaks)
  // Extra environment for each twin, "NAME=value;NAME=value" ("" for none).
  const char* bad_env;
  const char* good_env;
  int (*run)(bool bad);  // the program: returns main's status
};

const std::vector<Case>& cases();

// An NV12 picture of w x h at `data`, its strides equal to its sizes.
acldvppPicDesc* nv12(void* data, uint32_t w, uint32_t h);

// `base` followed by the cases of the rules audit (rules_corpus_audit.cpp).
std::vector<Case> with_audit_cases(std::vector<Case> base);
// `base` followed by the cases of the second device review (rules_corpus_review.cpp).
std::vector<Case> with_review_cases(std::vector<Case> base);

// `base` followed by the cases of the simulated VDEC (rules_corpus_vdec.cpp).
std::vector<Case> with_vdec_cases(std::vector<Case> base);

// `base` followed by the cases of VPC batch crops (rules_corpus_crop.cpp).
std::vector<Case> with_crop_cases(std::vector<Case> base);

// `base` followed by the cases of the profiling API (rules_corpus_prof.cpp).
std::vector<Case> with_prof_cases(std::vector<Case> base);

// The path of a scratch file named `name` in the check's own temporary folder
// ($ACL_SIM_CORPUS_TMP, which `sim_rules check` creates for both twins and removes
// after them); a twin run by hand uses the system's temporary folder.
std::string temp_file(const std::string& name);

// A 32x32 grey baseline JPEG (JFIF, no EXIF).
std::vector<unsigned char> tiny_jpeg();

// aclInit, device 0 and one stream (false if any fails); and back: synchronise, destroy the
// stream, reset the device, aclFinalize (0, or 1 when it reports a rule).
// (aclrtStream is void*: acl.h is not included here.)
bool open_device(void** stream);
int close_device(void* stream);

}  // namespace corpus

#endif  // ACL_SIM_TESTS_RULES_CORPUS_H_
