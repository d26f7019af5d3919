// ascgen_signals.h: SIGINT and SIGTERM stop the run (the report is still written, marked
// interrupted); a second one stops the program at once. No AscendCL here.
// Emitted verbatim by ascgen; hand-written, reviewed once, shared by every pipeline.
#ifndef ASCGEN_SIGNALS_H_
#define ASCGEN_SIGNALS_H_

#include <signal.h>
#include <unistd.h>

#include <atomic>

namespace ascgen {

inline std::atomic<int>& stop_signal() {
  static std::atomic<int> sig{0};
  return sig;
}

extern "C" inline void ascgen_on_signal(int sig) {
  if (stop_signal().exchange(sig) != 0) _exit(128 + sig);  // a second signal: stop at once
}

inline void install_signal_handlers() {
  struct sigaction sa{};
  sa.sa_handler = ascgen_on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

}  // namespace ascgen

#endif  // ASCGEN_SIGNALS_H_
