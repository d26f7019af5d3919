// One simulated machine shared by several processes (machine.h).
#include "links/machine.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <utility>

#include "core/device.h"
#include "links/host_link.h"

namespace sim {
namespace machine {
namespace {

constexpr int kLinks = kMaxDevices * host_link::kDirections;
constexpr int kCopies = 64;      // copies on one link at once, every process together
constexpr uint32_t kLayout = 1;  // the segment's layout: bump when it changes
constexpr long kWatchNs = 50 * 1000 * 1000;

struct Copy {
  int32_t pid;
  uint64_t key;
  double demand;  // bytes per model us at full pace
};

struct Link {
  pthread_mutex_t mu;  // process-shared, robust
  double bytes_per_us;
  double pace;
  int32_t count;
  Copy copies[kCopies];
};

// Zero-filled by ftruncate; the first process to attach sets it up.
struct Segment {
  std::atomic<uint32_t> state;       // 0 new, 1 being set up, 2 ready
  std::atomic<uint32_t> generation;  // bumped at every change; the watchers' futex word
  std::atomic<int32_t> attached;     // processes attached now
  uint32_t layout;
  Link links[kLinks];
};
static_assert(std::atomic<uint32_t>::is_always_lock_free &&
                  std::atomic<int32_t>::is_always_lock_free,
              "the segment's counters must be plain words other processes can read");

struct State {
  std::atomic<Segment*> segment{nullptr};
  std::string path;
  std::thread watcher;
  std::atomic<bool> stop{false};
  std::function<void()> changed;
};

State& state() {
  static State s;
  return s;
}

uint32_t* word(std::atomic<uint32_t>& a) {
  return reinterpret_cast<uint32_t*>(&a);
}

void wake_watchers(Segment* seg) {
  seg->generation.fetch_add(1);
  syscall(SYS_futex, word(seg->generation), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

// Locks a link's mutex; a process that died holding it left the link as it
// was between two whole changes (every change is made under the lock), so
// marking it consistent is enough.
class Locked {
 public:
  explicit Locked(Link& l) : l_(l) {
    if (pthread_mutex_lock(&l_.mu) == EOWNERDEAD) pthread_mutex_consistent(&l_.mu);
  }
  ~Locked() { pthread_mutex_unlock(&l_.mu); }
  Locked(const Locked&) = delete;
  Locked& operator=(const Locked&) = delete;

 private:
  Link& l_;
};

bool alive(int32_t pid) {
  return pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH;
}

// With the link locked: drops the copies of processes that are gone, sets the
// pace, tells every process.
double reshare(Segment* seg, Link& l) {
  double demand = 0;
  for (int i = 0; i < l.count;) {
    if (!alive(l.copies[i].pid)) {
      l.copies[i] = l.copies[--l.count];
      continue;
    }
    demand += l.copies[i].demand;
    ++i;
  }
  l.pace = l.bytes_per_us > 0 && demand > l.bytes_per_us ? l.bytes_per_us / demand : 1.0;
  wake_watchers(seg);
  return l.pace;
}

Link* link_at(Segment* seg, int link) {
  return seg != nullptr && link >= 0 && link < kLinks ? &seg->links[link] : nullptr;
}

void watch(Segment* seg) {
  State& st = state();
  uint32_t seen = seg->generation.load();
  while (!st.stop.load()) {
    timespec timeout{0, kWatchNs};
    syscall(SYS_futex, word(seg->generation), FUTEX_WAIT, seen, &timeout, nullptr, 0);
    uint32_t now = seg->generation.load();
    if (now == seen || st.stop.load()) continue;
    seen = now;
    st.changed();
  }
}

bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > 100) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
          c == '_' || c == '-'))
      return false;
  return true;
}

// Sets up a new segment's mutexes, or waits for the process doing so.
bool set_up(Segment* seg, std::string* error) {
  uint32_t fresh = 0;
  if (seg->state.compare_exchange_strong(fresh, 1)) {
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
    for (Link& l : seg->links) {
      pthread_mutex_init(&l.mu, &attr);
      l.pace = 1;
    }
    pthread_mutexattr_destroy(&attr);
    seg->layout = kLayout;
    seg->state.store(2);
    return true;
  }
  auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (seg->state.load() != 2) {
    if (std::chrono::steady_clock::now() > give_up) {
      *error = "its shared memory was never set up (a process died setting it up?): remove it";
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (seg->layout != kLayout) {
    *error = "its shared memory has another layout (another simulator version): remove it";
    return false;
  }
  return true;
}

}  // namespace

bool attach(std::function<void()> changed, std::string* error) {
  const char* env = std::getenv("ACL_SIM_MACHINE");
  if (env == nullptr || *env == '\0') return true;
  State& st = state();
  if (st.segment.load() != nullptr) return true;
  if (!valid_name(env)) {
    *error = std::string("ACL_SIM_MACHINE='") + env +
             "': give 1 to 100 letters, digits, '.', '_' or '-'";
    return false;
  }
  std::string path = std::string("/acl_sim_machine.") + env;
  int fd = shm_open(path.c_str(), O_RDWR | O_CREAT, 0600);
  if (fd < 0 || ftruncate(fd, sizeof(Segment)) != 0) {
    *error = "ACL_SIM_MACHINE: cannot open /dev/shm" + path + ": " + std::strerror(errno);
    if (fd >= 0) close(fd);
    return false;
  }
  void* p = mmap(nullptr, sizeof(Segment), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) {
    *error = "ACL_SIM_MACHINE: cannot map /dev/shm" + path + ": " + std::strerror(errno);
    return false;
  }
  Segment* seg = static_cast<Segment*>(p);
  if (!set_up(seg, error)) {
    *error = "ACL_SIM_MACHINE: /dev/shm" + path + ": " + *error;
    munmap(p, sizeof(Segment));
    return false;
  }
  seg->attached.fetch_add(1);
  st.path = path;
  st.changed = std::move(changed);
  st.stop = false;
  st.segment = seg;
  st.watcher = std::thread(watch, seg);
  return true;
}

void detach() {
  State& st = state();
  Segment* seg = st.segment.load();
  if (seg == nullptr) return;
  st.stop = true;
  wake_watchers(seg);
  st.watcher.join();
  st.segment = nullptr;
  const int32_t self = getpid();
  for (Link& l : seg->links) {
    Locked lock(l);
    bool mine = false;
    for (int i = 0; i < l.count;) {
      if (l.copies[i].pid == self) {
        l.copies[i] = l.copies[--l.count];
        mine = true;
      } else {
        ++i;
      }
    }
    if (mine) reshare(seg, l);
  }
  bool last = seg->attached.fetch_sub(1) == 1;
  munmap(seg, sizeof(Segment));
  if (last) shm_unlink(st.path.c_str());
}

bool shared() {
  return state().segment.load() != nullptr;
}

double join(int link, double bytes_per_us, uint64_t key, double demand) {
  Segment* seg = state().segment.load();
  Link* l = link_at(seg, link);
  if (l == nullptr) return 1.0;
  Locked lock(*l);
  l->bytes_per_us = bytes_per_us;
  if (l->count < kCopies) l->copies[l->count++] = Copy{getpid(), key, demand};
  return reshare(seg, *l);
}

double leave(int link, uint64_t key) {
  Segment* seg = state().segment.load();
  Link* l = link_at(seg, link);
  if (l == nullptr) return 1.0;
  Locked lock(*l);
  const int32_t self = getpid();
  for (int i = 0; i < l->count; ++i) {
    if (l->copies[i].pid == self && l->copies[i].key == key) {
      l->copies[i] = l->copies[--l->count];
      break;
    }
  }
  return reshare(seg, *l);
}

bool remove(const std::string& name) {
  if (!valid_name(name)) return false;
  shm_unlink(("/acl_sim_machine." + name).c_str());
  return true;
}

double pace(int link) {
  Link* l = link_at(state().segment.load(), link);
  if (l == nullptr) return 1.0;
  Locked lock(*l);
  return l->pace;
}

}  // namespace machine
}  // namespace sim
