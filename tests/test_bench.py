"""The benchmark's short mode runs end to end (a smoke test: it reports, nothing here asserts a speed).

One short run serves the report's tests and the table's (the table is printed from the same report)."""

import contextlib
import io
import json

import pytest

from vitcourse import bench


@pytest.fixture(scope="module")
def short_report() -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert bench.main(["--short", "--json", "--device", "cpu"]) == 0
    return json.loads(out.getvalue())


def test_short_benchmark_reports_every_section(short_report: dict) -> None:
    report = short_report
    assert report["settings"]["model"] == "t2t_vit_t_7"
    for path in ("fused", "step"):
        assert report["train_step"][path]["images_per_s"] > 0
        assert report["vit_b16_forward"][path]["images_per_s"] > 0
    assert report["train_step"]["fused_speedup"] > 0
    gemm = report["gemm"]
    assert gemm["size"] == report["settings"]["gemm_size"] == 256 and gemm["dtype"] == "fp32"
    assert gemm["gflops"] == pytest.approx(2 * 256**3 / gemm["s"] / 1e9)
    for path in ("fused", "step"):
        step = report["train_step"][path]
        assert step["gflops"] == pytest.approx(step["gflop_per_image"] * step["images_per_s"])
        assert step["gemm_fraction"] == pytest.approx(step["gflops"] / gemm["gflops"])
    assert report["course"]["animation_s"] > 0 and report["course"]["widget_redraw_median_s"] > 0


def test_table_output(short_report: dict, capsys) -> None:
    bench.print_report(short_report, short=True)
    out = capsys.readouterr().out
    assert "training step: t2t_vit_t_7" in out and "fused / step-by-step" in out and "widget redraw" in out
    assert "fp32 GEMM 256^3" in out and out.count("of the GEMM") == 2


def test_no_course_skips_the_course(capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    """--no-course leaves the course part out and --gemm-size reaches the GEMM worker. The workers (measured by
    the short run above) are replaced by a recorder: this test is about the options, not the timings."""
    calls: list[dict] = []

    def worker(**settings: object) -> dict:
        calls.append(settings)
        if settings["kind"] == "gemm":
            return {"size": settings["gemm_size"], "dtype": "fp32", "s": 1.0, "gflops": 1.0}
        return {"images_per_s": 1.0, "gflops": 1.0, "gflop_per_image": 1.0, "added_peak_bytes": 0}

    monkeypatch.setattr(bench, "_run_worker", worker)
    monkeypatch.setattr(
        bench, "_course", lambda short: pytest.fail("the course part ran despite --no-course")
    )
    assert bench.main(["--short", "--json", "--device", "cpu", "--no-course", "--gemm-size", "64"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["course"] is None and report["gemm"]["size"] == 64
    assert [c["kind"] for c in calls] == ["gemm", "train", "train", "forward", "forward"]


def test_negative_gemm_size_is_refused(capsys) -> None:
    with pytest.raises(SystemExit):
        bench.main(["--short", "--device", "cpu", "--gemm-size", "-1"])
    assert "--gemm-size must be a positive matrix side" in capsys.readouterr().err
