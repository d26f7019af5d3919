// Page guards over in-flight copies into pinned host memory (guard.h).
//
// A slot's `tag` is (sequence << 3 | state); every change of state or fields
// bumps the sequence. Fields change only under the table lock, while the slot
// is kBusy; the SIGSEGV handler reads them between two loads of the tag and
// only ever moves a slot kArmed -> kFaulting -> kTripped. Everything is an
// atomic (sequentially consistent): no data race, for ThreadSanitizer too.
#include "rules/guard.h"

#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <mutex>
#include <thread>

#include "report/log.h"

namespace sim {
namespace guard {
namespace {

enum State : uint64_t {
  kFree = 0,
  kBusy = 1,      // fields being written (table lock held)
  kArmed = 2,     // pages inaccessible until the task completes
  kFaulting = 3,  // a host access hit it; the handler is opening the pages
  kTripped = 4,   // the fault is recorded, take_faults() has not seen it yet
  kOpen = 5,      // ended; kept for faults that raced with the ending
};

struct Slot {
  std::atomic<uint64_t> tag{0};
  std::atomic<uintptr_t> page_lo{0}, page_hi{0};  // guarded pages [page_lo, page_hi)
  std::atomic<uintptr_t> base{0}, lo{0}, hi{0};   // the block, the copy's destination
  std::atomic<const char*> api{nullptr};
  std::atomic<int> agent{0};
  std::atomic<uint64_t> task_id{0};
  std::atomic<uintptr_t> fault_addr{0};
  std::atomic<int> fault_access{0};
};

constexpr size_t kSlots = 1024;  // guards at once; more copies in flight go unguarded

Slot g_slots[kSlots];
std::atomic<size_t> g_used{0};  // slots [0, g_used) have been used
std::atomic<bool> g_installed{false};
std::atomic<bool> g_pending{false};  // a slot is kTripped
std::atomic<uintptr_t> g_page{4096};
struct sigaction g_prev;  // the SIGSEGV action before ours (written once, before install)

// A range the simulator itself is touching (begin_access): no guard closes it meanwhile.
struct Window {
  uint64_t token;
  uintptr_t lo, hi;
};

struct Table {
  std::mutex mu;
  std::vector<Window> windows;
  uint64_t next_token = 0;
  size_t next_slot = 0;
  bool warned_full = false;
};

Table& table() {
  static Table* t = new Table;  // never destroyed: the device thread may outlive statics
  return *t;
}

uint64_t tag_of(uint64_t seq, State st) {
  return seq << 3 | st;
}
State state_of(uint64_t tag) {
  return static_cast<State>(tag & 7);
}
uint64_t seq_of(uint64_t tag) {
  return tag >> 3;
}

uintptr_t page_down(uintptr_t a) {
  return a / g_page * g_page;
}
uintptr_t page_up(uintptr_t a) {
  return (a + g_page - 1) / g_page * g_page;
}

void set_prot(uintptr_t lo, uintptr_t hi, int prot) {
  if (lo < hi) mprotect(reinterpret_cast<void*>(lo), hi - lo, prot);
}

// Rewrites a slot that the handler does not change (kFree, kTripped, kOpen)
// under the table lock.
void publish(Slot& s, State st, uintptr_t page_lo, uintptr_t page_hi) {
  uint64_t seq = seq_of(s.tag.load());
  s.tag.store(tag_of(seq + 1, kBusy));
  s.page_lo.store(page_lo);
  s.page_hi.store(page_hi);
  s.tag.store(tag_of(seq + 2, st));
}

// An armed slot's pages become accessible and the slot `to`; false if the
// handler got there first (it opens the pages itself).
bool end_armed(Slot& s, State to) {
  uint64_t t = s.tag.load();
  if (state_of(t) != kArmed) return false;
  set_prot(s.page_lo.load(), s.page_hi.load(), PROT_READ | PROT_WRITE);
  return s.tag.compare_exchange_strong(t, tag_of(seq_of(t) + 1, to));
}

void wait_not_faulting(Slot& s) {
  while (state_of(s.tag.load()) == kFaulting) std::this_thread::yield();
}

// Makes [lo, hi) inaccessible except where a window is open. Table lock held.
void protect_pages(Table& t, uintptr_t lo, uintptr_t hi) {
  std::vector<Window> open;
  for (const Window& w : t.windows)
    if (w.lo < hi && lo < w.hi) open.push_back(w);
  std::sort(open.begin(), open.end(), [](const Window& a, const Window& b) { return a.lo < b.lo; });
  uintptr_t cur = lo;
  for (const Window& w : open) {
    set_prot(cur, std::min(w.lo, hi), PROT_NONE);
    cur = std::max(cur, w.hi);
  }
  set_prot(cur, hi, PROT_NONE);
}

// --- the SIGSEGV handler: atomics and mprotect only ---

int access_of(void* ctx) {
#if defined(__x86_64__)
  // Page-fault error code: bit 1 set for a write.
  return (static_cast<ucontext_t*>(ctx)->uc_mcontext.gregs[REG_ERR] & 2) ? 2 : 1;
#else
  (void)ctx;
  return 0;
#endif
}

// Reads a slot's page range consistently; false if it changed meanwhile.
bool read_pages(const Slot& s, uint64_t* tag, uintptr_t* lo, uintptr_t* hi) {
  *tag = s.tag.load();
  *lo = s.page_lo.load();
  *hi = s.page_hi.load();
  return s.tag.load() == *tag && state_of(*tag) != kBusy;
}

// True if the fault at `a` was a guard's (the access may be retried).
bool claim(uintptr_t a, int access) {
  size_t n = g_used.load();
  for (int attempt = 0; attempt < 1000; ++attempt) {
    bool changed = false;
    for (size_t i = 0; i < n; ++i) {
      Slot& s = g_slots[i];
      uint64_t t;
      uintptr_t lo, hi;
      if (!read_pages(s, &t, &lo, &hi)) {
        changed = true;  // being rewritten: look again
        continue;
      }
      State st = state_of(t);
      if ((st != kArmed && st != kFaulting) || a < lo || a >= hi) continue;
      if (st == kFaulting) return true;  // another thread is opening these pages: retry
      if (!s.tag.compare_exchange_strong(t, tag_of(seq_of(t) + 1, kFaulting))) {
        changed = true;
        continue;
      }
      s.fault_addr.store(a);
      s.fault_access.store(access);
      set_prot(lo, hi, PROT_READ | PROT_WRITE);
      s.tag.store(tag_of(seq_of(t) + 2, kTripped));
      g_pending.store(true);
      return true;
    }
    if (changed) continue;
    // A guard that has just ended (its pages may not be open yet, or were
    // closed again by a racing end_access()): open the page and retry.
    for (size_t i = 0; i < n; ++i) {
      uint64_t t;
      uintptr_t lo, hi;
      if (!read_pages(g_slots[i], &t, &lo, &hi)) continue;
      State st = state_of(t);
      if ((st == kTripped || st == kOpen) && lo <= a && a < hi)
        return mprotect(reinterpret_cast<void*>(page_down(a)), g_page, PROT_READ | PROT_WRITE) == 0;
    }
    return false;
  }
  return false;
}

void chain(int sig, siginfo_t* info, void* ctx) {
  if (g_prev.sa_flags & SA_SIGINFO) {
    if (g_prev.sa_sigaction != nullptr) {
      g_prev.sa_sigaction(sig, info, ctx);
      return;
    }
  } else if (g_prev.sa_handler != SIG_DFL && g_prev.sa_handler != SIG_IGN) {
    g_prev.sa_handler(sig);
    return;
  }
  // The default action: restore it; the access faults again and kills.
  struct sigaction dfl{};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
  if (info == nullptr || info->si_code <= 0) raise(sig);  // sent, not a fault
}

void on_segv(int sig, siginfo_t* info, void* ctx) {
  int saved = errno;
  bool mine = info != nullptr && info->si_code == SEGV_ACCERR && g_used.load() > 0 &&
              claim(reinterpret_cast<uintptr_t>(info->si_addr), access_of(ctx));
  errno = saved;
  if (!mine) chain(sig, info, ctx);
}

}  // namespace

size_t page_size() {
  static const size_t kPage = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return kPage;
}

void configure() {
  g_page.store(page_size());
  disarm_all();
  Table& t = table();
  {
    std::lock_guard<std::mutex> lock(t.mu);
    for (size_t i = 0; i < g_used.load(); ++i) publish(g_slots[i], kFree, 0, 0);
    t.windows.clear();
    t.warned_full = false;
    g_pending.store(false);
  }
  if (g_installed.load()) return;
  struct sigaction sa{};
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGSEGV, nullptr, &g_prev) != 0 || sigaction(SIGSEGV, &sa, nullptr) != 0) {
    log(LogLevel::kWarn,
        "hazard detector: cannot install the SIGSEGV handler: plain host "
        "accesses to in-flight copies go undetected");
    return;
  }
  g_installed.store(true);
}

void arm(uintptr_t base, uintptr_t lo, uintptr_t hi, const void* dst, size_t size,
         const Owner& owner) {
  if (!g_installed.load()) return;
  uintptr_t plo = page_up(lo), phi = page_down(hi);
  if (plo >= phi) return;
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  Slot* slot = nullptr;
  for (size_t k = 0; k < kSlots && slot == nullptr; ++k) {
    size_t i = (t.next_slot + k) % kSlots;
    State st = state_of(g_slots[i].tag.load());
    if (st == kFree || st == kOpen) slot = &g_slots[i];
  }
  if (slot == nullptr) {
    if (!t.warned_full)
      log(LogLevel::kWarn,
          "hazard detector: %zu copies into pinned memory in flight: "
          "later ones are not page-guarded",
          kSlots);
    t.warned_full = true;
    return;
  }
  size_t i = static_cast<size_t>(slot - g_slots);
  t.next_slot = (i + 1) % kSlots;
  Slot& s = *slot;
  uint64_t seq = seq_of(s.tag.load());
  s.tag.store(tag_of(seq + 1, kBusy));
  s.page_lo.store(plo);
  s.page_hi.store(phi);
  s.base.store(base);
  s.lo.store(reinterpret_cast<uintptr_t>(dst));
  s.hi.store(reinterpret_cast<uintptr_t>(dst) + size);
  s.api.store(owner.api);
  s.agent.store(owner.agent);
  s.task_id.store(owner.task_id);
  s.fault_addr.store(0);
  s.fault_access.store(0);
  if (g_used.load() <= i) g_used.store(i + 1);
  s.tag.store(tag_of(seq + 2, kArmed));  // published before the pages close
  protect_pages(t, plo, phi);
}

uint64_t begin_access(const TaskSpec& spec, uint64_t task_id) {
  if (!g_installed.load()) return 0;
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  uint64_t token = ++t.next_token;
  size_t first = t.windows.size();
  for (const auto* list : {&spec.reads, &spec.writes})
    for (const ByteRange& r : *list) {
      uintptr_t a = reinterpret_cast<uintptr_t>(r.addr);
      if (r.size > 0) t.windows.push_back(Window{token, page_down(a), page_up(a + r.size)});
    }
  for (size_t i = 0; i < g_used.load(); ++i) {
    Slot& s = g_slots[i];
    if (state_of(s.tag.load()) != kArmed) continue;
    if (task_id != 0 && s.task_id.load() == task_id) {
      end_armed(s, kOpen);  // the copy completes: its guard ends
      continue;
    }
    uintptr_t lo = s.page_lo.load(), hi = s.page_hi.load();
    for (size_t w = first; w < t.windows.size(); ++w)
      set_prot(std::max(lo, t.windows[w].lo), std::min(hi, t.windows[w].hi),
               PROT_READ | PROT_WRITE);
  }
  return token;
}

void end_access(uint64_t token) {
  if (token == 0) return;
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  std::vector<Window> done;
  auto mid = std::stable_partition(t.windows.begin(), t.windows.end(),
                                   [token](const Window& w) { return w.token != token; });
  done.assign(mid, t.windows.end());
  t.windows.erase(mid, t.windows.end());
  for (size_t i = 0; i < g_used.load(); ++i) {
    Slot& s = g_slots[i];
    if (state_of(s.tag.load()) != kArmed) continue;
    uintptr_t lo = s.page_lo.load(), hi = s.page_hi.load();
    for (const Window& w : done)
      if (lo < w.hi && w.lo < hi) protect_pages(t, std::max(lo, w.lo), std::min(hi, w.hi));
  }
}

bool covers(const void* p, size_t n) {
  if (!g_installed.load() || n == 0) return false;
  uintptr_t a = reinterpret_cast<uintptr_t>(p);
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  for (size_t i = 0; i < g_used.load(); ++i) {
    const Slot& s = g_slots[i];
    State st = state_of(s.tag.load());
    if ((st == kArmed || st == kFaulting) && s.page_lo.load() < a + n && a < s.page_hi.load())
      return true;
  }
  return false;
}

void forget(uintptr_t base) {
  if (!g_installed.load()) return;
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  for (size_t i = 0; i < g_used.load(); ++i) {
    Slot& s = g_slots[i];
    if (s.base.load() != base) continue;
    for (;;) {
      uint64_t tag = s.tag.load();
      State st = state_of(tag);
      if (st == kArmed && !end_armed(s, kFree)) continue;  // the handler took it: look again
      wait_not_faulting(s);
      st = state_of(s.tag.load());
      // A recorded fault is still reported, but covers no address any more.
      if (st == kTripped) publish(s, kTripped, 0, 0);
      if (st == kOpen) publish(s, kFree, 0, 0);
      break;
    }
  }
}

void disarm_all() {
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  for (size_t i = 0; i < g_used.load(); ++i) {
    Slot& s = g_slots[i];
    while (state_of(s.tag.load()) == kArmed && !end_armed(s, kOpen)) {
    }
    wait_not_faulting(s);
  }
}

std::vector<Fault> take_faults() {
  std::vector<Fault> out;
  if (!g_pending.load()) return out;
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  g_pending.store(false);
  for (size_t i = 0; i < g_used.load(); ++i) {
    Slot& s = g_slots[i];
    if (state_of(s.tag.load()) != kTripped) continue;
    out.push_back(Fault{Owner{s.api.load(), s.agent.load(), s.task_id.load()}, s.base.load(),
                        s.lo.load(), s.hi.load(), s.fault_addr.load(), s.fault_access.load()});
    publish(s, kOpen, s.page_lo.load(), s.page_hi.load());
  }
  return out;
}

}  // namespace guard
}  // namespace sim
