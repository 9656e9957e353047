"""What shapes what a ViT learns, measured at toy scale: the experiments behind notebooks 12 to 14.

Three experiments, each rebuilt from fixed seeds by ``make experiments`` (``python -m vitcourse.datascale``),
results in ``vitcourse/assets/experiments/`` (one JSON record per run) and the pre-trained encoders in
``vitcourse/assets/checkpoints/`` (``vit_mpp_seed{0,1,2}.pt``):

1. **Data scale** (the ViT paper's Figure 3 at toy scale, :data:`SWEEP`, notebook 14): held-out accuracy
   against the number of training pictures (:data:`SIZES`, 64 to 1,024) for the small CNN, a ViT, a T2T-ViT, a
   ViT with a convolutional stem and DeiT (a ViT with a distillation token, with DeiT's augmentation as far as
   the task allows, :data:`DEIT_AUGMENT`, and a budget of its own, :data:`DEIT_BUDGET`; its teacher is the CNN
   trained on the same pictures with the same augmentation, :func:`deit_teacher`, recorded as ``teachers``),
   three seeds each. The task
   (:func:`shapes_batch`): which of four white shapes lies somewhere on a random scene. Every model sees the
   inputs standardised per pixel with its training pictures' statistics (:mod:`vitcourse.standardize`: on raw
   pixels the ViT can stay stuck, giving every picture nearly the same output), and trains for at least 500
   steps of 64 and at least 150 passes over its pictures (:func:`steps_for`), so that every model trained on
   un-augmented pictures fits its training set (DeiT, on flipped ones, with a budget of its own);
   each record stores its training accuracy, its multiply-adds and the spread of its outputs before and after.
   The controls (``--part controls``): the ViT on :data:`CONTROL_SIZE` pictures with raw and with per-channel
   standardised inputs, three seeds each. ``run`` can also fine-tune the masked-patch pre-trained encoders
   ("vit_mpp"); they were pre-trained on raw pixels of the moon scenes and are not in the sweep.
   **The swap sweep** (:data:`SWAP`, ``--part swap_sweep``, kept in ``swap_sweep.json``), the earlier version:
   is the scene intact, or have two of its 10 x 10 squares, in different rows, traded places
   (:func:`swap_batch`), on raw pixels, 600 steps for every model. There the ViT and DeiT never fitted their
   training pictures (training loss at ln 2 at every size), while the CNN, the convolutional stem and T2T-ViT,
   whose fields straddle the squares' seams, learned: an optimisation failure that a stem and T2T escape, not a
   measure of how many pictures a ViT needs.
2. **Masked patch prediction** (the ViT paper's Figure 7 after pre-training, :mod:`vitcourse.masked`): three
   seeds, attention distances per block and head, before and after fine-tuning on the moon task ("within").
3. **Rows and columns** (:data:`ROWCOL`): the moon task on a plain sky (:func:`moon_on_sky`), 9,000 steps,
   three seeds: the position embedding's row and column terms and the line tests (notebook 12). Why this
   setting: the task's answer is a row and a column, and on a plain sky nothing but the position embedding says
   where the moon is. With the landscape in view the same task gave both in one seed of three (the shipped
   ``vit_within`` seeds, 3,000 steps). On the plain sky with 6,000 steps (``--part rowcol_short``, recorded as
   ``shorter_runs``, not shipped) two seeds of three had both; seed 2 had a row term only. With 9,000 steps all
   three have both. Tried and dropped: the scenes rolled by whole patches (learned the task only partly in
   3,000 steps); weight decay 0.5 on every weight and the position embedding (seed 2, 6,000 steps: the model
   did not learn the task, accuracy 0.04).

Command line::

    python -m vitcourse.datascale --part sweep controls --jobs 2 # the data-scale sweep and its controls
    python -m vitcourse.datascale --part deit --jobs 2           # DeiT and its teachers only
    python -m vitcourse.datascale --part pretrain finetune rowcol --jobs 2
    python -m vitcourse.datascale --assemble runs.jsonl          # sort the records into the result files
    python -m vitcourse.datascale --first-steps                  # record the first steps the tests re-run

Every record stores the device it ran on and its seconds. Runs are repeatable on one device and torch version;
on another (a GPU, another CPU, another thread count) the floating-point sums differ, and over hundreds of steps
a run can land elsewhere by more than the seeds' spread. So the tests re-run only what holds on any machine
(``first_steps`` in the files, :func:`first_steps`): the pictures, the initial weights, the multiply-adds and the
losses of the first :data:`REFERENCE_STEPS` steps; the end of a run is judged against its seeds, not re-run.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.utils.flop_counter import FlopCounterMode

from ._validate import choice, instance_of, non_negative_int, positive_int
from .data import LEVELS
from .device import get_device
from .masked import PretrainConfig, attention_distances, pretrain
from .models import T2TViT, VisionTransformer
from .probes import row_column_beyond_locality, smooth_random_embedding
from .scenes import Batch, random_scene, scene_pool, where_classes
from .standardize import Standardize, Standardized, logit_spread
from .train import evaluate, load_checkpoint, lr_factor, param_groups, task_loss, where_predictions
from .variants import ConvStemViT, DistilledViT, SmallCNN, distillation_loss

__all__ = [
    "MODELS",
    "SweepSettings",
    "SWEEP",
    "SIZES",
    "SEEDS",
    "ROWCOL",
    "swap_batch",
    "moon_on_sky",
    "build",
    "load_sky",
    "sky_path",
    "multiply_adds",
    "run",
    "steps_for",
    "shapes_batch",
    "SHAPES",
    "probe_collapse",
    "rowcol_terms",
    "main",
]

#: Every model :func:`run` trains, in the order the figures list them ("vit_mpp": the masked-patch pre-trained
#: encoder, fine-tuned; it is not in the sweeps).
MODELS = ("cnn", "vit", "t2t", "convstem", "deit", "vit_mpp")
#: The sweeps' models.
SWEEP_MODELS = MODELS[:-1]
#: The data-scale sweep's training-set sizes (pictures), 16 times apart from first to last.
SIZES = (64, 128, 256, 1024)
#: The swap sweep's sizes (pictures: half intact, half swapped), 64 times apart.
SWAP_SIZES = (64, 256, 1024, 4096)
SEEDS = (0, 1, 2)
ASSETS = Path(os.environ.get("VITCOURSE_ASSETS", Path(__file__).parent / "assets"))
RESULTS = ASSETS / "experiments"


@dataclass(frozen=True)
class SweepSettings:
    """One training recipe for every model of the sweep (and the fine-tunes of :mod:`vitcourse.masked`)."""

    task: str = "swap"
    block: int = 10
    steps: int = 600
    batch_size: int = 64
    lr: float = 1e-3
    weight_decay: float = 0.05
    warmup: int = 50
    flip: bool = True
    eval_size: int = 512
    patch_size: int = 10
    embed_dim: int = 64
    depth: int = 4
    num_heads: int = 4
    mlp_ratio: float = 2.0
    token_dim: int = 16
    cnn_width: int = 128
    min_gap: int = 1  # "swap" only: the two squares' rows differ by at least this
    landscape: bool = True  # "within" only: False puts the moon on a plain sky (moon_on_sky)
    roll: bool = False  # "within" only: roll each scene by whole patches, its label with it
    standardize: str = (
        "none"  # "none", or the statistics of vitcourse.standardize.Standardize.fit: "channel", "pixel"
    )
    epochs: int = 0  # at least this many passes over the training pictures (steps_for): 0 keeps `steps`
    shift: int = 0  # random translation of each training picture by up to this many pixels (DeiT's recipe)
    vflip: bool = False  # random vertical flips too (DeiT's recipe on the shapes, which flipping keeps)


#: The swap task's sweep (the earlier data-scale sweep, kept in swap_sweep.json): raw pixels, 600 steps of 64.
SWAP = SweepSettings()
#: The data-scale sweep (Figure 3 at toy scale): the shapes task, per-pixel standardised inputs, no augmentation,
#: at least 500 steps and 150 passes over the training pictures, held out on 1,000 pictures. Tried first: random
#: horizontal flips for every model and 100 passes; the ViT on 1,024 pictures then fitted only 85 % and 62 % of
#: its training pictures (seeds 0 and 1).
SWEEP = replace(SWAP, task="shapes", standardize="pixel", steps=500, epochs=150, flip=False, eval_size=1000)
#: What DeiT's recipe adds to the sweep's settings: its augmentation, as far as the shapes keep their labels and
#: the student can still fit its pictures: random horizontal flips. Mixup, CutMix and random erasing are left
#: out: a cut or an erased square can remove the shape that is the label. Tried and dropped, because the student
#: then did not fit its training pictures: translations by up to 2 pixels with the flips (at DEIT_BUDGET, DeiT
#: fitted 61 to 95 % of its pictures from 128 pictures on; a plain ViT with those augmentations, no teacher, 87 %
#: of 128, with flips alone 100 %; DeiT fitted 128 with 6,000 steps, three times the cost); vertical flips and
#: translations by up to 4 pixels (with 100 passes: on 1,024 pictures, two seeds, 32 % and 26 %).
DEIT_AUGMENT = {"flip": True}
#: DeiT's own budget on the shapes: at least 2,000 steps and 300 passes over its pictures (twice the others'),
#: since its augmentation shows it new versions of its pictures at every step. At the others' budget (500 steps,
#: 150 passes) it fitted only 42 to 90 % of its training pictures.
DEIT_BUDGET = {"steps": 2000, "epochs": 300}
#: The controls' training-set size and their input statistics (the ViT, three seeds each).
CONTROL_SIZE = 1024
CONTROL_STANDARDIZE = ("none", "channel")
#: The moon-task recipe of the shipped vit_within (3000 steps of 128), for the fine-tunes and ROWCOL.
WITHIN = replace(SWAP, task="within", steps=3000, batch_size=128, warmup=200, flip=False, eval_size=256)
#: Rows and columns: the moon task on a plain sky (no landscape), twice the moon task's steps.
ROWCOL = replace(WITHIN, landscape=False, steps=9000)
#: The plain-sky setting's earlier, shorter run (two seeds of three with rows and columns; recorded, not shipped).
SHORT_ROWCOL_STEPS = 6000
#: The pre-training runs (three seeds, shapes of vit_within).
PRETRAIN = PretrainConfig()
#: Settings tried beside it for more local heads: higher mask ratios, TRIED_STEPS steps each, three seeds.
TRIED_MASK_RATIOS = (0.6, 0.75, 0.9)
TRIED_STEPS = 5000
#: The sweep's control (part "sweep_long"): the ViT on the largest pool with four times the steps.
LONG_STEPS = 2400

# VITCOURSE_SMOKE=1 shrinks every run to a few steps on a few scenes: the pipeline's own test
# (tests/test_datascale.py) runs the whole command line that way, worker processes included.
if os.environ.get("VITCOURSE_SMOKE") == "1":
    SWAP = replace(SWAP, steps=3, eval_size=16)
    SWEEP = replace(SWEEP, steps=3, epochs=0, eval_size=16)
    DEIT_BUDGET = {"steps": 3, "epochs": 0}
    CONTROL_SIZE = 64
    WITHIN = replace(WITHIN, steps=3, batch_size=8, eval_size=16)
    ROWCOL = replace(WITHIN, landscape=False)
    SHORT_ROWCOL_STEPS = 2
    PRETRAIN = replace(PRETRAIN, steps=3, scenes=64)
    SIZES = (64, 128)
    SWAP_SIZES = (64, 128)
    LONG_STEPS = 12


def _outputs(settings: SweepSettings) -> int:
    if settings.task == "shapes":
        return len(SHAPES)
    return 2 if settings.task in ("scramble", "swap") else sum(where_classes(settings.patch_size))


def steps_for(settings: SweepSettings, train_size: int) -> int:
    """The steps of a run on ``train_size`` pictures: ``settings.steps``, or more for ``settings.epochs`` passes."""
    positive_int("train_size", train_size)
    return max(settings.steps, math.ceil(settings.epochs * train_size / settings.batch_size))


#: The shapes of :func:`shapes_batch`, in label order.
SHAPES = ("disc", "ring", "square", "cross")


def shapes_batch(size: int, seed: int) -> Batch:
    """The sweep's task: which of four shapes (:data:`SHAPES`) is drawn in white on a random scene?

    Each picture is a random Mountain-at-Dusk scene without its moon (:func:`vitcourse.scenes.random_scene`),
    with one shape 9 to 11 pixels across drawn at a random place (any pixel, not aligned to a patch grid,
    wholly inside the frame): a filled disc, a ring 2 pixels thick, a filled square or a cross with arms 3
    pixels wide. The label is the shape's index. A model has to find the shape wherever it is and tell it
    from the others by its outline: a CNN's filters see an outline wherever it lies; a ViT must learn it for
    every way the patch grid can cut it. Images (size, 1, 60, 100) in [0, 1], labels (size,) long; the same
    for the same seed.
    """
    positive_int("size", size)
    non_negative_int("seed", seed)
    rng = np.random.default_rng(seed)
    rr, cc = np.mgrid[0:60, 0:100] + 0.5  # pixel centres
    pictures, labels = [], []
    for _ in range(size):
        picture = random_scene(rng, moon=False)[0].astype(np.float32)
        label = int(rng.integers(len(SHAPES)))
        half = float(rng.uniform(9, 11)) / 2
        cy, cx = rng.uniform(half + 1, 60 - half - 1), rng.uniform(half + 1, 100 - half - 1)
        dist = np.hypot(rr - cy, cc - cx)
        dy, dx = np.abs(rr - cy), np.abs(cc - cx)
        mask = (
            dist <= half,  # disc
            (dist <= half) & (dist > half - 2),  # ring
            (dy <= half) & (dx <= half),  # square
            ((dy <= 1.5) & (dx <= half)) | ((dx <= 1.5) & (dy <= half)),  # cross
        )[label]
        picture[mask] = 1.0
        pictures.append(picture)
        labels.append(label)
    return Batch(torch.from_numpy(np.stack(pictures))[:, None], torch.tensor(labels, dtype=torch.long))


def moon_on_sky(size: int, seed: int, patch: int = 10) -> Batch:
    """The "within" task with the landscape left out: a moon wholly inside a random patch of a plain sky.

    The moon is drawn as :func:`vitcourse.scenes.where_scene` draws it for "within" (radius 0.25 to 0.4 times
    ``patch``, the disc inside the patch), on a sky of one grey level (``LEVELS[1]``). Nothing in the picture
    but the moon's place says where it is, so a model must read the row, like the column, from the position
    embedding. Targets (size, 2) long: the patch's row and column. The same for the same seed.
    """
    positive_int("size", size)
    non_negative_int("seed", seed)
    rows, cols = where_classes(patch)  # checks patch
    rng = np.random.default_rng(seed)
    rr, cc = np.mgrid[0:60, 0:100] + 0.5  # pixel centres
    pictures = np.full((size, 60, 100), LEVELS[1], dtype=np.float32)
    targets = []
    for k in range(size):
        row, col = int(rng.integers(rows)), int(rng.integers(cols))
        radius = float(rng.uniform(0.25, 0.4)) * patch
        room = patch / 2 - radius
        centre_r = (row + 0.5) * patch + float(rng.uniform(-room, room))
        centre_c = (col + 0.5) * patch + float(rng.uniform(-room, room))
        pictures[k][(rr - centre_r) ** 2 + (cc - centre_c) ** 2 <= radius**2] = LEVELS[7]
        targets.append([row, col])
    return Batch(torch.from_numpy(pictures)[:, None], torch.tensor(targets, dtype=torch.long))


def swap_batch(size: int, seed: int, block: int = 10, min_gap: int = 1) -> Batch:
    """The sweep's task: ``size // 2`` scenes intact (label 0), then the same scenes, each with two of its
    ``block`` x ``block`` squares swapped (label 1). The two squares lie at least ``min_gap`` rows of squares
    apart and differ in at least one pixel, so that every swapped scene is truly changed. The same for the same
    seed; images (size, 1, 60, 100), labels (size,) long.
    """
    positive_int("size", size)
    if size % 2:
        raise ValueError(f"size must be even (half intact, half swapped), got {size}")
    non_negative_int("seed", seed)
    positive_int("block", block)
    if 60 % block or 100 % block:
        raise ValueError(f"block must divide 60 and 100 (1, 2, 4, 5, 10 or 20), got {block}")
    rows, cols = 60 // block, 100 // block
    positive_int("min_gap", min_gap)
    if min_gap >= rows:
        raise ValueError(f"min_gap must be below the {rows} rows of {block}-pixel squares, got {min_gap}")
    rng = np.random.default_rng(seed)
    scenes = torch.from_numpy(np.stack([random_scene(rng)[0] for _ in range(size // 2)]).astype(np.float32))
    swapped = scenes.clone()
    for k in range(size // 2):
        while True:
            (r1, r2), (c1, c2) = rng.integers(rows, size=2), rng.integers(cols, size=2)
            if abs(int(r1) - int(r2)) < min_gap:
                continue
            a = (slice(r1 * block, (r1 + 1) * block), slice(c1 * block, (c1 + 1) * block))
            b = (slice(r2 * block, (r2 + 1) * block), slice(c2 * block, (c2 + 1) * block))
            if torch.equal(scenes[k][a], scenes[k][b]):
                continue  # a swap of two equal squares would change nothing
            swapped[k][a], swapped[k][b] = scenes[k][b], scenes[k][a]
            break
    labels = torch.cat([torch.zeros(size // 2), torch.ones(size // 2)]).long()
    return Batch(torch.cat([scenes, swapped])[:, None], labels)


def build(name: str, settings: SweepSettings = SWEEP, seed: int = 0) -> nn.Module:
    """The sweep's model ``name`` (one of :data:`MODELS` except "vit_mpp"), weights drawn from ``seed``."""
    choice("name", name, SWEEP_MODELS)
    non_negative_int("seed", seed)
    body = {
        "num_classes": _outputs(settings),
        "embed_dim": settings.embed_dim,
        "depth": settings.depth,
        "num_heads": settings.num_heads,
        "mlp_ratio": settings.mlp_ratio,
    }
    size = (60, 100)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        if name == "cnn":
            return SmallCNN(1, _outputs(settings), settings.cnn_width)
        if name == "vit":
            return VisionTransformer(size, settings.patch_size, 1, **body)
        if name == "t2t":
            return T2TViT(size, 1, token_dim=settings.token_dim, pos_embed="learned", **body)
        if name == "convstem":
            return ConvStemViT(size, 1, **body)
        return DistilledViT(size, settings.patch_size, 1, **body)


def _counted(forward: Callable[[], object]) -> int:
    """Multiply-adds of ``forward()`` by torch's FlopCounterMode (flops / 2), attention on its math path.

    Why the math path: the fused kernels of ``F.scaled_dot_product_attention`` on the CPU are not among the
    operations FlopCounterMode counts, so the two attention products (``2 N^2 D`` per block) went uncounted; the
    math path computes them as matrix products, which it counts (tested against ``cost.count_macs``)."""
    with (
        sdpa_kernel(SDPBackend.MATH),
        FlopCounterMode(display=False) as counter,
        torch.no_grad(),
    ):
        forward()
    return counter.get_total_flops() // 2


def multiply_adds(model: nn.Module) -> int:
    """Multiply-adds of one forward pass on one 60 x 100 image, attention's products included (:func:`_counted`)."""
    was_training = model.training
    model.eval()
    parameter = next(model.parameters())
    macs = _counted(lambda: model(torch.zeros(1, 1, 60, 100, device=parameter.device)))
    model.train(was_training)
    return macs


def _roll(images: torch.Tensor, targets: torch.Tensor, patch: int, gen: torch.Generator) -> tuple:
    """Roll each scene by a random whole number of patches on both axes (wrapping), its patch label with it."""
    rows, cols = where_classes(patch)
    dr = torch.randint(rows, (len(images),), generator=gen)
    dc = torch.randint(cols, (len(images),), generator=gen)
    rolled = torch.stack(
        [
            torch.roll(im, (int(r) * patch, int(c) * patch), (1, 2))
            for im, r, c in zip(images.cpu(), dr, dc, strict=True)
        ]
    ).to(images.device)
    shift = torch.stack([dr, dc], 1).to(targets.device)
    return rolled, (targets + shift) % torch.tensor([rows, cols], device=targets.device)


def _shift(images: torch.Tensor, most: int, gen: torch.Generator) -> torch.Tensor:
    """Move each picture by up to ``most`` pixels on both axes; the edge rows and columns fill the gap."""
    b, _, h, w = images.shape
    padded = F.pad(images, (most, most, most, most), mode="replicate")
    dy = torch.randint(2 * most + 1, (b,), generator=gen).tolist()
    dx = torch.randint(2 * most + 1, (b,), generator=gen).tolist()
    return torch.stack(
        [padded[k, :, y : y + h, x : x + w] for k, (y, x) in enumerate(zip(dy, dx, strict=True))]
    )


def _pictures(settings: SweepSettings, size: int, seed: int) -> Batch:
    """``size`` pictures of the settings' task drawn from ``seed`` (training pools use seed 1, held-out sets 10,000)."""
    if settings.task == "swap":
        return swap_batch(size, seed, settings.block, settings.min_gap)
    if settings.task == "shapes":
        return shapes_batch(size, seed)
    if settings.task == "within" and not settings.landscape:
        return moon_on_sky(size, seed, settings.patch_size)
    return scene_pool(
        settings.task, size, seed, settings.block if settings.task == "scramble" else settings.patch_size
    )


def _fit(
    model: nn.Module,
    settings: SweepSettings,
    train_size: int,
    seed: int,
    device: str,
    teacher: nn.Module | None = None,
    stop_after: int | None = None,
    watch: Callable[[nn.Module, torch.Tensor], None] | None = None,
) -> tuple[nn.Module, list[float], float]:
    """Train ``model`` on ``train_size`` images of the settings' task; returns (model in eval mode on the CPU,
    losses, seconds). ``stop_after`` ends the run after that many steps, its schedule unchanged (the first steps
    of the full run: what :func:`first_steps` records). ``watch(model, outputs)`` is called at every step after
    the backward pass, before the update (what :func:`probe_collapse` measures)."""
    pool = _pictures(settings, train_size, 1)
    if settings.standardize != "none":  # the statistics of the training pictures, in front of the model
        model = Standardized(Standardize.fit(pool.images, settings.standardize), model)
    model = model.to(device)
    steps = steps_for(settings, train_size)
    optimiser = torch.optim.AdamW(param_groups(model, settings.weight_decay), lr=settings.lr)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda step: lr_factor(step, settings.warmup, steps)
    )
    images_all, targets_all = pool.images.to(device), pool.targets.to(device)
    order = torch.Generator().manual_seed(seed)
    losses: list[float] = []
    start = time.perf_counter()
    model.train()
    for _ in range(steps if stop_after is None else min(stop_after, steps)):
        index = torch.randint(len(targets_all), (settings.batch_size,), generator=order).to(device)
        images, targets = images_all[index], targets_all[index]
        if settings.flip:
            flip = (torch.rand(settings.batch_size, generator=order) < 0.5).to(device)
            images = torch.where(flip[:, None, None, None], images.flip(-1), images)
        if settings.vflip:
            flip = (torch.rand(settings.batch_size, generator=order) < 0.5).to(device)
            images = torch.where(flip[:, None, None, None], images.flip(-2), images)
        if settings.shift:
            images = _shift(images, settings.shift, order)
        if settings.roll:
            images, targets = _roll(images, targets, settings.patch_size, order)
        outputs = model(images)
        if teacher is not None:
            with torch.no_grad():
                teacher_logits = teacher(images)
            loss = distillation_loss(outputs, targets, teacher_logits)
        elif settings.task in ("swap", "shapes"):
            loss = F.cross_entropy(outputs, targets)
        else:
            loss = task_loss(settings.task, outputs, targets, settings.patch_size)
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        if watch is not None:  # sees the model with this step's gradients, before the update
            watch(model, outputs[0] if isinstance(outputs, tuple) else outputs)
        optimiser.step()
        schedule.step()
        losses.append(loss.item())
    seconds = time.perf_counter() - start
    return model.cpu().eval(), losses, seconds


@torch.no_grad()
def _evaluate(model: nn.Module, settings: SweepSettings) -> dict[str, float]:
    if settings.task in (
        "swap",
        "shapes",
    ):  # held out: pictures of seed 10,000, never in a training pool (seed 1)
        batch = _pictures(settings, settings.eval_size, 10_000)
        outputs = model.eval()(batch.images)
        return {
            "loss": F.cross_entropy(outputs, batch.targets).item(),
            "accuracy": (outputs.argmax(-1) == batch.targets).float().mean().item(),
        }
    if settings.task == "within" and not settings.landscape:
        batch = _pictures(settings, settings.eval_size, 10_000)
        outputs = model.eval()(batch.images)
        right = where_predictions(outputs, settings.patch_size) == batch.targets  # (B, 2)
        return {
            "loss": task_loss("within", outputs, batch.targets, settings.patch_size).item(),
            "accuracy": right.all(-1).float().mean().item(),
            "row_accuracy": right[:, 0].float().mean().item(),
            "column_accuracy": right[:, 1].float().mean().item(),
        }
    block = settings.block if settings.task == "scramble" else settings.patch_size
    return evaluate(model, settings.task, settings.eval_size, seed=10_000, block=block)


def probe_collapse(
    standardize: str, steps: int = 60, train_size: int = 256, seed: int = 0, device: str = "cpu"
) -> dict[str, list[float]]:
    """The first ``steps`` steps of the sweep's ViT run on ``train_size`` pictures, inputs as ``standardize``
    says ("none": raw pixels; "channel" or "pixel": :class:`vitcourse.standardize.Standardize`).

    Returns per step: ``loss``; ``spread``, the standard deviation of the outputs over the batch, averaged over
    the outputs (:func:`vitcourse.standardize.logit_spread` on the training batch); ``grad``, the norm of the
    patch embedding's weight gradient. A ViT in the collapse gives every picture nearly the same output, so its
    spread and that gradient fall towards 0 (notebook 14).
    """
    choice("standardize", standardize, ("none", "channel", "pixel"))
    positive_int("steps", steps)
    settings = replace(SWEEP, standardize=standardize)
    spread: list[float] = []
    grad: list[float] = []

    def watch(model: nn.Module, outputs: torch.Tensor) -> None:
        vit = model.model if isinstance(model, Standardized) else model
        spread.append(outputs.detach().float().std(0).mean().item())
        grad.append(vit.patch_embed.proj.weight.grad.norm().item())

    model = build("vit", settings, seed)
    _, losses, _ = _fit(model, settings, train_size, seed, get_device(device), stop_after=steps, watch=watch)
    return {"loss": losses, "spread": spread, "grad": grad}


def _where(device: str) -> str:
    if device == "cuda":
        return f"CUDA ({torch.cuda.get_device_name()})"
    return f"CPU ({platform.machine()}, {os.cpu_count()} cores, {torch.get_num_threads()} thread(s))"


def encoder_path(seed: int) -> Path:
    """Where the masked-patch pre-trained encoder of ``seed`` is shipped."""
    return ASSETS / "checkpoints" / f"vit_mpp_seed{seed}.pt"


def load_encoder(seed: int) -> VisionTransformer:
    """The shipped masked-patch pre-trained encoder of ``seed`` (a 60-patch ViT, 16 outputs), eval mode."""
    return load_checkpoint(encoder_path(seed))[0]


def sky_path(seed: int) -> Path:
    """Where the rows-and-columns model of ``seed`` (:data:`ROWCOL`: the moon task on a plain sky) is shipped."""
    return ASSETS / "checkpoints" / f"vit_sky_seed{seed}.pt"


def load_sky(seed: int) -> VisionTransformer:
    """The shipped rows-and-columns model of ``seed`` (a 60-patch ViT, 16 outputs), eval mode, on the CPU."""
    non_negative_int("seed", seed)
    return load_checkpoint(sky_path(seed))[0]


def _from_encoder(seed: int, settings: SweepSettings) -> nn.Module:
    model = load_encoder(seed)
    if _outputs(settings) != model.head.out_features:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            model.head = nn.Linear(model.embed_dim, _outputs(settings))
            nn.init.trunc_normal_(model.head.weight, std=0.02, a=-0.04, b=0.04)
            nn.init.zeros_(model.head.bias)
    return model


def _spread_after(
    model: nn.Module, settings: SweepSettings, train_size: int, probe: torch.Tensor | None
) -> float:
    """:func:`logit_spread` of the untrained ``model`` on ``probe``, with the inputs standardised as training will."""
    if probe is None:
        return float("nan")
    if settings.standardize != "none":
        stats = Standardize.fit(_pictures(settings, train_size, 1).images, settings.standardize)
        return logit_spread(Standardized(stats, model).eval(), probe)
    return logit_spread(model.eval(), probe)


def run(
    name: str,
    train_size: int,
    seed: int,
    settings: SweepSettings = SWEEP,
    device: str = "auto",
    teacher: nn.Module | None = None,
) -> tuple[dict, nn.Module]:
    """Train one model of the sweep; returns its record (see the module docstring) and the model (CPU, eval).

    ``name`` "vit_mpp" starts from the shipped pre-trained encoder of the same seed; "deit" learns from
    ``teacher``: when not given, :func:`deit_teacher` trains it here (the CNN on the same pictures, with DeiT's
    augmentation). DeiT trains with :data:`DEIT_AUGMENT` and :data:`DEIT_BUDGET` on top of ``settings``.
    """
    choice("name", name, MODELS)
    positive_int("train_size", train_size)
    instance_of("settings", settings, SweepSettings, "a SweepSettings")
    device = get_device(device)
    teacher_macs = 0
    if name == "deit":
        if teacher is None:
            teacher = deit_teacher(train_size, seed, settings, device)[1]
        teacher = teacher.to(device).eval()
        teacher_macs = multiply_adds(teacher)
        settings = replace(settings, **DEIT_AUGMENT)  # DeiT's recipe: distillation and augmentation
        if settings.task == "shapes":
            settings = replace(settings, **DEIT_BUDGET)
    else:
        teacher = None
    model = _from_encoder(seed, settings) if name == "vit_mpp" else build(name, settings, seed)
    forward = multiply_adds(model)
    probe = _pictures(settings, 256, 10_000).images if settings.task in ("swap", "shapes") else None
    spread_start = _spread_after(model, settings, train_size, probe)
    model, losses, seconds = _fit(model, settings, train_size, seed, device, teacher)
    if teacher is not None:
        teacher.cpu()
    metrics = _evaluate(model, settings)
    steps = steps_for(settings, train_size)
    images = steps * settings.batch_size
    macs = 3 * forward * images + teacher_macs * images  # a backward pass costs about two forwards
    record = {
        "model": name,
        "train_size": train_size,
        "seed": seed,
        "accuracy": round(metrics["accuracy"], 4),
        "loss": round(metrics["loss"], 4),
        "train_loss_last100": round(sum(losses[-100:]) / len(losses[-100:]), 4),
        "steps": steps,
        "batch_size": settings.batch_size,
        "parameters": sum(p.numel() for p in model.parameters()),
        "forward_multiply_adds": forward,
        "multiply_adds": macs,
        "seconds": round(seconds, 1),
        "device": _where(device),
        "torch": torch.__version__,
        "settings": asdict(settings),
    }
    if probe is not None:  # the training pictures as they are (no flips), and how much outputs differ
        pool = _pictures(settings, train_size, 1)
        with torch.no_grad():
            right = sum(
                (model(pool.images[i : i + 512]).argmax(-1) == pool.targets[i : i + 512]).sum().item()
                for i in range(0, train_size, 512)
            )
        record["train_accuracy"] = round(right / train_size, 4)
        record["logit_spread_start"] = float(f"{spread_start:.3g}")
        record["logit_spread_end"] = float(f"{logit_spread(model, probe):.3g}")
    for key in ("row_accuracy", "column_accuracy"):
        if key in metrics:
            record[key] = round(metrics[key], 4)
    if name == "vit_mpp":
        record["pretraining_multiply_adds"] = pretraining_macs()
    return record, model


def deit_teacher(
    train_size: int, seed: int, settings: SweepSettings = SWEEP, device: str = "auto"
) -> tuple[dict, nn.Module]:
    """DeiT's teacher: the small CNN trained on the same pictures (size and seed) with DeiT's augmentation
    (:data:`DEIT_AUGMENT`), so that the labels it hands down are of pictures like those it learned from. Returns
    its record and the model, as :func:`run` does."""
    return run("cnn", train_size, seed, replace(settings, **DEIT_AUGMENT), device)


def pretraining_macs() -> int:
    """Multiply-adds of one pre-training run (:data:`PRETRAIN`): 3 forwards per image and step."""
    from .masked import MaskedPatchModel

    model = MaskedPatchModel(PRETRAIN.encoder()).eval()
    mask = torch.zeros(1, model.encoder.num_patches, dtype=torch.bool)
    forward = _counted(lambda: model(torch.zeros(1, 1, 60, 100), mask))
    return 3 * forward * PRETRAIN.steps * PRETRAIN.batch_size


# ---- rows and columns (notebook 12's tests on the 6 x 10 grid) ----

GRID = (6, 10)


def _pair_masks() -> dict[str, torch.Tensor]:
    idx = torch.arange(60)
    r, c = idx // 10, idx % 10
    dr = (r[:, None] - r[None, :]).abs()
    dc = (c[:, None] - c[None, :]).abs()
    upper = idx[:, None] < idx[None, :]
    return {
        "far_row": upper & (dr == 0) & (dc >= 5),
        "far_column": upper & (dc == 0) & (dr >= 3),
        "diagonal": upper & (dr == 1) & (dc == 1),
    }


def line_means(embedding: torch.Tensor) -> dict[str, float]:
    """Mean cosine similarity of patches 5-9 apart in one row, 3-5 apart in one column, and diagonal neighbours."""
    e = embedding[-60:].detach().cpu().double()
    unit = F.normalize(e, dim=-1)
    sims = unit @ unit.T
    return {k: sims[m].mean().item() for k, m in _pair_masks().items()}


def chance_thresholds(draws: int = 200, seed: int = 0) -> tuple[float, float]:
    """The smooth random codes' 95th percentile of |same row| and |same column| (scales 1, 1.5, 2; notebook 12)."""
    gen = torch.Generator().manual_seed(seed)
    terms = []
    for length in (1.0, 1.5, 2.0):
        for _ in range(draws):
            fit = row_column_beyond_locality(smooth_random_embedding(*GRID, length, 64, gen), GRID)
            terms.append((fit.same_row, fit.same_column))
    q = torch.tensor(terms).abs().quantile(0.95, dim=0)
    return q[0].item(), q[1].item()


def rowcol_terms(model: VisionTransformer) -> dict[str, float]:
    """The position embedding's same-row and same-column terms, the fit's R^2 and the line tests' means."""
    pos = model.pos_embed.detach().cpu()[0, 1:]
    fit = row_column_beyond_locality(pos, GRID)
    return {
        "same_row": round(fit.same_row, 4),
        "same_column": round(fit.same_column, 4),
        "r_squared": round(fit.r_squared, 4),
        **{k: round(v, 4) for k, v in line_means(pos).items()},
    }


# ---- the jobs and the command line ----


def _pretrain_record(config: PretrainConfig, save: bool) -> dict:
    """Pre-train as ``config`` says; the run's record (and, with ``save``, the encoder at :func:`encoder_path`)."""
    done = pretrain(config)
    if save:
        encoder_path(config.seed).parent.mkdir(parents=True, exist_ok=True)
        torch.save(
            {"config": asdict(config), "state_dict": done.encoder.state_dict()}, encoder_path(config.seed)
        )
    losses = done.losses
    curve = [sum(losses[i : i + 100]) / len(losses[i : i + 100]) for i in range(0, len(losses), 100)]
    return {
        "seed": config.seed,
        "settings": asdict(config),
        "loss_curve_per_100_steps": [round(v, 5) for v in curve],
        "distances": [[round(v, 2) for v in row] for row in attention_distances(done.encoder).tolist()],
        "seconds": round(done.seconds, 1),
        "device": _where(get_device(config.device)),
        "torch": torch.__version__,
        **rowcol_terms(done.encoder),
    }


def _job(job: tuple) -> list[dict]:
    """One job in a worker process; returns its records. Jobs: ("sweep", name, size, seed) (name "cnn" also
    trains DeiT from it), ("pretrain", seed), ("finetune", seed), ("rowcol", seed), ("rowcol_short", seed)."""
    torch.set_num_threads(int(os.environ.get("VITCOURSE_THREADS", "1")))
    device = os.environ.get("VITCOURSE_DEVICE", "auto")
    kind = job[0]
    if kind in ("sweep", "swap_sweep"):
        name, size, seed = job[1:]
        settings = SWEEP if kind == "sweep" else SWAP
        record, model = run(name, size, seed, settings, device)
        records = [{"part": kind, **record}]
        if name == "cnn" and kind == "swap_sweep":  # the swap sweep's DeiT learned from this CNN
            records.append({"part": kind, **run("deit", size, seed, settings, device, teacher=model)[0]})
        return records
    if kind == "deit":  # the sweep's DeiT: its teacher first (a record of its own), then DeiT from it
        size, seed = job[1:]
        record, teacher = deit_teacher(size, seed, SWEEP, device)
        return [
            {"part": "teacher", **record},
            {"part": "sweep", **run("deit", size, seed, SWEEP, device, teacher=teacher)[0]},
        ]
    if kind == "control":  # the ViT with other input statistics, on CONTROL_SIZE pictures
        standardize, seed = job[1:]
        record, _ = run("vit", CONTROL_SIZE, seed, replace(SWEEP, standardize=standardize), device)
        return [{"part": kind, **record}]
    if kind == "sweep_long":  # the swap sweep's control: four times the steps on the largest pool
        name, size, seed = job[1:]
        record, _ = run(name, size, seed, replace(SWAP, steps=LONG_STEPS), device)
        return [{"part": kind, **record}]
    if kind == "pretrain_try":
        ratio, seed = job[1:]
        config = replace(PRETRAIN, seed=seed, mask_ratio=ratio, steps=TRIED_STEPS, device=device)
        return [{"part": kind, "mask_ratio": ratio, **_pretrain_record(config, save=False)}]
    seed = job[1]
    if kind == "pretrain":  # the shipped encoders
        return [{"part": kind, **_pretrain_record(replace(PRETRAIN, seed=seed, device=device), save=True)}]
    if kind == "pretrain_long":  # twice the steps; recorded, not shipped
        config = replace(PRETRAIN, seed=seed, steps=2 * PRETRAIN.steps, device=device)
        return [{"part": kind, **_pretrain_record(config, save=False)}]
    if kind in ("finetune", "rowcol", "rowcol_short"):
        settings = {
            "finetune": WITHIN,
            "rowcol": ROWCOL,
            "rowcol_short": replace(ROWCOL, steps=SHORT_ROWCOL_STEPS),
        }[kind]
        name = "vit_mpp" if kind == "finetune" else "vit"
        record, model = run(name, 2048, seed, settings, device)
        record["part"] = kind
        record["distances"] = [[round(v, 2) for v in row] for row in attention_distances(model).tolist()]
        record.update(rowcol_terms(model))
        if kind == "rowcol":  # shipped: notebook 12 reads their position embeddings
            sky_path(seed).parent.mkdir(parents=True, exist_ok=True)
            torch.save({"settings": asdict(ROWCOL), "state_dict": model.state_dict()}, sky_path(seed))
        return [record]
    raise ValueError(f"unknown job {job!r}")


#: Rough relative cost of each job, to start the longest first.
_COST = {
    "pretrain_long": 80,
    "sweep_long": 8,
    "pretrain_try": 25,
    "pretrain": 40,
    "rowcol": 45,
    "rowcol_short": 30,
    "finetune": 30,
    "control": 2,
    "deit": 30,  # the teacher (a CNN with augmentation), then DeiT with DEIT_BUDGET
    "cnn": 5,
    "t2t": 2,
    "convstem": 3,
    "vit": 2,
    "vit_mpp": 2,
}


def jobs_for(parts: list[str]) -> tuple[list[tuple], list[tuple]]:
    """The jobs of the named parts in two waves: the second needs the pre-trained encoders of the first."""
    first: list[tuple] = []
    second: list[tuple] = []
    if "pretrain" in parts:
        first += [("pretrain", s) for s in SEEDS]
    if "pretrain_tries" in parts:  # higher mask ratios, 5000 steps: settings tried for more local heads
        first += [("pretrain_try", ratio, s) for ratio in TRIED_MASK_RATIOS for s in SEEDS]
    if "sweep_long" in parts:  # is the ViT's flat line the budget's doing? (not among the default parts)
        second += [("sweep_long", "vit", max(SWAP_SIZES), s) for s in SEEDS[:1]]
    if "pretrain_long" in parts:  # the fallback setting: twice the steps (beside the second wave)
        second += [("pretrain_long", s) for s in SEEDS]
    if "rowcol" in parts:
        first += [("rowcol", s) for s in SEEDS]
    if "rowcol_short" in parts:  # the earlier, shorter plain-sky runs (not among the default parts)
        first += [("rowcol_short", s) for s in SEEDS]
    if "finetune" in parts:
        second += [("finetune", s) for s in SEEDS]
    for part in ("sweep", "swap_sweep"):
        if part in parts:  # DeiT is trained in the CNN's job, from that CNN
            sizes = SIZES if part == "sweep" else SWAP_SIZES
            first += [(part, m, n, s) for m in SWEEP_MODELS if m != "deit" for n in sizes for s in SEEDS]
    if "sweep" in parts or "deit" in parts:  # the sweep's DeiT, each job with its own teacher
        first += [("deit", n, s) for n in SIZES for s in SEEDS]
    if "controls" in parts:
        first += [("control", st, s) for st in CONTROL_STANDARDIZE for s in SEEDS]

    def cost(job: tuple) -> int:
        weight = _COST[job[1] if job[0] in ("sweep", "swap_sweep") else job[0]]  # type: ignore[index]
        size = {"sweep": job[2] if len(job) > 2 else 1, "deit": job[1]}.get(job[0], 1)
        return weight * size  # the sweep's steps grow with the size

    return sorted(first, key=cost, reverse=True), sorted(second, key=cost, reverse=True)


FILES = {
    "sweep": "data_scale.json",
    "deit": "data_scale.json",
    "controls": "data_scale.json",
    "swap_sweep": "swap_sweep.json",
    "pretrain": "masked_pretraining.json",
    "finetune": "masked_pretraining.json",
    "rowcol": "rows_columns.json",
}


#: Where :func:`assemble` puts each part's records: (result file, list in that file); other parts go where
#: "rowcol" goes.
PLACES = {
    "sweep": ("data_scale.json", "runs"),
    "control": ("data_scale.json", "controls"),
    "teacher": ("data_scale.json", "teachers"),
    "swap_sweep": ("swap_sweep.json", "runs"),
    "sweep_long": ("swap_sweep.json", "controls"),
    "pretrain": ("masked_pretraining.json", "pretraining"),
    "pretrain_try": ("masked_pretraining.json", "pretraining_tries"),
    "pretrain_long": ("masked_pretraining.json", "pretraining_long"),
    "finetune": ("masked_pretraining.json", "finetune"),
    "rowcol_short": ("rows_columns.json", "shorter_runs"),
    "rowcol": ("rows_columns.json", "runs"),
}


def _run_key(record: object) -> tuple | None:
    """What makes a run of a sweep one of a kind (model, pictures, seed, input statistics); None for other records."""
    if not isinstance(record, dict) or not {"model", "train_size", "seed", "settings"} <= set(record):
        return None
    return record["model"], record["train_size"], record["seed"], record["settings"].get("standardize")


def assemble(lines: str | Path, folder: Path = RESULTS) -> dict[str, Path]:
    """Sort the records of a JSON-lines file (what :func:`main` writes) into the three result files.

    ``data_scale.json``: ``{"settings", "sizes", "seeds", "models", "runs": [...]}``;
    ``masked_pretraining.json``: ``{"settings", "pretraining": [...], "finetune": [...]}``;
    ``rows_columns.json``: ``{"settings", "chance_95th_percentile", "runs": [...], "shorter_runs": [...]}``. A
    part with no record in ``lines`` keeps the records the file already holds, and so does its ``first_steps``
    list. Where the file already holds runs of a sweep (records with a model, a size and a seed), a new record
    replaces the stored one of the same model, size, seed and input statistics and the others stay: so
    ``--part deit`` renews DeiT's runs and keeps the other models'.
    """
    records = [json.loads(line) for line in Path(lines).read_text().splitlines() if line.strip()]
    folder.mkdir(parents=True, exist_ok=True)
    bodies: dict[str, dict] = {
        "data_scale.json": {
            "settings": asdict(SWEEP),
            "deit_augmentation": DEIT_AUGMENT,
            "deit_budget": DEIT_BUDGET,
            "sizes": list(SIZES),
            "seeds": list(SEEDS),
            "models": list(SWEEP_MODELS),
            "runs": [],
            "teachers": [],
            "controls": [],
        },
        "swap_sweep.json": {
            "settings": asdict(SWAP),
            "sizes": list(SWAP_SIZES),
            "seeds": list(SEEDS),
            "models": list(SWEEP_MODELS),
            "runs": [],
            "controls": [],
        },
        "masked_pretraining.json": {
            "settings": asdict(PRETRAIN),
            "finetune_settings": asdict(WITHIN),
            "pretraining": [],
            "pretraining_tries": [],
            "pretraining_long": [],
            "finetune": [],
        },
        "rows_columns.json": {
            "settings": asdict(ROWCOL),
            "chance_95th_percentile": dict(
                zip(("same_row", "same_column"), (round(v, 4) for v in chance_thresholds()), strict=True)
            ),
            "runs": [],
            "shorter_runs": [],
        },
    }
    for record in records:
        name, key = PLACES.get(record.pop("part"), PLACES["rowcol"])
        bodies[name][key].append(record)
    written = {}
    for name, body in bodies.items():
        path = folder / name
        if path.exists():  # parts not re-run keep their stored records, and the first-steps records stay
            old = json.loads(path.read_text())
            body["first_steps"] = old.get("first_steps", [])
            for key, value in body.items():
                if not isinstance(value, list) or not old.get(key):
                    continue
                if not value:
                    body[key] = old[key]
                elif all(_run_key(r) for r in value + old[key]):  # runs: a new record replaces its old twin
                    new_keys = {_run_key(r) for r in value}
                    body[key] = [r for r in old[key] if _run_key(r) not in new_keys] + value
        for key in (
            "runs",
            "teachers",
            "controls",
            "pretraining",
            "pretraining_tries",
            "pretraining_long",
            "finetune",
            "shorter_runs",
        ):
            if key in body:
                body[key].sort(
                    key=lambda r: (
                        MODELS.index(r["model"]) if "model" in r and r["model"] in MODELS else 0,
                        r.get("train_size", 0),
                        r["seed"],
                    )
                )
        path.write_text(json.dumps(body, indent=1) + "\n")
        written[name] = path
    return written


#: How many first steps of a run the reference records keep (:func:`first_steps`). All of them lie in the
#: warm-up (:data:`SWEEP` and :data:`PRETRAIN` warm up for 50 and 200 steps), where the learning rate is small and
#: a run on another CPU, another thread count or a GPU stays within rounding of the record; hundreds of steps
#: later two machines' runs can part by more than the seeds do (book/pages/testing.md).
REFERENCE_STEPS = 30


def cheapest_sweep_run(runs: list[dict]) -> tuple[str, int, int]:
    """(model, train_size, seed) of the sweep's cheapest run: fewest training multiply-adds, then smallest."""
    best = min(runs, key=lambda r: (r["multiply_adds"], r["train_size"], r["seed"]))
    return best["model"], best["train_size"], best["seed"]


def _first_losses(losses: list[float], seconds: float, device: str) -> dict:
    """The part every first-steps record shares: each step's loss (7 decimals), the seconds and where it ran."""
    return {
        "losses": [round(v, 7) for v in losses],
        "seconds": round(seconds, 1),
        "device": _where(device),
        "torch": torch.__version__,
    }


def _sum_of_squares(model: nn.Module) -> float:
    return float(sum(p.detach().double().pow(2).sum() for p in model.parameters()))


def first_steps(
    name: str,
    train_size: int,
    seed: int,
    settings: SweepSettings = SWEEP,
    steps: int = REFERENCE_STEPS,
    device: str = "cpu",
) -> dict:
    """What a sweep run starts from and its first ``steps`` steps, as a record that holds on any machine.

    The record holds the training pictures (their sum), the initial weights (their sum of squares), the
    multiply-adds of one forward pass, and the loss of each of the first ``steps`` steps with the full run's
    schedule. ``name`` is a model trained alone ("cnn", "vit", "t2t" or "convstem"; "deit" needs a trained
    teacher and "vit_mpp" the pre-trained encoder).
    """
    choice("name", name, ("cnn", "vit", "t2t", "convstem"))
    positive_int("train_size", train_size)
    positive_int("steps", steps)
    instance_of("settings", settings, SweepSettings, "a SweepSettings")
    device = get_device(device)
    pool = _pictures(settings, train_size, 1)
    model = build(name, settings, seed)
    start = _sum_of_squares(model)
    forward = multiply_adds(model)
    _, losses, seconds = _fit(model, settings, train_size, seed, device, stop_after=steps)
    return {
        "model": name,
        "train_size": train_size,
        "seed": seed,
        "steps": len(losses),
        "pictures_sum": round(float(pool.images.double().sum()), 6),
        "targets_sum": int(pool.targets.sum()),
        "initial_sum_of_squares": round(start, 6),
        "forward_multiply_adds": forward,
        **_first_losses(losses, seconds, device),
    }


def first_pretraining_steps(seed: int = 0, steps: int = REFERENCE_STEPS, device: str = "cpu") -> dict:
    """The first ``steps`` steps of masked-patch pre-training (:data:`PRETRAIN`, the full run's schedule) as a
    record that holds on any machine: the pool's sum and each step's loss (see :func:`first_steps`)."""
    non_negative_int("seed", seed)
    positive_int("steps", steps)
    config = replace(PRETRAIN, seed=seed, device=device)
    pool = scene_pool("within", config.scenes, 1, config.patch_size).images
    done = pretrain(config, stop_after=steps)
    return {
        "seed": seed,
        "steps": len(done.losses),
        "pictures_sum": round(float(pool.double().sum()), 6),
        **_first_losses(done.losses, done.seconds, done.device),
    }


def record_first_steps() -> dict:
    """Record the first steps of the sweep's cheapest run and of seed 0's pre-training as ``first_steps`` in the
    result files (what ``tests/test_datascale.py`` re-runs and compares on any machine)."""
    sweep_path = RESULTS / "data_scale.json"
    sweep = json.loads(sweep_path.read_text())
    sweep["first_steps"] = [first_steps(*cheapest_sweep_run(sweep["runs"]))]
    sweep_path.write_text(json.dumps(sweep, indent=1) + "\n")
    pre_path = RESULTS / "masked_pretraining.json"
    pre = json.loads(pre_path.read_text())
    pre["first_steps"] = [first_pretraining_steps()]
    pre_path.write_text(json.dumps(pre, indent=1) + "\n")
    return {"sweep": sweep["first_steps"][0], "pretraining": pre["first_steps"][0]}


def main(argv: list[str] | None = None) -> int:
    """Run parts of the experiments and write their records to ``--out`` (JSON lines, one per run)."""
    p = argparse.ArgumentParser(prog="python -m vitcourse.datascale", description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--part",
        nargs="+",
        default=["pretrain", "finetune", "rowcol", "sweep", "controls"],
        choices=[
            "pretrain",
            "pretrain_tries",
            "pretrain_long",
            "finetune",
            "rowcol",
            "rowcol_short",
            "sweep",
            "deit",
            "controls",
            "swap_sweep",
            "sweep_long",
        ],
    )
    p.add_argument("--jobs", type=int, default=2, help="worker processes (one CPU thread each on the CPU)")
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    p.add_argument(
        "--out", default=str(RESULTS / "runs.jsonl"), help="JSON-lines file the records are appended to"
    )
    p.add_argument("--only", nargs="*", default=None, help="sweep models to run (default all)")
    p.add_argument("--assemble", default=None, help="sort a JSON-lines file into the result files, then stop")
    p.add_argument(
        "--first-steps",
        action="store_true",
        help="record the first steps of the cheapest sweep run and of pre-training (the tests'), then stop",
    )
    args = p.parse_args(argv)
    if args.assemble:
        for path in assemble(args.assemble).values():
            print(f"wrote {path}")
        return 0
    if args.first_steps:
        print(json.dumps(record_first_steps()))
        return 0
    os.environ["VITCOURSE_DEVICE"] = args.device
    waves = jobs_for(args.part)
    if args.only:
        waves = tuple(
            [j for j in w if j[0] not in ("sweep", "swap_sweep") or j[1] in args.only] for w in waves
        )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    ctx = torch.multiprocessing.get_context("spawn")
    count = 0
    with ProcessPoolExecutor(max_workers=args.jobs, mp_context=ctx) as pool, open(args.out, "a") as out:
        for wave in waves:
            futures = [pool.submit(_job, job) for job in wave]
            for future in as_completed(
                futures
            ):  # written as they finish: an interrupted run keeps what it made
                for record in future.result():
                    count += 1
                    out.write(json.dumps(record) + "\n")
                    out.flush()
                    keys = ("part", "model", "train_size", "seed", "accuracy", "seconds")
                    print(json.dumps({k: record.get(k) for k in keys}), flush=True)
    print(f"{count} records in {time.perf_counter() - start:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
