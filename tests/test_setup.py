"""The set-up itself: the two package lists agree, notebooks are clean, the Makefile keeps its promises."""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CONDA_NAMES = {"pytorch": "torch"}  # conda-forge's name -> PyPI's name
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~ \[]", requirement.strip(), maxsplit=1)[0].lower()


def test_environment_yml_names_the_same_packages_as_pyproject() -> None:
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from Python 3.11")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pip_names = {_name(r) for r in project["dependencies"] + project["optional-dependencies"]["dev"]}
    conda_names = set()
    in_deps = False
    for line in (ROOT / "environment.yml").read_text().splitlines():
        if line.startswith("dependencies:"):
            in_deps = True
            continue
        # Conda packages at two spaces; packages conda-forge lacks go under `pip:` at six (not `-e .`).
        match = re.match(r"^(?:  |      )- ([A-Za-z][A-Za-z0-9_.-]*)", line)
        if in_deps and match:
            conda_names.add(CONDA_NAMES.get(_name(match.group(1)), _name(match.group(1))))
    conda_names -= {"python", "pip"}
    assert conda_names == pip_names


def test_there_are_notebooks_and_the_first_is_start_here() -> None:
    assert NOTEBOOKS and NOTEBOOKS[0].name == "00_start_here.ipynb"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_clean(path: Path) -> None:
    nb = json.loads(path.read_text())
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    code = [c for c in nb["cells"] if c["cell_type"] == "code" and "".join(c["source"]).strip()]
    counts = [c["execution_count"] for c in code]
    assert counts == list(range(1, len(code) + 1)), (
        "run the notebook top to bottom in a fresh kernel (make execute)"
    )
    for cell in code:
        for out in cell["outputs"]:
            assert out["output_type"] != "error", f"stored error in {path.name}"
            assert not re.search(r"/(home|root|tmp|Users)/", json.dumps(out)), (
                "outputs must not show machine paths"
            )
            assert "cuda:" not in json.dumps(out.get("text", "")), "outputs must not name a device"


def test_makefile_never_sets_mplbackend_and_ci_runs_make_test() -> None:
    assert "MPLBACKEND" not in (ROOT / "Makefile").read_text().replace("MPLBACKEND is never set", "")
    assert "make test" in (ROOT / ".ci" / "run").read_text()


def test_downloaded_original_is_never_committed() -> None:
    assert not list((ROOT / "data").glob("*original*"))
    assert not list((ROOT / "vitcourse" / "assets").glob("*original*"))
