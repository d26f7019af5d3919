"""The host's NUMA layout read from sysfs, as on a real host: a fake tree under $ASCGEN_HOST_ROOT
(PCI devices with their numa_node, each node's cpulist, kernel.numa_balancing) replaces the
profile's simulated host, end to end through the generated program."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from program_harness import built, run_program

SERVER = Path("pipelines/resnet50_atlas800.yaml")  # its profile's host: devices 0-1 on node 0
QUICK = {"ACL_SIM_DEVICE_OPEN_MS": "0"}


def fake_host(root: Path, node_cpus: list[str], balancing: str) -> None:
    """Two Huawei NPUs in PCI address order (device 0 on node 1, device 1 on node 0), beside a
    Huawei NIC and another vendor's accelerator that are no NPUs; each node's CPUs."""
    pci = root / "sys/bus/pci/devices"
    for address, vendor, klass, node in [
        ("0000:3d:00.0", "0x19e5", "0x120000", "0"),  # NPU, the second in address order
        ("0000:1a:00.0", "0x19e5", "0x120000", "1"),  # NPU, the first
        ("0000:05:00.0", "0x19e5", "0x020000", "0"),  # Huawei network controller
        ("0000:2b:00.0", "0x10de", "0x120000", "0"),  # someone else's accelerator
    ]:
        dev = pci / address
        dev.mkdir(parents=True)
        for name, value in (("vendor", vendor), ("class", klass), ("numa_node", node)):
            (dev / name).write_text(value + "\n")
    for n, cpus in enumerate(node_cpus):
        node = root / f"sys/devices/system/node/node{n}"
        node.mkdir(parents=True)
        (node / "cpulist").write_text(cpus + "\n")
    kernel = root / "proc/sys/kernel"
    kernel.mkdir(parents=True, exist_ok=True)
    (kernel / "numa_balancing").write_text(balancing + "\n")


@pytest.mark.slow
@pytest.mark.parametrize("deploy", ["processes", "threads"])
def test_numa_layout_and_balancing_come_from_the_hosts_sysfs(deploy: str, tmp_path: Path) -> None:
    here = sorted(os.sched_getaffinity(0))
    if len(here) < 2:
        pytest.skip("needs two CPUs to tell two nodes apart")
    result = built(SERVER)
    root = tmp_path / "host"
    fake_host(root, [str(here[0]), f"{here[1]}-{here[-1]}"], balancing="1")
    env = {**QUICK, "ASCGEN_HOST_ROOT": str(root)}
    args = ["--threads", "2", "--warmup", "0", "--frames", "16", "--numa", "device", "--devices", "0,1"]
    run = run_program(result.binary, *args, "--deploy", deploy, cwd=tmp_path / "run", env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.report is not None
    numa = {d["device"]: d["report"]["numa"] for d in run.report["devices"]}
    # sysfs, not the profile's host (which puts devices 0 and 1 on node 0 of 48 CPUs)
    assert numa[0]["node"] == 1 and numa[0]["cpus"] == numa[0]["pinned"] == (
        f"{here[1]}-{here[-1]}" if len(here) > 2 else str(here[1])
    )
    assert numa[1]["node"] == 0 and numa[1]["cpus"] == numa[1]["pinned"] == str(here[0])
    assert "warning: kernel.numa_balancing is 1" in run.stderr
    # balancing off: no warning; a device sysfs does not list: its node is unknown, left unbound
    fake_host(tmp_path / "host2", [str(here[0])], balancing="0")
    (tmp_path / "host2/sys/bus/pci/devices/0000:3d:00.0/class").write_text("0x020000\n")
    env["ASCGEN_HOST_ROOT"] = str(tmp_path / "host2")
    run = run_program(result.binary, *args, "--deploy", deploy, cwd=tmp_path / "run2", env=env)
    assert run.returncode == 0 and run.report is not None, run.stderr[-3000:]
    assert "numa_balancing" not in run.stderr
    assert "device 1: its NUMA node is unknown; threads are not bound" in run.stderr
    reports = {d["device"]: d["report"] for d in run.report["devices"]}
    assert reports[0]["numa"]["node"] == 1 and "numa" not in reports[1]
