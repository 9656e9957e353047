import hashlib
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from vitcourse import data


def test_shipped_picture_is_what_the_code_draws() -> None:
    shipped = np.load(data.shipped_path(), allow_pickle=False)
    np.testing.assert_array_equal(shipped, data.draw_mountains())


def test_shipped_picture_is_package_data() -> None:
    path = data.shipped_path()
    assert path.parts[-3:] == ("vitcourse", "assets", "mountains.npy")
    assert data.shipped_resource().read_bytes() == path.read_bytes()


def test_picture_loads_from_an_archive_where_it_has_no_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = tmp_path / "package.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(data.shipped_path(), "vitcourse/assets/mountains.npy")
    inside = zipfile.Path(archive, "vitcourse/assets/mountains.npy")
    monkeypatch.setattr(data, "shipped_resource", lambda: inside)
    monkeypatch.delenv("VITCOURSE_IMAGE", raising=False)
    np.testing.assert_array_equal(data.load_mountains(), data.draw_mountains())
    with pytest.raises(RuntimeError, match="imported from an archive.*load_mountains"):
        data.shipped_path()


def test_picture_shape_range_and_levels() -> None:
    img = data.load_mountains()
    assert img.shape == (60, 100)
    assert img.min() == 0.0 and img.max() == 1.0
    levels = np.unique(img)
    assert 4 <= len(levels) <= 8
    assert set(levels.tolist()) <= set(data.LEVELS)


def test_picture_composition() -> None:
    img = data.load_mountains()
    assert img[0, 45:56].min() >= 0.9 and img[0, 50] == 1.0  # the moon, cut by the top edge near the middle
    assert img[-1, 0] == 0.0 and img[-1, -1] == 0.0  # darkest ground in both bottom corners
    assert len(np.unique(img[40:60, 20:40])) >= 3  # patch 11 (the article's patch 12) holds several shades
    sky = img[20:24, 60:90]
    assert set(np.unique(sky).tolist()) == {0.45, 0.6}  # the dithered checkerboard band
    assert img[35, 5] > img[35, 95]  # pale mountain on the left, dark ridge on the right


def test_draw_mountains_scales_and_rejects_bad_sizes() -> None:
    assert data.draw_mountains(30, 50).shape == (30, 50)
    with pytest.raises(ValueError, match="height"):
        data.draw_mountains(3, 100)


def test_to_tensor() -> None:
    t = data.to_tensor(data.load_mountains())
    assert t.shape == (1, 1, 60, 100) and t.dtype == torch.float32
    with pytest.raises(ValueError, match="2 dimensions"):
        data.to_tensor(np.zeros((1, 60, 100)))
    with pytest.raises(TypeError, match="picture"):
        data.to_tensor([[0.0]])


def _serve(tmp_path: Path, payload: np.ndarray) -> tuple[str, str]:
    source = tmp_path / "served" / "mountains.npy"
    source.parent.mkdir()
    np.save(source, payload)
    return source.as_uri(), hashlib.sha256(source.read_bytes()).hexdigest()


def test_original_download_checks_caches_and_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    payload = np.linspace(0, 1, 6000).reshape(60, 100)
    url, digest = _serve(tmp_path, payload)
    monkeypatch.setenv("VITCOURSE_MOUNTAINS_URL", url)
    monkeypatch.setenv("VITCOURSE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(data, "ORIGINAL_SHA256", digest)
    np.testing.assert_array_equal(data.load_mountains(original=True), payload)
    assert (tmp_path / "cache" / "mountains_original.npy").exists()
    Path(url.removeprefix("file://")).unlink()  # the cache now serves it
    np.testing.assert_array_equal(data.load_mountains(original=True), payload)
    monkeypatch.setenv("VITCOURSE_IMAGE", "original")
    np.testing.assert_array_equal(data.load_mountains(), payload)
    monkeypatch.setenv("VITCOURSE_IMAGE", "ours")
    np.testing.assert_array_equal(data.load_mountains(), data.draw_mountains())


def test_original_checksum_mismatch_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url, _ = _serve(tmp_path, np.zeros((60, 100)))
    monkeypatch.setenv("VITCOURSE_MOUNTAINS_URL", url)
    monkeypatch.setenv("VITCOURSE_CACHE", str(tmp_path / "cache"))
    with pytest.raises(RuntimeError, match="sha256.*works offline"):
        data.load_mountains(original=True)
    assert not list((tmp_path / "cache").iterdir())  # nothing kept


def test_original_offline_says_the_shipped_picture_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VITCOURSE_MOUNTAINS_URL", (tmp_path / "missing.npy").as_uri())
    monkeypatch.setenv("VITCOURSE_CACHE", str(tmp_path / "cache"))
    with pytest.raises(RuntimeError, match="Could not download.*works offline"):
        data.load_mountains(original=True)


def test_unknown_image_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VITCOURSE_IMAGE", "sunset")
    with pytest.raises(ValueError, match="VITCOURSE_IMAGE"):
        data.load_mountains()


def test_preview_writes_the_shipped_files(tmp_path: Path) -> None:
    from vitcourse import preview

    npy, png = preview.write_shipped_files(tmp_path / "out")
    assert npy.read_bytes() == data.shipped_path().read_bytes()
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 1000


def test_data_imports_no_plotting() -> None:
    import subprocess
    import sys

    code = "import sys, vitcourse.data; print(any(m.startswith('matplotlib') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_dithered_rows_finds_a_checkerboard_band_and_nothing_else() -> None:
    picture = np.zeros((8, 10))
    picture[3:5] = np.indices((2, 10)).sum(axis=0) % 2  # rows 3 and 4: a checkerboard of 0 and 1
    assert data.dithered_rows(picture).tolist() == [3, 4]
    assert data.dithered_rows(np.zeros((4, 6))).size == 0
    assert data.dithered_rows(data.load_mountains(original=False)).tolist() == list(range(20, 26))
