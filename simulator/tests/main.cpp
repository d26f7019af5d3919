#include <cstdlib>

#include "check.h"
#include "session.h"

int main(int argc, char** argv) {
  testing_sim::use_profile(testing_sim::default_profile());
  // Tests open the device hundreds of times: no device-open time unless a test
  // asks for it (timing.device_open).
  setenv("ACL_SIM_DEVICE_OPEN_MS", "0", 0);
  return check::run(argc, argv, [] { testing_sim::cleanup(); });
}
