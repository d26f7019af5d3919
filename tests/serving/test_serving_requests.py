"""The planner's prediction of a service whose requests have their own width
(ascgen/serving/requests.py, ascgen/serving/predict.py): the padding rule and the batches it
forms against the server's C++ (templates/runtime/ascgen_batcher.h), the gear a batch runs at,
which request each client sends, and what a lone request costs at its gear."""

from __future__ import annotations

import itertools
import os
import shutil
import statistics
import subprocess
from pathlib import Path

import pytest
from rich.console import Console

from ascgen.codegen.render import runtime_files
from ascgen.dsl.parse import parse_file
from ascgen.pipeline import analyze_data
from ascgen.plan.model import Plan
from ascgen.serving.predict import _batch_size, _Queued, predict
from ascgen.serving.report import print_serving
from ascgen.serving.requests import PaddedShape, Requests, hw_gear_index, padding_acceptable, read_requests

REPO = Path(__file__).resolve().parents[2]
TEXT_LINES = REPO / "pipelines" / "serving" / "textline_batched.yaml"
WIDTHS = (24, 40, 56, 72, 96, 120, 150, 180, 210, 250, 290, 320)  # pipelines/data/make_text_lines.py


def plan_of(path: Path) -> Plan:
    spec, smap = parse_file(path)
    return analyze_data(spec, smap)


@pytest.fixture(scope="module")
def lines() -> Plan:
    return plan_of(TEXT_LINES)


def test_the_rule_keeps_the_documented_thresholds() -> None:
    """The boundaries tests/serving/test_padding.cpp holds the C++ rule to."""
    assert padding_acceptable(1025, 1) and not padding_acceptable(1026, 1)  # 1,024 more at most
    assert padding_acceptable(2000, 976) and not padding_acceptable(2000, 975)
    assert padding_acceptable(10000, 5000) and not padding_acceptable(10001, 5000)  # half kept at least
    # the text lines are 32 high: 32 columns of padding are 1,024 elements
    shape = PaddedShape(32)
    shape.add(24)
    assert shape.accepts(56) and not shape.accepts(57) and shape.accepts(48)


# Reads sequences of widths (one per line, 32 high) and prints how many of each the C++
# batcher's PaddedShape takes in order before the first it refuses.
PROBE = r"""
#include <iostream>
#include <sstream>
#include <string>
#include "ascgen_batcher.h"
int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    ascgen::serving::PaddedShape shape;
    int taken = 0;
    for (long w; in >> w; ++taken) {
      const ascgen::serving::Shape s = ascgen::serving::make_shape({32, w});
      if (!shape.accepts(s)) break;
      shape.add(s);
    }
    std::cout << taken << "\n";
  }
}
"""


@pytest.mark.slow
def test_the_prediction_refuses_exactly_what_the_server_refuses(tmp_path: Path) -> None:
    """Every ordered triple of the 12 widths and of widths 1..400 in steps of 7: the candidates
    the prediction's rule takes in order are the C++ batcher's."""
    cxx = os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++")
    assert cxx, "no C++ compiler (run scripts/install.sh)"
    (tmp_path / "probe.cpp").write_text(PROBE)
    binary = tmp_path / "probe"
    support = REPO / "templates" / "runtime"
    defined = [str(support / rel) for rel in runtime_files(("ascgen_batcher.h",)) if rel.endswith(".cpp")]
    cmd = [cxx, "-std=c++17", "-O1", f"-I{support}", str(tmp_path / "probe.cpp"), *defined, "-o", str(binary)]
    subprocess.run(cmd, check=True, capture_output=True)
    cases = [list(t) for t in itertools.product(WIDTHS, repeat=3)]
    cases += [list(t) for t in itertools.product(range(1, 401, 7), repeat=2)]
    cases += [[24, 40, 56, 72, 96], [150, 180, 210, 250, 290, 320], [320, 180, 150, 300, 24]]
    out = subprocess.run(
        [str(binary)], input="\n".join(" ".join(map(str, c)) for c in cases), capture_output=True, text=True, check=True
    )
    server = [int(n) for n in out.stdout.split()]

    def taken(widths: list[int]) -> int:
        shape = PaddedShape(32)
        for k, w in enumerate(widths):
            if not shape.accepts(w):
                return k
            shape.add(w)
        return len(widths)

    assert server == [taken(c) for c in cases]
    assert 1 in server and 2 in server and 3 in server  # the rule refused some, kept others


def _queue(*widths: int, at: float = 0.0) -> list[_Queued]:
    return [_Queued(at, c, 0, w) for c, w in enumerate(widths)]


def test_a_batch_ends_at_the_first_request_the_rule_keeps_out(lines: Plan) -> None:
    """The batcher's rule with widths (ascgen_batcher.h, form_locked): the candidates end before
    the first request the padding rule refuses, and a batch so ended goes at once; else it waits
    for max_batch (8, preferred) or the queue delay (2 ms)."""
    assert _batch_size(_queue(24, 40, 56, 72, 24), 0.0, lines, 32) == 3  # 72 breaks: 3 at once
    assert _batch_size(_queue(150, 180, 210, 250, 290, 320), 0.0, lines, 32) == 5
    assert _batch_size(_queue(320, 24), 0.0, lines, 32) == 1
    assert _batch_size(_queue(*[100] * 9), 0.0, lines, 32) == 8  # max_batch
    assert _batch_size(_queue(24, 40), 1e-3, lines, 32) == 0  # room for more: wait
    assert _batch_size(_queue(24, 40), 2e-3, lines, 32) == 2  # the oldest waited the delay


def test_a_batch_runs_at_the_smallest_gear_holding_its_widest(lines: Plan) -> None:
    assert lines.serving is not None
    gears = lines.serving.hw_gears
    assert [hw_gear_index(gears, 32, w) for w in (1, 80, 81, 160, 161, 320)] == [0, 0, 1, 1, 2, 2]


def test_each_client_sends_the_inputs_in_turn_from_its_own(lines: Plan) -> None:
    """The program's inputs are the folder's *.u8 files sorted by name; client c's k-th request
    is input (c + k) mod n (ascgen_serving.h, run_load)."""
    requests = read_requests(lines)
    assert isinstance(requests, Requests)
    assert requests.height == 32 and requests.widths == WIDTHS
    assert [requests.of_client(0, k) for k in range(3)] == [24, 40, 56]
    assert [requests.of_client(c, 1) for c in (0, 10, 11, 23)] == [40, 320, 24, 24]


# The text-line model's smallest gear streams more than it computes: its 64 MiB of weights (half
# the default 128 MiB instance, the simulator's default) with 8 lines 32 x 80 in and a quarter of
# the 94,720-byte output out take 1.399 ms at 48 GB/s, against 1.2 ms of work.
GEAR_MS = [(64 * 2**20 + 8 * 32 * 80 + 94720 / 4) / 48e6, 2.4, 4.8]
DISPATCH_S = 5e-6  # the task scheduler's dispatch of each task (engines.scheduler.per_task_us)


def _alone_s(plan: Plan, width: int) -> float:
    """A request alone: the queue delay, its upload at its gear, the model at its gear, the fetch,
    each step's event tasks on its stream in turn, one dispatch each (upload: its own, the
    model's wait and reset before, two records and a host sync's reset after; the model: 7;
    the fetch: 4)."""
    s = plan.serving
    assert s is not None
    k = hw_gear_index(s.hw_gears, 32, width)
    h, w = s.hw_gears[k]
    upload = plan.device.engines.h2d.service_us(h * w) / 1e6
    fetch = next(st.service_us for st in plan.stages if st.engine == "d2h") / 1e6
    tasks = (6 + 7 + 4) * DISPATCH_S
    return s.max_queue_delay_us / 1e6 + upload + GEAR_MS[k] / 1e3 + fetch + tasks


def test_one_client_pays_each_request_at_its_own_gear(lines: Plan) -> None:
    """One client sends the 12 lines in turn: its throughput is one over the mean of their times
    alone (the largest gear's 4.8 ms for all would be 25 % slower)."""
    p = predict(lines, 1, requests=120, warmup=12)
    alone = [_alone_s(lines, w) for w in WIDTHS]
    assert p.qps == pytest.approx(1 / statistics.fmean(alone), rel=1e-6)
    assert p.model_ms == pytest.approx(statistics.fmean([GEAR_MS[0]] * 4 + [2.4] * 3 + [4.8] * 5), rel=0.02)
    assert p.gear_share == pytest.approx((4 / 12, 3 / 12, 5 / 12), abs=0.02)


def test_without_the_requests_the_prediction_assumes_the_largest_gear(tmp_path: Path) -> None:
    text = TEXT_LINES.read_text().replace("inputs: ../data/text_lines", "inputs: no_such_folder")
    path = tmp_path / "lines.yaml"
    path.write_text(text)
    plan = plan_of(path)
    assert isinstance(read_requests(plan), str)
    p = predict(plan, 32, requests=500)
    assert "cannot read the requests" in p.requests
    assert p.model_ms == pytest.approx(4.8) and p.mean_batch == pytest.approx(8)


def _report(plan: Plan) -> str:
    console = Console(record=True, width=400)
    print_serving(plan, console)
    return console.export_text()


def test_the_plan_says_what_its_prediction_serves(lines: Plan, tmp_path: Path) -> None:
    text = _report(lines)
    assert "predictions below serve the spec's 12 requests 32 high, 24 to 320 wide" in text
    assert "input (c + k) mod 12 of " in text and "assume the largest gear" not in text
    assert "the roofline above runs every batch full (8 requests) at the largest gear" in text
    path = tmp_path / "lines.yaml"
    path.write_text(TEXT_LINES.read_text().replace("inputs: ../data/text_lines", "inputs: no_such_folder"))
    fallback = _report(plan_of(path))
    assert "predictions below assume the largest gear (cannot read the requests in" in fallback
    assert "saturates at about" not in fallback
