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
# - meet the picture that every notebook works on,
# - check which device (CPU or GPU) your computer gives the course,
# - see the map of the course.

# %% [markdown]
# ## The sources
#
# The course explains and checks four sources, which you may want to read beside it:
#
# - the article series **"Vision Transformers Explained"** by Skylar Jean Callis (*Towards Data Science*, 2024):
#   four articles, *Vision Transformers, Explained*; *Attention for Vision Transformers, Explained*; *Position
#   Embeddings for Vision Transformers, Explained*; and *Tokens-to-Token Vision Transformers, Explained*.
#   Together they build a ViT and a T2T-ViT in PyTorch; three of them work on a 60 × 100 crop of a mountain
#   picture, which became the course's running example;
# - the **ViT lecture slides**: a slide deck titled "ViT (Vision Transformer)" (the copy the course was checked
#   against names no author or course) in three parts, a high-level overview, a bit more detail, and selected
#   implementation details; it quotes the ViT paper's equations and PyTorch's documentation of `nn.LayerNorm`
#   and `nn.MultiheadAttention`, and cuts an image into patches with `nn.Conv2d`;
# - the **ViT paper**: Dosovitskiy et al., *An Image is Worth 16x16 Words: Transformers for Image Recognition at
#   Scale*, ICLR 2021;
# - the **T2T-ViT paper**: Yuan et al., *Tokens-to-Token ViT: Training Vision Transformers from Scratch on
#   ImageNet*, ICCV 2021.
#
# Where the course departs from a source, the notebook says so and why. The sources contain slips (a printed
# number that does not match its code, a transposed axis, an argument a module does not accept): the appendix
# [08 Errata of the sources](08_errata.ipynb) lists each one with where it is, what it says, what is right, and
# a line of code that shows it.
#
# ## How to use the notebooks
#
# - Run the cells from top to bottom with **Shift + Enter**. If something looks odd, use
#   *Kernel → Restart Kernel and Run All Cells*: every notebook is written to run that way, in a fresh kernel.
# - Every number you read in the text is printed by a code cell just above or below it, so you can check it.
# - Code you build by hand is always compared with the tested version in the `vitcourse` package.
# - **Exercises**: a question, then a collapsed cell (JupyterLab shows "…") with the worked solution, then a
#   check cell, then a collapsed grading cell. To answer, select the check cell, press **Esc** and then **A**
#   to add a cell above it, and set there the name the check cell uses (for example `answer_patches = ...`, or
#   a function `def my_patchify(...)`); then run your cell and the check. When you are right, the check prints
#   ✓ and "right", never the answer. When you are not, it prints a hint: a mistake it recognises is named;
#   otherwise the first hint is a nudge (which idea to revisit, and where), and from the second wrong try on
#   it adds a pointer (which function, axis or formula to look at) and reminds you where the worked solution
#   is. Open the collapsed solution only after trying. The grading cell is for classes graded with nbgrader (a
#   Jupyter tool for grading assignments); it prints nothing when the answer is right.
# - **Widgets** (sliders, drop-downs) let you play with a setting; they need a running kernel (the Python
#   process behind the notebook).
# - **What is reproducible.** Random numbers are seeded (`torch.manual_seed(0)` and seeded generators, drawn
#   on the CPU), so with the PyTorch release the course pins (`make lab` installs it) on a CPU, every printed
#   output is the one stored in the notebook, digit for digit. A GPU, or another PyTorch build, may add
#   floating-point numbers in another order: results can differ in their last digits, and a training run,
#   which repeats such steps thousands of times, can end elsewhere. Cells where that shows print rounded
#   values, or are marked `# NBVAL_IGNORE_OUTPUT` (the automatic tests then skip comparing their output) and
#   followed by a cell whose assertions check what the text claims. Notebook 07 shows it on training runs; the
#   README's "The same outputs on every device" says how the rest stays the same.

# %%
import numpy as np
import torch

import vitcourse
from vitcourse import load_mountains, plots

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
# every 10 pixels, and a colorbar from 0 to 1. In the course's own picture, look for the bright moon cut off by
# the top edge, the dithered band in the sky, the pale mountain on the left, the dark ridges sloping down from
# right to left, and the darkest ground in the bottom corners. The next cell finds the brightest and the darkest
# pixels of the picture in use and says where they are.


# %%
def where_value(value: float) -> str:
    """How many pixels hold ``value``, the rows and columns they span, and how many lie in each quarter."""
    mask = picture == value  # (H, W)
    rows, cols = np.nonzero(mask)
    top, bottom = (mask[: height // 2], mask[height // 2 :])
    quarters = [
        int(q.sum()) for half in (top, bottom) for q in (half[:, : width // 2], half[:, width // 2 :])
    ]
    return (
        f"{mask.sum()} pixel{'s' if mask.sum() != 1 else ''} within rows {rows.min()}-{rows.max()}, "
        f"columns {cols.min()}-{cols.max()}\n  in the top-left, top-right, bottom-left, bottom-right quarters: "
        f"{quarters}"
    )


brightest, darkest = picture.max(), picture.min()
print(f"brightest value {brightest:.2f}: {where_value(brightest)}")
print(f"  some of them in the top row: {bool((picture[0] == brightest).any())}")
print(f"darkest value {darkest:.2f}: {where_value(darkest)}")
print(f"  both bottom corners that dark: {bool(picture[-1, 0] == darkest and picture[-1, -1] == darkest)}")

# %%
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(7, 4))
plots.show_picture(picture, ax=ax, title=f"Mountain at Dusk, {height} x {width}")
plt.show()

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
# | [05 Vision Transformer](05_vision_transformer.ipynb) | prediction token (the class token, `cls_token`), encoder block, MLP, head, the whole ViT | `blocks`, `models` |
# | [06 Tokens-to-Token](06_tokens_to_token.ipynb) | token transformer, the T2T module, T2T-ViT | `blocks`, `models` |
# | [07 Training from scratch](07_training_from_scratch.ipynb) | training small ViTs and T2T-ViTs; what they learn | `train` |
# | [08 Errata of the sources](08_errata.ipynb) | the slips of the sources, each with a line of code that shows it | — |
#
# The cell below lists the notebooks in this folder and the modules of the package you have installed.

# %%
from pathlib import Path

for path in sorted(Path(".").glob("[0-9][0-9]_*.ipynb")):
    print(path.name)
modules = ["data", "tokens", "position", "attention", "blocks", "models", "cost", "plots", "widgets", "check"]
for name in modules:
    __import__(f"vitcourse.{name}")
print("vitcourse modules:", ", ".join(modules))

# %% [markdown]
# ## Summary
#
# - The sources: the "Vision Transformers Explained" articles (Callis 2024), the ViT lecture slides, and the ViT
#   (Dosovitskiy et al. 2021) and T2T-ViT (Yuan et al. 2021) papers; their slips are listed in notebook 08.
# - Run notebooks top to bottom; every number is printed by code; exercises check your answer and give hints,
#   never the answer; the worked solution waits, collapsed, under each question.
# - With the same PyTorch build on a CPU you get the stored outputs exactly; a GPU or another build can differ in
#   the last digits and in training results.
# - The picture: 60 × 100, one channel, values in [0, 1], shown with `Purples_r`.
# - Your device is chosen automatically, and the same code runs on a CPU or a GPU.
#
# **Next:** [01 Patch tokenization](01_patch_tokenization.ipynb) cuts the picture into patches, the first step of a
# Vision Transformer.
