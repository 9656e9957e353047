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
# module piece by piece, on one small picture you will get to know well.
#
# **In this notebook you will**
# - learn how the notebooks are meant to be used,
# - meet the picture that every notebook works on,
# - check which device (CPU or GPU) your computer gives the course,
# - see the map of the course.

# %% [markdown]
# ## How to use the notebooks
#
# - Run the cells from top to bottom with **Shift + Enter**. If something looks odd, use
#   *Kernel → Restart Kernel and Run All Cells*: every notebook is written to run that way, in a fresh kernel.
# - Every number you read in the text is printed by a code cell just above or below it, so you can check it.
# - Code you build by hand is always compared with the tested version in the `vitcourse` package.
# - **Exercises** come with a solution cell (collapsed; the solution sits between two marker comments) and
#   a check that prints ✓ or a hint. Try before you open the solution. The grading cell after each check is for
#   classes graded with nbgrader: it prints nothing when the answer is right.
# - **Widgets** (sliders, drop-downs) let you play with a setting; they need a live kernel.
# - Everything is seeded: you get the same numbers as everyone else.

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
print(
    f"values from {picture.min():.2f} to {picture.max():.2f}, {len(levels)} grey levels: {np.round(levels, 2).tolist()}"
)

# %% [markdown]
# Throughout the course the picture is drawn with the `Purples_r` colormap (dark purple = 0, white = 1), ticks
# every 10 pixels, and a colorbar from 0 to 1. Look for the bright moon cut off by the top edge, the dithered band
# in the sky, the pale mountain on the left, the dark ridges sloping down from right to left, and the darkest
# ground in the bottom corners.

# %%
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(7, 4))
plots.show_picture(picture, ax=ax, title=f"Mountain at Dusk, {height} x {width}")
plt.show()

# %% [markdown]
# The picture is the course's own pixel-art rendition of *"Mountain at Dusk Background"* by Luis Zuno (@ansimuz,
# CC0), drawn by `vitcourse.data.draw_mountains()`. The article series this course grew from used a 60 × 100 crop
# of the original artwork; if you are online you can run the whole course on that crop instead by starting
# JupyterLab with `VITCOURSE_IMAGE=original` (it is downloaded once and checked against a fixed checksum).
#
# In code, models want a batch of images of shape (B, C, H, W); `vitcourse.to_tensor` turns the picture into a
# batch of one single-channel image:

# %%
batch = vitcourse.to_tensor(picture).to(device)
print(f"tensor shape {tuple(batch.shape)}, dtype {batch.dtype}")

# %% [markdown]
# ## The map of the course
#
# | notebook | what you learn | what it adds to `vitcourse` |
# |---|---|---|
# | [00 Start here](00_start_here.ipynb) | how to use the course, the picture | `data`, `plots` |
# | [01 Patch tokenization](01_patch_tokenization.ipynb) | ViT patches: split, flatten, project | `tokens` |
# | [02 Soft split](02_soft_split.ipynb) | T2T's overlapping windows, padding, counting tokens, rebuilding images | `tokens` |
# | [03 Position embeddings](03_position_embeddings.ipynb) | why attention cannot see order; sinusoidal and learned embeddings | `position` |
# | [04 Attention](04_attention.ipynb) | single-head then multi-head attention, step by step | `attention` |
# | [05 Vision Transformer](05_vision_transformer.ipynb) | prediction token, encoder block, MLP, head, the whole ViT | `blocks`, `models` |
# | [06 Tokens-to-Token](06_tokens_to_token.ipynb) | token transformer, the T2T module, T2T-ViT | `blocks`, `models` |
# | [07 Training from scratch](07_training_from_scratch.ipynb) | training small ViTs and T2T-ViTs; what they learn | `train` |
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
# - Run notebooks top to bottom; every number is printed by code; exercises check your answer.
# - The picture: 60 × 100, one channel, values in [0, 1], shown with `Purples_r`.
# - Your device is chosen automatically; nothing in the course depends on which one it is.
#
# **Next:** [01 Patch tokenization](01_patch_tokenization.ipynb) cuts the picture into patches, the first step of a
# Vision Transformer.
