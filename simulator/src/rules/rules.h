// Device rules (issue 14): misuse that CANN documents as forbidden but that the
// device does not (reliably) reject with an error code -- an event re-recorded
// without a reset, one DVPP channel on two streams, memory freed under a queued
// task, a decode failure nobody read. On hardware these corrupt data or hang
// intermittently; the simulator reports each one as
//
//   [acl_sim] ERROR RULE <id> in <api> (-> <code>): <detail> [<source>]
//
// where <code> is what the call returned (0 when the call goes on as the
// device would) and <source> names the document and section the rule comes
// from. Unlike argument checks (whose error the program sees and handles), a
// device rule fails the run: aclFinalize returns ACL_ERROR_INTERNAL_ERROR and an
// exit hook ends the process with status 87 (kExitStatus) whatever main
// returned, also without aclFinalize.
// aclsimRuleCount / aclsimTakeRuleCount (acl_sim.h) read / consume the count.
#ifndef ACL_SIM_SRC_RULES_H_
#define ACL_SIM_SRC_RULES_H_

#include <cstdint>
#include <string>

#include "acl/acl_base.h"
#include "rules/rule_table.h"

namespace sim {

struct Stream;

// Raises `rule` in `api` as its kind in the table (rule_table.yaml) says, with the
// printf-style detail, and returns `code`:
//   argument  "[acl_sim] ERROR RULE <id> in <api> (-> <code>): <detail>"
//   warning   "[acl_sim] WARN RULE <id> in <api> (warning): <detail>"
//   device    the argument line ending " [source: <source>]", counted (see above)
// Every case remembers the id as the thread's last rule (aclsimLastRule). The one way the
// simulator raises a rule: an id not in the table has no Rule enumerator.
aclError raise_rule(Rule rule, aclError code, const char* api, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));

// Shorthands for the two commonest argument checks.
aclError null_arg(const char* api, const char* what);  // 100000, rule args.non_null
aclError not_initialized(const char* api);             // 100001, rule init.required

// "stream 3 'decode'" (the name from aclsimSetStreamName, when set).
std::string stream_label(const Stream* s);

namespace rules {

constexpr int kExitStatus = 87;

// aclInit: registers the exit hook (once per process).
void configure();
// Device rules broken since the process started (or the last take()).
uint64_t count();
uint64_t take();
// aclFinalize: logs the summary line and returns 500000 if any rule fired.
aclError finalize();

}  // namespace rules
}  // namespace sim

#endif  // ACL_SIM_SRC_RULES_H_
