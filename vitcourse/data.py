"""The course's one picture: the Mountain-at-Dusk scene, 60 rows x 100 columns, one channel, values in [0, 1].

Two pictures can be loaded:

* **ours** (the default): a pixel-art rendition drawn by :func:`draw_mountains`, shipped inside the package as
  ``vitcourse/assets/mountains.npy`` and read through :mod:`importlib.resources`, so it loads wherever the
  package is installed. A test asserts that the shipped file equals what the code draws.
* **the original crop** used by the "Vision Transformers Explained" article series
  (``load_mountains(original=True)``). It is downloaded once, checked against a fixed sha256, cached under
  ``$VITCOURSE_CACHE`` (default ``~/.cache/vitcourse``) and loaded with ``allow_pickle=False``. It is never
  shipped with the course.

Environment variables:

* ``VITCOURSE_IMAGE=original`` makes plain ``load_mountains()`` return the original, so a whole course run can
  use either picture.
* ``VITCOURSE_MOUNTAINS_URL`` replaces the download address (``file://`` addresses work: mirrors and tests).
* ``VITCOURSE_CACHE`` replaces the cache folder.

:func:`draw_mountains` takes the scene's parameters (moon place, ridges, sky band), so other scenes of the
same world can be drawn from the same code; its defaults draw the shipped picture.

This module draws and loads arrays only; it imports no plotting. The shipped files (the array and its preview
image) are written by :mod:`vitcourse.preview` (``python -m vitcourse.preview``).
"""

from __future__ import annotations

import hashlib
import io
import os
import urllib.error
import urllib.request
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import torch

from ._validate import finite_float, non_empty, non_negative_int, real_tensor

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

__all__ = [
    "HEIGHT",
    "WIDTH",
    "LEVELS",
    "ORIGINAL_URL",
    "ORIGINAL_SHA256",
    "draw_mountains",
    "load_mountains",
    "to_tensor",
    "shipped_resource",
    "shipped_path",
]

#: The picture's size: rows and columns. Every default image size in the package comes from these two.
HEIGHT = 60
WIDTH = 100

#: The grey levels the rendition uses, darkest to brightest.
LEVELS = (0.0, 0.15, 0.3, 0.45, 0.6, 0.75, 0.9, 1.0)

ORIGINAL_URL = "https://raw.githubusercontent.com/lanl/vision_transformers_explained/main/figures/NotebookOutput/mountains.npy"
ORIGINAL_SHA256 = "c77d209a65756a7b2abc5e7db509941f162dfab2cf13b453196630bc436fd1e3"


def shipped_resource() -> Traversable:
    """Return the shipped picture as a package resource, ``vitcourse/assets/mountains.npy``.

    Reading it with ``.read_bytes()`` works however the package is installed (a checkout, a wheel, a zip).
    """
    return resources.files("vitcourse") / "assets" / "mountains.npy"  # package data, see pyproject.toml


def shipped_path() -> Path:
    """Return the shipped picture's file on disk (the package is installed as files, as pip installs it).

    Raises:
        RuntimeError: the package is imported from an archive, where the picture has no path of its own;
            :func:`load_mountains` still reads it.
    """
    resource = shipped_resource()
    if not isinstance(resource, Path):
        raise RuntimeError(
            f"the package is imported from an archive, so the picture has no file of its own ({resource}); "
            "load_mountains() reads it all the same"
        )
    return resource


def draw_mountains(
    height: int = HEIGHT,
    width: int = WIDTH,
    *,
    moon_col: float = 50.0,
    moon_row: float = -2.0,
    moon_radius: float = 11.0,
    peak_col: float = 20.0,
    peak_row: float = 14.0,
    far_ridge: tuple[float, float] = (46.0, 24.0),
    near_ridge: tuple[float, float] = (60.0, 37.0),
    band_row: int = 20,
    band_height: int = 6,
) -> np.ndarray:
    """Draw a Mountain-at-Dusk scene in the pixel-art style of the course picture.

    With the defaults this draws exactly the shipped picture (60 x 100). The layers, back to front:

    1. a dusk sky in two mid-tones, joined by a dithered checkerboard band;
    2. a bright moon, a disc cut by the top edge, with two darker craters;
    3. a pale mountain on the left, lit on its left face;
    4. a far and a near dark ridge, each sloping down from right to left;
    5. the darkest ground (0.0) rising into the two bottom corners.

    Args:
        height: rows of the picture (the scene is laid out for 60; other sizes scale the layout).
        width: columns of the picture (laid out for 100).
        moon_col, moon_row: centre of the moon in pixels of a 60 x 100 picture (a negative row puts the centre
            above the top edge, so the edge cuts the disc).
        moon_radius: radius of the moon in pixels.
        peak_col, peak_row: summit of the pale mountain.
        far_ridge: row of the far ridge's crest at the left edge and at the right edge.
        near_ridge: row of the near ridge's crest at the left edge and at the right edge.
        band_row: first row of the dithered band between the two sky tones.
        band_height: rows in the dithered band.

    Returns:
        A float64 array of shape (height, width), values in [0, 1] taken from :data:`LEVELS`.
    """
    for name, value in (("height", height), ("width", width)):
        if non_negative_int(name, value) < 8:
            raise ValueError(f"{name} must be an int >= 8, got {value!r}")
    for name, value in (
        ("moon_col", moon_col),
        ("moon_row", moon_row),
        ("peak_col", peak_col),
        ("peak_row", peak_row),
    ):
        finite_float(name, value)
    finite_float("moon_radius", moon_radius, 0)
    for name, pair in (("far_ridge", far_ridge), ("near_ridge", near_ridge)):
        if not isinstance(pair, tuple | list) or len(pair) != 2:
            raise TypeError(f"{name} must be a pair (left row, right row) of numbers, got {pair!r:.80}")
        finite_float(f"{name}[0]", pair[0])
        finite_float(f"{name}[1]", pair[1])
    if isinstance(band_row, bool) or not isinstance(band_row, int):
        raise TypeError(f"band_row must be an int (a row), got {type(band_row).__name__} {band_row!r:.80}")
    non_negative_int("band_height", band_height)
    sy, sx = height / HEIGHT, width / WIDTH
    rows = (np.arange(height)[:, None] + 0.5) / sy  # row coordinates in 60 x 100 units, (H, 1)
    cols = (np.arange(width)[None, :] + 0.5) / sx  # column coordinates in 60 x 100 units, (1, W)
    rr, cc = np.broadcast_arrays(rows, cols)  # (H, W) each
    img = np.empty((height, width))

    # 1. Sky: the upper sky a little darker than the lower, joined by a checkerboard band.
    upper, lower = LEVELS[3], LEVELS[4]
    img[:] = np.where(rr < band_row, upper, lower)
    band = (rr >= band_row) & (rr < band_row + band_height)
    checker = ((np.floor(rr) + np.floor(cc)) % 2) == 0
    img[band] = np.where(checker[band], upper, lower)

    # 2. The moon, cut by the top edge, with two craters.
    moon = (rr - moon_row) ** 2 + (cc - moon_col) ** 2 <= moon_radius**2
    img[moon] = LEVELS[7]
    for dr, dc, rad in ((3.0, -4.0, 2.2), (5.0, 4.0, 1.6)):
        crater = (rr - moon_row - dr) ** 2 + (cc - moon_col - dc) ** 2 <= rad**2
        img[crater & moon] = LEVELS[6]

    # 3. The pale mountain: lit left face, shaded right face.
    left_slope, right_slope = 0.9, 0.6
    left_face = (rr >= peak_row + (peak_col - cc) * left_slope) & (cc <= peak_col)
    right_face = (rr >= peak_row + (cc - peak_col) * right_slope) & (cc > peak_col)
    img[left_face] = LEVELS[6]
    img[right_face] = LEVELS[5]

    # 4. Two dark ridges, higher on the right; a small saw-tooth keeps the crest from looking ruled.
    def crest(left_row: float, right_row: float, tooth: float) -> np.ndarray:
        line = left_row + (right_row - left_row) * cc / WIDTH
        return line + tooth * np.abs(((cc / 6.0) % 2.0) - 1.0)

    img[rr >= crest(*far_ridge, tooth=2.0)] = LEVELS[2]
    img[rr >= crest(*near_ridge, tooth=1.5)] = LEVELS[1]

    # 5. The darkest ground in the bottom corners.
    corner = np.minimum(cc, WIDTH - cc)
    img[rr >= HEIGHT - 9.0 + corner * 0.45] = LEVELS[0]
    return img


def to_tensor(picture: np.ndarray | torch.Tensor) -> torch.Tensor:
    """Turn a picture into a batch of one single-channel image.

    Args:
        picture: array or tensor of shape (H, W) holding real floating-point numbers (values in [0, 1]); an
            integer, bool or complex one is refused with a TypeError that says how to convert it.

    Returns:
        A float32 tensor of shape (1, 1, H, W) on the CPU.
    """
    if isinstance(picture, np.ndarray):
        if picture.dtype.kind not in "fiubc":
            raise TypeError(f"picture has numpy dtype {picture.dtype}; pass an array of numbers")
        picture = torch.from_numpy(np.ascontiguousarray(picture))
    if not isinstance(picture, torch.Tensor):
        raise TypeError(f"picture must be a numpy array or a torch tensor, got {type(picture).__name__}")
    t = real_tensor("picture", picture).detach().to("cpu", torch.float32)
    if t.ndim != 2:
        raise ValueError(f"picture must have 2 dimensions (H, W), got shape {tuple(t.shape)}")
    non_empty("picture", t, "(H, W)")
    return t[None, None]  # (1, 1, H, W)


def _cache_dir() -> Path:
    folder = Path(os.environ.get("VITCOURSE_CACHE", Path.home() / ".cache" / "vitcourse"))
    if folder.exists() and not folder.is_dir():
        raise ValueError(
            f"VITCOURSE_CACHE must name a folder, but {str(folder)!r} is a file; point it at a folder "
            f"(it is created if missing) or unset it to use ~/.cache/vitcourse"
        )
    return folder


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


_OFFLINE_HINT = "The course's own picture works offline: call load_mountains() without original=True."


def _load_original() -> np.ndarray:
    url = os.environ.get("VITCOURSE_MOUNTAINS_URL", ORIGINAL_URL)
    cached = _cache_dir() / "mountains_original.npy"
    if not (cached.exists() and _sha256(cached) == ORIGINAL_SHA256):
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(".part")
        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                partial.write_bytes(response.read())
        except (urllib.error.URLError, OSError, ValueError) as err:
            raise RuntimeError(
                f"Could not download the original picture from {url}: {err}. {_OFFLINE_HINT}"
            ) from err
        digest = _sha256(partial)
        if digest != ORIGINAL_SHA256:
            partial.unlink()
            raise RuntimeError(
                f"The file downloaded from {url} has sha256 {digest}, expected {ORIGINAL_SHA256}; "
                f"it was not kept. {_OFFLINE_HINT}"
            )
        partial.replace(cached)
    picture = np.load(cached, allow_pickle=False)
    return np.asarray(picture, dtype=np.float64)


def load_mountains(original: bool | None = None) -> np.ndarray:
    """Load the Mountain-at-Dusk picture.

    Args:
        original: ``False`` for the course's own rendition (shipped, offline); ``True`` for the article series'
            original crop (downloaded once and cached, see the module docstring). ``None`` (the default) reads
            ``VITCOURSE_IMAGE``: ``original`` picks the original, anything else or unset picks ours.

    Returns:
        A float64 array of shape (HEIGHT, WIDTH) = (60, 100), values in [0, 1].

    Raises:
        RuntimeError: the original was asked for but could not be downloaded, or its checksum did not match.
        ValueError: ``VITCOURSE_IMAGE`` holds something other than ``original`` or ``ours``, or
            ``VITCOURSE_CACHE`` names a file.
        TypeError: ``original`` is not True, False or None (a string such as ``"ours"`` would be truthy).
    """
    if original is not None and not isinstance(original, bool | np.bool_):
        raise TypeError(
            f"original must be True (the article series' crop), False (ours) or None (read VITCOURSE_IMAGE), "
            f"got {type(original).__name__} {original!r:.80}"
        )
    if original is None:
        choice = os.environ.get("VITCOURSE_IMAGE", "ours").strip().lower() or "ours"
        if choice not in ("ours", "original"):
            raise ValueError(f"VITCOURSE_IMAGE must be 'ours' or 'original', got {choice!r}")
        original = choice == "original"
    if original:
        return _load_original()
    return np.load(io.BytesIO(shipped_resource().read_bytes()), allow_pickle=False)


def pale_mountain(picture: np.ndarray, level: float = 0.7) -> np.ndarray:
    """The pale mountain of a picture of the Mountain-at-Dusk world, as an (H, W) boolean mask: the pixels of
    ``level`` or brighter, less the moon, the bright region that touches the top edge (grown from the top row
    through bright neighbours up, down, left and right). All False where no such pixel exists."""
    bright = np.asarray(picture) >= level  # (H, W): the moon and the pale mountain
    moon = np.zeros_like(bright)
    moon[0] = bright[0]  # the moon is the bright region cut by the top edge
    while True:
        grown = moon.copy()
        grown[1:] |= moon[:-1]
        grown[:-1] |= moon[1:]
        grown[:, 1:] |= moon[:, :-1]
        grown[:, :-1] |= moon[:, 1:]
        grown &= bright
        if (grown == moon).all():
            return bright & ~moon
        moon = grown


def summit_square(picture: np.ndarray, side: int = 10, level: float = 0.7) -> tuple[int, int, int, int]:
    """The ``side x side`` square just under the summit of the pale mountain (:func:`pale_mountain`), as
    (top, left, height, width) in pixels: its top row is the summit's row, its columns centred on the summit's
    top-most pixels, and it is moved inside the picture where it would stick out. Where the picture has no pale
    mountain, the square is taken from the middle of the picture."""
    height, width = np.asarray(picture).shape
    pale = pale_mountain(picture, level)  # (H, W)
    if pale.any():
        rows, cols = np.nonzero(pale)
        row = int(rows.min())
        at_top = cols[rows == row]  # the summit's columns
        col = int(at_top.min() + at_top.max() + 1) // 2
    else:
        row, col = height // 2, width // 2
    top, left = min(row, height - side), min(max(col - side // 2, 0), width - side)
    return top, left, side, side


def dithered_rows(picture: np.ndarray) -> np.ndarray:
    """The rows of a picture's dithered band, sorted: the rows in which most pixels differ from their right-hand
    neighbour (a checkerboard of two tones does so everywhere, a plain shade nowhere). Empty if there is none."""
    pic = np.asarray(picture)
    differs = pic[:, 1:] != pic[:, :-1]  # (H, W - 1): each pixel against its right-hand neighbour
    return np.flatnonzero(differs.mean(axis=1) > 0.5)
