// ascgen_objects.h: the object part of a graph program (docs/graphs.md, "Generating the graph"):
// the crops of each frame's detections, the model of objects on them, its scores back on the
// host, and the join of each frame's boxes with its objects' top-k. Emitted verbatim by ascgen
// into graph programs; hand-written, reviewed once.
//
// The crops depend on the detections, which the host computes when the detector's batch is back,
// so the object part is submitted by the host: the report thread, in the batch's completion
// (complete_batch), hands the batch to the worker's object thread (a callback must not launch
// tasks: ACL_FACTS 1.4, Callbacks), which submits it on the worker's object stream: per execution
// the batch crop call and the copies of the regions into the model's input, then the copy of the
// scores, and after a batch's last execution a blocking callback (ACL_CALLBACK_BLOCK) that reads
// its scores and completes the batch. The executions themselves go on the AI Core's one stream
// (per_stage: the frames' model's, shared by every worker, under its lock) with the one instance
// of the model of objects every worker shares, so the AI Core never switches streams, only models
// (the weights reload: the plan counts it): the object stream records an event after the copies,
// the AI Core's stream waits on it, executes and records an event, and the object stream waits on
// that before the copy of the scores. The object stream submits the next execution's crops before
// it waits for the last one's scores (two events in each direction, their rings: each record
// follows the reset of its previous use on the other stream), so the crops of an execution run
// while the one before it executes. The executions take the pools' execution slots in turn (the
// plan's pools hold one per execution a batch can need for each batch slot: at least two batches'
// worth, more than the executions of one batch and the one it shares with the batch before), so
// the host reads a batch's scores while no copy of a later execution's is pending into them; the
// blocking callback keeps the stream's order even where --depth runs more batches than the pools
// hold.
//
// Objects are batched across frames (the object queue): the object thread cuts the objects of
// the batches handed to it, in order, into executions of the model's batch, each with one batch
// crop call over the regions of several frames' pictures (ACL_FACTS 4/8: a call takes several
// pictures, at most 256 regions, their sum the output batch). A full execution goes at once; the
// rest waits for the next batches' objects until the oldest of it waited max_queue_delay_us
// (0: never waits), then runs at the smallest gear holding it. It goes early when waiting cannot
// bring more: the worker waits for the picture of a frame in the queue, every batch the worker
// has in flight is in the queue, the serial reference run, or the part stops. Each batch
// completes (its callback) once its last object's execution was submitted; a frame without
// objects runs no object work.
//
// The decoded picture's slot: the crops read it long after the frame part's last reader, so
// before the worker decodes into the slot again it waits (on the host) until the crops of the
// slot's previous frame were submitted (a frame in the object queue keeps its picture), then (on
// its stream) for the event recorded after them. The stream never waits on an event whose record
// was not submitted (ACL_FACTS 7: undocumented). The worker waits on the report thread, which
// waits on the frames of a batch: frames in flight must be at least the batch + 1 (checked at
// start-up and by the plan); the queue never holds a picture the worker waits for.
//
// The baseline (streams: per_thread, the study's hand-written style) gives the part the worker's
// one stream instead, for the executions too, with a model instance of its own: no object thread,
// no hold, no event. The worker submits a window's frames, syncs, runs the detections and submits
// each batch's object work on the same stream (submit_objects), objects batched per frame (an
// execution takes one frame's), syncs again and joins (finish_objects; ascgen_layouts.h,
// PerThread).
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
  const char* post_process;    // the detections stage (the breakdown's name of its part)
  int64_t max_queue_delay_us;  // the oldest queued object waits at most this for more (0: never)
};

// The model of objects' instance: loaded once for every worker (per_stage, SharedResources), or by
// each worker's part for itself (per_thread).
struct Model {
  uint32_t id = 0;
  aclmdlDesc* desc = nullptr;
  size_t gear_input = 0;  // its dynamic batch input (gears only)
  void load(const Config& cfg, const std::string& path, Cleanup& cleanup);
};

// Where the executions go: the AI Core's one stream, taken under `lock` by every thread that
// submits to it (the frames' model's stream and lock), with the shared instance `model`. A null
// stream: the part's own stream (per_thread: the worker's); a null model: an instance of its own.
struct AiCore {
  aclrtStream stream = nullptr;
  std::mutex* lock = nullptr;
  const Model* model = nullptr;
};

// The events each way between the object stream and the AI Core's, per ring: the object stream
// submits one execution ahead of the scores it waits for (start-up check: kAiCoreRing counts them).
constexpr int kAiCoreEvents = 2;
constexpr PoolSpec kAiCoreRing = {Memory::kDevice, 0, 0, {1, kAiCoreEvents, kAiCoreEvents}};

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
  int slot = 0;            // the execution slot (of the pools) it was cut into
  int item = 0;            // and its place in that execution
  double cropped_at = 0;   // when its crop call was submitted (now_s)
};

// A frame's objects, between its detections and its batch's completion.
struct FrameObjects {
  int count = 0;
  int cut = 0;            // of them, cut out so far (the object queue's cursor)
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
  ~Part();
  aclrtStream stream() const { return stream_; }

  // `on`: the worker's stream (per_thread), else the part has a stream and a thread of its own;
  // `model_path`: the model of objects, loaded here unless `aicore` has the shared instance.
  void setup(const Config& cfg, const Setup& ctx, const std::string& model_path, const Pools& pools,
             int image_slots, Completions& done, Cleanup& cleanup, const AiCore& aicore,
             aclrtStream on = nullptr);

  // Batch b's detections are kept (report thread): its object thread submits its object work,
  // then `done(record)` on the object stream.
  // A frame without objects lets its picture go at once.
  void ready(int64_t b, aclrtCallback done, void* record, Run* run);

  // The baseline's: the part submits on the worker's stream, from the worker (submit_here).
  bool on_worker_stream() const { return on_worker_stream_; }
  // Batch b's object work submitted on the worker's stream (per_thread, worker thread, its frames
  // synchronised); the reference run of --verify checks its crops.
  void submit_here(int64_t b, Run& run, const std::vector<Input>&);

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
            const Picture& picture, const Input& in);

  // Frame f's decoded picture slot may be written again (worker thread, before the decode of the
  // frame that reuses it): once its crops were submitted, after them on `stream`.
  // A frame waiting in the object queue goes at once (the worker needs its picture back).
  void wait_image(int64_t f, aclrtStream stream);

  // Batch b's scores are on the host (its callback): each object's top-k, folded into the
  // checksum; the reference run keeps each input's objects and says what the frame holds (the
  // join: its boxes in the picture's pixels, each object's region and top-k); --verify compares
  // the objects' scores with the reference's. Clears the batch's objects.
  uint64_t finish(int64_t b, Run& run, const std::vector<Input>& inputs);

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
  void breakdown(const BatchRecord& r, int i, double now, StageMarks& frame);
  // The means over the measured frames, in ms, as "latency_breakdown_ms" (what each part holds:
  // docs/graphs.md), each part named after its stage where it is one; and the objects' latency
  // percentiles as "object_latency_ms". `frames`: each worker's frame part.
  static void breakdown_json(Json& j, const std::vector<const Part*>& parts,
                             const std::vector<const StageMarks*>& frames);

 private:
  using Clock = std::chrono::steady_clock;
  struct Ready {
    int64_t batch;
    aclrtCallback done;
    void* record;
    Run* run;
    Clock::time_point at;  // when it was handed over: its objects' arrival in the queue
  };
  // The objects of one frame in one execution: frame i of the queue's batch q, objects first ..
  // first + r - 1.
  struct Group {
    int64_t q;
    int i, first, r;
  };
  const Ready& queued(int64_t q) const {
    return queue_[static_cast<size_t>(q % static_cast<int64_t>(queue_.size()))];
  }
  // Objects in the queue not cut yet (batches handed over before `end`), counted up to the batch.
  int waiting(int64_t end) {
    int n = 0;
    for (int64_t q = head_; q < end && n < cfg_->batch; ++q)
      for (int i = q == head_ ? frame_ : 0; i < cfg_->frames; ++i) {
        const FrameObjects& fo = frame(queued(q).batch, i);
        n += fo.count - fo.cut;
      }
    return n;
  }
  // The object thread: cuts the queue's objects into executions as they come, in order (the
  // object queue, above); a failure fails the run and drops what the queue holds.
  void loop(aclrtContext context) {
    const aclError set = aclrtSetCurrentContext(context);
    const auto delay = std::chrono::microseconds(cfg_->max_queue_delay_us);
    std::unique_lock<std::mutex> lock(queue_mu_);
    for (;;) {
      const int64_t end = queued_;
      if (head_ == end) {
        if (stopping_) return;
        queue_cv_.wait(lock);
        continue;
      }
      const Ready& oldest = queued(head_);
      const Clock::time_point due = oldest.at + delay;
      const bool now = stopping_ || failed_ || oldest.run->recording ||
                       end - head_ >= static_cast<int64_t>(queue_.size()) ||
                       wanted_ >= oldest.batch * cfg_->frames + frame_ || Clock::now() >= due;
      // what came since the last cut (its full executions, the batches without objects) goes at
      // once; the rest waits until it is due or more comes
      if (!now && end == cut_end_ && waiting(end) < cfg_->batch) {
        queue_cv_.wait_until(lock, due);
        continue;
      }
      cut_end_ = end;
      lock.unlock();
      try {
        if (failed_) throw std::runtime_error("");
        check(set, cfg_->crop, "aclrtSetCurrentContext");
        cut_queue(end, now);
      } catch (const std::exception& e) {
        for (; head_ < end; ++head_, frame_ = 0) {  // their callbacks never come
          const Ready& r = queued(head_);
          --r.run->callbacks_launched;  // counted when handed over (submit_objects)
          if (!failed_) r.run->error.set(e.what());
          r.run->stop = true;
        }
        failed_ = true;
        done_->abort();
      }
      lock.lock();
    }
  }
  // Executions of the queue's objects (batches handed over before `end`): the full ones, and with
  // `all` the rest at the smallest gear holding it; then each batch whose objects were all cut
  // completes (its callback on the stream, in order).
  void cut_queue(int64_t end, bool all) {
    for (;;) {
      int64_t q = head_;
      int i = frame_, taken = 0;
      size_t groups = 0;
      // the baseline (per_thread) batches objects per frame, as a hand writer does first: an
      // execution takes the objects of one frame
      const auto room = [&] { return taken < cfg_->batch && !(on_worker_stream_ && taken > 0); };
      for (; q < end && room(); ++q, i = 0)
        for (; i < cfg_->frames && room(); ++i) {
          const FrameObjects& fo = frame(queued(q).batch, i);
          const int r = std::min(fo.count - fo.cut, cfg_->batch - taken);
          if (r <= 0) continue;
          groups_[groups++] = {q, i, fo.cut, r};
          taken += r;
        }
      if (taken == 0 || (taken < cfg_->batch && !all)) break;
      execute(groups, taken);
    }
    fetch_pending();  // the last execution's scores, before any batch's callback
    for (; head_ < end; ++head_, frame_ = 0) {  // past the frames whose objects were all cut
      const Ready& r = queued(head_);
      for (; frame_ < cfg_->frames; ++frame_) {
        const FrameObjects& fo = frame(r.batch, frame_);
        if (fo.cut < fo.count) return;
      }
      if (r.done != nullptr)
        check(aclrtLaunchCallback(r.done, r.record, ACL_CALLBACK_BLOCK, stream_), cfg_->labels,
              "aclrtLaunchCallback");
    }
  }
  // One execution of the model of objects over groups_[0, groups) (`taken` objects): one batch
  // crop call over their frames' pictures, the regions copied into the model's input, the
  // execution at the smallest gear holding them, then the scores of the execution before copied
  // to the host (this one's follow with the next execution, or at the end of the cut). Each frame
  // whose objects are then all cut lets its picture go once its crops ran (an event after them).
  void execute(size_t groups, int taken) {
    const int64_t x = executions_;
    const int e = static_cast<int>(x % pools_->crops.slots());
    const size_t c = static_cast<size_t>(x % static_cast<int64_t>(calls_));
    const size_t n = static_cast<size_t>(cfg_->batch);
    ASCGEN_CHECK(cfg_->crop, aclrtRecordEvent(marks_[c * 3], stream_));
    const size_t source = c * n + groups - 1;  // the batch of `groups` source pictures
    acldvppPicDesc* const* pics = &source_pics_[c * n * (n + 1) / 2 + (groups - 1) * groups / 2];
    acldvppRoiConfig** areas = &crop_areas_[c * n];
    uint32_t* counts = &roi_counts_[c * n];
    int item = 0;
    const double cropped_at = now_s();
    for (size_t g = 0; g < groups; ++g) {
      const Group& grp = groups_[g];
      const int64_t b = queued(grp.q).batch;
      FrameObjects& fo = frame(b, grp.i);
      const Picture& p = fo.picture;
      set_pic_desc(cfg_->crop, pics[g], fo.image, static_cast<uint32_t>(p.bytes), p.format, p.width,
                   p.height, p.width_stride, p.height_stride);
      for (int j = grp.first; j < grp.first + grp.r; ++j, ++item) {
        Object& o = fo.objects[static_cast<size_t>(j)];
        ASCGEN_CHECK(cfg_->crop, acldvppSetRoiConfig(areas[item], o.roi.left, o.roi.right,
                                                     o.roi.top, o.roi.bottom));
        o.slot = e;
        o.item = item;
        o.cropped_at = cropped_at;
      }
      counts[g] = static_cast<uint32_t>(grp.r);
      const size_t at = static_cast<size_t>(b % static_cast<int64_t>(frames_.size())) * 2;
      if (runs_[at] < 0) runs_[at] = x;
      runs_[at + 1] = x;
    }
    acldvppBatchPicDesc* out = outputs_of_[static_cast<size_t>(e * cfg_->batch + taken - 1)];
    ASCGEN_CHECK(cfg_->crop, acldvppVpcBatchCropResizePasteAsync(
                                 channel_, sources_[source], counts, static_cast<uint32_t>(groups),
                                 out, areas, pastes_.data(), resize_, stream_));
    // the regions back to back in the model's input (DVPP pictures lie at the sub-buffer stride)
    const size_t bytes = cfg_->region.bytes;
    for (int j = 0; j < taken; ++j) {
      uint8_t* to = static_cast<uint8_t*>(pools_->input.slot(e)) + static_cast<size_t>(j) * bytes;
      const uint8_t* from = static_cast<const uint8_t*>(pools_->crops.slot(e)) +
                            static_cast<size_t>(j) * cfg_->region_stride;
      ASCGEN_CHECK(cfg_->crop,
                   aclrtMemcpyAsync(to, bytes, from, bytes, ACL_MEMCPY_DEVICE_TO_DEVICE, stream_));
    }
    Run& run = *queued(groups_[0].q).run;
    if (run.recording && run.verify) check_crops(groups, run);
    for (size_t g = 0; g < groups; ++g) {
      const Group& grp = groups_[g];
      const int64_t b = queued(grp.q).batch;
      FrameObjects& fo = frame(b, grp.i);
      fo.cut = grp.first + grp.r;
      if (fo.cut < fo.count) continue;
      if (on_worker_stream_) continue;  // the worker's own stream: nothing held
      const int64_t f = b * cfg_->frames + grp.i;
      cropped_.record(f, stream_);
      hold_.release(f, true);
    }
    ASCGEN_CHECK(cfg_->crop, aclrtRecordEvent(marks_[c * 3 + 1], stream_));
    classify(x, e, taken);
  }
  // --verify's reference run (the execution's crops submitted): once they ran, each against a CPU
  // crop-and-resize of its region of the decoded picture (crop::crop_error; its frame's picture
  // is held until its crops were cut, so it is still there).
  void check_crops(size_t groups, Run& run) {
    check(aclrtSynchronizeStream(stream_), cfg_->crop, "aclrtSynchronizeStream");
    const Picture& p = cfg_->region;
    const std::vector<Input>& inputs = *run.inputs;
    for (size_t g = 0; g < groups; ++g) {
      const Group& grp = groups_[g];
      FrameObjects& fo = frame(queued(grp.q).batch, grp.i);
      check_image_.resize(fo.picture.bytes);
      check_crop_.resize(p.bytes);
      ASCGEN_CHECK(cfg_->crop, aclrtMemcpy(check_image_.data(), check_image_.size(), fo.image,
                                           check_image_.size(), ACL_MEMCPY_DEVICE_TO_HOST));
      const crop::Plane src{check_image_.data(), fo.picture.width_stride, fo.picture.height_stride};
      for (int j = grp.first; j < grp.first + grp.r; ++j) {
        Object& o = fo.objects[static_cast<size_t>(j)];
        const uint8_t* at = static_cast<const uint8_t*>(pools_->crops.slot(o.slot)) +
                            static_cast<size_t>(o.item) * cfg_->region_stride;
        ASCGEN_CHECK(cfg_->crop, aclrtMemcpy(check_crop_.data(), check_crop_.size(), at,
                                             check_crop_.size(), ACL_MEMCPY_DEVICE_TO_HOST));
        o.crop_error = crop::crop_error(
            src, o.roi, {check_crop_.data(), p.width_stride, p.height_stride}, p.width, p.height);
        if (o.crop_error > crop::kCropTolerance && run.mismatches.fetch_add(1) < 5)
          std::fprintf(stderr,
                       "verify: input '%s' object %d: its crop is %.2f levels from a CPU "
                       "crop-and-resize of its region (tolerance %.1f)\n",
                       inputs[static_cast<size_t>(fo.input)].name.c_str(), j, o.crop_error,
                       crop::kCropTolerance);
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
  // Execution x: the r objects in execution slot e classified at the smallest gear holding them,
  // on the AI Core's stream once their copies into the model's input ran (an event; under the
  // stream's lock: one thread at a time, its wait, execution and record together); then the
  // scores of the execution before it copied (fetch_pending), and this one's kept for later. On
  // the part's own stream (per_thread) it needs no event, and its scores are copied at once.
  void classify(int64_t x, int e, int r) {
    const size_t at = static_cast<size_t>(e);
    if (aicore_ == stream_) {
      execute_model(at, r, stream_);
    } else {
      to_aicore_.record(x, stream_);
      std::unique_lock<std::mutex> lock;
      if (aicore_lock_ != nullptr) lock = std::unique_lock<std::mutex>(*aicore_lock_);
      to_aicore_.wait(x, aicore_);
      execute_model(at, r, aicore_);
      from_aicore_.record(x, aicore_);
    }
    fetch_pending();
    pending_ = {x, e, r};
    if (aicore_ == stream_) fetch_pending();
  }
  void execute_model(size_t e, int r, aclrtStream on) {
    if (cfg_->gear_count > 0)
      ASCGEN_CHECK(cfg_->classifier,
                   aclmdlSetDynamicBatchSize(model_->id, inputs_[e], model_->gear_input, gear(r)));
    ASCGEN_CHECK(cfg_->classifier, aclmdlExecuteAsync(model_->id, inputs_[e], outputs_[e], on));
    ++executions_;
  }
  // The scores of the execution submitted last, if not copied yet: once it ran (its event), to
  // the host, then the timing mark after it.
  void fetch_pending() {
    if (pending_.x < 0) return;
    const Pending p = pending_;
    pending_.x = -1;
    if (aicore_ != stream_) from_aicore_.wait(p.x, stream_);
    const size_t bytes = static_cast<size_t>(p.r) * cfg_->scores_bytes;
    ASCGEN_CHECK(cfg_->fetch, aclrtMemcpyAsync(pools_->host.slot(p.e), pools_->host.slot_bytes(),
                                               pools_->output.slot(p.e), bytes,
                                               ACL_MEMCPY_DEVICE_TO_HOST, stream_));
    ASCGEN_CHECK(cfg_->classifier, aclrtRecordEvent(mark(p.x, 2), stream_));
  }
  // Execution x's timing mark k: before its crops (0), between them and the execution (1), after
  // its scores' copy (2).
  aclrtEvent mark(int64_t x, size_t k) const {
    return marks_[static_cast<size_t>(x % static_cast<int64_t>(calls_)) * 3 + k];
  }
  float elapsed(aclrtEvent from, aclrtEvent to) const {
    float ms = 0;
    ASCGEN_CHECK(cfg_->labels, aclrtEventElapsedTime(&ms, from, to));
    return ms;
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
  bool on_worker_stream_ = false;  // the baseline's (per_thread): the worker's stream, no thread
  aclrtStream aicore_ = nullptr;   // where the executions go (stream_: no event between them)
  std::mutex* aicore_lock_ = nullptr;
  EventRing to_aicore_, from_aicore_;  // the copies into the input ran; the execution ran
  struct Pending {
    int64_t x;  // the execution whose scores are not copied yet (-1: none)
    int e, r;   // its slot and objects
  } pending_{-1, 0, 0};
  acldvppChannelDesc* channel_ = nullptr;
  acldvppResizeConfig* resize_ = nullptr;
  Model own_model_;               // per_thread: the worker's instance
  const Model* model_ = nullptr;  // the instance it runs (own_model_ or the shared one)
  std::vector<aclmdlDataset*> inputs_, outputs_;
  std::vector<acldvppBatchPicDesc*> outputs_of_;   // [execution slot][regions - 1]
  acldvppRoiConfig* paste_ = nullptr;              // the whole region picture
  std::vector<acldvppRoiConfig*> pastes_;          // paste_, once per region of a call
  size_t calls_ = 0;                               // executions in flight at most (a ring)
  std::vector<acldvppBatchPicDesc*> sources_;      // [call][pictures - 1]
  std::vector<acldvppPicDesc*> source_pics_;       // the pictures of each, in that order
  std::vector<acldvppRoiConfig*> crop_areas_;      // [call][region]
  std::vector<uint32_t> roi_counts_;               // [call][picture]
  std::vector<Group> groups_;                      // the execution being cut: its frames' objects
  std::vector<std::vector<FrameObjects>> frames_;  // [batch slot][frame]
  std::vector<aclrtEvent> marks_;  // [call][before the crop, between, after the execution]
  std::vector<int64_t> runs_;      // [batch slot][first, last execution of its objects] (-1: none)
  std::vector<double> device_ms_;  // [batch slot][crops, executions]: their time on the device
  std::vector<uint8_t> check_image_, check_crop_;  // --verify's reference run: copies on the host
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
  std::vector<int> counted_;  // [batch slot][frame]: its objects (for the breakdown, after finish)
  LatencyHistogram from_crop_, from_arrival_;  // each object's latency
  std::mutex queue_mu_;
  std::condition_variable queue_cv_;
  std::vector<Ready> queue_;  // batches handed to the object thread: a ring of batch_slots
  int64_t queued_ = 0;        // batches handed over
  int64_t cut_end_ = 0;       // queued_ when the object thread last cut (object thread)
  int64_t head_ = 0;          // the first whose objects are not all cut (its callback not launched)
  int frame_ = 0;             // and its first frame with objects not cut
  int64_t wanted_ = -1;       // the newest frame whose picture the worker waits for
  bool stopping_ = false;
  bool failed_ = false;  // the object thread failed: it drops what it is given
  std::thread thread_;   // last: started when everything it uses is set up
};

// Batch b's object work done (the object stream's callback, on the report thread): the
// objects' top-k and the join, then the batch completes.
template <class W>
struct ObjectsDone {
  static void on_done(void* record) {
    auto* r = static_cast<BatchRecord*>(record);
    W& t = *static_cast<W*>(r->worker);
    current_run() = t.run;
    finish_objects(t, r->batch, now_s());
    finish_batch(t, r->batch, now_s());
    ++t.run->callbacks_run;
  }
};

// Batch b's objects are back on the host at `now`: their top-k and the join (the object stream's
// callback; per_thread: the worker, after its stream's sync). The caller completes the batch.
template <class W>
void finish_objects(W& t, int64_t b, double now) {
  t.batches[static_cast<size_t>(b % t.batch_slots())].objects_done = now;
  try {
    t.checksum += t.objects.finish(b, *t.run, *t.run->inputs);
  } catch (const std::exception& e) {
    t.run->error.set(e.what());
    t.run->stop = true;
  }
}

// Hands batch b's object work to the worker's object thread (complete_batch, on the report thread).
// per_thread: submits it on the worker's stream now (the layout syncs it and finishes the batch).
template <class W>
void submit_objects(W& t, int64_t b) {
  if (t.objects.on_worker_stream()) return t.objects.submit_here(b, *t.run, *t.run->inputs);
  BatchRecord& r = t.batches[static_cast<size_t>(b % t.batch_slots())];
  // counted now, so that the run's drain (finish_callbacks) waits for the object thread to launch
  // it and for the report thread to run it, before the report thread stops
  ++t.run->callbacks_launched;
  t.objects.ready(b, ObjectsDone<W>::on_done, &r, t.run);
}

}  // namespace ascgen::objects

#endif  // ASCGEN_OBJECTS_H_
