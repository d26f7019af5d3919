// ascgen_objects.h: the object part of a graph program (docs/graphs.md, "Generating the graph"):
// the crops of each frame's detections, the model of objects on them, its scores back on the
// host, and the join of each frame's boxes with its objects' top-k. Emitted verbatim by ascgen
// into graph programs; hand-written, reviewed once.
//
// The crops depend on the detections, which the host computes when the detector's batch is back,
// so the object part is submitted by the host: the report thread, in the batch's completion
// (complete_batch), hands the batch to the worker's object thread (a callback must not launch
// tasks: ACL_FACTS 1.4, Callbacks), which submits it on the worker's object stream. One stream
// carries a batch's object work in order (batch crop call, copies of the regions into the model's
// input, the execution at its gear, the copy of the scores), then a blocking callback
// (ACL_CALLBACK_BLOCK) that reads the scores and completes the batch. Each batch in flight has its
// buffers (an execution slot per execution a batch can need: the plan's pools hold as many for each
// batch slot), so the host reads a batch's scores while no copy of a later batch's is pending into
// them; the blocking callback keeps the stream's order even where --depth runs more batches than
// the pools hold. Objects are batched per frame: a frame's objects fill executions of the model's
// batch, the last one at the smallest gear holding the rest. A frame without objects runs no
// object work.
//
// The decoded picture's slot: the crops read it long after the frame part's last reader, so
// before the worker decodes into the slot again it waits (on the host) until the crops of the
// slot's previous frame were submitted, then (on its stream) for the event recorded after them.
// The stream never waits on an event whose record was not submitted (ACL_FACTS 7: undocumented).
// The worker waits on the report thread, which waits on the frames of a batch: frames in flight
// must be at least the batch + 1 (checked at start-up and by the plan).
#ifndef ASCGEN_OBJECTS_H_
#define ASCGEN_OBJECTS_H_

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ascgen_breakdown.h"
#include "ascgen_driver.h"
#include "ascgen_dvpp.h"
#include "stages/detections.h"
#include "stages/model.h"
#include "stages/vpc_crop.h"
#include "stages/vpc_letterbox.h"

namespace ascgen::objects {

// The host-side hold on each decoded picture slot: released when the crops of the slot's frame
// were submitted (recorded: an event follows them on the object stream) or found none.
class ImageHold {
 public:
  void size(int slots) {
    released_.assign(static_cast<size_t>(slots), -1);
    recorded_.assign(static_cast<size_t>(slots), 0);
  }
  void release(int64_t f, bool recorded) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      const size_t k = static_cast<size_t>(f) % released_.size();
      released_[k] = f;
      recorded_[k] = recorded ? 1 : 0;
    }
    cv_.notify_all();
  }
  // Blocks until frame f was released; whether an event was recorded after its crops. Throws
  // when the run failed meanwhile, or after 60 s without it.
  bool wait(int64_t f, Completions& done) {
    const size_t k = static_cast<size_t>(f) % released_.size();
    std::unique_lock<std::mutex> lock(mu_);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (released_[k] != f) {
      if (done.aborted()) throw std::runtime_error("the run failed while frames waited for crops");
      if (std::chrono::steady_clock::now() > give_up)
        throw std::runtime_error("frame " + std::to_string(f) +
                                 ": its crops were not submitted for 60 s");
      cv_.wait_for(lock, std::chrono::milliseconds(100));
    }
    return recorded_[k] != 0;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<int64_t> released_;
  std::vector<char> recorded_;
};

// What the generated program fixes: the stages' names (in errors) and constants.
struct Config {
  const char* crop;        // the vpc_crop stage
  const char* classifier;  // the model of objects
  const char* fetch;       // the copy of its scores to the host
  const char* labels;      // the top-k on the host
  Picture region;          // one region's picture: the crop's output, an item of the model's input
  size_t region_stride;    // between two regions' pictures in a slot of the crop's output
  uint32_t channel_modes;  // acldvppSetChannelDescMode (0: the profile has no modes)
  uint32_t interpolation;
  crop::Rules rules;
  int batch;  // objects one execution takes
  const int* gears;
  size_t gear_count;               // its dynamic batch gears (0: it always runs at its batch)
  size_t scores_bytes;             // one object's scores (the model's first output)
  int k;                           // top-k of them
  int max_objects;                 // a frame's most (the detections stage's)
  int frames;                      // frames a batch (the detector's)
  uint32_t net_width, net_height;  // the detector's input
  bool letterboxed;                // it was letterboxed into it (else stretched)
  uint32_t paste_left_align;
  const char* detections;  // the detections stage (the breakdown's name of its part)
};

// The buffers the plan sized (one slot per execution a batch can need).
struct Pools {
  const Pool& crops;   // the regions' pictures of an execution (DVPP)
  const Pool& input;   // the model's input: the regions back to back
  const Pool& output;  // the model's output
  const Pool& host;    // its copy on the host
};

// One object of a frame: its box (the detector input's pixels) and the region cut out.
struct Object {
  detections::Box box;
  crop::Roi roi;
  double crop_error = -1;  // --verify's reference run: its crop against the CPU's (-1: not checked)
};

// A frame's objects, between its detections and its batch's completion.
struct FrameObjects {
  int count = 0;
  int input = 0;          // the input it carries
  void* image = nullptr;  // its decoded picture
  Picture picture{};      // and its layout
  crop::Mapping mapping{1, 1, 0, 0};
  uint32_t width = 0, height = 0;  // of the picture
  std::vector<Object> objects;     // max_objects, sized once
};

class Part {
 public:
  Part() = default;
  Part(const Part&) = delete;
  Part& operator=(const Part&) = delete;
  ~Part() { stop(); }
  aclrtStream stream() const { return stream_; }

  void setup(const Config& cfg, const Setup& ctx, const std::string& model_path, const Pools& pools,
             int image_slots, Completions& done, Cleanup& cleanup) {
    cfg_ = &cfg;
    pools_ = &pools;
    done_ = &done;
    stream_ = new_stream(cfg.crop, "objects_stream", ctx.id, cleanup);
    channel_ = new_dvpp_channel(cfg.crop, cfg.channel_modes, cleanup);
    resize_ = new_resize_config(cfg.crop, cfg.interpolation, cleanup);
    hold_.size(image_slots);
    cropped_.create(cfg.crop, "crops_to_image", image_slots, cleanup);
    load_model(model_path, cleanup);
    const int executions = pools.crops.slots();
    for (int e = 0; e < executions; ++e) {
      inputs_.push_back(
          new_dataset(cfg.classifier, pools.input.slot(e), pools.input.slot_bytes(), cleanup));
      if (cfg.gear_count > 0)
        add_dynamic_batch_buffer(cfg.classifier, desc_, inputs_.back(), gear_input_, cleanup);
      outputs_.push_back(
          new_dataset(cfg.classifier, pools.output.slot(e), pools.output.slot_bytes(), cleanup));
    }
    // The output batches: per execution slot, one of each size 1..batch (a call's regions sum to
    // its output batch, ACL_FACTS 8), over the slot's pictures.
    for (int e = 0; e < executions; ++e)
      for (int r = 1; r <= cfg.batch; ++r) outputs_of_.push_back(new_batch(e, r, cleanup));
    paste_ = new_roi(cfg.crop, 0, cfg.region.width - 1, 0, cfg.region.height - 1, cleanup);
    pastes_.assign(static_cast<size_t>(cfg.batch), paste_);
    // Per batch in flight and execution: the source picture, the regions' crop areas, the count.
    const size_t calls = static_cast<size_t>(ctx.batch_slots) * static_cast<size_t>(executions);
    for (size_t c = 0; c < calls; ++c) {
      sources_.push_back(new_batch_desc(1, cleanup));
      source_pics_.push_back(
          require(acldvppGetPicDesc(sources_.back(), 0), cfg.crop, "acldvppGetPicDesc"));
      for (int j = 0; j < cfg.batch; ++j)
        crop_areas_.push_back(new_roi(cfg.crop, 0, 9, 0, 5, cleanup));
    }
    roi_counts_.assign(calls, 0);
    // per batch in flight: timing marks (not waited on: ACL_EVENT_TIME_LINE, re-recorded)
    marks_.assign(static_cast<size_t>(ctx.batch_slots) * 3, nullptr);
    for (aclrtEvent& m : marks_) {
      check(aclrtCreateEventWithFlag(&m, ACL_EVENT_TIME_LINE), cfg.crop,
            "aclrtCreateEventWithFlag");
      cleanup.add("aclrtDestroyEvent", [m] { return aclrtDestroyEvent(m); });
    }
    timed_.assign(static_cast<size_t>(ctx.batch_slots), false);
    objects_of_.assign(static_cast<size_t>(ctx.batch_slots) * static_cast<size_t>(cfg.frames),
                       {0, 0});
    cropped_at_.assign(static_cast<size_t>(ctx.batch_slots * per_batch()), 0.0);
    device_ms_.assign(static_cast<size_t>(ctx.batch_slots) * 2, 0.0);
    frames_.resize(static_cast<size_t>(ctx.batch_slots));
    for (std::vector<FrameObjects>& batch : frames_) {
      batch.resize(static_cast<size_t>(cfg.frames));
      for (FrameObjects& fo : batch) fo.objects.resize(static_cast<size_t>(cfg.max_objects));
    }
    best_.resize(static_cast<size_t>(cfg.k));
    queue_.resize(static_cast<size_t>(ctx.batch_slots));
    aclrtContext context = nullptr;
    check(aclrtGetCurrentContext(&context), cfg.crop, "aclrtGetCurrentContext");
    thread_ = std::thread([this, context] { loop(context); });
  }

  // Batch b's detections are kept (report thread): its object thread submits its object work,
  // then `done(record)` on the object stream.
  void ready(int64_t b, aclrtCallback done, void* record, Run* run) {
    {
      std::lock_guard<std::mutex> lock(queue_mu_);
      queue_[static_cast<size_t>(queued_++ % static_cast<int64_t>(queue_.size()))] = {b, done,
                                                                                      record, run};
    }
    queue_cv_.notify_all();
  }

  // Stops the object thread once it submitted what it was given (before the worker goes).
  void stop() {
    {
      std::lock_guard<std::mutex> lock(queue_mu_);
      stopping_ = true;
    }
    queue_cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

  // Frame i of batch b kept `n` boxes (report thread, as the batch completes): its regions.
  void keep(int64_t b, int i, const detections::Box* kept, int n, void* image,
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
    for (int j = 0; j < fo.count; ++j) {
      const detections::Box& x = kept[j];
      fo.objects[static_cast<size_t>(j)] = {
          x, crop::snap_roi(x.x1, x.y1, x.x2, x.y2, fo.mapping, in.width, in.height, cfg_->rules),
          -1};
    }
  }

  // Batch b's object work on the object stream (object thread).
  // Every crop of the batch first (each frame's picture released as soon as its crops are
  // submitted), then every execution; timing marks before, between and after (breakdown).
  void submit(int64_t b) {
    const size_t at = static_cast<size_t>(b % static_cast<int64_t>(frames_.size())) * 3;
    int e = 0;
    for (int i = 0; i < cfg_->frames; ++i) {
      const int64_t f = b * cfg_->frames + i;
      FrameObjects& fo = frame(b, i);
      if (e == 0 && fo.count > 0) ASCGEN_CHECK(cfg_->crop, aclrtRecordEvent(marks_[at], stream_));
      objects_of_[at / 3 * static_cast<size_t>(cfg_->frames) + static_cast<size_t>(i)] = {fo.count,
                                                                                          e};
      for (int first = 0; first < fo.count; first += cfg_->batch, ++e) {
        cropped_at_[at / 3 * static_cast<size_t>(per_batch()) + static_cast<size_t>(e)] = now_s();
        cut(b, slot(b, e), fo, first, std::min(cfg_->batch, fo.count - first));
      }
      if (fo.count > 0) cropped_.record(f, stream_);
      hold_.release(f, fo.count > 0);
    }
    timed_[at / 3] = e > 0;
    if (e == 0) return;
    ASCGEN_CHECK(cfg_->crop, aclrtRecordEvent(marks_[at + 1], stream_));
    e = 0;
    for (int i = 0; i < cfg_->frames; ++i) {
      const FrameObjects& fo = frame(b, i);
      for (int first = 0; first < fo.count; first += cfg_->batch, ++e)
        classify(slot(b, e), std::min(cfg_->batch, fo.count - first));
    }
    ASCGEN_CHECK(cfg_->classifier, aclrtRecordEvent(marks_[at + 2], stream_));
  }

  // --verify's reference run (object thread, batch b's object work submitted): once it ran, each
  // crop against a CPU crop-and-resize of its region of the decoded picture (crop::crop_error;
  // the worker submits nothing until the batch completes, so the picture is still there).
  void check_crops(int64_t b, Run& run, const std::vector<Input>& inputs) {
    check(aclrtSynchronizeStream(stream_), cfg_->crop, "aclrtSynchronizeStream");
    const Picture& p = cfg_->region;
    std::vector<uint8_t> image, crop(p.bytes);
    int e = 0;
    for (int i = 0; i < cfg_->frames; ++i) {
      FrameObjects& fo = frame(b, i);
      if (fo.count == 0) continue;
      image.resize(fo.picture.bytes);
      ASCGEN_CHECK(cfg_->crop, aclrtMemcpy(image.data(), image.size(), fo.image, image.size(),
                                           ACL_MEMCPY_DEVICE_TO_HOST));
      const crop::Plane src{image.data(), fo.picture.width_stride, fo.picture.height_stride};
      for (int j = 0; j < fo.count; ++j) {
        if (j > 0 && j % cfg_->batch == 0) ++e;
        const uint8_t* at = static_cast<const uint8_t*>(pools_->crops.slot(slot(b, e))) +
                            static_cast<size_t>(j % cfg_->batch) * cfg_->region_stride;
        ASCGEN_CHECK(cfg_->crop, aclrtMemcpy(crop.data(), crop.size(), at, crop.size(),
                                             ACL_MEMCPY_DEVICE_TO_HOST));
        Object& o = fo.objects[static_cast<size_t>(j)];
        o.crop_error = crop::crop_error(src, o.roi, {crop.data(), p.width_stride, p.height_stride},
                                        p.width, p.height);
        if (o.crop_error > crop::kCropTolerance && run.mismatches.fetch_add(1) < 5)
          std::fprintf(stderr,
                       "verify: input '%s' object %d: its crop is %.2f levels from a CPU "
                       "crop-and-resize of its region (tolerance %.1f)\n",
                       inputs[static_cast<size_t>(fo.input)].name.c_str(), j, o.crop_error,
                       crop::kCropTolerance);
      }
      ++e;
    }
  }

  // Frame f's decoded picture slot may be written again (worker thread, before the decode of the
  // frame that reuses it): once its crops were submitted, after them on `stream`.
  void wait_image(int64_t f, aclrtStream stream) {
    if (hold_.wait(f, *done_)) cropped_.wait(f, stream);
  }

  // Batch b's scores are on the host (its callback): each object's top-k, folded into the
  // checksum; the reference run keeps each input's objects and says what the frame holds (the
  // join: its boxes in the picture's pixels, each object's region and top-k); --verify compares
  // the objects' scores with the reference's. Clears the batch's objects.
  uint64_t finish(int64_t b, Run& run, const std::vector<Input>& inputs) {
    const size_t at = static_cast<size_t>(b % static_cast<int64_t>(frames_.size()));
    device_ms_[at * 2] = device_ms_[at * 2 + 1] = 0;
    for (size_t k = 0; k < 2 && timed_[at]; ++k) {
      float ms = 0;
      ASCGEN_CHECK(cfg_->labels,
                   aclrtEventElapsedTime(&ms, marks_[at * 3 + k], marks_[at * 3 + k + 1]));
      device_ms_[at * 2 + k] = ms;
    }
    uint64_t sum = 0;
    int e = 0;
    for (int i = 0; i < cfg_->frames; ++i) {
      FrameObjects& fo = frame(b, i);
      const size_t input = static_cast<size_t>(fo.input);
      std::string said;
      if (run.recording) begin_join(fo, said);
      bool same = true;
      for (int j = 0; j < fo.count; ++j) {
        if (j > 0 && j % cfg_->batch == 0) ++e;
        const uint8_t* scores = static_cast<const uint8_t*>(pools_->host.slot(slot(b, e))) +
                                static_cast<size_t>(j % cfg_->batch) * cfg_->scores_bytes;
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
      if (fo.count > 0) ++e;
      if (run.recording) {
        if (fo.count == 0) expected(run, input).clear();
        said += "]}";
        if (input < run.results.size()) run.results[input] = said;
      } else if (run.verify && (!same || expected(run, input).size() !=
                                             static_cast<size_t>(fo.count) * cfg_->scores_bytes)) {
        if (run.mismatches.fetch_add(1) < 5)
          std::fprintf(stderr,
                       "verify: input '%s': its objects' scores differ from the reference\n",
                       inputs[input].name.c_str());
      }
      fo.count = 0;
    }
    return sum;
  }

  // Executions of the model of objects so far (each frame's objects at their gears).
  int64_t executions() const { return executions_; }

  // A measured frame's latency (item i of batch record r, complete at `now`) by where it went,
  // partitioning submit to completion as the host sees them (report thread): the queue (until its
  // batch's last frame was submitted), the frame part's stages (`frame`: timing marks, read as
  // the batch's frame part completed) and the host's hand-off around them, the detections, the
  // batch's crops and executions on the device (timing marks around them) and the rest of the
  // object part (handing over, the stream's earlier work, the callback), the join. Each of its
  // objects' latency too: from its crop call's submission, and from its frame's arrival, to its
  // scores on the host.
  void breakdown(const BatchRecord& r, int i, double now, StageMarks& frame) {
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
    const ObjectsOf& of =
        objects_of_[at * static_cast<size_t>(cfg_->frames) + static_cast<size_t>(i)];
    for (int j = 0; j < of.count; ++j) {
      const double cropped = cropped_at_[at * static_cast<size_t>(per_batch()) +
                                         static_cast<size_t>(of.first + j / cfg_->batch)];
      from_crop_.record((r.objects_done - cropped) * 1e6);
      from_arrival_.record((r.objects_done - r.submitted[static_cast<size_t>(i)]) * 1e6);
    }
  }
  // The means over the measured frames, in ms, as "latency_breakdown_ms" (what each part holds:
  // docs/graphs.md), each part named after its stage where it is one; and the objects' latency
  // percentiles as "object_latency_ms". `frames`: each worker's frame part.
  static void breakdown_json(Json& j, const std::vector<const Part*>& parts,
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
    const char* names[] = {"handoff",      cfg.detections,  cfg.crop,
                           cfg.classifier, "objects_queue", "join"};
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

 private:
  // Executions a batch can need: each frame's most objects in executions of the model's batch.
  int per_batch() const {
    return cfg_->frames * ((cfg_->max_objects + cfg_->batch - 1) / cfg_->batch);
  }
  // Execution e of batch b: its slot in the pools (the batch's ring of executions).
  int slot(int64_t b, int e) const {
    const int64_t batches = std::max(1, pools_->crops.slots() / per_batch());
    return static_cast<int>(b % batches) * per_batch() + e;
  }
  struct Ready {
    int64_t batch;
    aclrtCallback done;
    void* record;
    Run* run;
  };
  // The object thread: submits each batch handed to it, in order; a failure fails the run.
  void loop(aclrtContext context) {
    aclError set = aclrtSetCurrentContext(context);
    for (;;) {
      Ready next{};
      {
        std::unique_lock<std::mutex> lock(queue_mu_);
        queue_cv_.wait(lock, [this] { return taken_ < queued_ || stopping_; });
        if (taken_ == queued_) return;
        next = queue_[static_cast<size_t>(taken_++ % static_cast<int64_t>(queue_.size()))];
      }
      try {
        check(set, cfg_->crop, "aclrtSetCurrentContext");
        submit(next.batch);
        if (next.run->recording && next.run->verify)
          check_crops(next.batch, *next.run, *next.run->inputs);
        check(aclrtLaunchCallback(next.done, next.record, ACL_CALLBACK_BLOCK, stream_),
              cfg_->labels, "aclrtLaunchCallback");
      } catch (const std::exception& e) {
        --next.run->callbacks_launched;  // counted when handed over (submit_objects): none comes
        next.run->error.set(e.what());
        next.run->stop = true;
        done_->abort();
      }
    }
  }
  FrameObjects& frame(int64_t b, int i) {
    return frames_[static_cast<size_t>(b % static_cast<int64_t>(frames_.size()))]
                  [static_cast<size_t>(i)];
  }
  crop::Mapping letterbox_mapping(const Input& in) const {
    const LetterboxArea a = letterbox_area(in.width, in.height, cfg_->net_width, cfg_->net_height,
                                           cfg_->paste_left_align);
    return crop::letterboxed(in.width, in.height, {a.left, a.right, a.top, a.bottom});
  }
  void load_model(const std::string& path, Cleanup& cleanup) {
    ASCGEN_CHECK(cfg_->classifier, aclmdlLoadFromFile(path.c_str(), &model_));
    cleanup.add("aclmdlUnload", [id = model_] { return aclmdlUnload(id); });
    desc_ = require(aclmdlCreateDesc(), cfg_->classifier, "aclmdlCreateDesc");
    cleanup.add("aclmdlDestroyDesc", [d = desc_] { return aclmdlDestroyDesc(d); });
    ASCGEN_CHECK(cfg_->classifier, aclmdlGetDesc(desc_, model_));
    const size_t in[] = {pools_->input.slot_bytes()}, out[] = {pools_->output.slot_bytes()};
    expect_model_sizes(cfg_->classifier, desc_, in, out, cfg_->gear_count > 0 ? 1 : 0);
    if (cfg_->gear_count > 0)  // its gears as the plan has them (ATC's --dynamic_batch_size)
      gear_input_ = dynamic_batch_input(cfg_->classifier, desc_, cfg_->gears, cfg_->gear_count);
  }
  acldvppBatchPicDesc* new_batch_desc(uint32_t pictures, Cleanup& cleanup) {
    acldvppBatchPicDesc* d =
        require(acldvppCreateBatchPicDesc(pictures), cfg_->crop, "acldvppCreateBatchPicDesc");
    cleanup.add("acldvppDestroyBatchPicDesc", [d] { return acldvppDestroyBatchPicDesc(d); });
    return d;
  }
  // Execution slot e's first r region pictures, as one output batch.
  acldvppBatchPicDesc* new_batch(int e, int r, Cleanup& cleanup) {
    acldvppBatchPicDesc* d = new_batch_desc(static_cast<uint32_t>(r), cleanup);
    for (int j = 0; j < r; ++j) {
      acldvppPicDesc* pic =
          require(acldvppGetPicDesc(d, static_cast<uint32_t>(j)), cfg_->crop, "acldvppGetPicDesc");
      uint8_t* at = static_cast<uint8_t*>(pools_->crops.slot(e)) +
                    static_cast<size_t>(j) * cfg_->region_stride;
      const Picture& p = cfg_->region;
      set_pic_desc(cfg_->crop, pic, at, static_cast<uint32_t>(p.bytes), p.format, p.width, p.height,
                   p.width_stride, p.height_stride);
    }
    return d;
  }
  // Objects first .. first + r - 1 of frame `fo` cut out into execution slot e (of batch b).
  void cut(int64_t b, int e, const FrameObjects& fo, int first, int r) {
    const size_t executions = static_cast<size_t>(pools_->crops.slots());
    const size_t call = static_cast<size_t>(b % static_cast<int64_t>(frames_.size())) * executions +
                        static_cast<size_t>(e) % executions;
    acldvppPicDesc* src = source_pics_[call];
    const Picture& p = fo.picture;
    set_pic_desc(cfg_->crop, src, fo.image, static_cast<uint32_t>(p.bytes), p.format, p.width,
                 p.height, p.width_stride, p.height_stride);
    acldvppRoiConfig** areas = &crop_areas_[call * static_cast<size_t>(cfg_->batch)];
    for (int j = 0; j < r; ++j) {
      const crop::Roi& roi = fo.objects[static_cast<size_t>(first + j)].roi;
      ASCGEN_CHECK(cfg_->crop,
                   acldvppSetRoiConfig(areas[j], roi.left, roi.right, roi.top, roi.bottom));
    }
    roi_counts_[call] = static_cast<uint32_t>(r);
    acldvppBatchPicDesc* out = outputs_of_[static_cast<size_t>(e * cfg_->batch + r - 1)];
    ASCGEN_CHECK(cfg_->crop, acldvppVpcBatchCropResizePasteAsync(channel_, sources_[call],
                                                                 &roi_counts_[call], 1, out, areas,
                                                                 pastes_.data(), resize_, stream_));
    // the regions back to back in the model's input (DVPP pictures lie at the sub-buffer stride)
    const size_t item = cfg_->region.bytes;
    for (int j = 0; j < r; ++j) {
      uint8_t* to = static_cast<uint8_t*>(pools_->input.slot(e)) + static_cast<size_t>(j) * item;
      const uint8_t* from = static_cast<const uint8_t*>(pools_->crops.slot(e)) +
                            static_cast<size_t>(j) * cfg_->region_stride;
      ASCGEN_CHECK(cfg_->crop,
                   aclrtMemcpyAsync(to, item, from, item, ACL_MEMCPY_DEVICE_TO_DEVICE, stream_));
    }
  }
  // The r objects in execution slot e classified at the smallest gear holding them, their scores
  // copied to the host.
  void classify(int e, int r) {
    if (cfg_->gear_count > 0)
      ASCGEN_CHECK(
          cfg_->classifier,
          aclmdlSetDynamicBatchSize(model_, inputs_[static_cast<size_t>(e)], gear_input_, gear(r)));
    ASCGEN_CHECK(cfg_->classifier, aclmdlExecuteAsync(model_, inputs_[static_cast<size_t>(e)],
                                                      outputs_[static_cast<size_t>(e)], stream_));
    ++executions_;
    const size_t bytes = static_cast<size_t>(r) * cfg_->scores_bytes;
    ASCGEN_CHECK(cfg_->fetch, aclrtMemcpyAsync(pools_->host.slot(e), pools_->host.slot_bytes(),
                                               pools_->output.slot(e), bytes,
                                               ACL_MEMCPY_DEVICE_TO_HOST, stream_));
  }
  uint64_t gear(int r) const {
    for (size_t k = 0; k < cfg_->gear_count; ++k)
      if (cfg_->gears[k] >= r) return static_cast<uint64_t>(cfg_->gears[k]);
    return static_cast<uint64_t>(cfg_->batch);
  }
  // The top-k of one object's scores (best first), folded.
  uint64_t top_k(const uint8_t* bytes) {
    const int n = static_cast<int>(cfg_->scores_bytes / sizeof(float));
    const float* s = reinterpret_cast<const float*>(bytes);
    int filled = 0;
    for (int c = 0; c < n; ++c) {
      if (filled == cfg_->k && !(s[c] > s[best_[static_cast<size_t>(filled - 1)]])) continue;
      int pos = filled < cfg_->k ? filled++ : filled - 1;
      while (pos > 0 && s[c] > s[best_[static_cast<size_t>(pos - 1)]]) {
        best_[static_cast<size_t>(pos)] = best_[static_cast<size_t>(pos - 1)];
        --pos;
      }
      best_[static_cast<size_t>(pos)] = c;
    }
    uint64_t sum = 0;
    for (int j = 0; j < filled; ++j)
      sum = sum * 31 + static_cast<uint64_t>(best_[static_cast<size_t>(j)]);
    best_filled_ = filled;
    return sum;
  }
  // The join (reference run): {"boxes": [[class, x1, y1, x2, y2, score], ...] in the picture's
  // pixels, "objects": [{"roi": [left, top, right, bottom], "crop_error": levels (-1: not checked),
  // "top": [class, ...]}, ...]}.
  void begin_join(const FrameObjects& fo, std::string& out) const {
    out = "{\"boxes\": [";
    const crop::Mapping& m = fo.mapping;
    for (int j = 0; j < fo.count; ++j) {
      const detections::Box& x = fo.objects[static_cast<size_t>(j)].box;
      char row[200];
      std::snprintf(row, sizeof row, "%s[%d, %.2f, %.2f, %.2f, %.2f, %.4f]", j ? ", " : "", x.cls,
                    static_cast<double>((x.x1 - m.offset_x) / m.scale_x),
                    static_cast<double>((x.y1 - m.offset_y) / m.scale_y),
                    static_cast<double>((x.x2 - m.offset_x) / m.scale_x),
                    static_cast<double>((x.y2 - m.offset_y) / m.scale_y),
                    static_cast<double>(x.score));
      out += row;
    }
    out += "], \"objects\": [";
  }
  void join_object(const FrameObjects& fo, int j, std::string& out) const {
    const Object& o = fo.objects[static_cast<size_t>(j)];
    char row[160];
    std::snprintf(row, sizeof row, "%s{\"roi\": [%u, %u, %u, %u], \"crop_error\": %.3f, \"top\": [",
                  j ? ", " : "", o.roi.left, o.roi.top, o.roi.right, o.roi.bottom, o.crop_error);
    out += row;
    for (int c = 0; c < best_filled_; ++c) {
      std::snprintf(row, sizeof row, "%s%d", c ? ", " : "", best_[static_cast<size_t>(c)]);
      out += row;
    }
    out += "]}";
  }
  // Input `input`'s objects' scores in the reference run (every worker compares with worker 0's).
  static std::vector<uint8_t>& expected(Run& run, size_t input) {
    if (run.expected_objects.size() <= input) run.expected_objects.resize(input + 1);
    return run.expected_objects[input];
  }

  const Config* cfg_ = nullptr;
  const Pools* pools_ = nullptr;
  Completions* done_ = nullptr;  // the worker's: its failure ends a wait for crops
  aclrtStream stream_ = nullptr;
  acldvppChannelDesc* channel_ = nullptr;
  acldvppResizeConfig* resize_ = nullptr;
  uint32_t model_ = 0;
  aclmdlDesc* desc_ = nullptr;
  size_t gear_input_ = 0;
  std::vector<aclmdlDataset*> inputs_, outputs_;
  std::vector<acldvppBatchPicDesc*> outputs_of_;   // [execution slot][regions - 1]
  acldvppRoiConfig* paste_ = nullptr;              // the whole region picture
  std::vector<acldvppRoiConfig*> pastes_;          // paste_, once per region of a call
  std::vector<acldvppBatchPicDesc*> sources_;      // [batch slot][execution slot]
  std::vector<acldvppPicDesc*> source_pics_;       // the picture of each
  std::vector<acldvppRoiConfig*> crop_areas_;      // [batch slot][execution slot][region]
  std::vector<uint32_t> roi_counts_;               // [batch slot][execution slot]
  std::vector<std::vector<FrameObjects>> frames_;  // [batch slot][frame]
  std::vector<aclrtEvent> marks_;  // [batch slot][before the crops, between, after the executions]
  std::vector<bool> timed_;        // [batch slot]: its marks were recorded (it had objects)
  std::vector<double> device_ms_;  // [batch slot][crops, executions]: their time on the device
  std::vector<int> best_;
  int best_filled_ = 0;
  ImageHold hold_;
  EventRing cropped_;
  int64_t executions_ = 0;
  // breakdown's sums over the measured frames (report thread): queue, hand-off, detections, crops,
  // executions, the rest of the object part, join
  static constexpr size_t kParts = 7;
  double breakdown_s_[kParts] = {};
  int64_t breakdown_frames_ = 0;
  struct ObjectsOf {
    int count, first;  // a frame's objects and its first execution
  };
  std::vector<ObjectsOf> objects_of_;  // [batch slot][frame]
  std::vector<double> cropped_at_;     // [batch slot][execution]: when its crop call was submitted
  LatencyHistogram from_crop_, from_arrival_;  // each object's latency
  std::mutex queue_mu_;
  std::condition_variable queue_cv_;
  std::vector<Ready> queue_;  // batches handed to the object thread: a ring of batch_slots
  int64_t queued_ = 0, taken_ = 0;
  bool stopping_ = false;
  std::thread thread_;  // last: started when everything it uses is set up
};

// Batch b's object work done (the object stream's callback, on the report thread): the
// objects' top-k and the join, then the batch completes.
template <class W>
struct ObjectsDone {
  static void on_done(void* record) {
    auto* r = static_cast<BatchRecord*>(record);
    W& t = *static_cast<W*>(r->worker);
    r->objects_done = now_s();
    current_run() = t.run;
    try {
      t.checksum += t.objects.finish(r->batch, *t.run, *t.run->inputs);
    } catch (const std::exception& e) {
      t.run->error.set(e.what());
      t.run->stop = true;
    }
    finish_batch(t, r->batch, now_s());
    ++t.run->callbacks_run;
  }
};

// Hands batch b's object work to the worker's object thread (complete_batch, on the report thread).
template <class W>
void submit_objects(W& t, int64_t b) {
  BatchRecord& r = t.batches[static_cast<size_t>(b % t.batch_slots())];
  // counted now, so that the run's drain (finish_callbacks) waits for the object thread to launch
  // it and for the report thread to run it, before the report thread stops
  ++t.run->callbacks_launched;
  t.objects.ready(b, ObjectsDone<W>::on_done, &r, t.run);
}

}  // namespace ascgen::objects

#endif  // ASCGEN_OBJECTS_H_
