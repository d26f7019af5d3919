// The serving unit tests: ascgen_batcher.h and ascgen_loadgen.h (tests/serving/*.cpp).
// Usage: serving_tests [GROUP...]; built and run by tests/serving/test_batcher.py.
#include "check.h"

int main(int argc, char** argv) {
  return check::run(argc, argv);
}
