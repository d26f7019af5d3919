# ACL_SIM_PCH_HEADERS: the standard headers the simulator's sources share, precompiled once per
# target where a build precompiles them (the sanitizer builds' library and test programs, the
# conformance check): parsing them was half to two thirds of a source's compile time.
set(ACL_SIM_PCH_HEADERS <algorithm> <atomic> <chrono> <condition_variable> <cstdint> <cstring>
    <deque> <functional> <map> <memory> <mutex> <optional> <set> <sstream> <string> <thread>
    <unordered_map> <vector>)
