// ascgen_serving_stats.cpp: what ascgen_serving_stats.h declares (README.md: how it is compiled).

#include "ascgen_serving_stats.h"

namespace ascgen::serving {

void ServingStats::write_json(Json& j, const DepthSeries* depth) const {
  std::lock_guard<std::mutex> lock(mu_);
  j.key("serving").open('{');
  auto latency = [&j](const char* name, const LatencyHistogram& h) {
    j.key(name).open('{');
    j.key("count").integer(static_cast<int64_t>(h.count()));
    j.key("p50").num(h.percentile_ms(50)).key("p90").num(h.percentile_ms(90));
    j.key("p99").num(h.percentile_ms(99)).key("max").num(h.max_ms()).close('}');
  };
  latency("latency_ms", e2e_);
  latency("queue_ms", queue_);
  latency("compute_ms", compute_);
  if (!level_e2e_.empty()) {
    j.key("by_priority").open('[');  // level 0 first: its requests' latency and queue time
    for (size_t l = 0; l < level_e2e_.size(); ++l) {
      j.open('{').key("level").integer(static_cast<int64_t>(l));
      latency("latency_ms", level_e2e_[l]);
      latency("queue_ms", level_queue_[l]);
      j.close('}');
    }
    j.close(']');
  }
  j.key("batch_stats").open('[');
  for (size_t s = 1; s < batch_sizes_.size(); ++s)
    if (batch_sizes_[s] != 0)
      j.open('[')
          .integer(static_cast<int64_t>(s))
          .integer(static_cast<int64_t>(batch_sizes_[s]))
          .close(']');
  j.close(']');
  j.key("batches").integer(static_cast<int64_t>(batches_));
  j.key("average_fill").num(fill_locked());
  j.key("padding_waste").num(waste_locked());
  if (!gears_.empty()) {
    j.key("padding").open('{');
    j.key("request_elements").integer(real_elements_);
    j.key("executed_elements").integer(padded_elements_);
    j.key("rule_breaks").integer(static_cast<int64_t>(rule_breaks_));
    j.key("gears").open('[');  // [height, width, batches], by first use
    for (const GearCount& g : gears_)
      j.open('[')
          .integer(g.height)
          .integer(g.width)
          .integer(static_cast<int64_t>(g.batches))
          .close(']');
    j.close(']').close('}');
  }
  j.key("submitted").integer(static_cast<int64_t>(counters_.submitted));
  j.key("rejected").open('{');
  j.key("queue_full").integer(static_cast<int64_t>(counters_.rejected_queue_full));
  j.key("closed").integer(static_cast<int64_t>(counters_.rejected_closed));
  j.key("timeout").integer(static_cast<int64_t>(counters_.timed_out_rejected)).close('}');
  j.key("timed_out").open('{');
  j.key("rejected").integer(static_cast<int64_t>(counters_.timed_out_rejected));
  j.key("delayed").integer(static_cast<int64_t>(counters_.timed_out_delayed)).close('}');
  j.key("batch_reasons").open('{');
  for (int r = 0; r < kBatchReasons; ++r)
    j.key(batch_reason_name(static_cast<BatchReason>(r)))
        .integer(static_cast<int64_t>(counters_.by_reason[r]));
  j.close('}');
  if (has_lateness_) {
    j.key("generator").open('{');
    j.key("sent").integer(static_cast<int64_t>(lateness_.sent));
    j.key("late").integer(static_cast<int64_t>(lateness_.late));
    j.key("missed").integer(static_cast<int64_t>(lateness_.missed));
    j.key("tolerance_us").integer(lateness_.tolerance_us);
    j.key("max_late_us").integer(lateness_.max_late_us);
    j.key("kept_up").boolean(!lateness_.could_not_keep_up()).close('}');
  }
  if (depth) {
    j.key("queue_depth").open('[');
    for (const DepthSeries::Sample& s : depth->samples())
      j.open('[')
          .num(static_cast<double>(s.t_us) / 1e6)
          .integer(static_cast<int64_t>(s.depth))
          .close(']');
    j.close(']');
  }
  j.close('}');
}

}  // namespace ascgen::serving
