"""The benchmark's short mode runs end to end (a smoke test: it reports, nothing here asserts a speed)."""

import json

from vitcourse import bench


def test_short_benchmark_reports_every_section(capsys) -> None:
    assert bench.main(["--short", "--json", "--device", "cpu"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["settings"]["model"] == "t2t_vit_t_7"
    for path in ("fused", "step"):
        assert report["train_step"][path]["images_per_s"] > 0
        assert report["vit_b16_forward"][path]["images_per_s"] > 0
    assert report["train_step"]["fused_speedup"] > 0
    assert report["course"]["animation_s"] > 0 and report["course"]["widget_redraw_median_s"] > 0


def test_table_output(capsys) -> None:
    assert bench.main(["--short", "--device", "cpu"]) == 0
    out = capsys.readouterr().out
    assert "training step: t2t_vit_t_7" in out and "fused / step-by-step" in out and "widget redraw" in out
