// ascgen_numa.cpp: what ascgen_numa.h declares (README.md: how it is compiled).

#include "ascgen_numa.h"

#include <fstream>
#include <sstream>

namespace ascgen {

std::vector<int> parse_cpulist(const std::string& text) {
  std::vector<int> out;
  std::stringstream all(text);
  std::string item;
  while (std::getline(all, item, ',')) {
    const size_t dash = item.find('-');
    int64_t lo = 0, hi = 0;
    if (!parse_int(item.substr(0, dash), 0, kMaxCpu, &lo)) return {};
    hi = lo;
    if (dash != std::string::npos &&
        (!parse_int(item.substr(dash + 1), 0, kMaxCpu, &hi) || hi < lo))
      return {};
    for (int64_t c = lo; c <= hi; ++c)
      if (std::find(out.begin(), out.end(), static_cast<int>(c)) == out.end())
        out.push_back(static_cast<int>(c));
  }
  return out;
}

std::string read_line(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return "";
  std::string line;
  struct stat st{};
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    char buf[4096];
    ssize_t n = 0;
    do {
      n = read(fd, buf, sizeof buf);
    } while (n < 0 && errno == EINTR);
    if (n > 0) line.assign(buf, static_cast<size_t>(n));
  }
  close(fd);
  return line.substr(0, line.find('\n'));
}

std::string baked(const std::string& table, const std::string& key) {
  std::stringstream all(table);
  std::string item;
  while (std::getline(all, item, ';'))
    if (item.compare(0, key.size() + 1, key + "=") == 0) return item.substr(key.size() + 1);
  return "";
}

int parse_numa_node(const std::string& text, const std::string& source) {
  int64_t node = -1;
  if (text.empty() || text == "-1") return -1;
  if (parse_int(text, 0, kMaxNumaNode, &node)) return static_cast<int>(node);
  std::fprintf(stderr, "warning: %s holds '%s', not a NUMA node 0..%d; taken as unknown\n",
               shown(source, kShownPath).c_str(), shown(text).c_str(), kMaxNumaNode);
  return -1;
}

int numa_node_of_device(const Options& opt, int32_t device) {
  if (!layout_from_sysfs()) {
    const std::string key = "device" + std::to_string(device);
    return parse_numa_node(baked(opt.numa_topology, key), "the simulated host's " + key);
  }
  std::vector<std::string> npus;
  const std::string root = host_root() + "/sys/bus/pci/devices/";
  if (DIR* d = opendir(root.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string dev = root + e->d_name;
      if (e->d_name[0] == '.') continue;
      if (read_line(dev + "/vendor") == "0x19e5" && read_line(dev + "/class").rfind("0x12", 0) == 0)
        npus.push_back(dev);
    }
    closedir(d);
  }
  std::sort(npus.begin(), npus.end());
  if (device < 0 || static_cast<size_t>(device) >= npus.size()) return -1;
  const std::string path = npus[static_cast<size_t>(device)] + "/numa_node";
  return parse_numa_node(read_line(path), path);
}

std::vector<int> numa_node_cpus(const Options& opt, int node) {
  const std::string key = "node" + std::to_string(node);
  const std::string source = layout_from_sysfs()
                                 ? host_root() + "/sys/devices/system/node/" + key + "/cpulist"
                                 : "the simulated host's " + key;
  const std::string text = layout_from_sysfs() ? read_line(source) : baked(opt.numa_topology, key);
  std::vector<int> cpus = parse_cpulist(text);
  if (cpus.empty() && !text.empty())
    std::fprintf(stderr, "warning: %s holds '%s', not a list of CPUs 0..%d; taken as none\n",
                 shown(source, kShownPath).c_str(), shown(text).c_str(), kMaxCpu);
  return cpus;
}

NumaPlacement numa_placement(const Options& opt, int32_t device, const std::vector<int>& pin) {
  NumaPlacement p;
  p.pinned = pin;
  if (opt.numa.empty() || opt.numa == "none") return p;
  p.node = opt.numa == "device" ? numa_node_of_device(opt, device) : std::atoi(opt.numa.c_str());
  if (p.node < 0) {
    std::fprintf(stderr, "warning: device %d: its NUMA node is unknown; threads are not bound\n",
                 device);
    return p;
  }
  p.cpus = numa_node_cpus(opt, p.node);
  std::vector<int> both;
  for (int c : pin)
    if (std::find(p.cpus.begin(), p.cpus.end(), c) != p.cpus.end()) both.push_back(c);
  if (both.empty()) {
    std::fprintf(stderr,
                 "warning: device %d: none of NUMA node %d's CPUs is among this machine's (or "
                 "--pin's); threads are not bound\n",
                 device, p.node);
    return p;
  }
  p.pinned = both;
  return p;
}

std::string cpulist_text(const std::vector<int>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(cpus[i]);
    if (j > i) out += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

void numa_json(Json& j, const NumaPlacement& p) {
  j.key("numa").open('{').key("node");
  if (p.node < 0)
    j.null();
  else
    j.integer(p.node);
  j.key("cpus").str(cpulist_text(p.cpus)).key("pinned").str(cpulist_text(p.pinned)).close('}');
}

void warn_numa_balancing(const char* program) {
  if (read_line(host_root() + "/proc/sys/kernel/numa_balancing") == "1")
    std::fprintf(stderr,
                 "%s: warning: kernel.numa_balancing is 1: the kernel migrates pages between NUMA "
                 "nodes under load (latency spikes); `sysctl -w kernel.numa_balancing=0`, or bind "
                 "with host: {numa: device}\n",
                 program);
}

}  // namespace ascgen
