// ascgen_breakdown.h: where a frame's latency goes in the frame part of a graph program, stage by
// stage (docs/graphs.md, "latency breakdown"). Emitted verbatim by ascgen; hand-written, reviewed
// once.
//
// Each batch's last frame carries timing marks: one on the first stage's stream before its first
// step (the start), and one on each stage's stream after its last step for the frame (or the
// batch), recorded before the events that chain the stage to the next. A stage's stream waits for
// those chain events, so by the time the batch completes on the host (its callback, on the last
// stage's stream) every mark of it has completed: aclrtEventElapsedTime needs both events
// completed (ACL_FACTS 1.4, Events), and is then asked for each mark against the start. A stage's
// share is its mark less the latest mark before it (waiting for its stream and its engine
// included), so the shares partition the start-to-last-mark span; the rest of the batch's frame
// part (submitted on the host -> the start, the last mark -> the host sees the batch) is the
// host's hand-off. The marks are created once (ACL_EVENT_TIME_LINE: timing only, never waited
// on), per batch slot: a slot's marks are recorded again only once its batch completed.
//
// Marks on different streams: the CANN documents show aclrtEventElapsedTime on two events of one
// stream; the device's timestamps are one clock per device, which the simulator models.
#ifndef ASCGEN_BREAKDOWN_H_
#define ASCGEN_BREAKDOWN_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ascgen_acl.h"

namespace ascgen {

class StageMarks {
 public:
  // `count` stages (their names, in submission order), marked in each of `batch_slots` batches.
  void create(const char* const* names, size_t count, int batch_slots, Cleanup& cleanup) {
    names_.assign(names, names + count);
    const size_t per = count + 1;
    marks_.assign(static_cast<size_t>(batch_slots) * per, nullptr);
    for (aclrtEvent& m : marks_) {
      check(aclrtCreateEventWithFlag(&m, ACL_EVENT_TIME_LINE), "breakdown",
            "aclrtCreateEventWithFlag");
      cleanup.add("aclrtDestroyEvent of a timing mark", [m] { return aclrtDestroyEvent(m); });
    }
    ends_ms_.assign(marks_.size(), 0.0);
    sums_s_.assign(count, 0.0);
  }
  size_t size() const { return names_.size(); }
  const char* name(size_t k) const { return names_[k]; }
  // Batch b's start, on the stream of its last frame's first step (before the step).
  void start(int64_t b, aclrtStream stream) const {
    check(aclrtRecordEvent(mark(b, 0), stream), names_.front(), "aclrtRecordEvent");
  }
  // Stage k's end for batch b (after its last frame's last step of the stage).
  void end(int64_t b, size_t k, aclrtStream stream) const {
    check(aclrtRecordEvent(mark(b, k + 1), stream), names_[k], "aclrtRecordEvent");
  }
  // Batch b's frame part completed (report thread): each stage's end after the start, made
  // monotonic (a stage ends no earlier than the latest mark before it).
  void read(int64_t b) {
    double* ends = &ends_ms_[slot(b) * (names_.size() + 1)];
    double latest = 0;
    ends[0] = 0;
    for (size_t k = 0; k < names_.size(); ++k) {
      float ms = 0;
      check(aclrtEventElapsedTime(&ms, mark(b, 0), mark(b, k + 1)), names_[k],
            "aclrtEventElapsedTime");
      latest = std::max(latest, static_cast<double>(ms));
      ends[k + 1] = latest;
    }
  }
  // What read() measured of batch b: stage k's share, and the span from the start to the last
  // mark (seconds).
  double share_s(int64_t b, size_t k) const {
    const double* ends = &ends_ms_[slot(b) * (names_.size() + 1)];
    return (ends[k + 1] - ends[k]) / 1e3;
  }
  double span_s(int64_t b) const {
    return ends_ms_[slot(b) * (names_.size() + 1) + names_.size()] / 1e3;
  }
  // One measured frame of batch b: its stages' shares added to the sums.
  void add(int64_t b) {
    for (size_t k = 0; k < names_.size(); ++k) sums_s_[k] += share_s(b, k);
  }
  double sum_s(size_t k) const { return sums_s_[k]; }

 private:
  size_t slot(int64_t b) const {
    return static_cast<size_t>(b % static_cast<int64_t>(marks_.size() / (names_.size() + 1)));
  }
  aclrtEvent mark(int64_t b, size_t k) const { return marks_[slot(b) * (names_.size() + 1) + k]; }

  std::vector<const char*> names_;
  std::vector<aclrtEvent> marks_;  // [batch slot][start, each stage's end]
  std::vector<double> ends_ms_;    // [batch slot][0, each stage's end after the start]
  std::vector<double> sums_s_;     // each stage's shares over the measured frames
};

}  // namespace ascgen

#endif  // ASCGEN_BREAKDOWN_H_
