"""The forge workflows (.github/workflows/): valid against GitHub's workflow schema, and running what the README
says they run. `make lint` validates them too; here we also show that the validation can fail."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = ROOT / ".github" / "workflows"
CHECK = Path(sys.executable).with_name("check-jsonschema")


def _validate(*paths: Path) -> subprocess.CompletedProcess:
    if not CHECK.exists():
        pytest.skip("check-jsonschema is not installed (dev extra)")
    command = [str(CHECK), "--builtin-schema", "vendor.github-workflows", *map(str, paths)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def test_the_workflows_pass_the_schema() -> None:
    paths = sorted(WORKFLOWS.glob("*.yml"))
    assert {p.name for p in paths} == {"cpu.yml", "gpu.yml"}
    done = _validate(*paths)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_schema_check_rejects_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    text = (WORKFLOWS / "cpu.yml").read_text().replace("runs-on: ubuntu-latest", "runs_on: ubuntu-latest")
    broken.write_text(text)
    done = _validate(broken)
    assert done.returncode != 0


def test_the_cpu_job_runs_ci_run_and_keeps_screenshots() -> None:
    text = (WORKFLOWS / "cpu.yml").read_text()
    assert "bash .ci/run" in text and "screenshots/" in text and "hashFiles('pyproject.toml'" in text
    assert "make test" in (ROOT / ".ci" / "run").read_text()


def test_the_gpu_job_installs_cuda_torch_runs_nbval_and_the_bench() -> None:
    text = (WORKFLOWS / "gpu.yml").read_text()
    assert "gpu" in text.split("runs-on:")[1].splitlines()[0]
    assert 'TORCH="$TORCH" TORCH_INDEX="$TORCH_INDEX"' in text
    assert "--nbval --nbval-current-env --nbval-sanitize-with notebooks/sanitize.cfg" in text
    assert "vitcourse.bench --device cuda" in text and "upload-artifact" in text
