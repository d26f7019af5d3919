#include "core/device.h"

#include <sys/prctl.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <limits>

#include "api/runtime.h"
#include "core/clock.h"
#include "core/mover.h"
#include "core/profile.h"
#include "links/host_link.h"
#include "report/log.h"
#include "report/trace.h"
#include "rules/callback_rules.h"
#include "rules/guard.h"
#include "rules/hazard.h"

namespace sim {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();
constexpr int kNotifyEvery = 64;
// Link transfers in flight at once per device (more wait in FIFO order).
constexpr int kLinkTransfers = 64;

// How far (wall microseconds) a host thread may run ahead of the model time
// its charged submit cost has reached before it is put to sleep.
constexpr double kHostLeadWallUs = 200.0;

thread_local double t_host_virtual_us = 0.0;
thread_local unsigned t_host_generation = 0;

// Large copies move their bytes on a mover thread while they run (mover.h).
// Copies that touch guarded pinned memory (hazard mode) keep the device
// thread's path, which opens the page guards around the work.
bool moves_off_thread(const Task& t) {
  if (!t.spec.work || t.hz_pinned) return false;
  if (t.spec.engine != Engine::kH2D && t.spec.engine != Engine::kD2H &&
      t.spec.engine != Engine::kD2D)
    return false;
  size_t bytes = 0;
  for (const ByteRange& r : t.spec.writes) bytes += r.size;
  return bytes >= mover::kMinBytes;
}

}  // namespace

thread_local Device* t_own_device = nullptr;  // set on each device's own thread

// Stream and event ids, unique across the process's devices (logs, traces, rules name them).
uint64_t next_object_id() {
  static std::atomic<uint64_t> next{1};
  return next++;
}

struct DeviceTable {
  Device devices[kMaxDevices];
  DeviceTable() {
    for (int32_t i = 0; i < kMaxDevices; ++i) devices[i].id_ = i;
  }
};

Device& device_at(int32_t id) {
  static DeviceTable table;
  return table.devices[id];
}

Device& device() {
  if (t_own_device != nullptr) return *t_own_device;
  const Context* ctx = current_context();
  return device_at(ctx == nullptr ? 0 : ctx->device_id);
}

double charge_host() {
  Clock& c = model_clock();
  double now = c.now_us();
  if (t_host_generation != c.generation()) {
    t_host_generation = c.generation();
    t_host_virtual_us = 0.0;
  }
  double stamp = std::max(now, t_host_virtual_us) + device().submit_us();
  t_host_virtual_us = stamp;
  // Asleep until the lead is half the allowed one, not none: a late wake-up (the
  // timer's slack) then still finds the thread ahead, and the slack is not
  // charged to the host as if it had worked.
  if ((stamp - now) * c.scale() > kHostLeadWallUs)
    std::this_thread::sleep_until(c.wall_at(stamp - 0.5 * kHostLeadWallUs / c.scale()));
  return stamp;
}

double host_now_us() {
  Clock& c = model_clock();
  double now = c.now_us();
  return t_host_generation == c.generation() ? std::max(now, t_host_virtual_us) : now;
}

void Device::start() {
  std::lock_guard<std::mutex> lock(mu_);
  per_task_us_ = profile().num("engines.scheduler.per_task_us");
  ddr_ = Share{};
  ddr_.bytes_per_us = profile().num("memory.bandwidth_GBps", 0.0) * 1e3;
  links_.clear();
  devices_per_link_ = std::max(1, static_cast<int>(profile().num("topology.devices_per_link", 1)));
  host_link_bytes_per_us_ = profile().num("topology.host_link_GBps", 0.0) * 1e3;
  host_link_running_.clear();
  host_link_pace_[0] = host_link_pace_[1] = 1;
  notices_.clear();
  host_link::forget(this);
  submit_us_ = profile().num("engines.host.submit_us");
  for (int e = 1; e < static_cast<int>(Engine::kCount); ++e) {
    // Link transfers have no engine units: they share their link (link.h).
    int units = e == static_cast<int>(Engine::kLink)
                    ? kLinkTransfers
                    : static_cast<int>(engine_param(static_cast<Engine>(e), "units", 1));
    engines_[e].busy.assign(std::max(units, 1), 0);
    engines_[e].last_stream.assign(std::max(units, 1), 0);
    engines_[e].last_model.assign(std::max(units, 1), 0);
    engines_[e].switch_us = engine_param(static_cast<Engine>(e), "switch_us", 0.0);
    engines_[e].switch_fraction = engine_param(static_cast<Engine>(e), "switch_fraction", 0.0);
    engines_[e].waiting.clear();
  }
  stop_ = false;
  heap_ = {};  // left over only if aclFinalize gave up waiting
  sched_free_ = processed_until_ = 0;
  sleeping_until_ = -1;
  completed_ = 0;
  next_task_id_ = 1;
  running_ = true;
  thread_ = std::thread([this] { run(); });
}

void Device::stop() {
  {
    std::unique_lock<std::mutex> lk(mu_);
    if (!running_) return;
    auto limit = model_clock().deadline_after_ms(10000);
    if (!wait_idle(lk, &limit))
      log(LogLevel::kError,
          "aclFinalize: device work still pending (a blocking callback "
          "nobody processes?); stopping anyway");
    stop_ = true;
    wake_.notify_one();
  }
  thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  running_ = false;
  streams_.clear();
  events_.clear();
}

Device::~Device() {
  // Static destruction in a process that did not (or failed to) call
  // aclFinalize: drop whatever is queued and join the thread, so that exit()
  // never destroys a joinable std::thread.
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    abandon_ = true;
    wake_.notify_one();
  }
  thread_.join();
}

double Device::cpu_seconds() const {
  clockid_t id;
  timespec ts{};
  if (!running_ || pthread_getcpuclockid(const_cast<std::thread&>(thread_).native_handle(), &id) ||
      clock_gettime(id, &ts))
    return 0.0;
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void Device::push(double time, int what, std::shared_ptr<Task> task, uint64_t version) {
  heap_.push(Item{time, seq_++, what, std::move(task), version});
  if (time < sleeping_until_) wake_.notify_one();
}

std::shared_ptr<Task> Device::enqueue(std::unique_lock<std::mutex>&, Stream* stream, TaskKind kind,
                                      TaskSpec spec, double stamp,
                                      const std::shared_ptr<Task>& awaited, const char* api) {
  auto t = std::make_shared<Task>();
  t->id = next_task_id_++;
  t->kind = kind;
  t->stream = stream;
  t->spec = std::move(spec);
  t->api = api;
  if (hazard::enabled()) hazard::on_enqueue(*t, awaited.get());
  if (stream != nullptr) {
    if (!stream->queue.empty()) {
      t->behind = true;
      ++t->pending;
    }
    stream->queue.push_back(t);
    stream->last = t;
  }
  if (awaited && !awaited->done) {
    ++t->pending;
    awaited->dependents.push_back(t);
  }
  t->arrive_at = std::max(stamp, processed_until_);
  push(t->arrive_at, kArrive, t);
  return t;
}

void Device::run() {
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  t_own_device = this;
  std::unique_lock<std::mutex> lk(mu_);
  for (;;) {
    if (abandon_) break;
    double due = heap_.empty() ? kNever : heap_.top().time;
    if (due > model_clock().now_us()) {
      if (notify_hosts_) {
        notify_hosts_ = false;
        done_.notify_all();
      }
      if (stop_ && heap_.empty()) break;
      sleeping_until_ = due;
      if (due == kNever)
        wake_.wait(lk);
      else
        wake_.wait_until(lk, model_clock().wall_at(due));
      sleeping_until_ = -1;
      continue;
    }
    Item item = heap_.top();
    heap_.pop();
    processed_until_ = std::max(processed_until_, item.time);
    handle(lk, item);
    if (!notices_.empty()) tell_other_devices(lk);
    // Hosts hear of completions when the device idles, or every so often
    // while it catches up on a backlog.
    if (notify_hosts_ && ++handled_since_notify_ >= kNotifyEvery) {
      notify_hosts_ = false;
      handled_since_notify_ = 0;
      done_.notify_all();
    }
  }
}

void Device::handle(std::unique_lock<std::mutex>& lk, Item& item) {
  const std::shared_ptr<Task>& t = item.task;
  switch (item.what) {
    case kArrive:
      t->arrived = true;
      if (!t->behind) t->head_at = item.time;
      try_ready(t, item.time);
      break;
    case kDispatch:
      on_dispatched(lk, t, item.time);
      break;
    default:
      if (item.version != t->bw_version) break;  // re-timed by a later re-share
      complete(lk, t, item.time);
      break;
  }
}

void Device::try_ready(const std::shared_ptr<Task>& t, double now) {
  if (!t->arrived || t->pending > 0) return;
  t->ready_at = now;
  if (t->spec.engine == Engine::kLink) {
    // A transfer engine posts link transfers to the link's own queues, not through the
    // task scheduler; its per-transfer cost is in the link's fitted latency (link.h).
    t->dispatch_at = now;
  } else {
    t->dispatch_at = std::max(now, sched_free_) + per_task_us_;
    sched_free_ = t->dispatch_at;
  }
  push(t->dispatch_at, kDispatch, t);
}

void Device::on_dispatched(std::unique_lock<std::mutex>& lk, const std::shared_ptr<Task>& t,
                           double now) {
  if (t->spec.engine == Engine::kControl) {
    t->start_at = now;
    if (t->kind == TaskKind::kCallback) {
      auto it = reports_.find(t->stream->report_thread);
      if (it != reports_.end() && t->stream->subscribed) {
        it->second.tasks.push_back(t);
        it->second.cv.notify_one();
        if (t->blocking) return;  // completed by complete_external()
      }
    }
    complete(lk, t, now);
    return;
  }
  EngineState& e = engines_[static_cast<int>(t->spec.engine)];
  for (size_t u = 0; u < e.busy.size(); ++u) {
    if (!e.busy[u]) {
      start_on_unit(t, static_cast<int>(u), now);
      return;
    }
  }
  e.waiting.push_back(t);
}

// A unit that takes a task of another stream than its last one first spends the
// engine's switch_us plus switch_fraction of its own service time (the AI Core
// loading another stream's model context, and re-filling its on-chip buffers
// the other model instance evicted: a cost that grows with the execution's work;
// docs/shared_bandwidth.md). A model execution whose unit last ran another model first adds
// that execution's model_switch_us (the weights reload, docs/shared_bandwidth.md section 2).
void Device::start_on_unit(const std::shared_ptr<Task>& t, int unit, double now) {
  EngineState& e = engines_[static_cast<int>(t->spec.engine)];
  e.busy[unit] = 1;
  double service = std::max(0.0, t->spec.service_us);
  uint64_t sid = t->stream != nullptr ? t->stream->id : 0;
  if (sid != 0) {
    if (e.last_stream[unit] != 0 && e.last_stream[unit] != sid)
      service += e.switch_us + e.switch_fraction * service;
    e.last_stream[unit] = sid;
  }
  // Another model than the unit's last one: its switch-in time (TaskSpec::model_switch_us).
  if (t->spec.model_key != 0) {
    if (e.last_model[unit] != 0 && e.last_model[unit] != t->spec.model_key)
      service += t->spec.model_switch_us;
    e.last_model[unit] = t->spec.model_key;
  }
  t->unit = unit;
  t->start_at = now;
  if (moves_off_thread(*t)) {
    t->move = mover::start(std::move(t->spec.work));
    t->spec.work = nullptr;
  }
  Share* share = &ddr_;
  double traffic = t->spec.traffic_bytes;
  if (!t->spec.link_key.empty()) {
    share = &links_[t->spec.link_key];
    share->bytes_per_us = t->spec.link_GBps * 1e3;
    traffic = t->spec.link_bytes;
  }
  bool shares = share->bytes_per_us > 0 && traffic > 0 && service > 0;
  int direction = t->spec.engine == Engine::kH2D ? 0 : t->spec.engine == Engine::kD2H ? 1 : -1;
  bool crosses = direction >= 0 && host_link_bytes_per_us_ > 0 && service > 0;
  if (!shares && !crosses) {
    push(now + service, kComplete, t);
    return;
  }
  t->bw_left_us = service;
  t->bw_at = now;
  t->bw_pace = 1;
  if (shares) {
    t->bw_demand = traffic / service;
    t->bw_share = share;
    share->running.push_back(t);
  }
  if (crosses) {
    t->host_link = host_link::index_of(id_, devices_per_link_, direction);
    host_link_join(t, now);
  }
  if (shares)
    reshare(*share, now, t);
  else
    retime(t, now, true);
}

void Device::complete(std::unique_lock<std::mutex>& lk, const std::shared_ptr<Task>& t,
                      double now) {
  if (t->bw_demand > 0) {
    Share& share = *t->bw_share;
    share.running.erase(std::find(share.running.begin(), share.running.end(), t));
    t->bw_demand = 0;
    t->bw_share = nullptr;
    reshare(share, now, nullptr);
  }
  if (t->host_link >= 0) host_link_leave(t, now);
  if (t->move) {
    // A copy whose bytes a mover has been moving since its start: wait for
    // the rest (only when the host CPU is slower than the modelled copy).
    lk.unlock();
    mover::wait(*t->move);
    lk.lock();
    t->move.reset();
  }
  if (t->spec.work || t->hz_pinned) {
    // Bytes move at the modelled completion; other threads may submit meanwhile.
    // Hazard mode: the task's page guards end, and no guard stands in its way.
    lk.unlock();
    uint64_t access = t->hz_pinned ? guard::begin_access(t->spec, t->id) : 0;
    if (t->spec.work) t->spec.work();
    guard::end_access(access);
    lk.lock();
    t->spec.work = nullptr;
  }
  t->end_at = now;
  if (t->kind == TaskKind::kReset && t->event && t->event->record == t->reset_target)
    t->event->record = nullptr;
  if (trace_enabled()) trace_task(*t);
  t->done = true;
  ++completed_;
  notify_hosts_ = true;
  if (t->unit >= 0) {
    EngineState& e = engines_[static_cast<int>(t->spec.engine)];
    e.busy[t->unit] = 0;
    if (!e.waiting.empty()) {
      std::shared_ptr<Task> next = std::move(e.waiting.front());
      e.waiting.pop_front();
      start_on_unit(next, t->unit, now);
    }
  }
  if (Stream* s = t->stream) {
    s->queue.pop_front();
    if (!s->queue.empty()) {
      const std::shared_ptr<Task>& next = s->queue.front();
      next->behind = false;
      --next->pending;
      if (next->arrived) next->head_at = now;
      try_ready(next, now);
    }
  }
  for (const std::shared_ptr<Task>& d : t->dependents) {
    --d->pending;
    try_ready(d, now);
  }
  t->dependents.clear();
}

void Device::complete_external(const std::shared_ptr<Task>& task) {
  std::lock_guard<std::mutex> lock(mu_);
  push(std::max(model_clock().now_us(), processed_until_), kComplete, task);
}

bool Device::wait_done(std::unique_lock<std::mutex>& lk, const std::shared_ptr<Task>& task,
                       const std::chrono::steady_clock::time_point* deadline) {
  bool ok = true;
  while (!task->done && ok) {
    if (deadline == nullptr)
      done_.wait(lk);
    else
      ok = done_.wait_until(lk, *deadline) == std::cv_status::no_timeout || task->done;
  }
  return task->done;
}

bool Device::wait_done_for(std::unique_lock<std::mutex>& lk, const std::shared_ptr<Task>& task,
                           int32_t timeout_ms) {
  if (timeout_ms < 0) return wait_done(lk, task, nullptr);
  auto deadline = model_clock().deadline_after_ms(timeout_ms);
  return wait_done(lk, task, &deadline);
}

bool Device::wait_idle(std::unique_lock<std::mutex>& lk,
                       const std::chrono::steady_clock::time_point* deadline) {
  bool ok = true;
  while (completed_ != submitted() && ok) {
    if (deadline == nullptr)
      done_.wait(lk);
    else
      ok = done_.wait_until(lk, *deadline) == std::cv_status::no_timeout;
  }
  return completed_ == submitted();
}

bool Device::wait_idle_for(std::unique_lock<std::mutex>& lk, int32_t timeout_ms) {
  if (timeout_ms < 0) return wait_idle(lk, nullptr);
  auto deadline = model_clock().deadline_after_ms(timeout_ms);
  return wait_idle(lk, &deadline);
}

Stream* Device::create_stream(Context* ctx, bool is_default) {
  auto s = std::make_unique<Stream>();
  s->id = next_object_id();
  s->ctx = ctx;
  s->is_default = is_default;
  Stream* raw = s.get();
  streams_.emplace(raw, std::move(s));
  trace_name_stream(raw->id, is_default);  // always: profiling may start later (aclprofStart)
  return raw;
}

void Device::destroy_stream(Stream* s) {
  if (s->subscribed) callback_rules::stop_serving(s->report_thread);  // destroyed subscribed
  streams_.erase(s);
}

Stream* Device::find_stream(void* handle) {
  auto it = streams_.find(handle);
  return it == streams_.end() ? nullptr : it->second.get();
}

std::shared_ptr<Event> Device::create_event(uint32_t flags, bool plain, bool ex) {
  auto e = std::make_shared<Event>();
  e->id = next_object_id();
  e->flags = flags;
  e->plain = plain;
  e->ex = ex;
  events_.emplace(e.get(), e);
  return e;
}

size_t Device::limited_events() const {
  size_t n = 0;
  for (const auto& entry : events_)
    if (entry.second->plain || (entry.second->flags & ACL_EVENT_SYNC) != 0) ++n;
  return n;
}

void Device::destroy_event(void* handle) {
  events_.erase(handle);
}

std::shared_ptr<Event> Device::find_event(void* handle) {
  auto it = events_.find(handle);
  return it == events_.end() ? nullptr : it->second;
}

size_t Device::live_streams(bool user_only) const {
  size_t n = 0;
  for (const auto& kv : streams_) n += !(user_only && kv.second->is_default);
  return n;
}

std::vector<Stream*> Device::streams_of(const Context* ctx) const {
  std::vector<Stream*> out;
  for (const auto& kv : streams_)
    if (kv.second->ctx == ctx) out.push_back(kv.second.get());
  return out;
}

}  // namespace sim
