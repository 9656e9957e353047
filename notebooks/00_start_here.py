# ---
# jupyter:
#   jupytext:
#     cell_metadata_filter: all,-execution
#     notebook_metadata_filter: kernelspec,-jupytext.text_representation.jupytext_version
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 00 · Start here
#
# Welcome to **vitcourse**, a hands-on course that builds a Vision Transformer (ViT) and the Tokens-to-Token (T2T)
# module piece by piece, on one small picture you will get to know well. A ViT cuts a picture into patches, turns
# each patch into a vector (a *token*), and hands the sequence of tokens to a *transformer*, a network of
# attention layers in which every token can draw on every other (notebooks 01, 04 and 05). The T2T module
# replaces the patch cutting with overlapping windows and small transformers between them (notebooks 02 and 06).
#
# **In this notebook you will**
# - meet the sources the course explains,
# - learn how the notebooks are meant to be used,
# - meet the picture that every notebook works on, and try the exercise mechanics once on a warm-up,
# - check which device (CPU or GPU) your computer gives the course,
# - see the map of the course.

# %% [markdown]
# ## The sources
#
# The course explains and checks four main sources, which you may want to read beside it:
#
# - the article series **"Vision Transformers Explained"** by Skylar Jean Callis (*Towards Data Science*, 2024):
#   four articles, *Vision Transformers, Explained*; *Attention for Vision Transformers, Explained*; *Position
#   Embeddings for Vision Transformers, Explained*; and *Tokens-to-Token Vision Transformers, Explained*.
#   Together they build a ViT and a T2T-ViT in PyTorch; three of them work on a 60 × 100 crop of a mountain
#   picture, which became the course's running example;
# - the **ViT lecture slides**: a slide deck titled "ViT (Vision Transformer)" (the slides name no author) in
#   three parts, a high-level overview, a bit more detail, and selected implementation details; it quotes the
#   ViT paper's equations and PyTorch's documentation of `nn.LayerNorm` and `nn.MultiheadAttention`, and cuts
#   an image into patches with `nn.Conv2d`;
# - the **ViT paper**: Dosovitskiy et al., *An Image is Worth 16x16 Words: Transformers for Image Recognition at
#   Scale*, ICLR 2021;
# - the **T2T-ViT paper**: Yuan et al., *Tokens-to-Token ViT: Training Vision Transformers from Scratch on
#   ImageNet*, ICCV 2021.
#
# Two more sources appear where they are used: Chi Yeong Heo's lab report on timm's ViT-B/16, *Lab 5-1: Vision
# Transformer final-report* (Pusan National University), in notebook 05; and the survey by Han et al., *A Survey
# on Vision Transformer*, which the slides quote (notebook 08 lists a slip the slides copy from it).
#
# Where the course departs from a source, the notebook says so and why. The sources contain slips (a printed
# number that does not match its code, a transposed axis, an argument a module does not accept): the appendix
# [08 Errata of the sources](08_errata.ipynb) lists each one with where it is, what it says, what is right, and
# a line of code that shows it.
#
# ## How to use the notebooks
#
# - Run the cells from top to bottom with **Shift + Enter**. The cells run in a *kernel*, the Python process
#   behind the notebook, which keeps every name a cell defines until it is restarted. If something looks odd, use
#   *Kernel → Restart Kernel and Run All Cells*: every notebook is written to run that way, in a fresh kernel.
# - Every number the course computes is printed by code, so you can check it; numbers from papers and articles
#   are cited beside them.
# - Code you build by hand is always compared with the tested version in the `vitcourse` package.
# - **Exercises**: a question, then a collapsed cell (JupyterLab shows "…") with the worked solution, then a
#   check cell, then a collapsed grading cell. The notebooks are stored after a full run, so each collapsed
#   solution has already run: the ✓ stored under each check is the worked solution's, not yours.
# - **To try an exercise without seeing its solution**: select the check cell, press **Esc** and then **A** to
#   add a cell above it (below the collapsed solution), and set there the name the check cell uses (for example
#   `answer_bright = ...`, or a function `def my_patchify(...)`); then run your cell and the check cell, each
#   with Shift + Enter. Your cell runs after the solution, so your answer replaces the solution's and the check
#   judges yours. (*Run All* runs the collapsed solution cells too: where you have added no cell of your own,
#   the ✓ you then see is the solution's again.)
# - **What a check prints**: for a right answer, ✓ and "right" (for a function you wrote, ✓ and "all N test
#   cases pass", N being the number of inputs it was tried on), never the answer. For a wrong one, a hint: a
#   mistake it recognises is named; otherwise the first hint is a nudge (which idea to revisit, and where), and
#   from the second wrong try on it adds a pointer (which function, axis or formula to look at) and reminds you
#   where the worked solution is. Open the collapsed solution only after trying. The grading cell is for classes
#   graded with nbgrader (a Jupyter tool for grading assignments); it prints nothing when the answer is right.
# - **Widgets** (sliders, drop-downs) let you play with a setting; they need a running kernel.
# - **What is reproducible.** Random numbers are seeded (`torch.manual_seed(0)` and seeded generators, drawn
#   on the CPU). The stored outputs were made on a CPU with torch 2.13.0, the release `make lab` installs when
#   it creates the course's environment (the package itself accepts torch 2.1 or later). With that torch build
#   and the same number of CPU threads, on a CPU like the one the tests run on, every printed output is the one
#   stored in the notebook, digit for digit. Other CPUs, other thread counts, another PyTorch build or a GPU may
#   add floating-point numbers in another order: results can then differ in their last digits, and a training
#   run, which repeats such steps thousands of times, can end elsewhere. That is why the cells where it shows
#   print rounded values, or are marked `# NBVAL_IGNORE_OUTPUT` (the automatic tests then skip comparing their
#   output) and followed by a cell whose assertions check what the text claims. Notebook 07 shows it on training
#   runs; the README's Design decisions, "The same outputs on every device", says how the rest stays the
#   same.

# %%
import numpy as np
import torch

import vitcourse
from vitcourse import check, load_mountains, plots

torch.manual_seed(0)
device = vitcourse.get_device()

# %% [markdown]
# ## Your device
#
# The course runs on a CUDA GPU when there is one and on the CPU otherwise, with the same code. The next cell says
# which one you have (its output differs between computers, so the automatic tests skip comparing it); the cell
# after it checks that a small computation works on that device.

# %%
# NBVAL_IGNORE_OUTPUT
print(f"device: {device}")
print(f"torch {torch.__version__}, vitcourse {vitcourse.__version__}")
if device == "cuda":
    print(torch.cuda.get_device_name(0))

# %%
x = torch.arange(6.0, device=device).reshape(2, 3)
assert device in ("cpu", "cuda")
assert (x @ x.T).cpu().tolist() == [[5.0, 14.0], [14.0, 50.0]]
print("a small matrix product works on your device")

# %% [markdown]
# ## The picture
#
# Every notebook works on the same picture: a mountain scene at dusk, 60 rows × 100 columns, one channel, values
# between 0 (dark) and 1 (bright). It is small on purpose: small enough to see every patch and every token, large
# enough that a transformer has something to look at.

# %%
picture = load_mountains()
height, width = picture.shape
levels = np.unique(picture)
print(f"shape: {picture.shape}  (rows x columns), dtype: {picture.dtype}")
shown = f": {np.round(levels, 2).tolist()}" if len(levels) <= 16 else ""  # a photograph has too many to list
print(f"values from {picture.min():.2f} to {picture.max():.2f}, {len(levels)} grey levels{shown}")

# %% [markdown]
# Throughout the course the picture is drawn with the `Purples_r` colormap (dark purple = 0, white = 1), ticks
# every 10 pixels, and a colorbar from 0 to 1. The course's own picture holds five things to look for, and the
# next cell measures each of them in the picture in use (with the article series' crop, see below, the same
# measurements print what that picture holds):
#
# - the bright moon cut off by the top edge: where the brightest pixels are;
# - a *dithered* band in the sky. Dithering is pixel art's way to show a shade between two tones: the two
#   alternate pixel by pixel, like a checkerboard, and from afar the eye blends them. The cell finds the rows in
#   which most pixels differ from their right-hand neighbour;
# - the pale mountain on the left, which makes the left third of the upper two thirds brighter than the right
#   third;
# - the dark ridges sloping down from right to left: in each edge column, the first pixel from the top that is
#   0.3 or darker lies lower at the left edge than at the right;
# - the darkest ground in the bottom corners: where the darkest pixels are.


# %%
def spans(indices: np.ndarray) -> str:
    """Sorted unique indices as runs: [0, 1, 2, 7, 8] -> "0-2 and 7-8"."""
    values = np.unique(indices)
    if values.size == 0:
        return "none"
    breaks = np.flatnonzero(np.diff(values) > 1)  # where one run ends and the next begins
    starts, ends = values[np.r_[0, breaks + 1]], values[np.r_[breaks, values.size - 1]]
    runs = [f"{a}" if a == b else f"{a}-{b}" for a, b in zip(starts, ends, strict=True)]
    if len(runs) > 4:  # a photograph can scatter them
        return f"{len(runs)} runs between {values[0]} and {values[-1]}"
    return ", ".join(runs[:-1]) + (" and " if len(runs) > 1 else "") + runs[-1]


def where_value(value: float) -> str:
    """How many pixels hold ``value``, and the runs of rows and of columns they lie in."""
    rows, cols = np.nonzero(picture == value)  # (H, W) mask -> row and column of each such pixel
    return f"{rows.size} pixels in rows {spans(rows)}, columns {spans(cols)}"


brightest, darkest = picture.max(), picture.min()
print(f"the moon: brightest value {brightest:.2f}, {where_value(brightest)}")
print(f"  some of them in the top row: {bool((picture[0] == brightest).any())}")

differs = picture[:, 1:] != picture[:, :-1]  # (H, W - 1): each pixel against its right-hand neighbour
band_rows = np.flatnonzero(differs.mean(axis=1) > 0.5)
print(f"the dithered band: rows where most pixels differ from their right-hand neighbour: {spans(band_rows)}")

upper = picture[: 2 * height // 3]  # the upper two thirds of the rows
third = width // 3
left, right = upper[:, :third].mean(), upper[:, -third:].mean()
print(
    f"the pale mountain: mean brightness of rows 0-{upper.shape[0] - 1}: left third (columns 0-{third - 1}) "
    f"{left:.2f}, right third (columns {width - third}-{width - 1}) {right:.2f}"
)


def first_dark_row(column: int) -> str:
    """The first row, from the top, whose pixel in ``column`` is 0.3 or darker."""
    dark = np.flatnonzero(picture[:, column] <= 0.3)
    return f"row {dark[0]}" if dark.size else "no such row"


print(
    f"the dark ridges: first pixel of 0.3 or darker from the top: {first_dark_row(0)} in column 0, "
    f"{first_dark_row(width - 1)} in column {width - 1}"
)
print(f"the darkest ground: value {darkest:.2f}, {where_value(darkest)}")
print(f"  both bottom corners that dark: {bool(picture[-1, 0] == darkest and picture[-1, -1] == darkest)}")

# %%
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(7, 4))
plots.show_picture(picture, ax=ax, title=f"Mountain at Dusk, {height} x {width}")
plt.show()

# %% [markdown]
# **Warm-up exercise.** How many pixels of the picture are brighter than one half (value above 0.5)? Nothing
# above prints it. Try the mechanics described under "How to use the notebooks": add a cell just above the check
# cell, set `answer_bright = ...` there, run it, then run the check. Try a wrong number once too, to see a hint.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "bright_pixels-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_bright = None  # replace None with your answer
### BEGIN SOLUTION
answer_bright = int((picture > 0.5).sum())  # True (1) for each pixel above 0.5, added up
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "bright_pixels-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.bright_pixels(answer_bright)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "bright_pixels-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.bright_pixels, answer_bright)
### END HIDDEN TESTS

# %% [markdown]
# The picture is the course's own pixel-art rendition of *"Mountain at Dusk Background"* by Luis Zuno (@ansimuz,
# CC0), drawn by `vitcourse.data.draw_mountains()`. The article series used a 60 × 100 crop of the original
# artwork; if you are online you can run the whole course on that crop instead by starting
# JupyterLab with `VITCOURSE_IMAGE=original` (it is downloaded once and checked against a fixed checksum).
#
# In code, models want a batch of images of shape (B, C, H, W): B images, C channels (1 for grey, 3 for RGB
# colour), H rows and W columns, PyTorch's order. `vitcourse.to_tensor` turns the picture into a batch of one
# single-channel image:

# %%
batch = vitcourse.to_tensor(picture).to(device)
print(f"tensor shape {tuple(batch.shape)}, dtype {batch.dtype}")

# %% [markdown]
# ## The map of the course
#
# | notebook | what you learn | what it adds to `vitcourse` |
# |---|---|---|
# | [00 Start here](00_start_here.ipynb) | the sources, how to use the course, the picture | `data`, `plots` |
# | [01 Patch tokenization](01_patch_tokenization.ipynb) | ViT patches: split, flatten, project | `tokens` |
# | [02 Soft split](02_soft_split.ipynb) | T2T's overlapping windows, padding, counting tokens, rebuilding images | `tokens` |
# | [03 Position embeddings](03_position_embeddings.ipynb) | why attention cannot see order; sinusoidal and learned embeddings | `position` |
# | [04 Attention](04_attention.ipynb) | single-head then multi-head attention, step by step | `attention` |
# | [05 Vision Transformer](05_vision_transformer.ipynb) | prediction token (the class token, `cls_token`); encoder block (attention, then an MLP, each added to its own input; ViT stacks many); MLP (a small network of two linear layers, applied to each token on its own); head (the last layer: class scores from the prediction token); the whole ViT | `blocks`, `models` |
# | [06 Tokens-to-Token](06_tokens_to_token.ipynb) | token transformer, the T2T module, T2T-ViT | `blocks`, `models` |
# | [07 Training from scratch](07_training_from_scratch.ipynb) | training small ViTs and T2T-ViTs; what they learn | `train` |
# | [08 Errata of the sources](08_errata.ipynb) | the slips of the sources, each with a line of code that shows it | — |
#
# The cell below lists the notebooks in this folder and, read from the package itself, the modules of the
# `vitcourse` you have installed (the map names the ones the notebooks build; the others hold the figures, the
# checks, the training scenes and the tools around them).

# %%
import pkgutil
from pathlib import Path

for path in sorted(Path(".").glob("[0-9][0-9]_*.ipynb")):
    print(path.name)
modules = [m.name for m in pkgutil.iter_modules(vitcourse.__path__) if not m.name.startswith("_")]
print("vitcourse modules:", ", ".join(modules))
assert {"data", "tokens", "position", "attention", "blocks", "models", "train"} <= set(modules)

# %% [markdown]
# ## Summary
#
# - The sources: the "Vision Transformers Explained" articles (Callis 2024), the ViT lecture slides, and the ViT
#   (Dosovitskiy et al. 2021) and T2T-ViT (Yuan et al. 2021) papers; their slips are listed in notebook 08.
# - Run notebooks top to bottom; every number the course computes is printed by code, and every number from a
#   source is cited; exercises check your answer and give hints, never the answer; the worked solution waits,
#   collapsed, under each question, and a cell of your own above the check replaces it.
# - With the pinned PyTorch build and the same number of threads, on a CPU like the tests', you get the stored
#   outputs exactly; other CPUs, thread counts, builds or a GPU can differ in the last digits and in training
#   results.
# - The picture: 60 × 100, one channel, values in [0, 1], shown with `Purples_r`.
# - Your device is chosen automatically, and the same code runs on a CPU or a GPU.
#
# **Next:** [01 Patch tokenization](01_patch_tokenization.ipynb) cuts the picture into patches, the first step of a
# Vision Transformer.
