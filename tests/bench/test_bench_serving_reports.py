"""A server's bench reports what became of its load (issue 31 item 1): offered and achieved
requests/s, rejections and timeouts, queue time, mean batch and gear shares, the plan's
prediction; a point that drops requests or misses the SLO is never best; --arrival and
--time-scale run the program as asked. With the fake program (tests/fixtures/bench)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from bench_helpers import FakeBuilder
from rich.console import Console

from ascgen.bench import csvfile, markdown, report, session
from ascgen.bench.points import BadSweep, configurations, parse_sweep
from ascgen.bench.runner import RunOptions, command, environment
from ascgen.bench.schema import ProgramPadding, ProgramServing
from ascgen.bench.stats import config_of, gear_shares
from ascgen.dsl.parse import parse_file

REPO = Path(__file__).resolve().parents[2]
SERVER_SPEC = REPO / "pipelines" / "serving" / "resnet50_batched.yaml"
OPTIONS = RunOptions(duration_s=2, warmup_s=0)


def bench(
    tmp_path: Path, fake_builder: FakeBuilder, *sweeps: str, options: RunOptions = OPTIONS, **fixed: object
) -> session.BenchResults:
    request = session.Request(
        spec_path=SERVER_SPEC,
        out_dir=tmp_path / "out",
        options=options,
        repeat=1,
        sweeps=[parse_sweep(s) for s in sweeps],
        fixed=dict(fixed),  # type: ignore[arg-type]
        git=(None, None),
    )
    return session.run_bench(request, fake_builder)


def shown(results: session.BenchResults, width: int = 400) -> str:
    console = Console(width=width, record=True, file=io.StringIO())
    report.print_results(results, console)
    return console.export_text()


def test_a_rate_sweep_that_drops_requests_names_a_non_dropping_point_best(
    fake_builder: FakeBuilder, tmp_path: Path
) -> None:
    """Capacity 600 requests/s: rate=900 completes the most but rejects a third and misses the
    spec's p99 SLO (200 ms); the best point is rate=300, and the table shows the drops."""
    fake_builder.knobs += ["--capacity", "600"]
    results = bench(tmp_path, fake_builder, "rate=300,900")
    low, high = results.summary
    assert high.qps_median > low.qps_median
    assert high.serving is not None and low.serving is not None
    assert high.serving.rejected == 600 and high.serving.submitted == 1800 and low.serving.rejected == 0
    assert high.serving.offered_rps == pytest.approx(900) and high.serving.achieved_rps == pytest.approx(600)
    assert report.best(results.summary, results.slo_misses) == low
    # the plan's prediction at each rate: 300 served as it arrives, 900 above what the plan completes
    assert low.serving.predicted_rps == pytest.approx(300, rel=0.02) and low.serving.predicted_rejected == 0
    assert high.serving.predicted_rps is not None and high.serving.predicted_rps < 900
    assert high.serving.predicted_rejected is not None and high.serving.predicted_rejected > 0.1
    text = shown(results)
    assert f"{high.serving.predicted_rejected:.0%} rejected" in text
    assert "600 of 1,800" in text  # the rejected column
    assert "best: threads=" in text and "rate=300:" in text.split("best: ")[1]
    assert "1 point left out: dropped requests or missed the SLO" in text
    for name in ("offered r/s", "achieved r/s", "rejected", "timed out", "queue p50/p99 ms", "mean batch", "gears"):
        assert name in text
    md = markdown.render(results)
    assert "600 of 1,800" in md and "Best:" in md and "rate=300" in md.split("Best:")[1].splitlines()[0]
    rows = list(csv.DictReader(io.StringIO(csvfile.render(results))))
    assert [r["rejected"] for r in rows] == ["0", "600"]
    assert rows[0]["mean_batch"] == "7.0" and rows[0]["gear_shares"] == "32x80:0.2500 32x320:0.7500"


def test_no_point_is_best_when_every_point_drops(fake_builder: FakeBuilder, tmp_path: Path) -> None:
    fake_builder.knobs += ["--capacity", "100"]
    results = bench(tmp_path, fake_builder, "rate=300,900")
    assert report.best(results.summary, results.slo_misses) is None
    assert "best: none: every point dropped requests or missed the SLO" in shown(results)


def test_a_closed_loop_point_shows_the_plan_s_prediction_for_its_clients(
    fake_builder: FakeBuilder, tmp_path: Path
) -> None:
    from ascgen.bench.roofline import Planner
    from ascgen.serving.predict import predict

    results = bench(tmp_path, fake_builder, "clients=1,8")
    plan = Planner(SERVER_SPEC).plan(config_of(results.summary[1]))
    expected = predict(plan, 8)
    served = results.summary[1].serving
    assert served is not None and served.predicted_rps == pytest.approx(expected.qps)
    assert served.predicted_mean_batch == pytest.approx(expected.mean_batch)
    assert f"{expected.qps:,.1f} r/s" in shown(results)


def test_time_scale_runs_the_simulator_slower_and_reports_the_device_s_time(
    fake_builder: FakeBuilder, tmp_path: Path
) -> None:
    """The program sees ACL_SIM_TIME_SCALE and the rate in host time; the results are the
    device's: requests/s x 3, milliseconds / 3 (the fake's capacity is 600 in device time)."""
    results = bench(tmp_path, fake_builder, "rate=300", time_scale=3.0)
    (point,) = results.summary
    assert point.time_scale == 3.0 and point.serving is not None
    assert point.qps_median == pytest.approx(300) and point.serving.offered_rps == pytest.approx(300)
    assert point.serving.queue_p50_ms == pytest.approx(2.0) and point.latency_ms.p50 == pytest.approx(7.0)
    config = results.runs[0]
    cmd = command(Path("prog"), config, OPTIONS, Path("out.json"))
    assert cmd[cmd.index("--rate") + 1] == "100"
    env = environment(config)
    assert env is not None and env["ACL_SIM_TIME_SCALE"] == "3"


def test_arrival_is_a_flag_and_a_sweep_of_an_open_loop(fake_builder: FakeBuilder, tmp_path: Path) -> None:
    results = bench(tmp_path, fake_builder, "rate=300", "arrival=constant,poisson")
    assert [s.arrival for s in results.summary] == ["constant", "poisson"]
    assert results.swept == ["arrival"]
    cmd = command(Path("prog"), results.summary[1], OPTIONS, Path("out.json"))
    assert cmd[cmd.index("--arrival") + 1] == "poisson"
    assert "arrival" in shown(results)


def test_arrival_needs_an_open_loop_of_a_server() -> None:
    server = parse_file(SERVER_SPEC)[0]
    with pytest.raises(BadSweep, match="give a rate"):
        configurations(server, [parse_sweep("clients=8")], {"arrival": "poisson"})
    with pytest.raises(BadSweep, match="arrival=uniform: use constant or poisson"):
        parse_sweep("arrival=uniform")
    with pytest.raises(BadSweep, match="time_scale=0: must be above 0"):
        parse_sweep("time_scale=0")


def test_the_offered_rate_counts_the_requests_of_the_warm_up_too(fake_builder: FakeBuilder, tmp_path: Path) -> None:
    """The program counts submitted requests from the start of its load: 300/s over a 1 s
    warm-up and 2 s measured is 900 submitted, offered 300/s (not 450)."""
    results = bench(tmp_path, fake_builder, "rate=300", options=RunOptions(duration_s=2, warmup_s=1))
    served = results.summary[0].serving
    assert served is not None and served.submitted == 900
    assert served.offered_rps == pytest.approx(300)


def test_a_generator_that_fell_behind_is_a_warning(fake_builder: FakeBuilder, tmp_path: Path) -> None:
    """More than 1 % of the requests sent late (the program's own test): the rate asked was not
    the load offered, and the bench says so; 1 % or less is not worth a line."""
    fake_builder.knobs += ["--late", "50"]
    results = bench(tmp_path, fake_builder, "rate=300")
    (warning,) = [w for w in results.warnings if "load generator" in w]
    assert "sent 50 requests late or never sent them (600 submitted)" in warning and "rate=300" in warning
    assert results.summary[0].serving is not None and results.summary[0].serving.late == 50
    fake_builder.knobs[-1] = "6"
    quiet = bench(tmp_path / "quiet", fake_builder, "rate=300")
    assert not [w for w in quiet.warnings if "load generator" in w]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--time-scale", "3", "--backend", "cann"], "use it with --backend sim"),
        (["--sweep", "time_scale=1,3", "--backend", "cann"], "use it with --backend sim"),
        (["--arrival", "bursty"], "'bursty' is not one of"),
        (["--time-scale", "0"], "0<x<=1000"),
        (["--arrival", "poisson", "--sweep", "clients=8"], "give a rate"),
        (["--time-scale", "2", "--sweep", "time_scale=1,3"], "both fixed (--time-scale) and swept"),
    ],
)
def test_bench_refuses_arrival_and_time_scale_it_cannot_use(args: list[str], says: str, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from ascgen.cli import cli

    result = CliRunner().invoke(cli, ["bench", str(SERVER_SPEC), "--out", str(tmp_path / "o"), *args])
    assert result.exit_code == 2, result.output
    assert says in result.output


def test_gear_shares_of_a_batch_gear_server_come_from_its_batch_sizes() -> None:
    """A dynamic batch gear model runs a batch of n at the smallest gear that holds it: the
    gears column is not empty for such a server (it was: only HxW gears were counted)."""
    served = ProgramServing(batch_stats=[(1, 2), (3, 3), (4, 1), (7, 4)], batches=10)
    assert gear_shares(served, [1, 4, 8]) == (("b1", 0.2), ("b4", 0.4), ("b8", 0.4))
    assert gear_shares(served, []) == ()  # a static model: no gears to share
    hw = ProgramServing(batch_stats=[(2, 4)], batches=4, padding=ProgramPadding(gears=[(32, 80, 1), (32, 320, 3)]))
    assert gear_shares(hw, [1, 4, 8]) == (("32x80", 0.25), ("32x320", 0.75))
    assert gear_shares(ProgramServing(), [1, 4, 8]) == ()
