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
# Welcome to **vitcourse**. The course builds a Vision Transformer, a *ViT*, piece by piece, on one small picture.
#
# A ViT cuts a picture into patches and turns each patch into a vector, a *token*. A *transformer* then reads the
# tokens: a stack of attention layers, in which every token can draw on every other. The Tokens-to-Token module,
# *T2T*, replaces the patch cutting with overlapping windows.
#
# By the end you can
# - say how the notebooks, the exercises and the hints work,
# - name the sources the course explains,
# - check which device runs the course on your computer,
# - describe the picture that every notebook uses,
# - look up any symbol of the course in the notation sheet.

# %% [markdown]
# ## 1. How the course works (6 min)
#
# `make lab` opens JupyterLab on your **learner copies**. They live in the folder `learner/`. They are made once
# from the notebooks in `notebooks/`. A learner copy holds no stored outputs: you see each output only when you
# run its cell. Worked solutions are there but collapsed, and the cells that grade a class are removed.
#
# Your work in `learner/` survives later runs of `make lab`. To start one notebook afresh, run
# `python -m vitcourse.classroom --learner --rebuild notebooks/NN_name.ipynb`. It makes a fresh copy and keeps
# the old one as a backup.
#
# The notebooks in `notebooks/` keep their outputs; the website shows them.
#
# Each notebook starts with its time and its goals. Its core is a few numbered sections, each with its own time,
# closed by a summary. In most notebooks, "Evidence" sections follow the summary. They hold the controls and
# tables that back each finding; they are optional and do not count in the notebook's time.
#
# Run the cells from top to bottom with **Shift + Enter**. The cells run in a *kernel*: the Python process
# behind the notebook. If something looks odd, choose *Kernel → Restart Kernel*, then run the cells again from the
# top, one by one, down to where you were. Avoid *Run All Cells* while exercises are open: it also runs their
# worked solutions, and the cells after an exercise then show its answer.
#
# **Exercises.** Each exercise says what kind it is: predict, explain, design, find the bug, read a figure, or
# code. In your learner copy, an answer cell follows it with a placeholder: a name set to `None`, such as
# `answer_regions = None`, or a function to complete. Fill it in, run the cell, then run the check cell below
# it. After the check comes the worked solution, in a collapsed cell. Running it replaces your answer with the
# solution's, so that the cells further down work either way. In `notebooks/`, the worked solution sits in the
# collapsed answer cell itself, above the check. What comes after an exercise (its answer worked through, and the
# cells that show it) sits under a heading "After Exercise N", which your copy opens folded: click the arrow
# beside the heading to open it once you have tried.
#
# **Hints.** A right answer prints ✓. A wrong answer that the check recognises gets the mistake named. Any other
# wrong answer gets a hint in steps. First comes a nudge: which idea the exercise rests on. From the second try on,
# the hint also names the section to reread. The method itself is only in the worked solution. Open it after you
# have tried.
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
# *ImageNet*, in that title, is a large collection of labelled photos. Its best-known part has about 1.3 million
# training images in 1,000 classes. Most vision models are measured on it.
#
# Two more sources appear where they are used: Chi Yeong Heo's lab report on timm's ViT-B/16, and the survey by
# Han et al. that the slides quote. Where the course departs from a source, the notebook says why. The appendix
# [15 Errata of the sources](15_errata.ipynb) lists the sources' slips, each with a line of code that shows it.

# %% [markdown]
# ## 3. Your device (2 min)
#
# The course runs on a CUDA GPU when there is one, and on the CPU otherwise. The code is the same. The next cell
# says which device you have. Its output differs between computers, so the tests skip it. The cell after it
# checks that a small computation works there.

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
# ## 4. The picture (6 min)
#
# Every notebook works on the same picture: a mountain scene at dusk. It is 60 rows by 100 columns, with one
# channel. Its values run from 0, dark, to 1, bright. It is small on purpose. You can see every patch and every
# token, and a transformer still has something to look at.

# %%
picture = load_mountains()
height, width = picture.shape
levels = np.unique(picture)
print(f"shape: {picture.shape}  (rows x columns), dtype: {picture.dtype}")
shown = f": {np.round(levels, 2).tolist()}" if len(levels) <= 16 else ""  # a photograph has too many to list
print(f"values from {picture.min():.2f} to {picture.max():.2f}, {len(levels)} grey levels{shown}")

# %% mystnb={"image": {"alt": "The mountain picture at dusk, 60 rows by 100 columns, in purple shades: a bright moon cut by the top edge, a dithered band in the sky, a pale mountain on the left, dark ridges and dark ground at the bottom"}}
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(7, 4))
plots.show_picture(picture, ax=ax, title=f"Mountain at Dusk, {height} x {width}")
plt.show()

# %% [markdown]
# The course draws the picture with the `Purples_r` colour map: dark purple is 0 and white is 1. The colour bar
# beside it runs from 0 to 1.

# %% [markdown]
# ### Exercise 1 (read a figure)
#
# This warm-up is there to try the mechanics once. Look at the figure and its
# colour bar. Which of these six regions are brighter than one half: the moon, the upper sky, the sky below the
# dithered band, the pale mountain's left face and its right face, and the dark ridges below it? Set
# `answer_regions` to a set of their names. The names are `"moon"`, `"upper sky"`, `"sky below the band"`,
# `"left face"`, `"right face"` and `"ridges"`. Where two shades look alike, the grey levels printed above the
# figure help. Try a wrong answer once too, to see a hint.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "bright_regions-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_regions = None  # replace None with a set of names, such as {"ridges"}
### BEGIN SOLUTION
# On the course's picture, the cell above the figure printed 8 grey levels, and none is 0.5. The picture has
# 8 areas of even tone. Rank them from dark to light, side by side: the ground, the lower ridge, the upper
# ridge, the upper sky, the sky below the band, the right face, the left face, the moon. So the 4th, the upper
# sky, is 0.45, and the 5th, the sky below the band, is 0.60. The regions above one half are the sky below
# the band, both faces and the moon. A check in code, on any picture: each region's median level.
answer_regions = {name for name, level in check.nb00.region_levels(picture).items() if level > 0.5}
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "bright_regions-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.bright_regions(answer_regions)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "bright_regions-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.bright_regions, answer_regions)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 1

# %% [markdown]
# The first cell prints each region's level: the median of a small box of its pixels. The second prints the
# share of all pixels brighter than one half. Then it measures five things to look for: the bright moon at the
# top edge, a *dithered* band in the sky, the pale mountain on the left, the dark ridges, and the darkest
# ground. Dithering is pixel art's way to show a shade between two tones: they alternate pixel by pixel, like a
# checkerboard. Each line is computed from the picture in use.

# %%
for region, level in check.nb00.region_levels(picture).items():  # the median of a box of the region's pixels
    print(f"{region:>18}: {level:.2f}, {'brighter' if level > 0.5 else 'not brighter'} than one half")


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


bright = picture > 0.5  # (H, W): True where brighter than one half
print(f"brighter than 0.5: {int(bright.sum())} of {picture.size} pixels, a share of {bright.mean():.3f}")

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

# %% [markdown]
# The picture is the course's own pixel-art rendition of *"Mountain at Dusk Background"* by Luis Zuno (@ansimuz,
# CC0). The article series used a 60 × 100 crop of the original. If you are online, start JupyterLab with
# `VITCOURSE_IMAGE=original` to run the course on that crop.
#
# Models want a batch of images of shape (B, C, H, W): B images, C channels, H rows and W columns. This is
# PyTorch's order. `vitcourse.to_tensor` turns the picture into a batch of one single-channel image:

# %%
batch = vitcourse.to_tensor(picture).to(device)
print(f"tensor shape {tuple(batch.shape)}, dtype {batch.dtype}")

# %% [markdown]
# ## 5. The notation sheet (4 min)
#
# The course uses the same symbols everywhere. Come back to this table whenever a symbol is unclear. The column
# "our picture" gives the values of notebooks 01 and 02. The column "trained here" gives the small models that
# notebooks 10 to 14 train and load: ViTs and one T2T-ViT. The last column gives ViT-B/16, the ViT paper's base
# model with 16 × 16 patches (Dosovitskiy et al. 2021, Table 1).
#
# | symbol | meaning | our picture | trained here | ViT-B/16 |
# |---|---|---|---|---|
# | $H$, $W$ | image height and width, in pixels | 60, 100 | 60, 100 | 224, 224 |
# | $C$ | channels of the image: 1 for grey, 3 for colour | 1 | 1 | 3 |
# | $B$ | images in a batch | 1 | 128 | any |
# | $P$ | side of a square patch, in pixels | 20 | ViT: 20 or 10 | 16 |
# | $N$ | tokens before the prediction token | 15 | ViT: 15 or 60; T2T-ViT: 28 | 196 |
# | $P^2 C$ | length of a raw token: the pixels of one patch | 400 | ViT: 400 or 100 | 768 |
# | $D$ | model width: the length of every token inside the transformer | 768 | 64 | 768 |
# | $\mathbf{E}$ | the learned projection of raw tokens to width $D$ | 400 × 768 | ViT: 400 × 64 or 100 × 64 | 768 × 768 |
# | $k$, $s$, $p$ | a sliding window's side, stride and padding | 20, 10, 5 | T2T-ViT: 7, 4, 2, then 3, 2, 1 twice | 16, 16, 0 |
# | token dim | width of T2T-ViT's small token transformers | — | 16 | — |
# | $Q$, $K$, $V$ | queries, keys and values: one row per token | — | $(N + 1) \times 16$ per head | 197 × 64 per head |
# | $h$ | attention heads per layer | — | 4 | 12 |
# | $d_k = D/h$ | length of each head's queries and keys | — | 16 | 64 |
# | MLP ratio | the MLP's hidden width divided by $D$ | — | 2 | 4 |
# | $L$ | encoder blocks, one after another | — | 2 or 4 | 12 |
# | prediction token | one extra learned token; the head reads the prediction from it | — | 1 | 1 |
# | $N + 1$ | tokens with the prediction token | — | ViT: 16 or 61; T2T-ViT: 29 | 197 |
# | $\mathbf{E}_\text{pos}$ | the position embedding: one row of length $D$ per token | — | $(N + 1) \times 64$ | 197 × 768 |
#
# A few notes on the table:
#
# - The prediction token is ViT's *class token*, `cls_token` in code. Notebook 06 adds it.
# - A patch grid is a sliding window with $k = s = P$ and $p = 0$. T2T-ViT's three soft splits use other windows;
#   notebooks 02 and 08 explain them. The T2T-ViT paper's models use a token dim of 64.
# - In code, lowercase `h` and `w` are often a height and a width, as in notebook 02. In formulas, $h$ counts
#   heads.
# - **One counting rule:** patches, tokens, windows, blocks and heads are all counted from 0, as Python indexes,
#   so that a label is the index you type: patch 0 is the top-left patch and `tokens[0]` is its token; `blocks[0]`
#   is block 0. Patches and windows go row by row. Once the prediction token comes first (notebook 06), patch $i$
#   sits at token $i + 1$.
#
# The next cell checks the sheet against the package. You need not read its code, only run it.

# %%
from vitcourse import models, tokens, train

with torch.device("meta"):  # the model's shapes, without allocating its 86 million weights
    vit_b16 = models.create_model("vit_base_patch16_224")
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

# The models trained from scratch (notebook 12 also uses one at another size).
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
assert models.T2T_STAGES == ((7, 4, 2), (3, 2, 1), (3, 2, 1))  # the T2T-ViT trained here uses them too
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
print("the notation sheet agrees with the package (asserted)")

# %% [markdown]
# ## 6. The map of the course (3 min)
#
# | notebook | what you learn | time |
# |---|---|---|
# | [00 Start here](00_start_here.ipynb) | how the course works, the sources, the picture, the notation, the counting rule | about 30 minutes |
# | [01 Patch tokenization](01_patch_tokenization.ipynb) | patches: cut, flatten in `nn.Unfold`'s order, project | about 55 minutes |
# | [02 Soft split: overlapping patches](02_soft_split.ipynb) | overlapping windows: padding, counting, coverage, a soft split and back | about 60 minutes |
# | [03 Position embeddings](03_position_embeddings.ipynb) | why attention cannot see order; sinusoidal and learned tables | about 55 minutes |
# | [04 Attention: one head, step by step](04_attention.ipynb) | one head: a lookup, Q, K and V, softmax, why 1/√d_k | about 52 minutes |
# | [05 Multi-head attention](05_multi_head_attention.ipynb) | several heads, their cost, checked against PyTorch | about 55 minutes |
# | [06 The encoder block](06_encoder_block.ipynb) | ViT's equations and listing; tokens in; LayerNorm, GELU, pre-norm | about 60 minutes |
# | [07 The whole Vision Transformer](07_vision_transformer.ipynb) | the prediction token and head; the whole ViT; a block's cost | about 50 minutes |
# | [08 T2T's soft split and the token transformer](08_t2t_soft_split.ipynb) | T2T's soft splits; what they keep whole; the token transformer | about 55 minutes |
# | [09 Tokens-to-Token: the module and T2T-ViT](09_tokens_to_token.ipynb) | the T2T module stage by stage; T2T-ViT; where the compute goes | about 55 minutes |
# | [10 Training a ViT](10_training.ipynb) | a training loop: cross-entropy, ln 2, AdamW, weight decay, schedule | about 50 minutes |
# | [11 Training choices: position embeddings and seams](11_training_choices.ipynb) | no, sinusoidal or learned position table; the scramble's seams | about 50 minutes |
# | [12 Trained position tables](12_trained_position_tables.ipynb) | what a trained table holds; resizing it for a larger image | about 55 minutes |
# | [13 Inside trained models](13_inside_trained_models.ipynb) | heads, attention distance, rollout; masked pre-training | about 60 minutes |
# | [14 What shapes a ViT](14_what_shapes_a_vit.ipynb) | the amount of data; convolutions, distillation, T2T | about 50 minutes |
# | [15 Appendix: errata of the sources](15_errata.ipynb) | appendix: the sources' slips, each shown by a cell | about 50 minutes |
#
# Each notebook builds one part of the `vitcourse` package. The cell lists the notebooks and the package's modules.

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
# - `make lab` opens your learner copies in `learner/`. They start with no outputs, and your work is kept.
# - Each notebook states its time. Optional Evidence sections follow the summary.
# - A hint first names the idea, then the section to reread. The worked solution is collapsed under each exercise.
# - The picture is 60 × 100, one channel, values from 0 to 1.
# - The notation sheet in section 5 lists every symbol with its values.
#
# **Next:** [01 Patch tokenization](01_patch_tokenization.ipynb) cuts the picture into patches, the first step of a
# Vision Transformer.
