"""Training data from the picture's world: random Mountain-at-Dusk scenes, drawn on the fly.

Every scene is drawn by :func:`vitcourse.data.draw_mountains` with its own moon, mountain, ridges and sky band,
so any number of scenes can be drawn, no files are needed, and a seed gives the same scenes on every machine
(numpy's ``default_rng`` draws the scene parameters). Training itself samples its batches from a fixed pool
drawn once (:func:`scene_pool`), because drawing a scene costs more than a step of the course's small models.

Four tasks, all about *where* things are, so position information matters:

* ``"scramble"``: is the scene intact (label 0) or are its ``block x block`` squares shuffled (label 1)?
  Scenes come in pairs, each once intact and once scrambled, so the classes are balanced, and a model that
  cannot see positions is exactly at chance when the blocks are its patches (20 x 20 for the course's ViT).
* ``"moon"``: where is the moon? The target is the moon's column divided by the width (a number in [0, 1]), a
  single regression output like the article series' prediction head.
* ``"where"``: which patch holds the moon? The moon (radius 5 to 8 pixels) is placed in one of the patches of
  the ``block``-pixel grid (``block`` = 20 by default: a ViT's patches), its centre within 5 pixels of the patch's centre, anywhere in the frame and in
  front of the landscape. The targets are the patch's row and column (two class labels), so a model must find
  the moon and read off where it sits: position on both axes.
* ``"within"``: the same question with a smaller moon drawn wholly inside its patch (radius 0.25 to 0.4 of the
  patch side, centre placed so that the disc stays inside), so that exactly one patch holds it. Used with
  10-pixel patches (a 6 x 10 grid): with the "where" moon a 10-pixel patch would hold only part of the moon,
  and the moon's patch would be decided by which of two or three patches holds most of it.

:func:`scene_pool` keeps the last :data:`POOL_CACHE_SIZE` pools it drew (a pool of 2048 scenes is about 49 MB),
so the memory a session holds for pools stays bounded however many settings it tries.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np
import torch

from ._validate import (
    allocatable,
    choice,
    common_divisors,
    cpu_generator,
    flag,
    instance_of,
    listing,
    non_negative_int,
    positive_int,
    tensor_of_rank,
)
from .data import HEIGHT, LEVELS, WIDTH, draw_mountains
from .tokens import patchify, unsplit

__all__ = [
    "TASKS",
    "WHERE_TASKS",
    "POOL_CACHE_SIZE",
    "Batch",
    "random_scene",
    "where_scene",
    "where_classes",
    "make_batch",
    "scramble_patches",
    "scene_pool",
    "clear_scene_pools",
]

#: The tasks :func:`make_batch` can make.
TASKS = ("scramble", "moon", "where", "within")

#: The tasks whose answer is the moon's patch row and column on a grid of ``block``-pixel patches.
WHERE_TASKS = ("where", "within")

#: How many scene pools :func:`scene_pool` keeps (least recently used first out).
POOL_CACHE_SIZE = 2


class Batch(NamedTuple):
    """Images (B, 1, HEIGHT, WIDTH) = (B, 1, 60, 100) float32 and targets: (B,) long labels for "scramble",
    (B, 1) float for "moon", (B, 2) long (patch row, patch column) for "where" and "within"."""

    images: torch.Tensor
    targets: torch.Tensor


def random_scene(rng: np.random.Generator, moon: bool = True) -> tuple[np.ndarray, float]:
    """Draw one random scene. Returns the (HEIGHT, WIDTH) picture and the moon's column in pixels.

    ``rng`` is a numpy generator, e.g. ``np.random.default_rng(seed)``. With ``moon=False`` the moon is left out
    of the sky; its place is still drawn from ``rng``, so the rest of the scene comes out the same as with the moon.
    """
    instance_of("rng", rng, np.random.Generator, "a numpy Generator, e.g. np.random.default_rng(0)")
    moon = flag("moon", moon)
    moon_col = float(rng.uniform(8, WIDTH - 8))
    moon_row = float(rng.uniform(-4, 6))  # always at least a few rows of moon in view
    picture = draw_mountains(
        moon_col=moon_col,
        moon_row=moon_row if moon else -1000.0,  # -1000: the disc lies wholly above the frame
        moon_radius=float(rng.uniform(7, 12)),
        peak_col=float(rng.uniform(8, 45)),
        peak_row=float(rng.uniform(8, 22)),
        far_ridge=(float(rng.uniform(40, 54)), float(rng.uniform(18, 32))),
        near_ridge=(float(rng.uniform(54, 64)), float(rng.uniform(32, 44))),
        band_row=int(rng.integers(14, 26)),
        band_height=int(rng.integers(3, 8)),
    )
    return picture, moon_col


def where_classes(patch: int = 20) -> tuple[int, int]:
    """The "where" task's classes: (patch rows, patch columns) of the grid, (3, 5) for patches of 20.

    A model for the task has ``rows + cols`` outputs: the first ``rows`` score the moon's patch row, the
    other ``cols`` its patch column.
    """
    _check_block(HEIGHT, WIDTH, positive_int("patch", patch), name="patch")
    return HEIGHT // patch, WIDTH // patch


def where_scene(
    rng: np.random.Generator, patch: int = 20, within: bool = False
) -> tuple[np.ndarray, int, int]:
    """A random scene with the moon moved into a random patch, in front of the landscape (the "where" task).

    The landscape comes from :func:`random_scene` without its moon; then a moon of radius 5 to 8 pixels, with
    two craters, is drawn with its centre within 5 pixels of the centre of a patch chosen uniformly.
    With ``within=True`` (the "within" task) the radius is 0.25 to 0.4 times ``patch`` and the centre lies
    within ``patch / 2 - radius`` of the patch's centre on each axis, so the disc stays inside the patch; it
    has no craters (at 2.5 to 4 pixels of radius for 10-pixel patches they would be under a pixel).

    Returns:
        The (HEIGHT, WIDTH) picture, the patch's row and its column.
    """
    instance_of("rng", rng, np.random.Generator, "a numpy Generator, e.g. np.random.default_rng(0)")
    rows, cols = where_classes(patch)
    within = flag("within", within)
    picture, _ = random_scene(rng, moon=False)
    row, col = int(rng.integers(rows)), int(rng.integers(cols))
    if within:
        radius = float(rng.uniform(0.25, 0.4)) * patch
        room = patch / 2 - radius  # how far the centre may move and keep the disc inside the patch
        centre_r = (row + 0.5) * patch + float(rng.uniform(-room, room))
        centre_c = (col + 0.5) * patch + float(rng.uniform(-room, room))
    else:
        centre_r = (row + 0.5) * patch + float(rng.uniform(-5, 5))
        centre_c = (col + 0.5) * patch + float(rng.uniform(-5, 5))
        radius = float(rng.uniform(5, 8))
    rr, cc = np.mgrid[0:HEIGHT, 0:WIDTH] + 0.5  # pixel centres, (H, W) each
    disc = (rr - centre_r) ** 2 + (cc - centre_c) ** 2 <= radius**2
    picture[disc] = LEVELS[7]
    craters = () if within else ((0.3, -0.4, 0.22), (0.5, 0.4, 0.16))  # a small moon's would be under a pixel
    for dr, dc, rad in craters:  # craters, in units of the radius
        crater = (rr - centre_r - dr * radius) ** 2 + (cc - centre_c - dc * radius) ** 2 <= (
            rad * radius
        ) ** 2
        picture[crater & disc] = LEVELS[6]
    return picture, row, col


def scramble_patches(images: torch.Tensor, block: int, generator: torch.Generator) -> torch.Tensor:
    """Shuffle the ``block x block`` squares of each image with its own random permutation (never the identity).

    Args:
        images: (B, C, H, W), H and W divisible by ``block``.
        block: side of the squares that are shuffled (the scramble's block, not a model's patch size).
        generator: the source of the permutations.

    Returns:
        (B, C, H, W), each image made of the same blocks in another order.
    """
    tensor_of_rank("images", images, 4, "(B, C, H, W)")
    _check_block(images.shape[2], images.shape[3], positive_int("block", block))
    cpu_generator("generator", generator)
    toks = patchify(images, block)  # (B, N, C*block*block)
    n = toks.shape[1]
    perms = []
    for _ in range(images.shape[0]):
        perm = torch.randperm(n, generator=generator)
        while n > 1 and torch.equal(perm, torch.arange(n)):
            perm = torch.randperm(n, generator=generator)
        perms.append(perm)
    index = torch.stack(perms)[:, :, None].expand_as(toks)  # (B, N, C*block*block)
    shuffled = torch.gather(toks, 1, index)
    return unsplit(shuffled, images.shape[2], images.shape[3], block, block, 0)


def make_batch(task: str, size: int, seed: int, block: int = 20) -> Batch:
    """A batch of ``size`` scenes for ``task``, the same for the same seed.

    For "scramble", ``size`` must be even: ``size // 2`` scenes, each intact and scrambled, their
    ``block x block`` squares shuffled (``block`` divides 60 and 100; it is the scramble's block side, whatever
    patch size a model uses). "moon" ignores ``block``.
    For "where", ``block`` is the side of the grid cells (a ViT's patches) one of which holds the moon.
    """
    _check_batch(task, size, seed, block)
    rng = np.random.default_rng(seed)
    if task in WHERE_TASKS:
        placed = [where_scene(rng, block, within=task == "within") for _ in range(size)]
        pictures = np.stack([p for p, _, _ in placed]).astype(np.float32)  # (B, H, W)
        images = torch.from_numpy(pictures)[:, None]  # (B, 1, H, W)
        return Batch(images, torch.tensor([[r, c] for _, r, c in placed], dtype=torch.long))  # (B, 2)
    n_scenes = size // 2 if task == "scramble" else size
    drawn = [random_scene(rng) for _ in range(n_scenes)]
    images = torch.from_numpy(np.stack([p for p, _ in drawn]).astype(np.float32))[:, None]  # (n, 1, H, W)
    if task == "moon":
        cols = torch.tensor([[c / WIDTH] for _, c in drawn], dtype=torch.float32)  # (n, 1)
        return Batch(images, cols)
    scrambled = scramble_patches(images, block, torch.Generator().manual_seed(seed))
    labels = torch.cat([torch.zeros(n_scenes), torch.ones(n_scenes)]).long()  # intact first, then scrambled
    return Batch(torch.cat([images, scrambled]), labels)


def _check_batch(task: object, size: object, seed: object, block: object) -> None:
    """The checks :func:`make_batch` and :func:`scene_pool` share, each naming its parameter."""
    choice("task", task, TASKS)
    positive_int("size", size)
    if task == "scramble" and size % 2:
        raise ValueError(
            f"size must be even for 'scramble' (each scene comes intact and scrambled), got {size}"
        )
    non_negative_int("seed", seed)
    positive_int("block", block)
    allocatable("the batch's images", size * HEIGHT * WIDTH, size=size)
    if task == "scramble" or task in WHERE_TASKS:
        _check_block(HEIGHT, WIDTH, block)


def _check_block(height: int, width: int, block: int, name: str = "block") -> None:
    if height % block or width % block:
        raise ValueError(
            f"{name}={block} does not divide the {height} x {width} images; sides that divide both: "
            f"{listing(common_divisors(height, width))}"
        )


def scene_pool(task: str, size: int, seed: int, block: int = 20) -> Batch:
    """A cached :func:`make_batch`: a fixed pool of scenes that training samples its batches from.

    Drawing scenes costs more than a training step of the course's small models, so a run draws its pool
    once and picks random batches from it; runs with the same arguments share one pool. Only the last
    :data:`POOL_CACHE_SIZE` pools are kept (each holds ``size * HEIGHT * WIDTH`` float32 pixels);
    :func:`clear_scene_pools` frees them. The tensors are shared between callers: treat them as read-only.
    """
    _check_batch(
        task, size, seed, block
    )  # before the cache, which would refuse unhashable values its own way
    return _pool(task, size, seed, block)  # one cache key, however the arguments were spelled


def clear_scene_pools() -> None:
    """Forget every cached pool (see :func:`scene_pool`)."""
    _pool.cache_clear()


@functools.lru_cache(maxsize=POOL_CACHE_SIZE)
def _pool(task: str, size: int, seed: int, block: int) -> Batch:
    return make_batch(task, size, seed, block)
