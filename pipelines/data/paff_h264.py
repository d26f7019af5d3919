"""Field-coded (PAFF) H.264 clips for make_clips.py: each frame two I fields (top first), each field
one slice of I_PCM macroblocks (raw samples: no transform, exact), so that a decoder weaves them into
the frame written. libx264 codes interlaced video as MBAFF frames only; this is the other form, an
access unit per field, which VDEC V1 answers with 0x20000 on one field of each frame (HA
canncommercial/601 aclcppdevg_03_0208). ITU-T H.264 7.3: SPS (Main profile, frame_mbs_only_flag 0),
PPS (CAVLC), slice headers with field_pic_flag 1; each frame an IDR top field and a non-IDR I
bottom field, so every frame is a key frame."""

from __future__ import annotations


class Bits:
    def __init__(self) -> None:
        self.out = bytearray()
        self.acc = 0
        self.n = 0

    def u(self, bits: int, value: int) -> None:
        for k in range(bits - 1, -1, -1):
            self.acc = (self.acc << 1) | ((value >> k) & 1)
            self.n += 1
            if self.n == 8:
                self.out.append(self.acc)
                self.acc = self.n = 0

    def ue(self, value: int) -> None:
        code = value + 1
        length = code.bit_length()
        self.u(length - 1, 0)
        self.u(length, code)

    def se(self, value: int) -> None:
        self.ue(2 * value - 1 if value > 0 else -2 * value)

    def align_zero(self) -> None:
        while self.n:
            self.u(1, 0)

    def trailing(self) -> bytes:
        self.u(1, 1)
        self.align_zero()
        return bytes(self.out)


def nal(ref_idc: int, kind: int, rbsp: bytes) -> bytes:
    """Start code, header, payload with emulation prevention (ITU-T H.264 7.4.1)."""
    out = bytearray(b"\x00\x00\x00\x01")
    out.append((ref_idc << 5) | kind)
    zeros = 0
    for byte in rbsp:
        if zeros >= 2 and byte <= 3:
            out.append(3)
            zeros = 0
        out.append(byte)
        zeros = zeros + 1 if byte == 0 else 0
    return bytes(out)


def sps(width: int, height: int) -> bytes:
    b = Bits()
    b.u(8, 77)  # Main profile: field coding allowed
    b.u(8, 0)
    b.u(8, 30)
    b.ue(0)  # seq_parameter_set_id
    b.ue(0)  # log2_max_frame_num_minus4
    b.ue(2)  # pic_order_cnt_type 2: order = decoding order
    b.ue(1)  # max_num_ref_frames
    b.u(1, 0)
    b.ue(width // 16 - 1)
    b.ue(height // 32 - 1)  # map units: field macroblock rows
    b.u(1, 0)  # frame_mbs_only_flag: fields
    b.u(1, 0)  # mb_adaptive_frame_field_flag
    b.u(1, 1)  # direct_8x8_inference_flag
    b.u(1, 0)  # frame_cropping_flag
    b.u(1, 0)  # vui_parameters_present_flag
    return nal(3, 7, b.trailing())


def pps() -> bytes:
    b = Bits()
    b.ue(0)
    b.ue(0)
    b.u(1, 0)  # CAVLC
    b.u(1, 0)
    b.ue(0)
    b.ue(0)
    b.ue(0)
    b.u(1, 0)
    b.u(2, 0)
    b.se(0)
    b.se(0)
    b.se(0)
    b.u(1, 1)  # deblocking_filter_control_present_flag
    b.u(1, 0)
    b.u(1, 0)
    return nal(3, 8, b.trailing())


def field(frame: list[bytes], bottom: int, width: int, height: int, idr: bool, idr_id: int) -> bytes:
    """One field of `frame` (rows of Y, then U and V planes as row lists) as one I slice of I_PCM."""
    y_rows, u_rows, v_rows = frame
    b = Bits()
    b.ue(0)  # first_mb_in_slice
    b.ue(7)  # slice_type: I (every slice of the picture)
    b.ue(0)  # pic_parameter_set_id
    b.u(4, 0)  # frame_num
    b.u(1, 1)  # field_pic_flag
    b.u(1, bottom)
    if idr:
        b.ue(idr_id)
        b.u(1, 0)  # no_output_of_prior_pics_flag
        b.u(1, 0)  # long_term_reference_flag
    else:
        b.u(1, 0)  # adaptive_ref_pic_marking_mode_flag
    b.se(0)  # slice_qp_delta
    b.ue(1)  # disable_deblocking_filter_idc: off
    ys = y_rows[bottom::2]
    us, vs = u_rows[bottom::2], v_rows[bottom::2]
    for my in range(height // 2 // 16):
        for mx in range(width // 16):
            b.ue(25)  # I_PCM
            b.align_zero()
            for r in range(16):
                b.out += ys[my * 16 + r][mx * 16 : mx * 16 + 16]
            for plane in (us, vs):
                for r in range(8):
                    b.out += plane[my * 8 + r][mx * 8 : mx * 8 + 8]
    return nal(3, 5 if idr else 1, b.trailing())


def picture(k: int, width: int, height: int) -> list[list[bytes]]:
    """Frame k: a diagonal ramp that moves, kept in 16..235 (no zero byte in the samples)."""
    ys = [bytes(16 + (x + 2 * r + 7 * k) % 220 for x in range(width)) for r in range(height)]
    us = [bytes(16 + (x * 3 + r + 11 * k) % 220 for x in range(width // 2)) for r in range(height // 2)]
    vs = [bytes(16 + (x + r * 5 + 13 * k) % 220 for x in range(width // 2)) for r in range(height // 2)]
    return [ys, us, vs]


def stream(width: int, height: int, frames: int) -> tuple[bytes, list[tuple[int, int]]]:
    """The stream and its access units (offset, size): one per field, top first; each frame an IDR
    top field and a non-IDR I bottom field. The parameter sets come before every IDR, as a camera
    (and x264 through h264_mp4toannexb) repeats them: a decoder started at any frame can decode it
    (the simulator's VDEC restarts its decoder at the last IDR when two channels share its cache of
    decoded units; with the SPS and PPS only at the stream's start that restart was refused)."""
    out = bytearray()
    units = []
    for k in range(frames):
        frame = picture(k, width, height)
        for bottom in (0, 1):
            start = len(out)
            if bottom == 0:
                out += sps(width, height) + pps()
            out += field(frame, bottom, width, height, bottom == 0, k % 2)
            units.append((start, len(out) - start))
    return bytes(out), units
