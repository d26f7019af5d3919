// aclInit / aclFinalize, devices and contexts.
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "acl/acl_rt.h"
#include "api/api.h"
#include "api/runtime.h"
#include "core/clock.h"
#include "core/memory.h"
#include "core/profile.h"
#include "dvpp/dvpp_rules.h"
#include "links/host_link.h"
#include "links/machine.h"
#include "report/leak.h"
#include "report/log.h"
#include "report/trace.h"
#include "rules/hazard.h"
#include "rules/rules.h"

namespace sim {

Clock& model_clock() {
  static Clock c;
  return c;
}

aclError live_context(const char* api, void* handle, Context** out) {
  for (const auto& c : runtime().contexts) {
    if (c.get() == handle && !c->destroyed) {
      *out = c.get();
      return ACL_SUCCESS;
    }
  }
  return raise_rule(Rule::kContextValidHandle, ACL_ERROR_RT_INVALID_HANDLE, api,
                    "%p is not a live context", handle);
}

namespace {

int device_count() {
  return static_cast<int>(profile().num("topology.devices", 1));  // chips on the host
}

aclError check_device_id(const char* api, int32_t id) {
  if (id < 0 || id >= device_count())
    return raise_rule(Rule::kDeviceValidId, ACL_ERROR_RT_INVALID_DEVICEID, api,
                      "device %d does not exist (the profile has %d)", id, device_count());
  return ACL_SUCCESS;
}

Context* new_context(Runtime& r, int32_t id, bool is_default) {
  r.contexts.push_back(std::make_unique<Context>());
  Context* ctx = r.contexts.back().get();
  ctx->device_id = id;
  ctx->is_default = is_default;
  Device& d = device_at(id);
  std::lock_guard<std::mutex> lock(d.mu());
  ctx->default_stream = d.create_stream(ctx, true);
  return ctx;
}

// ACL_SIM_DEVICE_OPEN_MS overrides the profile's engines.host.device_open_ms
// (tests that start a program hundreds of times set it to 0).
bool device_open_ms(double* ms) {
  const char* env = std::getenv("ACL_SIM_DEVICE_OPEN_MS");
  *ms = profile().num("engines.host.device_open_ms", 0.0);
  if (env == nullptr || *env == '\0') return *ms >= 0;
  char* end = nullptr;
  *ms = std::strtod(env, &end);
  return end != nullptr && *end == '\0' && *ms >= 0;
}

// ACL_SIM_TIME_SCALE: wall seconds per model second, a finite number in 0.001..1000. Beyond
// that the model clock stops or races (inf: no task ever ends; 1e-300: every deadline is now)
// and every bounded wait of a program becomes unbounded or meaningless.
constexpr double kMinTimeScale = 0.001, kMaxTimeScale = 1000;

bool parse_time_scale(double* scale) {
  const char* env = std::getenv("ACL_SIM_TIME_SCALE");
  *scale = 1.0;
  if (env == nullptr || *env == '\0') return true;
  char* end = nullptr;
  *scale = std::strtod(env, &end);
  return end != nullptr && *end == '\0' && std::isfinite(*scale) && *scale >= kMinTimeScale &&
         *scale <= kMaxTimeScale;
}

// aclrtSynchronizeDevice[WithTimeout]: waits until every task of the device is done;
// timeout -1 waits forever, > 0 is model milliseconds (ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
// when it passes, as CANN documents for the device too).
aclError sync_device(const char* api, int32_t timeout) {
  if (aclError rc = check_timeout(api, timeout)) return rc;
  if (aclError rc = require_context(api)) return rc;
  std::unique_lock<std::mutex> lk(device().mu());
  if (!device().wait_idle_for(lk, timeout))
    return raise_rule(Rule::kDeviceSyncTimeout, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, api,
                      "device work not complete after %d ms", timeout);
  if (hazard::enabled()) hazard::observe_all();
  return ACL_SUCCESS;
}

}  // namespace

void teardown_device_locked(const char* api, int32_t id, bool check_leaks) {
  Runtime& r = runtime();
  Device& d = device_at(id);
  // The last device set: the process's DVPP, leak and context state goes with it (another
  // device still running keeps its own).
  const bool last = r.devices_set() == 0;
  std::unique_lock<std::mutex> lk(d.mu());
  auto limit = model_clock().deadline_after_ms(10000);
  if (!d.wait_idle(lk, &limit))
    log(LogLevel::kError,
        "%s: device work did not finish (a blocking callback nobody "
        "processes?); tearing down anyway",
        api);
  else if (hazard::enabled())
    hazard::observe_all();
  if (check_leaks && last) {
    // After the drain (a block freed under a task is released by then),
    // before anything is reclaimed.
    lk.unlock();
    leak_check(api, true);
    lk.lock();
  }
  size_t user_contexts = 0;
  for (const auto& c : r.contexts)
    user_contexts += c->device_id == id && !c->is_default && !c->destroyed;
  size_t streams = d.live_streams(true), events = d.live_events();
  if (streams + events + user_contexts > 0)
    raise_rule(Rule::kTeardownOrder, ACL_SUCCESS, api,
               "%zu stream(s), %zu event(s), %zu context(s) still alive: destroy events and "
               "streams, then contexts, then reset the device",
               streams, events, user_contexts);
  for (const auto& c : r.contexts) {
    if (c->device_id != id) continue;
    for (Stream* s : d.streams_of(c.get())) d.destroy_stream(s);
    c->destroyed = true;
  }
  d.destroy_all_events();
  lk.unlock();
  if (last) dvpp::forget_sub_buffers(nullptr);  // every DVPP block goes below
  if (size_t n = release_all(id))
    raise_rule(Rule::kTeardownMemory, ACL_SUCCESS, api,
               "%zu memory block(s) still allocated; released", n);
  r.default_ctx[id] = nullptr;
  if (last) bump_context_epoch();
}

}  // namespace sim

using namespace sim;

extern "C" {

aclError aclInit(const char* configPath) {
  SIM_API_ENTER();
  Runtime& r = runtime();
  std::lock_guard<std::mutex> lock(r.mu);
  if (r.initialized) return ACL_ERROR_REPEAT_INITIALIZE;
  rules::configure();  // the exit status below too
  if (*fault_env_error() != '\0')
    return raise_rule(Rule::kFaultsSpec, ACL_ERROR_INVALID_PARAM, __func__, "ACL_SIM_FAIL: %s",
                      fault_env_error());
  if (configPath != nullptr && *configPath != '\0' && !std::ifstream(configPath))
    return raise_rule(Rule::kInitConfigFile, ACL_ERROR_INVALID_FILE, __func__,
                      "cannot read config file '%s'", configPath);
  std::string error;
  if (!mutable_profile().load(profile_path(), &error))
    return raise_rule(Rule::kInitProfile, ACL_ERROR_INVALID_FILE, __func__, "%s", error.c_str());
  double scale = 1.0;
  if (!parse_time_scale(&scale))
    return raise_rule(Rule::kInitTimeScale, ACL_ERROR_INVALID_PARAM, __func__,
                      "ACL_SIM_TIME_SCALE='%.40s' is not a number in %g..%g (wall seconds "
                      "per model second)",
                      std::getenv("ACL_SIM_TIME_SCALE"), kMinTimeScale, kMaxTimeScale);
  model_clock().start(scale);
  std::string machine_error;
  if (!machine::attach(host_link::changed_elsewhere, &machine_error))
    return raise_rule(Rule::kInitMachine, ACL_ERROR_INVALID_PARAM, __func__, "%s",
                      machine_error.c_str());
  hazard::configure();
  rules::configure();
  trace_open();
  device_at(0).start();  // the others start at their first aclrtSetDevice
  r.initialized = true;
  r.finalized = false;
  log(LogLevel::kInfo, "aclInit: profile %s (soc %s), time scale %g", profile().path().c_str(),
      profile().str("soc").c_str(), scale);
  return ACL_SUCCESS;
}

aclError aclFinalize() {
  SIM_API_ENTER();
  Runtime& r = runtime();
  std::lock_guard<std::mutex> lock(r.mu);
  if (!r.initialized) return r.finalized ? ACL_ERROR_REPEAT_FINALIZE : ACL_ERROR_UNINITIALIZE;
  aclError leaked = leak_check(__func__);  // ACL_SIM_LEAK_CHECK: before anything is released
  for (int32_t id = 0; id < kMaxDevices; ++id) {
    if (r.device_refs[id] == 0) continue;
    raise_rule(Rule::kTeardownOrder, ACL_SUCCESS, __func__,
               "device %d still set: call aclrtResetDevice first", id);
    r.device_refs[id] = 0;
    teardown_device_locked(__func__, id, false);
  }
  for (int32_t id = 0; id < kMaxDevices; ++id) device_at(id).stop();  // those started
  machine::detach();                      // after the devices' last copies left the machine's links
  dvpp::report_unread(__func__);          // decode failures never read (after the drain)
  aclError hazards = hazard::finalize();  // ACL_SIM_HAZARD: after the device drained
  aclError ruled = rules::finalize();     // device rules broken (rules.h)
  trace_write();
  release_all();
  bump_context_epoch();  // before the contexts go: stale current contexts read as none
  r.contexts.clear();
  r.initialized = false;
  r.finalized = true;
  if (hazards != ACL_SUCCESS) return hazards;
  return ruled != ACL_SUCCESS ? ruled : leaked;
}

aclError aclrtSetDevice(int32_t deviceId) {
  SIM_API_ENTER();
  Runtime& r = runtime();
  std::lock_guard<std::mutex> lock(r.mu);
  if (!r.initialized) return not_initialized(__func__);
  if (aclError rc = check_device_id(__func__, deviceId)) return rc;
  if (r.device_refs[deviceId] == 0) {
    Device& d = device_at(deviceId);
    if (!d.running()) d.start();  // its timeline, from its first aclrtSetDevice on
    // Opening the device (driver, firmware hand-shake, runtime start-up) takes
    // the profile's device_open_ms; other threads setting it meanwhile wait.
    double open_ms = 0;
    if (!device_open_ms(&open_ms))
      return raise_rule(Rule::kDeviceOpenMs, ACL_ERROR_INVALID_PARAM, __func__,
                        "ACL_SIM_DEVICE_OPEN_MS='%s' is not a number >= 0",
                        std::getenv("ACL_SIM_DEVICE_OPEN_MS"));
    if (open_ms > 0) std::this_thread::sleep_until(model_clock().deadline_after_ms(open_ms));
    r.default_ctx[deviceId] = new_context(r, deviceId, true);
  }
  ++r.device_refs[deviceId];
  set_current_context(r.default_ctx[deviceId]);
  return ACL_SUCCESS;
}

static aclError reset_device(const char* api, int32_t deviceId, bool force) {
  Runtime& r = runtime();
  std::lock_guard<std::mutex> lock(r.mu);
  if (!r.initialized) return not_initialized(api);
  if (aclError rc = check_device_id(api, deviceId)) return rc;
  if (r.device_refs[deviceId] == 0) {
    raise_rule(Rule::kDeviceResetUnset, ACL_SUCCESS, api, "device %d is not set", deviceId);
    return ACL_SUCCESS;
  }
  if (force) r.device_refs[deviceId] = 1;
  if (--r.device_refs[deviceId] == 0) teardown_device_locked(api, deviceId);
  return ACL_SUCCESS;
}

aclError aclrtResetDevice(int32_t deviceId) {
  SIM_API_ENTER();
  return reset_device(__func__, deviceId, false);
}

aclError aclrtResetDeviceForce(int32_t deviceId) {
  SIM_API_ENTER();
  return reset_device(__func__, deviceId, true);
}

aclError aclrtGetDevice(int32_t* deviceId) {
  SIM_API_ENTER();
  if (deviceId == nullptr) return null_arg(__func__, "deviceId");
  if (aclError rc = require_context(__func__)) return rc;
  *deviceId = current_context()->device_id;
  return ACL_SUCCESS;
}

aclError aclrtGetDeviceCount(uint32_t* count) {
  SIM_API_ENTER();
  if (count == nullptr) return null_arg(__func__, "count");
  if (!initialized()) return not_initialized(__func__);
  *count = static_cast<uint32_t>(device_count());
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeDevice(void) {
  SIM_API_ENTER();
  return sync_device(__func__, -1);
}

aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout) {
  SIM_API_ENTER();
  return sync_device(__func__, timeout);
}

aclError aclrtGetRunMode(aclrtRunMode* runMode) {
  SIM_API_ENTER();
  if (runMode == nullptr) return null_arg(__func__, "runMode");
  *runMode = ACL_HOST;  // the simulated device is a PCIe card driven from the host
  return ACL_SUCCESS;
}

const char* aclrtGetSocName() {
  SIM_API_ENTER_OR(nullptr);
  static std::string name;
  Runtime& r = runtime();
  std::lock_guard<std::mutex> lock(r.mu);
  if (!r.initialized) return nullptr;
  name = profile().str("soc");
  return name.c_str();
}

aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId) {
  SIM_API_ENTER();
  if (context == nullptr) return null_arg(__func__, "context");
  Runtime& r = runtime();
  std::lock_guard<std::mutex> lock(r.mu);
  if (!r.initialized) return not_initialized(__func__);
  if (aclError rc = check_device_id(__func__, deviceId)) return rc;
  if (r.device_refs[deviceId] == 0)
    return raise_rule(Rule::kContextDeviceSet, ACL_ERROR_RT_INVALID_DEVICEID, __func__,
                      "call aclrtSetDevice(%d) before creating a context on it", deviceId);
  Context* ctx = new_context(r, deviceId, false);
  set_current_context(ctx);
  *context = ctx;
  return ACL_SUCCESS;
}

aclError aclrtDestroyContext(aclrtContext context) {
  SIM_API_ENTER();
  Runtime& r = runtime();
  std::lock_guard<std::mutex> lock(r.mu);
  Context* ctx = nullptr;
  if (aclError rc = live_context(__func__, context, &ctx)) return rc;
  if (ctx->is_default)
    return raise_rule(Rule::kContextDefaultNotDestroyable, ACL_ERROR_RT_PARAM_INVALID, __func__,
                      "the default context is released by aclrtResetDevice");
  Device& d = device_at(ctx->device_id);
  std::unique_lock<std::mutex> lk(d.mu());
  for (Stream* s : d.streams_of(ctx)) {
    if (!s->is_default)
      raise_rule(Rule::kTeardownOrder, ACL_SUCCESS, __func__,
                 "stream %llu of this context is still alive",
                 static_cast<unsigned long long>(s->id));
    if (s->last) {
      std::shared_ptr<Task> last = s->last;
      d.wait_done(lk, last, nullptr);
      if (hazard::enabled()) hazard::observe(*last);
    }
    d.destroy_stream(s);
  }
  ctx->destroyed = true;
  return ACL_SUCCESS;
}

aclError aclrtSetCurrentContext(aclrtContext context) {
  SIM_API_ENTER();
  Runtime& r = runtime();
  std::lock_guard<std::mutex> lock(r.mu);
  Context* ctx = nullptr;
  if (aclError rc = live_context(__func__, context, &ctx)) return rc;
  set_current_context(ctx);
  return ACL_SUCCESS;
}

aclError aclrtGetCurrentContext(aclrtContext* context) {
  SIM_API_ENTER();
  if (context == nullptr) return null_arg(__func__, "context");
  if (aclError rc = require_context(__func__)) return rc;
  *context = current_context();
  return ACL_SUCCESS;
}

}  // extern "C"
