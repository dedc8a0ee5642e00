"""Predicted training throughput against the published tokens/s in the repository."""

from __future__ import annotations

import statistics

from bench.estimator_speed import TARGET_MEDIAN, by_class, errors, flat_baseline, ours, read_rows


def test_every_row_reads_and_names_its_source():
    rows = read_rows()
    assert len(rows) >= 20
    assert all(row.source.startswith("github.com/") and row.measured > 0 for row in rows)


def test_median_error_per_gpu_class_is_within_the_target_and_beats_a_flat_mfu():
    rows = read_rows()
    mine, flat = errors(rows, ours), errors(rows, flat_baseline)
    classes = by_class(rows, mine)
    assert {"ampere_dc", "hopper", "geforce", "workstation"} <= set(classes)
    for name, errs in classes.items():
        assert statistics.median(errs) <= TARGET_MEDIAN, name
    assert statistics.median(abs(e) for e in mine) < statistics.median(abs(e) for e in flat)
