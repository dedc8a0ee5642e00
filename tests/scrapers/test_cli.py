"""`python -m scrapers` against the fake sites and against nothing: its main() in this
process; the fake sites' own server (tests/fakes/serve_providers.py) as a real process."""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
from pathlib import Path

from scrapers.__main__ import main
from tests.fakes.providers import FakeProviders, Mode, all_sites
from tests.in_process import run_entry

ROOT = Path(__file__).resolve().parents[2]


async def run_cli(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    """`python -m scrapers ARGS`, its main() run in this process (tests/in_process.py), in a
    thread: this loop serves the fake sites meanwhile."""
    result = await asyncio.to_thread(
        run_entry, lambda: main(list(args)), env=env, cwd=ROOT, argv=("-m", *args)
    )
    return result.returncode, result.stdout, result.stderr


async def test_json_lists_every_providers_offers():
    async with FakeProviders(all_sites()) as sites:
        code, out, err = await run_cli(sites.env(), "--json")
    assert code == 0, err
    offers = json.loads(out)
    assert {offer["provider"] for offer in offers} == {"selectel", "hostkey", "immers"}
    keys = {
        "provider",
        "sku",
        "gpu",
        "gpu_raw",
        "gpu_count",
        "vram_gb",
        "price_hour_rub",
        "price_month_rub",
        "stock",
        "stock_count",
        "location",
        "url",
    }
    assert all(keys <= set(offer) for offer in offers)
    t4 = next(o for o in offers if o["sku"] == "teslat4-1.4.16.40")
    assert (t4["gpu"], t4["price_hour_rub"]) == ("T4", 24.9)


async def test_table_and_one_provider():
    async with FakeProviders(all_sites()) as sites:
        code, out, _ = await run_cli(sites.env(), "--provider", "immers")
    assert code == 0
    assert out.splitlines()[0].split() == [
        "GPU",
        "count",
        "₽/h",
        "₽/month",
        "stock",
        "location",
        "provider",
        "SKU",
    ]
    assert "selectel" not in out
    assert "rtx4090-1.8.16.40" in out


async def test_failures_exit_1_and_name_the_error_class():
    async with FakeProviders(all_sites()) as sites:
        sites.set_mode("hostkey", Mode.API_ERROR)
        env = {**sites.env(), "GPURADAR_SELECTEL_URL": "http://127.0.0.1:1"}
        code, out, err = await run_cli(env, "--json")
    assert code == 1
    assert "selectel: part server: NetworkError" in err
    assert "hostkey: part stock: ApiError" in err
    assert {offer["provider"] for offer in json.loads(out)} == {"immers"}


async def test_record_then_replay_gives_identical_offers(tmp_path: Path):
    recording = tmp_path / "recording"
    async with FakeProviders(all_sites()) as sites:
        code, direct, err = await run_cli(sites.env(), "--json")
        assert code == 0, err
        code, _, err = await run_cli(sites.env(), "--record", str(recording))
        assert code == 0, err
    assert "recorded 28 answers" in err
    # The sites are gone: only the recording answers now.
    code, replayed, err = await run_cli({}, "--replay", str(recording), "--json")
    assert code == 0, err
    assert json.loads(replayed) == json.loads(direct)
    manifest = json.loads((recording / "manifest.json").read_text(encoding="utf-8"))
    first = manifest["answers"][0]
    assert set(first) >= {"url", "status", "headers", "at", "sha256", "file", "method"}
    body = (recording / first["file"]).read_bytes()
    assert hashlib.sha256(body).hexdigest() == first["sha256"]
    assert {a["provider"] for a in manifest["answers"]} == {"selectel", "hostkey", "immers"}


async def test_check_prints_the_skip_report(tmp_path: Path):
    recording = tmp_path / "recording"
    async with FakeProviders(all_sites()) as sites:
        code, _, err = await run_cli(sites.env(), "--record", str(recording))
        assert code == 0, err
    code, out, err = await run_cli({}, "--replay", str(recording), "--check")
    assert code == 0, err
    assert out.startswith("selectel: 35 offers from 3 parts\n")
    assert "  server: 17 offers (in_stock 11, out_of_stock 4, preorder 2)" in out
    assert "    unknown GPU name, kept: 'A100 40 GB' -> 'A100 40GB'" in out  # PCIe or SXM
    assert "RTX 4090 48GB" not in out  # the modded 48 GB board is a catalog card
    assert "H200 NVL" not in out  # two spaces and all, it is a card the catalog knows
    assert "    skipped 1: no price (value): compute_pci_gpu_a30 @ ru-7a" in out
    assert "    skipped 1: listed at no storefront location: GL62-1-H200" in out
    assert "preemptible price (its own billing kind, not offered)" in out
    assert "hostkey: 24 offers from 4 parts" in out
    assert "    skipped 1: no price: rtx4090-2.16.64.160" in out
    assert "compute_cores_gpu" not in out  # meters are neither offers nor skips


async def test_check_exits_1_and_names_a_broken_part(tmp_path: Path):
    recording = tmp_path / "recording"
    async with FakeProviders(all_sites()) as sites:
        sites["selectel"].path_modes["/prices/vpc"] = Mode.EMPTY
        code, _, err = await run_cli(sites.env(), "--record", str(recording))
    assert code == 1
    assert "selectel: part cloud: empty, no GPU offers" in err
    code, out, _ = await run_cli({}, "--replay", str(recording), "--check")
    assert code == 1
    assert "  cloud: EMPTY: no GPU offers (an error for this part)" in out


async def test_a_folder_that_is_not_a_recording_exits_2(tmp_path: Path):
    code, _, err = await run_cli({}, "--replay", str(tmp_path), "--check")
    assert code == 2
    assert "not a recording" in err


async def test_serve_providers_replays_a_recording(tmp_path: Path):
    recording = tmp_path / "recording"
    async with FakeProviders(all_sites()) as sites:
        code, direct, _ = await run_cli(sites.env(), "--record", str(recording))
        assert code == 0
        code, direct, _ = await run_cli(sites.env(), "--json", "--provider", "immers")
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.fakes.serve_providers",
        "--replay",
        str(recording),
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
    )
    try:
        assert process.stdout is not None
        lines = [await asyncio.wait_for(process.stdout.readline(), 30) for _ in range(3)]
        env = dict(line.decode().strip().split("=", 1) for line in lines)
        assert set(env) == {"GPURADAR_SELECTEL_URL", "GPURADAR_HOSTKEY_URL", "GPURADAR_IMMERS_URL"}
        code, replayed, _ = await run_cli(env, "--json", "--provider", "immers")
    finally:
        process.terminate()
        await process.wait()
    assert code == 0
    assert json.loads(replayed) == json.loads(direct)
