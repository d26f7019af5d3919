// aclsimLinkTransferAsync (acl_sim/acl_sim.h): one block over a link (link.h)
// as a task on a stream.
#include <cstring>
#include <string>

#include "acl_sim/acl_sim.h"
#include "api/api.h"
#include "api/runtime.h"
#include "core/memory.h"
#include "core/profile.h"
#include "core/task.h"
#include "links/link.h"
#include "report/log.h"
#include "rules/rules.h"

using namespace sim;

namespace {

bool place_holds(aclsimLinkPlace place, const void* p, size_t bytes) {
  MemKind k = classify(p, bytes);
  if (place == ACL_SIM_LINK_DEVICE) return k == MemKind::kDevice || k == MemKind::kDvpp;
  return k == MemKind::kHost || k == MemKind::kUnknown;  // pinned or pageable host memory
}

const char* place_name(aclsimLinkPlace place) {
  return place == ACL_SIM_LINK_DEVICE ? "device" : "host";
}

}  // namespace

extern "C" aclError aclsimLinkTransferAsync(const aclsimLinkTransfer* t, aclrtStream stream) {
  const char* api = __func__;
  if (aclError rc = require_context(api)) return rc;
  if (t == nullptr) return null_arg(api, "transfer");
  if (t->link == nullptr || t->local == nullptr || t->remote == nullptr)
    return null_arg(api, "transfer->link, local or remote");
  if (t->bytes == 0) return ACL_SUCCESS;
  if (!place_holds(t->localPlace, t->local, t->bytes) ||
      !place_holds(t->remotePlace, t->remote, t->bytes)) {
    log(LogLevel::kError, "%s: local %p must be %s memory and remote %p %s memory, %zu bytes", api,
        t->local, place_name(t->localPlace), t->remote, place_name(t->remotePlace), t->bytes);
    return ACL_ERROR_INVALID_PARAM;
  }
  link::Transfer what;
  what.link = t->link;
  what.local = t->localPlace == ACL_SIM_LINK_DEVICE ? link::Place::kDevice : link::Place::kHost;
  what.remote = t->remotePlace == ACL_SIM_LINK_DEVICE ? link::Place::kDevice : link::Place::kHost;
  what.op = t->op == ACL_SIM_LINK_READ ? link::Op::kRead : link::Op::kWrite;
  what.pool = t->pool != 0;
  what.cross_host = t->crossHost != 0;
  link::Route route;
  std::string error;
  if (!link::route(profile(), what, &route, &error)) {
    log(LogLevel::kError, "%s: %s", api, error.c_str());
    return ACL_ERROR_INVALID_PARAM;
  }
  void* dst = what.op == link::Op::kWrite ? t->remote : t->local;
  const void* src = what.op == link::Op::kWrite ? t->local : t->remote;
  size_t bytes = t->bytes;
  TaskSpec spec;
  spec.engine = Engine::kLink;
  spec.service_us = route.block_us(static_cast<double>(bytes));
  spec.reads = {{src, bytes}};
  spec.writes = {{dst, bytes}};
  spec.work = [dst, src, bytes] { std::memmove(dst, src, bytes); };
  spec.name = "link." + route.link;
  // What the transfers crossing this link at the same moment share: the one
  // simulated device's port of it (several devices, issue 18: key by device).
  spec.link_key = route.link;
  spec.link_GBps = route.bottleneck_GBps();
  spec.link_bytes = static_cast<double>(bytes);
  spec.traffic_bytes = 0;  // bounded by the link, not by the DDR
  return submit(api, stream, std::move(spec));
}

extern "C" aclError aclsimHoldStreamAsync(aclrtStream stream, double us) {
  const char* api = __func__;
  if (aclError rc = require_context(api)) return rc;
  if (!(us >= 0)) {
    log(LogLevel::kError, "%s: hold for %g us: must be >= 0", api, us);
    return ACL_ERROR_INVALID_PARAM;
  }
  TaskSpec spec;
  spec.engine = Engine::kLink;  // many units, no scheduler: only the stream waits
  spec.service_us = us;
  spec.traffic_bytes = 0;
  spec.name = "hold";
  return submit(api, stream, std::move(spec));
}
