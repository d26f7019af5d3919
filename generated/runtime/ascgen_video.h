// ascgen_video.h: a video program's mode of the run (ascgen_run.h): each worker is one camera
// stream; its feeder thread sends the stream's access units to its VDEC channel at their
// presentation time (pace realtime) or as fast as the pictures free up (asap), a late frame
// dropped (not sent, nor the stream's frames after it until the next key frame, which refers to
// no dropped one: the decoder never decodes what nobody reads) or queued; each decoded picture
// then goes through the pipeline's next steps from the decoder's callback (ascgen_layouts.h's
// per_stage steps and batch callback). Per stream it counts arrived,
// decoded, late, dropped and skipped frames and the latency from a frame's arrival to its
// result; --require-fps turns a stream that missed its fps or dropped a frame into exit 1.
// The stream's state: ascgen_video_stream.h; its feeder: ascgen_video_feed.h; the decoder's API
// (V1 aclvdec*, V2 hi_mpi_vdec_*): templates/stages/vdec.j2.
// Emitted verbatim by ascgen; hand-written, reviewed once.
#ifndef ASCGEN_VIDEO_H_
#define ASCGEN_VIDEO_H_

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ascgen_layouts.h"
#include "ascgen_video_feed.h"

namespace ascgen {
namespace video {

// ---------------------------------------------------------------- the mode

template <class W>
class VideoMode : public FrameMode<W, PerStageLayout> {
 public:
  VideoMode(const Config& cfg, Cleanup& cleanup) : cfg_(cfg), cleanup_(cleanup) {}

  void check_flags(const Options& opt) {
    if (opt.load_given)
      throw BadFlags(
          "--clients, --rate and --trace load a server: a spec with source: {kind: requests}");
    if (!opt.only_stage.empty())
      throw BadFlags(
          "--only-stage measures a stage alone; a video program's frames come from VDEC");
    if (opt.verify && !kHostDecoder)
      throw BadFlags(
          "--verify needs the host decoder: rebuild with libavcodec (Debian: apt-get install "
          "libavcodec-dev)");
    if (opt.verify) {  // every frame decoded, in order, to compare
      cfg_.drop_late = false;
      cfg_.whole_groups = true;
    }
    require_fps_ = opt.require_fps;
  }
  // The report thread runs the batch callbacks and V1's VDEC callbacks; a decode-only V2
  // program has neither.
  bool callbacks() const { return !decode_only<W>() || W::kVdecCallbacks; }
  void adopt(std::vector<std::unique_ptr<W>>& workers) {
    workers_ = &workers;
    FrameMode<W, PerStageLayout>::adopt(workers);
  }
  void abort() {
    if (workers_ == nullptr) return;
    for (auto& t : *workers_) t->video.abort();
  }
  // --verify: each file decoded once on the host (libavcodec), the reference of its streams.
  void reference(const std::vector<Input>& inputs) {
    // A frame's output is its own, not its input's: what the batch completions compare with a
    // per-input reference (run.verify) is off; the pictures are compared as they arrive.
    run_state().verify = false;
    run_state().expected.assign(inputs.size(), {});
    const bool h265 = std::string(cfg_.codec) == "h265";
    for (const Input& in : inputs) {
      std::vector<std::pair<size_t, size_t>> units;
      for (const Unit& u : access_units(in.bytes, h265)) units.emplace_back(u.offset, u.size);
      references_.push_back(host_decode(in.name, in.bytes, units, h265));
      if (references_.back().y.empty())
        throw std::runtime_error("verify: the host decodes no picture of '" + in.name + "'");
    }
    for (auto& t : *workers_) {
      t->video.reference = &references_[static_cast<size_t>(t->id) % references_.size()];
      t->video.host_y.assign(t->video_stride() * static_cast<size_t>(t->video.reference->height),
                             0);
      t->video.found.assign(t->video.reference->y.size(), {});
    }
  }
  // The clips in DVPP memory, each stream's channel (subscribing the report thread), the feeders.
  void start(aclrtContext context, const std::vector<Input>& inputs, const std::vector<int>& cpus) {
    run_state().expected.resize(inputs.size());  // the completions index it by input
    const bool h265 = std::string(cfg_.codec) == "h265";
    for (const Input& in : inputs) {
      Clip clip;
      clip.input = &in;
      clip.units = access_units(in.bytes, h265);
      void* data = nullptr;
      const DvppAllocator dvpp = dvpp_allocator();
      check(dvpp.alloc(&data, in.bytes.size()), "source", dvpp.alloc_name);
      cleanup_.add(dvpp.release_name, [data, dvpp] { return dvpp.release(data); });
      check(aclrtMemcpy(data, in.bytes.size(), in.bytes.data(), in.bytes.size(),
                        ACL_MEMCPY_HOST_TO_DEVICE),
            "source", "aclrtMemcpy");
      clip.device = static_cast<uint8_t*>(data);
      clips_.push_back(std::move(clip));
    }
    for (auto& t : *workers_) {
      t->video_open(run_state().report_thread, cleanup_);
      t->video.open = true;
    }
    // A decode-only program's report thread serves the channels alone: it runs once they
    // subscribed it (before, aclrtProcessReport would fail: ACL_FACTS 1.4, Callbacks).
    if (decode_only<W>() && W::kVdecCallbacks) run_state().reporter->start();
    for (auto& t : *workers_) {
      W* w = t.get();
      const Clip* clip = &clips_[static_cast<size_t>(w->id) % clips_.size()];
      threads_.emplace_back([this, w, clip, context, &cpus] {
        worker_thread(
            *w, context, cpus, [this, w, clip] { feed(*w, *clip, cfg_); }, [this] { abort(); });
      });
    }
  }
  // The feeders, then each stream's end: its send returns once every frame is decoded and every
  // callback has returned (so nothing is pending when the report thread stops).
  void join() {
    for (std::thread& th : threads_) th.join();
    for (auto& t : *workers_)
      if (t->video.open) t->video_end();
  }
  LatencyHistogram fill(Report& report) {
    LatencyHistogram latency = FrameMode<W, PerStageLayout>::fill(report);
    const double duration = report.duration_s;
    streams_held_ = 0;
    missed_.clear();
    std::vector<StreamReport> rows;
    for (const auto& t : *workers_) {
      const Counts& c = t->video.counts;
      StreamReport s{t->id,
                     t->measured_frames,
                     duration > 0 ? t->measured_frames / duration : 0.0,
                     c.arrived,
                     c.decoded,
                     c.late,
                     c.dropped,
                     c.skipped,
                     c.failed,
                     t->latency.percentile_ms(50),
                     t->latency.percentile_ms(99),
                     t->latency.max_ms()};
      // the stream kept up with its sends: pictures done, and sends that bring none (the first
      // field of each frame of a field-coded stream, whose fps counts fields)
      const double kept = duration > 0 ? s.fps + static_cast<double>(c.skipped) / duration : 0.0;
      s.held = kept * time_scale() >= cfg_.fps * (1 - kFpsTolerance) && s.dropped == 0;
      if (s.held)
        ++streams_held_;
      else
        missed_.push_back(s);
      rows.push_back(s);
    }
    // the frame mode's keys (the NUMA placement), then the video's
    report.more = [this, rows, frame_more = std::move(report.more)](Json& j) {
      if (frame_more) frame_more(j);
      j.key("video").open('{');
      j.key("fps_target").num(cfg_.fps).key("pace").str(cfg_.realtime ? "realtime" : "asap");
      j.key("late").str(cfg_.drop_late ? "drop" : "queue").key("codec").str(cfg_.codec);
      j.key("time_scale").num(time_scale());  // per-stream fps are the host's: x time_scale
      j.key("streams_held")
          .integer(streams_held_)
          .key("streams_total")
          .integer(static_cast<int64_t>(rows.size()));
      j.key("held").boolean(missed_.empty()).key("require_fps").boolean(require_fps_);
      j.key("per_stream").open('[');
      for (const StreamReport& s : rows) {
        j.open('{').key("stream").integer(s.id).key("fps").num(s.fps).key("frames").integer(
            s.frames);
        j.key("arrived").integer(s.arrived).key("decoded").integer(s.decoded).key("late").integer(
            s.late);
        j.key("dropped").integer(s.dropped).key("skipped").integer(s.skipped).key("failed").integer(
            s.failed);
        j.key("latency_ms")
            .open('{')
            .key("p50")
            .num(s.p50)
            .key("p99")
            .num(s.p99)
            .key("max")
            .num(s.max);
        j.close('}').key("held").boolean(s.held).close('}');
      }
      j.close(']').close('}');
      picture_results_json(j);
    };
    return latency;
  }
  // --verify: what the host stages found in each picture of each file, from the first stream
  // that plays it, as "results": [{input, picture, found}] (left out when they said nothing).
  void picture_results_json(Json& j) const {
    const std::vector<Input>& inputs = *run_state().inputs;
    bool open = false;
    for (size_t k = 0; k < inputs.size() && k < workers_->size(); ++k) {
      const std::vector<std::string>& found =
          (*workers_)[k]->video.found;  // stream k plays input k
      for (size_t n = 0; n < found.size(); ++n) {
        if (found[n].empty()) continue;
        if (!open) j.key("results").open('[');
        open = true;
        j.open('{')
            .key("input")
            .str(inputs[k].name)
            .key("picture")
            .integer(static_cast<int64_t>(n));
        j.key("found").raw(found[n]).close('}');
      }
    }
    if (open) j.close(']');
  }
  // --verify compares every decoded picture (a decode-only program returns nothing else).
  bool verifiable(const W&) const { return true; }
  // The answer where the reader looks first: one line on stderr, and with --require-fps a
  // stream that missed its fps or dropped a frame fails the run (exit 1).
  void after_report(const ProgramInfo& info) {
    const size_t total = workers_->size();
    int64_t skipped = 0;
    for (const auto& t : *workers_) skipped += t->video.counts.skipped;
    if (skipped > 0)
      std::fprintf(
          stderr,
          "%s: video: %" PRId64
          " frame(s) came back from VDEC with no picture, counted as skipped (not failed, "
          "not dropped): a field of an interlaced frame (result 0x20000) or a NULL output\n",
          info.name, skipped);
    if (missed_.empty()) {
      std::fprintf(stderr, "%s: video: all %zu stream(s) held %g fps, no frame dropped\n",
                   info.name, total, cfg_.fps);
      return;
    }
    std::fprintf(stderr, "%s: video: %zu of %zu stream(s) did NOT hold %g fps:", info.name,
                 missed_.size(), total, cfg_.fps);
    for (size_t k = 0; k < missed_.size() && k < 4; ++k)
      std::fprintf(stderr, " stream %d %.1f fps, %" PRId64 " late, %" PRId64 " dropped;",
                   missed_[k].id, missed_[k].fps * time_scale(), missed_[k].late,
                   missed_[k].dropped);
    const Run& run = run_state();  // a failed frame fails the run anyway: no "exit 0" then
    const bool failed = run.frames_failed > 0 && !run.skip_decode_errors;
    std::fprintf(stderr, "%s\n",
                 require_fps_ ? ""
                 : failed     ? " (--require-fps makes this a failure)"
                              : " (exit 0: --require-fps makes this a failure)");
    if (require_fps_) run_state().requirement_missed = static_cast<int64_t>(missed_.size());
  }

 private:
  struct StreamReport {
    int id;
    int64_t frames;
    double fps;
    int64_t arrived, decoded, late, dropped, skipped, failed;
    double p50, p99, max;
    bool held = false;
  };
  Config cfg_;
  Cleanup& cleanup_;
  bool require_fps_ = false;
  std::vector<std::unique_ptr<W>>* workers_ = nullptr;
  std::vector<Clip> clips_;
  std::vector<HostPictures> references_;
  std::vector<std::thread> threads_;
  int64_t streams_held_ = 0;
  std::vector<StreamReport> missed_;
};

// The whole program: one device, one worker per stream.
template <class W>
int video_main(int argc, char** argv, const ProgramInfo& info, const Config& cfg,
               const Options& defaults, const std::vector<StageInfo>& stages) {
  const Options opt = start_program(argc, argv, defaults);
  if (!opt.devices.empty() && opt.devices.find(',') != std::string::npos) {
    std::fprintf(stderr, "%s: a video program runs on one device (--devices N)\n", info.name);
    return 2;
  }
  return guarded(info, opt, [&](Cleanup& cleanup) {
    VideoMode<W> mode(cfg, cleanup);
    return run_program<W>(mode, info, opt, cleanup, stages);
  });
}

}  // namespace video
}  // namespace ascgen

#endif  // ASCGEN_VIDEO_H_
