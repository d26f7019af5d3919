// Processes of one simulated machine (src/links/machine.h) share its cards' host
// links: `sim_machine` starts copies of itself (`sim_machine copy DEVICE DIR`),
// each driving one device of a card whose link carries one copy engine's worth
// each way, and compares the model time of one copy alone and beside another.
// Children start their copy together: each says it is ready (DIR/ready.DEVICE)
// and waits for DIR/go.
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "session.h"

extern char** environ;

namespace {

// As test_host_link.cpp: slow copy engines, two devices per card, the card's
// link as fast as one engine.
const std::map<std::string, std::string> kCard = {
    {"engines.h2d.bandwidth_GBps", "0.1"},
    {"engines.h2d.latency_us", "0"},
    {"topology.devices", "4"},
    {"topology.devices_per_link", "2"},
    {"topology.host_link_GBps", "0.1"},
};

bool exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

bool wait_for(const std::string& path) {
  auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!exists(path)) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return true;
}

// The child: one 4 MiB host-to-device copy on `device`, its model us into DIR/took.DEVICE.
int copy(int32_t device, const std::string& dir) {
  const size_t bytes = 4 << 20;
  aclrtStream stream = nullptr;
  aclrtEvent before = nullptr, after = nullptr;
  void *dev = nullptr, *host = nullptr;
  bool ok = aclInit(nullptr) == ACL_SUCCESS && aclrtSetDevice(device) == ACL_SUCCESS &&
            aclrtCreateStream(&stream) == ACL_SUCCESS && aclrtCreateEvent(&before) == ACL_SUCCESS &&
            aclrtCreateEvent(&after) == ACL_SUCCESS &&
            aclrtMalloc(&dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS &&
            aclrtMallocHost(&host, bytes) == ACL_SUCCESS;
  std::ofstream(dir + "/ready." + std::to_string(device)) << "ready\n";
  ok =
      ok && wait_for(dir + "/go") && aclrtRecordEvent(before, stream) == ACL_SUCCESS &&
      aclrtMemcpyAsync(dev, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream) == ACL_SUCCESS &&
      aclrtRecordEvent(after, stream) == ACL_SUCCESS &&
      aclrtSynchronizeStream(stream) == ACL_SUCCESS;
  float ms = 0;
  ok = ok && aclrtEventElapsedTime(&ms, before, after) == ACL_SUCCESS;
  if (ok) std::ofstream(dir + "/took." + std::to_string(device)) << ms * 1e3 << "\n";
  aclrtFreeHost(host);
  aclrtFree(dev);
  aclrtDestroyEvent(after);
  aclrtDestroyEvent(before);
  aclrtDestroyStream(stream);
  aclrtResetDevice(device);
  return aclFinalize() == ACL_SUCCESS && ok ? 0 : 1;
}

// The parent: starts a child per device with ACL_SIM_MACHINE=`machine` ("" for
// none), lets them copy together, returns the model us each took (empty on a failure).
std::vector<double> together(const char* self, const std::vector<int32_t>& devices,
                             const std::string& machine) {
  char tmpl[] = "/tmp/acl_sim_machine_test.XXXXXX";
  if (mkdtemp(tmpl) == nullptr) return {};
  const std::string dir = tmpl;
  setenv("ACL_SIM_MACHINE", machine.c_str(), 1);
  std::vector<pid_t> pids;
  for (int32_t d : devices) {
    std::string device = std::to_string(d);
    std::vector<char*> argv = {const_cast<char*>(self), const_cast<char*>("copy"),
                               const_cast<char*>(device.c_str()), const_cast<char*>(dir.c_str()),
                               nullptr};
    pid_t pid = 0;
    if (posix_spawn(&pid, self, nullptr, nullptr, argv.data(), environ) == 0) pids.push_back(pid);
  }
  bool ok = pids.size() == devices.size();
  for (int32_t d : devices) ok = ok && wait_for(dir + "/ready." + std::to_string(d));
  std::ofstream(dir + "/go") << "go\n";
  for (pid_t pid : pids) {
    int status = 0;
    ok = waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0 && ok;
  }
  std::vector<double> took;
  for (int32_t d : devices) {
    const std::string path = dir + "/took." + std::to_string(d);
    double us = 0;
    ok = ok && (std::ifstream(path) >> us) && us > 0;
    took.push_back(us);
    std::remove(path.c_str());
    std::remove((dir + "/ready." + std::to_string(d)).c_str());
  }
  std::remove((dir + "/go").c_str());
  rmdir(dir.c_str());
  if (!ok) took.clear();
  return took;
}

int failures = 0;

void expect(bool cond, const char* what) {
  if (!cond) {
    std::fprintf(stderr, "CHECK failed: %s\n", what);
    ++failures;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::strcmp(argv[1], "copy") == 0) return copy(std::atoi(argv[2]), argv[3]);
  if (argc != 1) {
    std::fprintf(stderr, "usage: %s (the test) | %s copy DEVICE DIR (a child)\n", argv[0], argv[0]);
    return 2;
  }
  const std::string profile = testing_sim::write_profile("machine", kCard);
  setenv("ACL_SIM_PROFILE", profile.c_str(), 1);
  // Model time 5x slower than wall time: the children's start, a few wall ms apart under
  // a sanitizer, is a small part of a copy.
  setenv("ACL_SIM_TIME_SCALE", "5", 1);
  setenv("ACL_SIM_DEVICE_OPEN_MS", "0", 1);
  const std::string machine = "acl_sim_test." + std::to_string(getpid());
  std::vector<double> alone = together(argv[0], {0}, machine);
  std::vector<double> one_card = together(argv[0], {0, 1}, machine);
  std::vector<double> two_cards = together(argv[0], {0, 2}, machine);
  std::vector<double> apart = together(argv[0], {0, 1}, "");
  expect(alone.size() == 1 && one_card.size() == 2 && two_cards.size() == 2 && apart.size() == 2,
         "every child copied");
  if (failures != 0) return 1;
  std::fprintf(stderr,
               "one copy alone %.0f us; on one card %.0f, %.0f; on two cards %.0f, %.0f; "
               "two machines %.0f, %.0f\n",
               alone[0], one_card[0], one_card[1], two_cards[0], two_cards[1], apart[0], apart[1]);
  // Devices 0 and 1 share a card: each copy about half the link, whichever process runs it.
  for (double t : one_card) expect(t > 1.7 * alone[0] && t < 2.3 * alone[0], "one card: shared");
  // Devices 0 and 2 on two cards; processes of two machines share nothing.
  for (double t : two_cards) expect(t < 1.2 * alone[0], "two cards: full speed");
  for (double t : apart) expect(t < 1.2 * alone[0], "two machines: full speed");
  // The last process to leave removed the machine's shared memory.
  expect(!exists("/dev/shm/acl_sim_machine." + machine), "the segment is gone");
  std::remove(profile.c_str());
  return failures == 0 ? 0 : 1;
}
