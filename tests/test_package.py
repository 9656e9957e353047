"""The package installs like one: the wheel holds every module and the picture, and a plain (not editable)
install in a fresh virtual environment outside the repository loads the picture and builds the models."""

from __future__ import annotations

import ast
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "vitcourse"


def _requirement_name(requirement: str) -> str:
    return re.split(r"[<>=!~ ;\[]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _runtime_imports(path: Path) -> set[str]:
    """Top-level names of the absolute imports in ``path``, leaving out ``if TYPE_CHECKING:`` blocks."""
    tree = ast.parse(path.read_text(), filename=str(path))
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped |= {id(inner) for stmt in node.body for inner in ast.walk(stmt)}
    names = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_every_third_party_import_is_a_declared_dependency() -> None:
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from Python 3.11")
    declared = {
        _requirement_name(r)
        for r in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    }
    distributions = importlib.metadata.packages_distributions()  # import name -> distributions providing it
    undeclared = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for name in _runtime_imports(path) - set(sys.stdlib_module_names) - {"vitcourse"}:
            provided_by = {d.lower().replace("_", "-") for d in distributions.get(name, [name])}
            if not provided_by & declared:
                undeclared.setdefault(name, []).append(str(path.relative_to(ROOT)))
    assert not undeclared, f"imported but not in pyproject's dependencies: {undeclared}"


def _expected_files(source: Path) -> set[str]:
    """What the wheel must hold: every module, and the package data pyproject.toml names."""
    package = source / "vitcourse"
    files = {p for p in package.rglob("*.py") if "__pycache__" not in p.parts}
    files |= {p for p in (package / "assets").glob("*") if p.is_file()}
    files |= set((package / "assets" / "checkpoints").glob("*.pt"))
    files |= set((package / "assets" / "experiments").glob("*.json"))
    return {p.relative_to(source).as_posix() for p in files}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build the wheel from a copy of the sources, so no build folder is left in the repository."""
    setuptools = pytest.importorskip("setuptools")
    if int(setuptools.__version__.split(".")[0]) < 77:
        pytest.skip(f"building needs setuptools >= 77 (pyproject.toml), found {setuptools.__version__}")
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(PACKAGE, source / "vitcourse", ignore=shutil.ignore_patterns("__pycache__"))
    dist = tmp_path_factory.mktemp("dist")
    build = [sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "--no-build-isolation", "--no-index"]
    done = subprocess.run([*build, "-w", str(dist)], cwd=source, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "absent from the `packages` configuration" not in done.stderr
    (wheel,) = dist.glob("vitcourse-*.whl")
    assert _expected_files(source) == _expected_files(ROOT)  # the copy is the repository's package
    return wheel


def test_wheel_holds_every_module_and_the_picture_and_nothing_else(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        metadata = zf.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    package_files = {n for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert "vitcourse/assets/mountains.npy" in package_files
    assert "vitcourse/check/_core.py" in package_files  # the subpackage, not only the top level
    assert package_files == _expected_files(ROOT)  # no tests/, notebooks/ or data/ in the wheel
    requires = {
        _requirement_name(line.split(":", 1)[1]) for line in metadata.splitlines() if "Requires-Dist" in line
    }
    assert {"torch", "numpy", "matplotlib", "nbformat", "ipywidgets", "imageio"} <= requires


# Runs inside the fresh environment: where vitcourse came from, the picture, every module, two models.
_CHECK_INSTALL = """
import importlib, json, sys
from pathlib import Path

import numpy as np
import torch

import vitcourse
from vitcourse import classroom, data, models, preview

modules = sys.argv[1:]
for name in modules:
    importlib.import_module(name)
picture = data.load_mountains()
torch.manual_seed(0)
image = data.to_tensor(picture)
vit = models.VisionTransformer(embed_dim=64, depth=1, num_heads=4, num_classes=3).eval()
t2t = models.T2TViT(embed_dim=64, depth=1, num_heads=4, num_classes=3).eval()
with torch.no_grad():
    shapes = [list(vit(image).shape), list(t2t(image).shape)]
print(json.dumps({
    "file": vitcourse.__file__,
    "prefix": sys.prefix,
    "picture_shape": list(picture.shape),
    "picture_is_drawn": bool(np.array_equal(picture, data.draw_mountains())),
    "shipped_path": str(data.shipped_path()),
    "modules": len(modules),
    "output_shapes": shapes,
    "preview_default": preview.main([]),
    "classroom_default": classroom.main([]),
}))
"""


def test_wheel_installs_into_a_fresh_venv_and_loads_the_picture_and_a_model(
    wheel: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    env_dir = tmp_path_factory.mktemp("fresh") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True)
    python = env_dir / ("Scripts" if os.name == "nt" else "bin") / "python"
    clean_env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VITCOURSE_"))}
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index"]
    done = subprocess.run([*install, str(wheel)], capture_output=True, text=True, check=False, env=clean_env)
    assert done.returncode == 0, done.stdout + done.stderr
    # The third-party packages (torch, numpy, ...) come from this environment's site-packages, named as a plain
    # path line: .pth files inside it (the repository's editable install) are not run.
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True, env=clean_env,
    ).stdout.strip()  # fmt: skip
    (Path(purelib) / "shared_packages.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    with zipfile.ZipFile(wheel) as zf:
        modules = sorted(
            n.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
            for n in zf.namelist()
            if n.endswith(".py")
        )
    outside = tmp_path_factory.mktemp("elsewhere")
    run = subprocess.run(
        [str(python), "-I", "-c", _CHECK_INSTALL, *modules],
        cwd=outside, capture_output=True, text=True, check=False, env=clean_env, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads(run.stdout.strip().splitlines()[-1])
    installed = Path(report["file"]).resolve()
    assert installed.is_relative_to(env_dir.resolve()), (
        f"imported from {installed}, not the fresh environment"
    )
    assert not installed.is_relative_to(ROOT)
    assert Path(report["shipped_path"]).resolve().is_relative_to(Path(purelib).resolve())
    assert report["picture_shape"] == [60, 100] and report["picture_is_drawn"]
    assert report["modules"] == len(modules) >= 20
    assert report["output_shapes"] == [[1, 3], [1, 3]]
    assert report["preview_default"] == 2  # no checkout around an installed package: refused with a sentence
    assert "not in a checkout of the course" in run.stderr
    assert report["classroom_default"] == 2 and "name the notebooks to copy" in run.stderr
    assert not (installed.parent.parent / "student").exists()  # nothing written beside the package
