// ascgen_objects.cpp: what ascgen_objects.h declares (README.md: how it is compiled).

#include "ascgen_objects.h"

namespace ascgen::objects {

void Model::load(const Config& cfg, const std::string& path, Cleanup& cleanup) {
  load_model_file(cfg.classifier, path, id, desc, cleanup);
  if (cfg.gear_count > 0)  // its gears as the plan has them (ATC's --dynamic_batch_size)
    gear_input = dynamic_batch_input(cfg.classifier, desc, cfg.gears, cfg.gear_count);
}

Part::~Part() {
  stop();
}

void Part::setup(const Config& cfg, const Setup& ctx, const std::string& model_path,
                 const Pools& pools, int image_slots, Completions& done, Cleanup& cleanup,
                 const AiCore& aicore, aclrtStream on) {
  cfg_ = &cfg;
  pools_ = &pools;
  done_ = &done;
  on_worker_stream_ = on != nullptr;
  stream_ = on_worker_stream_ ? on : new_stream(cfg.crop, "objects_stream", ctx.id, cleanup);
  aicore_ = aicore.stream != nullptr ? aicore.stream : stream_;
  aicore_lock_ = aicore.lock;
  channel_ = new_dvpp_channel(cfg.crop, cfg.channel_modes, cleanup);
  resize_ = new_resize_config(cfg.crop, cfg.interpolation, cleanup);
  hold_.size(image_slots);
  if (!on_worker_stream_) cropped_.create(cfg.crop, "crops_to_image", image_slots, cleanup);
  if (aicore_ != stream_) {
    to_aicore_.create(cfg.crop, "crops_to_aicore", kAiCoreEvents, cleanup);
    from_aicore_.create(cfg.classifier, "aicore_to_scores", kAiCoreEvents, cleanup);
  }
  if (aicore.model == nullptr) own_model_.load(cfg, model_path, cleanup);
  model_ = aicore.model != nullptr ? aicore.model : &own_model_;
  const size_t in[] = {pools.input.slot_bytes()}, out[] = {pools.output.slot_bytes()};
  expect_model_sizes(cfg.classifier, model_->desc, in, out, cfg.gear_count > 0 ? 1 : 0);
  const int executions = pools.crops.slots();
  for (int e = 0; e < executions; ++e) {
    inputs_.push_back(
        new_dataset(cfg.classifier, pools.input.slot(e), pools.input.slot_bytes(), cleanup));
    if (cfg.gear_count > 0)
      add_dynamic_batch_buffer(cfg.classifier, model_->desc, inputs_.back(), model_->gear_input,
                               cleanup);
    outputs_.push_back(
        new_dataset(cfg.classifier, pools.output.slot(e), pools.output.slot_bytes(), cleanup));
  }
  // The output batches: per execution slot, one of each size 1..batch (a call's regions sum to
  // its output batch, ACL_FACTS 8), over the slot's pictures.
  for (int e = 0; e < executions; ++e)
    for (int r = 1; r <= cfg.batch; ++r) outputs_of_.push_back(new_batch(e, r, cleanup));
  paste_ = new_roi(cfg.crop, 0, cfg.region.width - 1, 0, cfg.region.height - 1, cleanup);
  pastes_.assign(static_cast<size_t>(cfg.batch), paste_);
  // Per execution in flight (a ring of them: the executions the batches in flight can need, and
  // one more batch's): for each count of source pictures 1..batch a batch of that many (a call
  // names as many as it takes, ACL_FACTS 8), the regions' crop areas and counts, timing marks.
  const int per_batch = cfg.frames * ((cfg.max_objects + cfg.batch - 1) / cfg.batch);
  calls_ = static_cast<size_t>(ctx.batch_slots + 1) * static_cast<size_t>(per_batch);
  const size_t n = static_cast<size_t>(cfg.batch);
  for (size_t c = 0; c < calls_; ++c)
    for (size_t p = 1; p <= n; ++p) {
      sources_.push_back(new_batch_desc(static_cast<uint32_t>(p), cleanup));
      for (size_t k = 0; k < p; ++k)
        source_pics_.push_back(require(acldvppGetPicDesc(sources_.back(), static_cast<uint32_t>(k)),
                                       cfg.crop, "acldvppGetPicDesc"));
    }
  for (size_t j = 0; j < calls_ * n; ++j)
    crop_areas_.push_back(new_roi(cfg.crop, 0, 9, 0, 5, cleanup));
  roi_counts_.assign(calls_ * n, 0);
  groups_.resize(n);
  // per execution in flight: timing marks (not waited on: ACL_EVENT_TIME_LINE, re-recorded)
  marks_.assign(calls_ * 3, nullptr);
  for (aclrtEvent& m : marks_) {
    check(aclrtCreateEventWithFlag(&m, ACL_EVENT_TIME_LINE), cfg.crop, "aclrtCreateEventWithFlag");
    cleanup.add("aclrtDestroyEvent", [m] { return aclrtDestroyEvent(m); });
  }
  runs_.assign(static_cast<size_t>(ctx.batch_slots) * 2, -1);
  counted_.assign(static_cast<size_t>(ctx.batch_slots) * static_cast<size_t>(cfg.frames), 0);
  device_ms_.assign(static_cast<size_t>(ctx.batch_slots) * 2, 0.0);
  frames_.resize(static_cast<size_t>(ctx.batch_slots));
  for (std::vector<FrameObjects>& batch : frames_) {
    batch.resize(static_cast<size_t>(cfg.frames));
    for (FrameObjects& fo : batch) fo.objects.resize(static_cast<size_t>(cfg.max_objects));
  }
  best_.resize(static_cast<size_t>(cfg.k));
  queue_.resize(static_cast<size_t>(ctx.batch_slots));
  if (on_worker_stream_) return;
  aclrtContext context = nullptr;
  check(aclrtGetCurrentContext(&context), cfg.crop, "aclrtGetCurrentContext");
  thread_ = std::thread([this, context] { loop(context); });
}

void Part::ready(int64_t b, aclrtCallback done, void* record, Run* run) {
  for (int i = 0; i < cfg_->frames; ++i)
    if (frame(b, i).count == 0) hold_.release(b * cfg_->frames + i, false);
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    queue_[static_cast<size_t>(queued_++ % static_cast<int64_t>(queue_.size()))] = {b, done, record,
                                                                                    run, now};
  }
  queue_cv_.notify_all();
}

void Part::submit_here(int64_t b, Run& run, const std::vector<Input>&) {
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    queue_[static_cast<size_t>(queued_++ % static_cast<int64_t>(queue_.size()))] = {
        b, nullptr, nullptr, &run, Clock::now()};
  }
  cut_queue(queued_, true);  // no callback: the layout syncs the stream and finishes the batch
}

void Part::keep(int64_t b, int i, const detections::Box* kept, int n, void* image,
                const Picture& picture, const Input& in) {
  FrameObjects& fo = frame(b, i);
  fo.input = in.index;
  fo.image = image;
  fo.picture = picture;
  fo.width = in.width;
  fo.height = in.height;
  fo.mapping = cfg_->letterboxed
                   ? letterbox_mapping(in)
                   : crop::stretch(in.width, in.height, cfg_->net_width, cfg_->net_height);
  fo.count = std::min(n, cfg_->max_objects);
  fo.cut = 0;
  for (int j = 0; j < fo.count; ++j) {
    const detections::Box& x = kept[j];
    fo.objects[static_cast<size_t>(j)] = {
        x, crop::snap_roi(x.x1, x.y1, x.x2, x.y2, fo.mapping, in.width, in.height, cfg_->rules),
        -1};
  }
}

void Part::wait_image(int64_t f, aclrtStream stream) {
  if (cfg_->max_queue_delay_us > 0) {
    {
      std::lock_guard<std::mutex> lock(queue_mu_);
      wanted_ = std::max(wanted_, f);
    }
    queue_cv_.notify_all();
  }
  if (hold_.wait(f, *done_)) cropped_.wait(f, stream);
}

uint64_t Part::finish(int64_t b, Run& run, const std::vector<Input>& inputs) {
  const size_t at = static_cast<size_t>(b % static_cast<int64_t>(frames_.size()));
  // its executions' crops, and from the first one's crops to the last one's scores, less the
  // later crops within it (an execution's crops run while the one before executes)
  device_ms_[at * 2] = device_ms_[at * 2 + 1] = 0;
  const int64_t first = runs_[at * 2], last = runs_[at * 2 + 1];
  for (int64_t x = first; x >= 0 && x <= last; ++x) {
    const float ms = elapsed(mark(x, 0), mark(x, 1));
    device_ms_[at * 2] += ms;
    if (x > first) device_ms_[at * 2 + 1] -= ms;
  }
  if (first >= 0) device_ms_[at * 2 + 1] += elapsed(mark(first, 1), mark(last, 2));
  runs_[at * 2] = runs_[at * 2 + 1] = -1;
  uint64_t sum = 0;
  for (int i = 0; i < cfg_->frames; ++i) {
    FrameObjects& fo = frame(b, i);
    const size_t input = static_cast<size_t>(fo.input);
    std::string said;
    if (run.recording) begin_join(fo, said);
    bool same = true;
    for (int j = 0; j < fo.count; ++j) {
      const Object& o = fo.objects[static_cast<size_t>(j)];
      const uint8_t* scores = static_cast<const uint8_t*>(pools_->host.slot(o.slot)) +
                              static_cast<size_t>(o.item) * cfg_->scores_bytes;
      sum = sum * 31 + top_k(scores);
      if (run.recording) {
        join_object(fo, j, said);
        std::vector<uint8_t>& want = expected(run, input);
        if (j == 0) want.clear();
        want.insert(want.end(), scores, scores + cfg_->scores_bytes);
      } else if (run.verify) {
        const std::vector<uint8_t>& want = expected(run, input);
        const size_t at = static_cast<size_t>(j) * cfg_->scores_bytes;
        same = same && want.size() >= at + cfg_->scores_bytes &&
               std::memcmp(want.data() + at, scores, cfg_->scores_bytes) == 0;
      }
    }
    if (run.recording) {
      if (fo.count == 0) expected(run, input).clear();
      said += "]}";
      if (input < run.results.size()) run.results[input] = said;
    } else if (run.verify && (!same || expected(run, input).size() !=
                                           static_cast<size_t>(fo.count) * cfg_->scores_bytes)) {
      if (run.mismatches.fetch_add(1) < 5)
        std::fprintf(stderr, "verify: input '%s': its objects' scores differ from the reference\n",
                     inputs[input].name.c_str());
    }
    counted_[at * static_cast<size_t>(cfg_->frames) + static_cast<size_t>(i)] = fo.count;
    fo.count = 0;
  }
  return sum;
}

void Part::breakdown(const BatchRecord& r, int i, double now, StageMarks& frame) {
  const size_t at = static_cast<size_t>(r.batch % static_cast<int64_t>(frames_.size()));
  const double crop = device_ms_[at * 2] / 1e3, classify = device_ms_[at * 2 + 1] / 1e3;
  const double spans[] = {r.submitted.back() - r.submitted[static_cast<size_t>(i)],
                          r.completed - r.submitted.back() - frame.span_s(r.batch),
                          r.detected - r.completed,
                          crop,
                          classify,
                          r.objects_done - r.detected - crop - classify,
                          now - r.objects_done};
  for (size_t k = 0; k < std::size(spans); ++k) breakdown_s_[k] += spans[k];
  frame.add(r.batch);
  ++breakdown_frames_;
  const int count = counted_[at * static_cast<size_t>(cfg_->frames) + static_cast<size_t>(i)];
  const FrameObjects& fo = this->frame(r.batch, i);
  for (int j = 0; j < count; ++j) {
    const double cropped = fo.objects[static_cast<size_t>(j)].cropped_at;
    from_crop_.record((r.objects_done - cropped) * 1e6);
    from_arrival_.record((r.objects_done - r.submitted[static_cast<size_t>(i)]) * 1e6);
  }
}

void Part::breakdown_json(Json& j, const std::vector<const Part*>& parts,
                          const std::vector<const StageMarks*>& frames) {
  double sum[kParts] = {};
  std::vector<double> stage_sum(frames.empty() ? 0 : frames.front()->size(), 0.0);
  int64_t measured = 0;
  LatencyHistogram from_crop, from_arrival;
  for (size_t w = 0; w < parts.size(); ++w) {
    const Part* p = parts[w];
    for (size_t k = 0; k < std::size(sum); ++k) sum[k] += p->breakdown_s_[k];
    for (size_t k = 0; k < stage_sum.size(); ++k) stage_sum[k] += frames[w]->sum_s(k);
    measured += p->breakdown_frames_;
    from_crop.merge(p->from_crop_);
    from_arrival.merge(p->from_arrival_);
  }
  if (measured == 0) return;
  const Config& cfg = *parts.front()->cfg_;
  const double per = 1e3 / static_cast<double>(measured);
  j.key("latency_breakdown_ms").open('{');
  j.key("queue").num(sum[0] * per);
  for (size_t k = 0; k < stage_sum.size(); ++k)
    j.key(frames.front()->name(k)).num(stage_sum[k] * per);
  const char* names[] = {"handoff",      cfg.post_process, cfg.crop,
                         cfg.classifier, "objects_queue",  "join"};
  for (size_t k = 0; k < std::size(names); ++k) j.key(names[k]).num(sum[k + 1] * per);
  j.close('}');
  j.key("object_latency_ms").open('{').key("objects").num(static_cast<double>(from_crop.count()));
  auto percentiles = [&j](const char* key, const LatencyHistogram& h) {
    j.key(key).open('{').key("p50").num(h.percentile_ms(50)).key("p99");
    j.num(h.percentile_ms(99)).key("max").num(h.max_ms()).close('}');
  };
  percentiles("from_crop", from_crop);
  percentiles("from_arrival", from_arrival);
  j.close('}');
}

}  // namespace ascgen::objects
