"""`python -m scrapers` as a process, against the fake sites and against nothing."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from tests.fakes.providers import FakeProviders, Mode, all_sites

ROOT = Path(__file__).resolve().parents[2]


async def run_cli(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GPURADAR_")}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "scrapers",
        *args,
        cwd=ROOT,
        env={**clean, **env},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


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
    assert "selectel: NetworkError" in err
    assert "hostkey: ApiError" in err
    assert {offer["provider"] for offer in json.loads(out)} == {"immers"}
