// ascgen_affinity.h: which CPUs --pin names (big, little, all or a list) and pinning a thread
// to them. No AscendCL here. Emitted verbatim by ascgen; hand-written, reviewed once.
#ifndef ASCGEN_AFFINITY_H_
#define ASCGEN_AFFINITY_H_

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ascgen {

// big / little: CPUs whose cpufreq maximum is the highest / lowest (as mobile inference
// runtimes pick cores); all; or a comma-separated list of CPU numbers.
std::vector<int> cpus_for(const std::string& pin);

void pin_current_thread(const std::vector<int>& cpus);

}  // namespace ascgen

#endif  // ASCGEN_AFFINITY_H_
