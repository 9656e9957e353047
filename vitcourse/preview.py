"""Write the shipped picture files: the array ``vitcourse/assets/mountains.npy`` (what
:func:`vitcourse.data.draw_mountains` draws; package data) and its preview ``data/mountains.png`` (drawn by
:func:`vitcourse.plots.show_picture`; the image the READMEs show, not part of the package).

This is a tool that sits on top of the drawing code, so that :mod:`vitcourse.data` itself needs no plotting.
Run it from a checkout of the course after changing the drawing code::

    python -m vitcourse.preview              # the array into vitcourse/assets/, the preview into data/
    python -m vitcourse.preview --out DIR    # both into DIR
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from ._validate import instance_of, writable_folder
from .data import HEIGHT, WIDTH, draw_mountains, shipped_path

__all__ = ["write_shipped_files", "main"]

#: The course checkout's learner-facing folder, where the preview lives (one level above the package).
DATA_DIR = Path(__file__).resolve().parent.parent / "data"


def write_shipped_files(folder: Path | None = None) -> list[Path]:
    """Draw the picture and write ``mountains.npy`` and the preview ``mountains.png``.

    Args:
        folder: where to write both (created if missing); ``None`` writes the array where
            :func:`vitcourse.data.shipped_path` points (``vitcourse/assets/``) and the preview into the
            checkout's ``data/`` folder.

    Returns:
        The two paths written, the array first.

    Raises:
        RuntimeError: ``folder`` is ``None`` but the package is not in a checkout of the course (no ``data/``
            folder beside it), as after ``pip install``: pass a folder instead.
    """
    import matplotlib

    matplotlib.use("Agg")  # a file writer: no window, whatever backend the caller's session has
    import matplotlib.pyplot as plt

    from .plots import show_picture

    if folder is None:
        if not (DATA_DIR.is_dir() and (DATA_DIR.parent / "pyproject.toml").is_file()):
            raise RuntimeError(
                f"the package is not in a checkout of the course (no data/ folder and pyproject.toml beside it "
                f"in {DATA_DIR.parent}); pass a folder (--out DIR) to write the files there"
            )
        npy, png = shipped_path(), DATA_DIR / "mountains.png"
    else:
        instance_of("folder", folder, (str, Path), "a folder path (str or pathlib.Path) or None")
        folder = writable_folder("folder", folder)  # not a file, and a place this process may write in
        folder.mkdir(parents=True, exist_ok=True)
        npy, png = folder / "mountains.npy", folder / "mountains.png"
    picture = draw_mountains()
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
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="folder to write both files into (default: the array into vitcourse/assets/, the preview into data/)",
    )
    args = parser.parse_args(argv)
    if args.out is not None:
        try:
            writable_folder("--out", args.out)
        except ValueError as err:
            parser.error(str(err))  # a sentence and exit status 2, before anything is drawn
    try:
        written = write_shipped_files(args.out)
    except RuntimeError as err:
        print(err, file=sys.stderr)
        return 2
    for path in written:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
