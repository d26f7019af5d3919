#include <cstdlib>

#include "check.h"
#include "session.h"

int main(int argc, char** argv) {
  testing_sim::use_profile(testing_sim::default_profile());
  return check::run(argc, argv, [] { testing_sim::cleanup(); });
}
