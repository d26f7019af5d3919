// The device timeline: a discrete-event model of one Ascend device run in real
// time by one device thread.
//
// Every task passes three points, each an item in a time-ordered heap:
//   arrive   (the submit stamp: host time plus engines.host.submit_us)
//   dispatch (ready = stream predecessor and awaited events complete, then the
//             single scheduler spends engines.scheduler.per_task_us on it)
//   complete (a unit of its engine was free; start + service_us)
// The device thread sleeps (condition variable, absolute deadline) until the
// earliest item is due and then handles it at the item's model time, so a late
// wake-up delays only when the host sees a completion, never the model.
// All state below is guarded by Device::mu().
#ifndef ACL_SIM_SRC_DEVICE_H_
#define ACL_SIM_SRC_DEVICE_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <queue>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "acl/acl_rt.h"
#include "core/task.h"

namespace sim {

namespace mover {
struct Job;
}
struct Context;
struct Event;
struct Stream;

enum class TaskKind { kWork, kRecord, kWait, kReset, kCallback };

struct Task {
  uint64_t id = 0;
  TaskKind kind = TaskKind::kWork;
  Stream* stream = nullptr;  // nullptr for submit_sync tasks
  TaskSpec spec;
  // Dependencies.
  int pending = 0;      // unfinished stream predecessor + awaited tasks
  bool behind = false;  // stream predecessor not yet complete
  bool arrived = false;
  std::vector<std::shared_ptr<Task>> dependents;
  // Kind-specific.
  uint64_t event_id = 0;               // record / wait / reset (trace label)
  std::shared_ptr<Event> event;        // reset only (a record must not own its event)
  std::shared_ptr<Task> reset_target;  // reset: the record it clears
  aclrtCallback callback = nullptr;
  void* user_data = nullptr;
  bool blocking = false;
  // Timeline (model microseconds).
  double arrive_at = 0, head_at = 0, ready_at = 0, dispatch_at = 0, start_at = 0, end_at = 0;
  int unit = -1;
  bool done = false;
  std::shared_ptr<mover::Job> move;  // a large copy's bytes, moving since its start (mover.h)
  // Shared memory bandwidth (docs/shared_bandwidth.md): while it runs, the
  // engine time still to go at full pace, when that was last updated, its
  // demand (traffic bytes per engine us), and the version of its pending
  // completion item (a re-share pushes a new one and makes older ones stale).
  double bw_left_us = 0, bw_at = 0, bw_demand = 0;
  uint64_t bw_version = 0;
  struct Share* bw_share = nullptr;  // the DDR or the link it shares while it runs
  // Its progress per engine us: the slower of its share's pace and its host link's.
  double bw_pace = 1;
  int host_link = -1;  // the host link (host_link.h) an H2D or D2H copy crosses, -1: none
  // Hazard detector (ACL_SIM_HAZARD): the public API and the task's clock.
  const char* api = nullptr;
  int hz_agent = -1;
  uint32_t hz_epoch = 0;
  std::vector<uint32_t> hz_vc;
  bool hz_pinned = false;  // touches pinned host memory (page guards, guard.h)
};

struct Stream {
  uint64_t id = 0;
  Context* ctx = nullptr;
  bool is_default = false;
  std::deque<std::shared_ptr<Task>> queue;  // submitted, not complete; front runs
  std::shared_ptr<Task> last;               // last submitted task
  bool subscribed = false;
  uint64_t report_thread = 0;
  int hz_agent = -1;  // hazard detector's agent, -1 until its first task
  std::string name;   // aclsimSetStreamName
};

struct Event {
  uint64_t id = 0;
  uint32_t flags = 0;
  bool plain = true;             // aclrtCreateEvent (no flag)
  bool ex = false;               // aclrtCreateEventExWithFlag
  std::shared_ptr<Task> record;  // last record submitted; null: never / reset
  // Classic-event protocol at submission (api_event.cpp, rules.h): recorded
  // and not reset since; stream waits on the current record; reset since the
  // last record; the stream that waited (id and label: it may be destroyed).
  bool armed = false;
  int waiters = 0;
  bool reset_since_record = false;
  uint64_t waiter_stream = 0;
  std::string waiter_label;
};

// A bandwidth that the tasks running at the same moment share by processor
// sharing (docs/shared_bandwidth.md): the device's DDR, or one link (link.h).
struct Share {
  double bytes_per_us = 0;  // capacity; 0: not shared
  double pace = 1;          // progress of every running task per us (<= 1)
  std::vector<std::shared_ptr<Task>> running;
};

struct ReportQueue {
  int subscriptions = 0;  // streams this thread serves
  std::deque<std::shared_ptr<Task>> tasks;
  std::condition_variable cv;
};

class Device {
 public:
  void start();
  bool running() const { return running_; }  // started and not stopped (Runtime::mu)
  int32_t id() const { return id_; }
  void stop();  // waits for queued work, then joins the device thread
  ~Device();    // a process that never finalized: abandon the work, join the thread
  std::mutex& mu() { return mu_; }

  // Submission; the caller holds mu() and has charged the host cost.
  std::shared_ptr<Task> enqueue(std::unique_lock<std::mutex>& lk, Stream* stream, TaskKind kind,
                                TaskSpec spec, double stamp,
                                const std::shared_ptr<Task>& awaited = nullptr,
                                const char* api = nullptr);
  // Waits until `task` completed or `deadline` passed; false on timeout.
  bool wait_done(std::unique_lock<std::mutex>& lk, const std::shared_ptr<Task>& task,
                 const std::chrono::steady_clock::time_point* deadline);
  // The same with an API timeout: -1 waits forever, > 0 is model milliseconds.
  bool wait_done_for(std::unique_lock<std::mutex>& lk, const std::shared_ptr<Task>& task,
                     int32_t timeout_ms);
  bool wait_idle(std::unique_lock<std::mutex>& lk,
                 const std::chrono::steady_clock::time_point* deadline);
  // The same with an API timeout, as wait_done_for.
  bool wait_idle_for(std::unique_lock<std::mutex>& lk, int32_t timeout_ms);
  // A blocking callback returned on the host: complete its task now.
  void complete_external(const std::shared_ptr<Task>& task);
  // Another device's copy started or ended on a host link this device's copies
  // cross, at model time `now`: re-time them at the links' new pace (host_link.h).
  void host_link_changed(double now);

  // Objects (handles are the raw pointers).
  Stream* create_stream(Context* ctx, bool is_default);
  void destroy_stream(Stream* s);
  Stream* find_stream(void* handle);
  std::shared_ptr<Event> create_event(uint32_t flags, bool plain, bool ex);
  void destroy_event(void* handle);
  void destroy_all_events() { events_.clear(); }
  std::shared_ptr<Event> find_event(void* handle);
  size_t live_streams(bool user_only) const;
  size_t live_events() const { return events_.size(); }
  // The events limits.max_events counts: aclrtCreateEvent's and those created with
  // ACL_EVENT_SYNC; ACL_EVENT_TIME_LINE alone is unlimited (event.limit's sources).
  size_t limited_events() const;
  std::vector<Stream*> streams_of(const Context* ctx) const;

  // Report queues are never erased: a thread may be blocked on one.
  ReportQueue& reports(uint64_t thread) { return reports_[thread]; }

  uint64_t submitted() const { return next_task_id_ - 1; }
  uint64_t completed() const { return completed_; }
  double cpu_seconds() const;
  // engines.host.submit_us, read once per aclInit (hot path of every async call).
  double submit_us() const { return submit_us_; }

 private:
  static constexpr int kArrive = 0, kDispatch = 1, kComplete = 2;  // Item::what
  struct Item {
    double time;
    uint64_t seq;
    int what;  // kArrive, kDispatch, kComplete
    std::shared_ptr<Task> task;
    uint64_t version = 0;  // complete: the task's bw_version when pushed
    bool operator>(const Item& o) const { return time != o.time ? time > o.time : seq > o.seq; }
  };
  struct EngineState {
    std::vector<char> busy;
    std::vector<uint64_t> last_stream;  // per unit: stream id of its last task (0: none)
    double switch_us = 0;               // engines.<e>.switch_us: added when that stream changes
    double switch_fraction = 0;         // engines.<e>.switch_fraction: x service, likewise
    std::vector<uint64_t> last_model;   // per unit: TaskSpec::model_key of its last task (0: none)
    std::deque<std::shared_ptr<Task>> waiting;
  };

  void run();
  void push(double time, int what, std::shared_ptr<Task> task, uint64_t version = 0);
  // Re-divides the memory bandwidth among the running tasks at `now` and
  // re-times their completions (docs/shared_bandwidth.md).
  void reshare(Share& share, double now, const std::shared_ptr<Task>& added);
  // Progress of a sharing task up to `now` at its pace; its pace now; a new
  // completion when the pace changed (or `force`).
  void advance(Task& t, double now);
  double pace_of(const Task& t) const;
  void retime(const std::shared_ptr<Task>& t, double now, bool force);
  // An H2D or D2H copy joins or leaves its host link: re-time this device's
  // copies on host links and tell the other devices on that link (notices_).
  void host_link_join(const std::shared_ptr<Task>& t, double now);
  void host_link_leave(const std::shared_ptr<Task>& t, double now);
  void host_link_retime(double now);
  void tell_other_devices(std::unique_lock<std::mutex>& lk);
  void handle(std::unique_lock<std::mutex>& lk, Item& item);
  void try_ready(const std::shared_ptr<Task>& t, double now);
  void on_dispatched(std::unique_lock<std::mutex>& lk, const std::shared_ptr<Task>& t, double now);
  void start_on_unit(const std::shared_ptr<Task>& t, int unit, double now);
  void complete(std::unique_lock<std::mutex>& lk, const std::shared_ptr<Task>& t, double now);

  friend struct DeviceTable;
  int32_t id_ = 0;  // set once, before any of its threads exists
  std::mutex mu_;
  std::condition_variable wake_;  // device thread
  std::condition_variable done_;  // host waiters
  std::thread thread_;
  bool stop_ = false;
  bool abandon_ = false;  // process exit without aclFinalize
  bool running_ = false;
  double sleeping_until_ = 0;  // < 0 while the device thread is awake
  double processed_until_ = 0;
  double sched_free_ = 0;
  Share ddr_;                           // memory.bandwidth_GBps x 1000; 0: not shared
  std::map<std::string, Share> links_;  // by TaskSpec::link_key (link.h)
  // Host links (host_link.h): topology figures, this device's copies on them,
  // their last pace per direction, and the devices to tell of a change.
  int devices_per_link_ = 1;
  double host_link_bytes_per_us_ = 0;  // 0: the profile has no host link
  std::vector<std::shared_ptr<Task>> host_link_running_;
  double host_link_pace_[2] = {1, 1};
  std::vector<std::pair<Device*, double>> notices_;
  double per_task_us_ = 0;
  double submit_us_ = 0;
  bool notify_hosts_ = false;
  int handled_since_notify_ = 0;
  uint64_t seq_ = 0;
  uint64_t next_task_id_ = 1;
  uint64_t completed_ = 0;

  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap_;
  EngineState engines_[static_cast<int>(Engine::kCount)];
  std::unordered_map<void*, std::unique_ptr<Stream>> streams_;
  std::unordered_map<void*, std::shared_ptr<Event>> events_;
  std::unordered_map<uint64_t, ReportQueue> reports_;
};

// Several devices in one process: each its own engines, timeline, streams and events.
constexpr int32_t kMaxDevices = 64;
// Device `id` (0 <= id < kMaxDevices).
Device& device_at(int32_t id);
// The device of the calling thread: its current context's, the device thread's own, else 0.
Device& device();
uint64_t next_object_id();

// Charges engines.host.submit_us to the calling thread and returns the model
// time at which its call reaches the device. Call without holding Device::mu().
double charge_host();
// The calling thread's host clock: the model time its next call would start
// from (ahead of the model clock while its charged calls run ahead of it).
double host_now_us();

}  // namespace sim

#endif  // ACL_SIM_SRC_DEVICE_H_
