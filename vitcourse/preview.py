"""Write the shipped picture files: ``data/mountains.npy`` (what :func:`vitcourse.data.draw_mountains` draws) and
its preview ``data/mountains.png`` (drawn by :func:`vitcourse.plots.show_picture`).

This is a tool that sits on top of the drawing code, so that :mod:`vitcourse.data` itself needs no plotting.
Run it after changing the drawing code::

    python -m vitcourse.preview              # into data/
    python -m vitcourse.preview --out DIR    # somewhere else
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from ._validate import instance_of
from .data import HEIGHT, WIDTH, draw_mountains, shipped_path

__all__ = ["write_shipped_files", "main"]


def write_shipped_files(folder: Path | None = None) -> list[Path]:
    """Draw the picture and write ``mountains.npy`` and the preview ``mountains.png`` into ``folder``.

    Args:
        folder: where to write (created if missing); ``None`` is the course's ``data/`` folder, where
            :func:`vitcourse.data.shipped_path` points.

    Returns:
        The two paths written, the array first.
    """
    import matplotlib

    matplotlib.use("Agg")  # a file writer: no window, whatever backend the caller's session has
    import matplotlib.pyplot as plt

    from .plots import show_picture

    if folder is not None:
        instance_of("folder", folder, (str, Path), "a folder path (str or pathlib.Path) or None")
    folder = shipped_path().parent if folder is None else Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"folder {str(folder)!r} is a file; pass a folder (it is created if missing)")
    folder.mkdir(parents=True, exist_ok=True)
    picture = draw_mountains()
    npy, png = folder / "mountains.npy", folder / "mountains.png"
    np.save(npy, picture)
    fig, ax = plt.subplots(figsize=(6, 3.8))
    show_picture(picture, ax=ax, title=f"Mountain at Dusk (vitcourse rendition, {HEIGHT} x {WIDTH})")
    fig.tight_layout()
    fig.savefig(png, dpi=100, metadata={"Software": None})
    plt.close(fig)
    return [npy, png]


def main(argv: list[str] | None = None) -> int:
    """Command line: write the two files and print their paths."""
    parser = argparse.ArgumentParser(prog="python -m vitcourse.preview", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=None, help="folder to write into (default: data/)")
    args = parser.parse_args(argv)
    for path in write_shipped_files(args.out):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
