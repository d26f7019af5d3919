"""docs/video.md's measured decode-only capacity: the 310's VDEC at 1080p and 720p, by the
generated programs under ``ascgen bench --sweep streams=...``.

Run ``python -m tools.video_capacity`` from the repository's root (see tools/video_capacity/run.py)."""
