// Chrome / Perfetto trace of the device timeline (ACL_SIM_TRACE=path).
// Written at aclFinalize as {"traceEvents": [...]}: process 1 holds one track
// per stream (each task from reaching the stream head to completion, so waits
// show as long slices, plus an instant per event record), process 2 one track
// per engine unit (each task from start to end). Times are model microseconds.
// A stream's track is named after aclsimSetStreamName ("decode_stream of worker
// 0 (stream 3)"), or "stream 3" when it has no name.
#ifndef ACL_SIM_SRC_TRACE_H_
#define ACL_SIM_SRC_TRACE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace sim {

struct Task;

void trace_open();  // reads ACL_SIM_TRACE; called by aclInit
bool trace_enabled();
void trace_task(const Task& task);  // under Device::mu()
void trace_name_stream(uint64_t stream_id, bool is_default);
// Names a stream's track (aclsimSetStreamName).
void trace_set_stream_name(uint64_t stream_id, const char* name);
void trace_write();  // called by aclFinalize

// Profiling (aclprofStart .. aclprofStop, api_prof.cpp): the tasks in between, whether
// ACL_SIM_TRACE is set or not, and the host ranges the program marked (msproftx), written to
// DIR/trace.json (the tracks above plus process 3, one track per host thread that marked a
// range) and DIR/summary.json (per range name: count, total and mean; per engine unit: busy
// time) at aclprofStop.
struct HostRange {
  std::string name;
  uint64_t thread;  // the host thread's number, from 1 in the order threads first marked
  double ts, dur;   // model microseconds; dur 0: an instant (aclprofMark)
};
void trace_profile_start();
// Ends the capture and writes the two files; false, with `why`, when it cannot write them.
bool trace_profile_stop(const std::string& dir, const std::vector<HostRange>& ranges,
                        std::string* why);

}  // namespace sim

#endif  // ACL_SIM_SRC_TRACE_H_
