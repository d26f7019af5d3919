// ascgen_affinity.cpp: what ascgen_affinity.h declares (README.md: how it is compiled).

#include "ascgen_affinity.h"

#include <fstream>

namespace ascgen {

std::vector<int> cpus_for(const std::string& pin) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  std::vector<int> cpus;
  if (pin.empty() || pin == "all") {
    for (int c = 0; c < n; ++c) cpus.push_back(c);
    return cpus;
  }
  if (pin == "big" || pin == "little") {
    std::vector<std::pair<long, int>> freq;
    for (int c = 0; c < n; ++c) {
      std::ifstream f("/sys/devices/system/cpu/cpu" + std::to_string(c) +
                      "/cpufreq/cpuinfo_max_freq");
      long khz = 0;
      if (!(f >> khz)) khz = 0;
      freq.push_back({khz, c});
    }
    long want = 0;
    for (auto& fc : freq)
      want = (pin == "big") ? std::max(want, fc.first)
                            : (want == 0 ? fc.first : std::min(want, fc.first));
    for (auto& fc : freq)
      if (fc.first == want) cpus.push_back(fc.second);
    return cpus;
  }
  size_t pos = 0;
  while (pos < pin.size()) {
    size_t comma = pin.find(',', pos);
    std::string item =
        pin.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    char* end = nullptr;
    long c = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || c < 0 || c >= n)
      throw std::invalid_argument("--pin: '" + item + "' is not a CPU of this machine (0.." +
                                  std::to_string(n - 1) + ")");
    cpus.push_back(static_cast<int>(c));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return cpus;
}

void pin_current_thread(const std::vector<int>& cpus) {
  if (cpus.empty()) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(c, &set);
  sched_setaffinity(0, sizeof(set), &set);
}

}  // namespace ascgen
