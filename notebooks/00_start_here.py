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
# **Time:** about 30 minutes
#
# Welcome to **vitcourse**. The course builds a Vision Transformer, a *ViT*, piece by piece, mostly on one small
# picture.
#
# A ViT cuts a picture into patches and turns each patch into a vector, a *token*. A *transformer* then reads the
# tokens: a stack of blocks. Each block has two parts: an attention layer, in which every token can draw on every
# token, itself included, and a small network applied to each token alone (an *MLP*, a multilayer perceptron). The Tokens-to-Token module,
# *T2T*, replaces the patch cutting with overlapping windows and small transformers between them.
#
# By the end you can
# - say how the notebooks, the exercises and the hints work,
# - name the sources the course explains,
# - check which device runs the course on your computer,
# - describe the picture that most notebooks use, and read a value off its colour bar,
# - count patches the course's way, from 0 and row by row,
# - look up the course's main symbols in the notation sheet.

# %% [markdown]
# ## 1. How the course works (5 min)
#
# `make lab` opens JupyterLab on your **learner copies**, in the folder `learner/`. A learner copy holds no stored
# outputs: you see each output when you run its cell. Your work there survives later runs of `make lab`. To start
# one notebook afresh, run `make relearn NB=NN_name` in a terminal in the course's folder; it keeps the old copy
# as a backup. (Teachers: README.md describes the notebooks in `notebooks/` and the nbgrader copies.)
#
# Each notebook starts with its time and its goals. Its core is a few numbered sections, each with its own time,
# closed by a summary. In most notebooks, optional "Evidence" sections follow the summary: the tables and the
# *controls* (the comparison runs a finding is measured against: the same run with one thing removed or held
# fixed) that back each finding. They do not count in the notebook's time.
#
# Run the cells from top to bottom with **Shift + Enter**. The cells run in a *kernel*: the Python process behind
# the notebook. If something looks odd, choose *Kernel → Restart Kernel*, then run the cells again from the top
# down to where you were. Avoid *Run All Cells* while exercises are open: it also runs their worked solutions.
#
# **An exercise, in five steps.** Each exercise has a heading "Exercise N" that names its kind: predict, explain,
# design, find the bug, read a figure, or code.
#
# 1. **Answer.** The cell below the prompt holds a placeholder: a name set to `None`, such as
#    `answer_regions = None`, or a function to complete. Fill it in and run the cell.
# 2. **Check.** Run the check cell below it. A right answer prints ✓.
# 3. **Hint.** A wrong answer that the check recognises gets its mistake named. Any other wrong answer first gets
#    a nudge, the idea the exercise rests on; from the second try on, also the section to reread.
# 4. **Worked solution.** It is the collapsed cell ("…") below the check; open it once you have tried. Running it
#    replaces your answer with the solution's, so that the cells further down work either way.
# 5. **After Exercise N.** What follows an exercise (its answer worked through, and the cells that show it) sits
#    under the heading "After Exercise N", which opens folded: click the arrow beside it once you have tried.
#
# **Numbers.** Every number the course computes is printed by code; numbers from papers are cited. Random numbers
# are seeded. On another CPU or a GPU, the last digits of some results can differ, so such cells print rounded
# values.

# %%
import numpy as np
import torch

import vitcourse
from vitcourse import check, load_mountains, plots

torch.manual_seed(0)
device = vitcourse.get_device()

# %% [markdown]
# ## 2. The sources (3 min)
#
# The course explains and checks four main sources:
#
# - the article series **"Vision Transformers Explained"** by Skylar Jean Callis, *Towards Data Science*, 2024.
#   Its four articles build a ViT and a T2T-ViT in PyTorch, on a 60 × 100 mountain picture;
# - the **ViT lecture slides**, a deck titled "ViT (Vision Transformer)". The slides name no author;
# - the **ViT paper**: Dosovitskiy et al., *An Image is Worth 16x16 Words: Transformers for Image Recognition at
#   Scale*, ICLR 2021;
# - the **T2T-ViT paper**: Yuan et al., *Tokens-to-Token ViT: Training Vision Transformers from Scratch on
#   ImageNet*, ICCV 2021.
#
# *ImageNet*, in that title, is a large collection of labelled photos. For *pre-training* (a first, long training
# whose weights later tasks start from), the ViT paper (section 4.1) uses three sets: ImageNet's standard
# 1,000-class subset (ILSVRC-2012, 1.3 million images), the full ImageNet-21k (21,000 classes, 14 million images)
# and a private set, JFT-300M. Many vision models are measured on ImageNet.
#
# Other sources appear where they are used, for example Chi Yeong Heo's lab report on *timm*'s ViT-B/16 (timm is
# a widely used PyTorch library of image models; ViT-B/16 is a model of the ViT paper, in section 5 below). Where
# the course departs from a source, the notebook says why. The appendix [15 Errata of the sources](15_errata.ipynb)
# lists the sources' slips, each shown by a cell.

# %% [markdown]
# ## 3. Your device (2 min)
#
# The course runs on a CUDA GPU when there is one, and on the CPU otherwise. The code is the same. The next cell
# says which device you have; its output differs between computers (its first line, `# NBVAL_IGNORE_OUTPUT`,
# tells the course's own tests not to compare it). The cell after it checks that a small computation works there.

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
# ## 4. The picture (12 min)
#
# Most notebooks work on one picture: a mountain scene at dusk. (The training notebooks, from 10 on, also draw
# scenes of the same kind.) It is 60 rows by 100 columns, with one *channel*: one number per pixel, its
# brightness, from 0, dark, to 1, bright. It is small on purpose. You can see every patch and every token, and a
# transformer still has something to look at.

# %%
picture = load_mountains()
height, width = picture.shape
levels = np.unique(picture)
print(f"shape: {picture.shape}  (rows x columns), dtype: {picture.dtype}")
print(f"values from {picture.min():.2f} to {picture.max():.2f}, {len(levels)} grey levels")

# %% mystnb={"image": {"alt": "The mountain picture at dusk, 60 rows by 100 columns, in purple shades, with six labelled boxes: the moon at the top edge, the upper sky, the sky below the dithered band, the left and right faces of the large mountain, and the ridges; beside it a colour bar with one swatch per grey level and a line at one half"}}
import matplotlib.pyplot as plt

plots.show_picture_regions(picture, check.nb00.REGIONS, title=f"Mountain at Dusk, {height} x {width}")
plt.show()

# %% [markdown]
# The course draws the picture with the `Purples_r` colour map: dark purple is 0 and white is 1. The colour bar
# beside it has one swatch per grey level of the picture, at its value; the dashed red line marks one half. The
# axes count pixels from 0, and a tick sits on a pixel's edge: the tick 10 marks where row (or column) 10 begins,
# and the last tick, 60 or 100, marks the far edge of the last pixel.
#
# The orange boxes mark six regions, each by a small box of its pixels: the **moon**, cut by the top edge; the
# **upper sky**; below it a *dithered* band, and the **sky below the band**; the large mountain on the left, with
# its **left face** and **right face**; and the **ridges** below it, above the ground.
# Dithering is pixel art's way to show a shade between two tones: they alternate pixel by pixel, like a
# checkerboard. [Evidence: what the picture holds](#Evidence:-what-the-picture-holds) measures the moon, the band,
# the pale mountain, the ridges and the ground from the pixels.

# %% [markdown]
# ### From picture to batch
#
# The picture is the course's own pixel-art rendition of *"Mountain at Dusk Background"* by Luis Zuno (@ansimuz,
# CC0: free to use, no rights reserved). The article series used a 60 × 100 crop of the original. If you are
# online, `VITCOURSE_IMAGE=original make lab` runs the course on that crop.
#
# Models want a batch of images of shape (B, C, H, W): B images, C channels, H rows and W columns. This is
# PyTorch's order. `vitcourse.to_tensor` turns the picture, a numpy array, into a batch of one single-channel
# image, in float32, the number type PyTorch models use. By hand, that is `torch.from_numpy` (a tensor sharing the
# array's memory), `.float()` (a float32 copy, since the array holds float64) and `[None, None]` (two new axes of
# size 1 in front, for B and C):

# %%
batch = vitcourse.to_tensor(picture).to(device)
print(f"tensor shape {tuple(batch.shape)}, dtype {batch.dtype}")
by_hand = torch.from_numpy(picture).float()[None, None]  # (H, W) float64 -> (1, 1, H, W) float32
assert torch.equal(batch.cpu(), by_hand)
print("the same as torch.from_numpy(picture).float()[None, None] (asserted)")

# %% [markdown]
# ### Counting from 0
#
# Notebook 01 cuts the picture into square *patches* of 20 × 20 pixels: 3 rows of 5 patches. The course has
# **one counting rule**: pixels, patches, tokens and windows, and later the model's blocks and heads (its
# repeated parts, built in notebooks 05 to 07), are all counted from 0, as Python indexes, so that a label is the
# index you type. Patch 0 is the top-left patch, and `tokens[0]` is its token. Patches and windows go row by
# row: patches 0 to 4 make the top row, 5 to 9 the next. A range such as "columns 39-60" includes both ends.
# From notebook 03 on, one extra token sits in front of the patch tokens, so patch $p$ becomes entry $p + 1$ of
# the sequence; those notebooks say so where it matters. Sections and exercises are counted from 1, notebooks
# from 00.

# %% [markdown]
# ### Exercise 1 (read a figure)
#
# This warm-up is there to try the mechanics once. Look at the figure, its ticks and its colour bar.
#
# (a) Which of the six regions are brighter than one half? Set `answer_regions` to a set of their names:
# `"moon"`, `"upper sky"`, `"sky below the band"`, `"left face"`, `"right face"` and `"ridges"`.
#
# (b) Cut into patches of 20 × 20 pixels and counted as above, which patch holds the pixel at row 45, column 30?
# Set `answer_pixel_patch` to its number.
#
# Try a wrong answer once too, to see a hint.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "bright_regions-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_regions = None  # replace None with a set of names, such as {"ridges"}
answer_pixel_patch = None  # replace None with a whole number
### BEGIN SOLUTION
# (a) Match each region's colour with a swatch of the colour bar, and see on which side of the red line that
# swatch lies. The two skies need a close look: their swatches sit on either side of one half. A check in code,
# on any picture: each region's median level.
levels_by_region = check.nb00.region_levels(picture)
answer_regions = {name for name, level in levels_by_region.items() if level > 0.5}
# (b) A patch is 20 pixels on a side, two tick steps: patch row = row // 20, patch column = column // 20,
# and a row of patches holds width // 20 of them.
answer_pixel_patch = (45 // 20) * (width // 20) + 30 // 20  # row by row, from 0
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "bright_regions-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.bright_regions(answer_regions)
check.pixel_patch(answer_pixel_patch)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "bright_regions-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the checks above and fails if an answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.bright_regions, answer_regions)
check.require(check.pixel_patch, answer_pixel_patch)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 1

# %% [markdown]
# Each region's level, the median of its box of pixels. Only colour separates the two skies on the figure; the
# numbers show which swatch each one matches. Then the pixel of part (b): its patch row and patch column.

# %%
for region, level in check.nb00.region_levels(picture).items():  # the median of a box of the region's pixels
    print(f"{region:>18}: {level:.2f}, {'brighter' if level > 0.5 else 'not brighter'} than one half")
row, col = 45, 30
patch_row, patch_col = row // 20, col // 20  # 20 pixels per patch side
per_row = width // 20  # patches in one row of patches
print(f"pixel ({row}, {col}): patch row {patch_row}, patch column {patch_col}, {per_row} patches per row")
print(f"patch {patch_row} * {per_row} + {patch_col} = {patch_row * per_row + patch_col}")

# %% [markdown]
# ## 5. The notation sheet (3 min)
#
# The sheet lists the symbols of the first notebooks, with their values on our picture and in ViT-B/16, the ViT
# paper's base model with 16 × 16 patches (its $D$ is in the paper's Table 1; its 224 × 224 input is the size of
# timm's `vit_base_patch16_224`, the model of Heo's lab report). Come back to it whenever a symbol is unclear.
#
# | symbol | meaning | our picture | ViT-B/16 |
# |---|---|---|---|
# | $H$, $W$ | image height and width, in pixels | 60, 100 | 224, 224 |
# | $C$ | channels of the image: 1 for grey, 3 for colour | 1 | 3 |
# | $B$ | images in a batch | 1 | any |
# | $P$ | side of a square patch, in pixels | 20 | 16 |
# | $N = HW/P^2$ | patches, each of which becomes a token | 15 | 196 |
# | $P^2 C$ | length of a raw token: the pixels of one patch | 400 | 768 |
# | $D$ | model width: the length of every token inside the transformer | notebook 01 takes 768 | 768 |
# | $\mathbf{E}$ | the learned projection of raw tokens to width $D$ | 400 × 768 | 768 × 768 |
#
# [The full sheet](#Evidence:-the-full-notation-sheet) adds the symbols of later notebooks (windows, attention,
# blocks) and the small models that notebooks 10 to 14 train.

# %% [markdown]
# ## 6. The map of the course (3 min)
#
# Each term in the map is explained in its notebook.
#
# | notebook | what you learn | time |
# |---|---|---|
# | [00 Start here](00_start_here.ipynb) | how the course works, the sources, the picture, the notation, the counting rule | about 30 minutes |
# | [01 Patch tokenization](01_patch_tokenization.ipynb) | patches: cut, flatten in `nn.Unfold`'s order, project | about 60 minutes |
# | [02 Soft split: overlapping patches](02_soft_split.ipynb) | overlapping windows: padding, counting, coverage, a soft split and back | about 60 minutes |
# | [03 Position embeddings](03_position_embeddings.ipynb) | why attention cannot see order; sinusoidal and learned tables | about 55 minutes |
# | [04 Attention: one head, step by step](04_attention.ipynb) | one head: a lookup, Q, K and V, softmax, why 1/√d_k | about 52 minutes |
# | [05 Multi-head attention](05_multi_head_attention.ipynb) | several heads, their cost, checked against PyTorch | about 55 minutes |
# | [06 The encoder block](06_encoder_block.ipynb) | ViT's equations and listing; tokens in; LayerNorm, GELU, pre-norm | about 60 minutes |
# | [07 The whole Vision Transformer](07_vision_transformer.ipynb) | prediction processing: the head on the prediction token; the whole ViT; a block's cost | about 60 minutes |
# | [08 T2T's soft split and the token transformer](08_t2t_soft_split.ipynb) | T2T's soft splits; what they keep whole; the token transformer | about 55 minutes |
# | [09 Tokens-to-Token: the module and T2T-ViT](09_tokens_to_token.ipynb) | the T2T module stage by stage; T2T-ViT; where the compute goes | about 58 minutes |
# | [10 Training a ViT](10_training.ipynb) | a training loop: cross-entropy, ln 2, AdamW, weight decay, schedule | about 58 minutes |
# | [11 Training choices: position embeddings and seams](11_training_choices.ipynb) | no, sinusoidal or learned position table; the scramble's seams | about 50 minutes |
# | [12 Trained position tables](12_trained_position_tables.ipynb) | what a trained table holds; resizing it for a larger image | about 60 minutes |
# | [13 Inside trained models](13_inside_trained_models.ipynb) | heads, attention distance, rollout; masked pre-training | about 60 minutes |
# | [14 What shapes a ViT](14_what_shapes_a_vit.ipynb) | a ViT that trains (standardised inputs); the amount of data; convolutions, distillation, T2T | about 55 minutes |
# | [15 Appendix: errata of the sources](15_errata.ipynb) | appendix: the sources' slips, each shown by a cell | about 45 minutes |
#
# Each notebook imports a few modules of the `vitcourse` package, the course's own code:
# [the modules per notebook](#Evidence:-the-modules-per-notebook).

# %% [markdown]
# ## Summary
#
# - `make lab` opens your learner copies in `learner/`. They start with no outputs, and your work is kept.
# - Each notebook states its time. Optional Evidence sections follow the summary.
# - An exercise: answer, check, hint, worked solution (collapsed below the check), then "After Exercise N",
#   folded. A hint first names the idea, then the section to reread.
# - The picture is 60 × 100, one channel, values from 0 to 1, in a few grey levels; the colour bar has one swatch
#   per level.
# - Patches, tokens, windows, blocks and heads are counted from 0, row by row; notebooks from 00; sections and
#   exercises from 1. The notation sheet in section 5 lists the first symbols with their values.
#
# **Next:** [01 Patch tokenization](01_patch_tokenization.ipynb) cuts the picture into patches, the first step of a
# Vision Transformer.

# %% [markdown]
# ## Evidence: what the picture holds
#
# Each line is measured from the picture in use, and checks one feature of the scene: the moon is cut by the top
# edge; the band's rows are dithered; the pale mountain lies on the left (its left third is brighter than its
# right third); the ridges rise towards the right (a dark pixel starts higher in the last column than in the
# first); the darkest ground fills the bottom corners. A range such as "0-39" includes both ends: rows 0 to 39,
# which is the slice `0:40` in code.


# %%
def spans(indices: np.ndarray) -> str:
    """Sorted unique indices as runs: [0, 1, 2, 7, 8] -> "0-2 and 7-8"."""
    values = np.unique(indices)
    if values.size == 0:
        return "none"
    breaks = np.flatnonzero(np.diff(values) > 1)  # where one run ends and the next begins
    starts, ends = values[np.r_[0, breaks + 1]], values[np.r_[breaks, values.size - 1]]
    runs = [f"{a}" if a == b else f"{a}-{b}" for a, b in zip(starts, ends, strict=True)]
    if len(runs) > 4:  # another picture can scatter them
        return f"{len(runs)} runs between {values[0]} and {values[-1]}"
    return ", ".join(runs[:-1]) + (" and " if len(runs) > 1 else "") + runs[-1]


def where_value(value: float) -> str:
    """How many pixels hold ``value``, and the runs of rows and of columns they lie in."""
    rows, cols = np.nonzero(picture == value)  # (H, W) mask -> row and column of each such pixel
    return f"{rows.size} pixels in rows {spans(rows)}, columns {spans(cols)}"


bright = picture > 0.5  # (H, W): True where brighter than one half
print(f"brighter than 0.5: {int(bright.sum())} of {picture.size} pixels, a share of {bright.mean():.3f}")

brightest, darkest = picture.max(), picture.min()
print(f"the moon, its brightest pixels: value {brightest:.2f}, {where_value(brightest)}")
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


# %% [markdown]
# ## Evidence: the full notation sheet
#
# Most rows become clear only in the notebook that introduces them; on a first read, skim it. The column "our
# picture" gives the values of notebooks 01 and 02. The column "trained here" gives the small models that notebooks
# 10 to 14 train from scratch and load: ViTs and one T2T-ViT, on pictures of 60 × 100 in batches of 128. (Notebook
# 12 also uses two more, trained further from one of them on 120 × 200 pictures in batches of 64;
# [the next Evidence cell](#Evidence:-the-notation-sheet,-checked) prints both. The short runs that notebooks 10
# and 11 train while you watch use batches of 64 too, the default the same cell checks.) The last column gives ViT-B/16:
# its $D$, MLP size (3072, four times $D$), $h$ and $L$ are in the paper's Table 1.
#
# | symbol | meaning | our picture | trained here | ViT-B/16 |
# |---|---|---|---|---|
# | $H$, $W$ | image height and width, in pixels | 60, 100 | 60, 100 | 224, 224 |
# | $C$ | channels of the image: 1 for grey, 3 for colour | 1 | 1 | 3 |
# | $B$ | images in a batch | 1 | 128 | any |
# | $P$ | side of a square patch, in pixels | 20 | ViT: 20 or 10 | 16 |
# | $N$ | tokens from the cut (patches, or T2T's windows), without the prediction token | 15 | ViT: 15 or 60; T2T-ViT: 28 | 196 |
# | $P^2 C$ | length of a raw token: the pixels of one patch | 400 | ViT: 400 or 100 | 768 |
# | $D$ | model width: the length of every token inside the transformer | 768 | 64 | 768 |
# | $\mathbf{E}$ | the learned projection of raw tokens to width $D$ | 400 × 768 | ViT: 400 × 64 or 100 × 64 | 768 × 768 |
# | $k$, $s$, $p$ | a sliding window's side, stride and padding | notebook 02's soft split: 20, 10, 5 (60 windows, not the 15 patches) | T2T-ViT: 7, 4, 2, then 3, 2, 1 twice | 16, 16, 0 |
# | token dim | width of T2T-ViT's small token transformers | — | 16 | — |
# | $Q$, $K$, $V$ | queries, keys and values: one row per token | — | $(N + 1) \times 16$ per head | 197 × 64 per head |
# | $h$ | attention heads per layer | — | 4 | 12 |
# | $d_k = D/h$ | length of each head's queries and keys | — | 16 | 64 |
# | MLP ratio | the MLP's hidden width divided by $D$ | — | 2 | 4 |
# | $L$ | encoder blocks, one after another | — | 2 or 4 | 12 |
# | prediction token | one extra learned token; the model's *head*, its last layer, reads the prediction from it | — | 1 | 1 |
# | $N + 1$ | tokens with the prediction token | — | ViT: 16 or 61; T2T-ViT: 29 | 197 |
# | $\mathbf{E}_\text{pos}$ | the position embedding: one row of length $D$ per token | — | $(N + 1) \times 64$ (none in the controls without one) | 197 × 768 |
#
# A few notes on the table:
#
# - The prediction token is ViT's *class token*, `cls_token` in code. Notebook 03 introduces it and puts it in
#   front of the patch tokens, and notebook 07 reads the prediction from it.
# - "Head" has two meanings: the model's head, its last layer, and an attention head, of which there are $h$.
# - A patch grid is a sliding window with $k = s = P$ and $p = 0$. T2T-ViT's three soft splits use other windows;
#   notebooks 02 and 08 explain them. The article series uses a token dim of 64, the default of the official T2T-ViT code.
# - Some letters have a second meaning: $p$ is also a patch's index (patch $p$), and $L$ also a length
#   (notebooks 02 and 05). In code, lowercase `h` and `w` are often a height and a width, as in notebook 02; in
#   formulas, $h$ counts heads.
# - The counting rule is in [section 4](#Counting-from-0): patches, tokens, windows, blocks and heads from 0.

# %% [markdown]
# ## Evidence: the notation sheet, checked
#
# The next cell checks part of the sheet against the package: for ViT-B/16 its $D$, $h$, $d_k$, MLP ratio, $L$,
# $N$ and $P^2C$, and for the models trained here $D$, $h$, MLP ratio, $L$, $N$, $P$, $B$, the token dim, T2T's
# windows and the shape of $E_{pos}$ (its last line lists them). The other entries follow from these by the
# sheet's formulas: $N = HW/P^2$, $P^2C$, $d_k = D/h$ and $N + 1$. You need not read its code, only run it.

# %%
from vitcourse import models, tokens, train

with torch.device("meta"):  # the model's shapes only, without allocating its weights
    vit_b16 = models.create_model("vit_base_patch16_224")
print(f"ViT-B/16 holds {sum(w.numel() for w in vit_b16.parameters()) / 1e6:.1f} million parameters")
block = vit_b16.blocks[0]
b16 = {
    "D": vit_b16.embed_dim,
    "h": block.attn.num_heads,
    "d_k": vit_b16.embed_dim // block.attn.num_heads,
    "MLP ratio": block.mlp.fc1.out_features // vit_b16.embed_dim,
    "L": len(vit_b16.blocks),
    "N": vit_b16.num_patches,
    "P^2 C": vit_b16.tokenizer.proj.in_features,
}
print("ViT-B/16:", b16)
assert b16 == {"D": 768, "h": 12, "d_k": 64, "MLP ratio": 4, "L": 12, "N": 196, "P^2 C": 768}
assert tokens.count_tokens(224, 224, 16, 16, 0).total == 196  # a patch grid: k = s = P, p = 0

# The models trained from scratch (notebook 12 also uses two trained further, at another size).
shipped = {name: c for name, c in train.SHIPPED_CONFIGS.items() if c.start_from is None}
trained = {
    "D": sorted({c.embed_dim for c in shipped.values()}),
    "h": sorted({c.num_heads for c in shipped.values()}),
    "MLP ratio": sorted({c.mlp_ratio for c in shipped.values()}),
    "L": sorted({c.depth for c in shipped.values()}),
    "P": sorted({c.patch_size for c in shipped.values() if c.model == "vit"}),
    "B": sorted({c.batch_size for c in shipped.values()}),
}
print("trained here:", trained)
assert trained == {
    "D": [64],
    "h": [4],
    "MLP ratio": [2.0],
    "L": [2, 4],
    "P": [10, 20],
    "B": [128],
}
assert train.TrainConfig().batch_size == 64  # the runs notebooks 10 and 11 train in front of you
assert models.T2T_STAGES == ((7, 4, 2), (3, 2, 1), (3, 2, 1))  # the package's T2T stages
assert any(c.model == "t2t" for c in shipped.values())
assert [tokens.count_tokens(height, width, q, q, 0).total for q in (20, 10)] == [15, 60]
tokens_before = {}  # (model, patch size, image size) -> N, the tokens before the prediction token
for c in shipped.values():
    with torch.device("meta"):  # shapes only
        model = train.build_model(c)
    size = (c.scale * train.HEIGHT, c.scale * train.WIDTH)
    tokens_before[(c.model, c.patch_size if c.model == "vit" else None, size)] = model.num_patches
    if c.pos_embed != "none":  # E_pos: (N + 1) x D; the controls without one have none
        assert tuple(model.pos_embed.shape) == (1, model.num_patches + 1, c.embed_dim)
for (kind, size_p, size), n in tokens_before.items():
    patches = f", P = {size_p}" if size_p else ""
    print(f"trained here: {kind}{patches} on {size[0]} x {size[1]}: N = {n}")
assert tokens_before == {
    ("vit", 20, (60, 100)): 15,
    ("vit", 10, (60, 100)): 60,
    ("t2t", None, (60, 100)): 28,
}
assert {c.token_dim for c in shipped.values() if c.model == "t2t"} == {16}
assert tuple(vit_b16.pos_embed.shape) == (1, 197, 768)
assert tokens.t2t_stride_padding(20) == (10, 5)  # our picture's soft split in notebook 02
further = {name: c for name, c in train.SHIPPED_CONFIGS.items() if c.start_from is not None}
for name, c in further.items():
    print(
        f"trained further from {c.start_from}: {name} on {c.scale * train.HEIGHT} x {c.scale * train.WIDTH}, B = {c.batch_size}"
    )
print(
    "asserted against the package: D, h, MLP ratio, L, N, P, B, token dim, T2T's windows, E_pos; for ViT-B/16 "
    "also d_k and P^2 C"
)


# %% [markdown]
# ## Evidence: the modules per notebook
#
# The cell lists, per notebook, the modules of `vitcourse` it imports.

# %%
import json
import pkgutil
import re
from pathlib import Path

modules = {m.name for m in pkgutil.iter_modules(vitcourse.__path__) if not m.name.startswith("_")}
for path in sorted(Path(".").glob("[0-9][0-9]_*.ipynb")):
    cells = json.loads(path.read_text())["cells"]
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    imported = re.findall(
        r"^from vitcourse import \(([^)]*)\)", code, flags=re.M
    )  # from vitcourse import (a, b)
    imported += re.findall(
        r"^from vitcourse import ([\w, ]+)", code, flags=re.M
    )  # from vitcourse import a, b
    imported += re.findall(r"^from vitcourse\.(\w+) import", code, flags=re.M)  # from vitcourse.a import f
    used = {name.strip() for group in imported for name in group.split(",")} & modules
    print(f"{path.stem:<28} {', '.join(sorted(used))}")
