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
# # 11 · Training choices: position embeddings and the scramble's block size
#
# **Time:** about 50 minutes
#
# Before this: notebook 10 (the data, the loss and the training loop).
#
# Notebook 03 showed that attention cannot see the order of its tokens, and built two position tables that give
# it one: the fixed sinusoidal table and a learned one. Notebook 10 built the loop that trains a small ViT on
# intact or scrambled scenes. Here we use that loop to ask what the tables are for: we train the same ViT with no
# position embedding, with the sinusoidal table and with a learned one, then change how the scenes are
# scrambled.
#
# By the end you can
# 1. work out, from what a ViT without a position embedding receives, the lowest loss and the best accuracy it can
#    reach on a set of images, and why one training batch can go lower;
# 2. read the training losses of several runs and seeds, and test a guess about them against what they show;
# 3. predict what a ViT without positions can do when the scramble's block borders no longer match its patch
#    borders, and give the reason.
#
# **What is reproducible.** Everything is seeded, but trained numbers can differ a little on another machine
# (rounding depends on the hardware and the PyTorch build). Where the text relies on a trained number, a cell
# checks it with a margin and stops with an error if your run settled otherwise.
#
# The Evidence sections after the Summary are optional, about 10 more minutes.

# %%
import math

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F

import vitcourse
from vitcourse import check, load_mountains, plots, scenes, train

torch.manual_seed(0)
device = vitcourse.get_device()
defaults = train.TrainConfig(device=device)  # the settings of every run below unless a cell says otherwise
held_out = scenes.make_batch("scramble", size=256, seed=10_000, block=defaults.block)  # notebook 10's set
half = len(held_out.targets) // 2  # 128 scenes: the intact images first, then their scrambled copies

# %% [markdown]
# ## 1. Position embeddings: none, sinusoidal, learned (33 min)
#
# On photos, a patch's content alone says much about the class: in the ViT paper a model without a position
# embedding scored clearly lower than one with it, yet far above chance
# ([the test and its numbers](#Evidence:-position-embeddings-in-the-ViT-paper)). Our task is built so that content
# alone says nothing: an intact scene and its scrambled copy hold the same patches.
#
# We train three ViTs that differ only in the position embedding: none, the fixed sinusoidal table of notebook
# 03, and a learned one. Each trains with notebook 10's loop for 200 steps of 64 images. We call the ViT without
# a position embedding the *blind* ViT. On this task *chance* means a held-out accuracy of 0.5, and a loss of
# ln 2 ≈ 0.693 (probability 1/2 for every image, notebook 10).

# %% [markdown]
# ### Exercise 1 (explain)
#
# Before any run. The loss is the mean cross-entropy over a set's images, natural logarithm.
#
# (a) Whatever its weights, the blind ViT cannot push its held-out loss below some floor. Suppose the held-out
# set held each scene once intact and *twice* scrambled, with two different scrambles. What is the lowest
# held-out loss the blind ViT could reach on it? Give the number to three decimals.
#
# (b) A training batch is drawn image by image from notebook 10's training pool, with replacement. Suppose a
# batch of 64 images holds both images (intact and scrambled) of 8 scenes and a single image of each of 48 other
# scenes. What is the lowest loss on this batch that the blind ViT could approach, whatever its weights? Three
# decimals. (This batch is made up: a real batch holds about one complete pair, not eight; the Evidence counts
# them.)
#
# (c) On the held-out set of (a), what is the highest held-out accuracy the blind ViT could reach, whatever its
# weights? Three decimals.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "no_position_loss_floor-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_floor = None  # replace None with a number
answer_dip = None  # replace None with a number
answer_best = None  # replace None with a number
### BEGIN SOLUTION
# A scrambled scene holds the same patch tokens as its intact copy, in another order; without positions the
# model gives all three images of a scene one probability p of "scrambled". Their mean loss is
# -(log(1 - p) + 2 log p) / 3, smallest at p = 2/3, where it is -(1/3 log 1/3 + 2/3 log 2/3) = 0.637.
answer_floor = 0.637
# Only the 8 whole pairs are bound to one output per scene: each pair's two images cost at least ln 2 on
# average, 2 ln 2 together. Each of the 48 single images can be fitted on its own (memorised), towards a loss of
# 0. The mean: 8 * 2 ln 2 / 64 = 0.173.
answer_dip = 0.173
# One output for a scene's three images means one answer for all three: "scrambled" gets two of them right,
# "intact" one. The best is "scrambled" for every scene: 2/3.
answer_best = 0.667
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "no_position_loss_floor-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.no_position_loss_floor(answer_floor)
check.no_position_batch_dip(answer_dip)
check.blind_best_accuracy(answer_best)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "no_position_loss_floor-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.no_position_loss_floor, answer_floor)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "no_position_batch_dip-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.no_position_batch_dip, answer_dip)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "blind_best_accuracy-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.blind_best_accuracy, answer_best)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 1

# %% [markdown]
# Without positions the prediction token attends to a *bag* of patches (a multiset: order lost, repeats kept),
# and a scrambled scene has the same bag. So the model gives all images of a scene one probability $p$ of
# "scrambled". For one intact and two scrambled images the mean loss, $-(\ln(1-p) + 2\ln p)/3$, is lowest at
# $p = 2/3$: 0.637. Its best accuracy comes from answering "scrambled" for every scene: 2 of 3 right, 0.667.
# In the made-up batch only the 8 complete pairs are tied to one output each, at best ln 2 per image. A model
# with enough capacity could fit each of the 48 single images on its own, towards a loss of 0. So the batch's
# floor is $16 \ln 2 / 64 = 0.173$: a bound, not a promise.
#
# On the real held-out set, one scrambled copy per scene, the same argument gives both images of every scene the
# same answer, and exactly one of the two is right. The blind ViT's accuracy there is exactly 0.5, not 0.5 on
# average, and its held-out loss cannot go below ln 2. The runs below show it.

# %% [markdown]
# ### The runs

# %% [markdown]
# One run per kind is one seed's result, not a ranking. So the sinusoidal and the learned ViT are also trained
# with seeds 1 and 2 (a *seed* fixes a run's random draws: its starting weights and the order of its batches).
# Within one seed the two kinds see the same batches, but not the same starting weights: the learned table takes
# a random draw of its own, which shifts the other weights' draws. The learned run of seed 0 is notebook 10's
# run again: `TrainConfig()`'s defaults.
#
# The *last training loss* is the loss of the last step's batch of 64 pool images. The *held-out loss* is the mean
# over the 256 held-out images: the number to compare between runs. The progress bar counts steps from 1; the
# prints and the figure below count them from 0, as Python does.

# %%
# NBVAL_IGNORE_OUTPUT
# (progress bars and times vary with the machine; the cell after the table checks the facts that do not)
seeds = (0, 1, 2)
runs = {("none", 0): train.train(train.TrainConfig(pos_embed="none", device=device), progress=True)}
for kind in ("sinusoidal", "learned"):
    for seed in seeds:
        runs[kind, seed] = train.train(
            train.TrainConfig(pos_embed=kind, seed=seed, device=device), progress=False
        )
print(f"trained on {device}")
print(
    f"{'position embedding':20s} {'seed':>4s} {'last training loss':>19s} {'held-out loss':>14s} "
    f"{'held-out accuracy':>18s} {'seconds':>8s}"
)
for (kind, seed), run in runs.items():
    print(
        f"{kind:20s} {seed:4d} {run.losses[-1]:19.4f} {run.metrics['loss']:14.4f} "
        f"{run.metrics['accuracy']:18.3f} {run.seconds:8.1f}"
    )

# %% [markdown]
# The next cell checks the claims about the blind run. An exact 0.5 alone proves little: a fair coin per image
# lands on exactly 128 right of 256 about one time in 20 (printed). The pairs are what rule out luck: exactly one
# image right in every one of the 128 pairs, which a coin does with a far smaller chance (printed). The blind ViT
# does so with any weights, so one run is enough to show *this* 0.5.

# %%
blind_run = runs["none", 0]
with torch.no_grad():
    blind_out = blind_run.model(held_out.images.to(device)).cpu()  # (256, 2): intact first, then scrambled
identical = torch.allclose(blind_out[:half], blind_out[half:], rtol=0, atol=1e-6)
blind_right = blind_out.argmax(-1) == held_out.targets  # (256,)
one_right = int((blind_right[:half] != blind_right[half:]).sum())  # pairs with exactly one image right
print(f"no position embedding: outputs for each scene and its scrambled copy identical (1e-6): {identical}")
print(
    f"no position embedding: held-out accuracy is exactly chance: {blind_run.metrics['accuracy'] == 0.5}; "
    f"pairs with exactly one image right: {one_right} of {half}"
)
assert identical and blind_run.metrics["accuracy"] == 0.5 and one_right == half
coin = math.comb(2 * half, half) / 2 ** (2 * half)  # a fair coin on each of the 256 images
print(f"a fair coin per image scores exactly 0.5 with probability {coin:.4f}")
print(
    f"a fair coin per image gets exactly one image right in all {half} pairs with probability {0.5**half:.1e}"
)
at_floor = blind_run.metrics["loss"] >= math.log(2) - 1e-4
print(f"no position embedding: held-out loss at or above ln 2 = {math.log(2):.4f}: {at_floor}")
assert at_floor
beat_chance = all(run.metrics["accuracy"] >= 0.8 for (kind, _), run in runs.items() if kind != "none")
print(f"sinusoidal and learned, every seed: held-out accuracy at least 0.8: {beat_chance}")
assert beat_chance
same_as_10 = runs["learned", 0].config == defaults  # notebook 10's run: TrainConfig()'s defaults
print(f"learned, seed 0: the settings of notebook 10's run (TrainConfig() defaults): {same_as_10}")
assert same_as_10

# %% [markdown]
# Every run with a table beats chance by far. But the table splits them in two: some get every held-out image
# right, others miss a few, at a held-out loss many times higher. Which images do they miss? A scramble shuffles
# the 15 patches, and a patch can land in its own place. The next cell counts the held-out scrambles whose
# bottom-right patch (patch 14, counting from 0) stayed in place, and each run's misses among them.

# %%
# NBVAL_IGNORE_OUTPUT
# (the misses depend on the run; the assert checks what the text below relies on)
P = defaults.patch_size
patches = F.unfold(held_out.images, P, stride=P).transpose(1, 2)  # (256, 15, 400)
corner_kept = (patches[:half, 14] == patches[half:, 14]).all(-1)  # (128,): scrambles whose patch 14 stayed
print(
    f"held-out scrambles whose bottom-right patch (patch 14) stayed in place: {int(corner_kept.sum())} of {half}"
)
misses = {}  # (kind, seed) -> (held-out images wrong, of them scrambles whose patch 14 stayed)
for key, run in runs.items():
    if key[0] != "none":
        with torch.no_grad():
            wrong = run.model(held_out.images.to(device)).argmax(-1).cpu() != held_out.targets  # (256,)
        misses[key] = (int(wrong.sum()), int(wrong[half:][corner_kept].sum()))
        print(
            f"{key[0]:10s} seed {key[1]}: {misses[key][0]:3d} held-out images wrong, "
            f"{misses[key][1]} of them such scrambles"
        )
assert any(0 < n == n_kept for n, n_kept in misses.values()), (
    "your runs settled otherwise than the stored ones"
)

# %% [markdown]
# In the runs stored here, every miss is a scramble that left patch 14 in place (printed). Those runs behave as if
# they checked one patch, the bottom-right one, instead of the whole order: a **shortcut** that settles almost
# every held-out image, but not all. So "beats chance by far" is what these runs show; "learned the task" is more
# than some of them did. Notebook 13 (section 4) tests the shortcut.

# %% [markdown]
# ### The training losses, seed by seed

# %% [markdown]
# A run *leaves the plateau* (the flat stretch at chance before it starts to learn) at the first step whose batch
# loss falls below 0.6 (the dashed grey line), a level the blind run never reaches. The figure draws one panel per
# seed: the sinusoidal run (orange, dashed) and the learned run (green), each with a triangle where it leaves the
# plateau. The blind run (thin blue, seed 0 only) stays near the dotted chance line. The grey band is the
# warm-up, while the learning rate is still rising. Peaks above a loss of 1 are cut off. Look first at the
# triangles and the grey band.

# %% mystnb={"image": {"alt": "Three panels, seeds 0 to 2, of training loss against step for the sinusoidal and the learned ViT, each with a triangle where its batch loss first falls below 0.6 (a dashed line), a grey band over the 15 warm-up steps; the blind ViT's loss in the first panel stays on the chance line at ln 2"}}
PLATEAU_EXIT = 0.6  # a batch loss below this: the run has left the plateau
exits = {  # the first step whose batch loss is below PLATEAU_EXIT, per (kind, seed)
    key: int((torch.tensor(run.losses) < PLATEAU_EXIT).int().argmax())
    for key, run in runs.items()
    if key[0] != "none"
}
assert min(blind_run.losses) > PLATEAU_EXIT  # the blind run never leaves
warmup = defaults.warmup  # the warm-up's steps: the grey band
styles = {"sinusoidal": dict(color="tab:orange", lw=1.5, ls="--"), "learned": dict(color="tab:green", lw=1.5)}
fig, axes = plt.subplots(1, 3, figsize=(15, 3.8), sharey=True, layout="constrained")
for ax, seed in zip(axes, seeds, strict=True):
    if seed == 0:
        ax.plot(blind_run.losses, color="tab:blue", lw=1, alpha=0.6, zorder=1, label="none (blind)")
    for kind, style in styles.items():
        losses = runs[kind, seed].losses
        ax.plot(losses, label=kind, **style)
        step = exits[kind, seed]
        ax.plot(step, losses[step], marker="v", ms=10, color=style["color"], mec="black", zorder=5)
    ax.axvspan(0, warmup, color="0.9", zorder=0, label=f"warm-up ({warmup} steps)")
    ax.axhline(math.log(2), color="black", ls=":", lw=1.5, zorder=4, label="chance (ln 2)")
    ax.axhline(PLATEAU_EXIT, color="0.4", ls="--", lw=1, zorder=4, label=f"plateau left below {PLATEAU_EXIT}")
    ax.set_ylim(0, 1.0)
    ax.set_xticks(range(0, defaults.steps + 1, 20))
    ax.set_xticks(range(0, defaults.steps + 1, 5), minor=True)
    ax.grid(axis="x", which="both", color="0.85", lw=0.5)
    ax.set_title(f"seed {seed}")
    ax.set_xlabel("training step")
axes[0].set_ylabel("training (batch) loss")
fig.legend(*axes[0].get_legend_handles_labels(), loc="outside right center", fontsize=8)
fig.suptitle(
    "ViT on intact-or-scrambled: training loss by position embedding (triangles: where each run leaves the plateau)"
)
plt.show()

# %% [markdown]
# Notebook 10 guessed why its learned run sat so long on the plateau: its table starts as small random numbers
# and has to grow into something the encoder blocks can read. The sinusoidal table needs no growing: its rows
# differ from the start.

# %% [markdown]
# ### Exercise 2 (read a figure, then explain)
#
# (a) Of the three sinusoidal runs, take the one that leaves the plateau earliest. How many steps after the end
# of the warm-up does it leave? Read it off the figure and give a whole number. The check compares it with your
# own runs and allows a reading error of 3 steps.
#
# (b) What does that wait say about notebook 10's guess? Give the letter. The check grades it only once (a) is
# right.
#
# - (A) It backs the guess fully: once the warm-up is over, only a run whose table must grow stays on the plateau.
# - (B) The guess is at most part of the story: something besides a table's growth holds a run on the plateau
#   after the warm-up.
# - (C) It refutes the guess: how a table starts plays no part in how long a run waits.
# - (D) The warm-up explains the whole wait: a run leaves the plateau as soon as its learning rate is up.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "plateau_wait-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_wait = None  # replace None with a whole number of steps
answer_guess = None  # replace None with a letter, such as "A"
### BEGIN SOLUTION
# The earliest orange triangle, minus the warm-up's 15 steps (in the runs stored here: seed 2's, 27 - 15 = 12).
answer_wait = min(exits["sinusoidal", s] for s in seeds) - warmup
# The sinusoidal table needs no growing, yet that run still waits after the warm-up: (A) and (D) are false.
# The figure cannot show that a table's start plays no part (C): that needs a run that changes only the start.
answer_guess = "B"
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "plateau_wait-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.plateau_wait(answer_wait, exits, warmup)
check.plateau_guess(answer_guess, answer_wait, exits, warmup)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "plateau_wait-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.plateau_wait, answer_wait, exits, warmup)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "plateau_guess-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.plateau_guess, answer_guess, answer_wait, exits, warmup)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 2

# %%
# NBVAL_IGNORE_OUTPUT
# (the steps depend on the run; the assert below checks what the text relies on, with a margin)
for seed in seeds:
    print(
        f"seed {seed}: leaves the plateau at step {exits['sinusoidal', seed]} (sinusoidal), "
        f"{exits['learned', seed]} (learned)"
    )
waits = [exits["sinusoidal", s] - warmup for s in seeds]  # steps after the warm-up
print(f"sinusoidal runs: steps on the plateau after the warm-up: {waits}")
assert min(waits) >= 5, "a sinusoidal run left the plateau right after the warm-up: the text does not hold"
assert any(exits["learned", s] - exits["sinusoidal", s] >= 20 for s in seeds), (
    "no seed's learned run waits longer"
)

# %% [markdown]
# Every sinusoidal run stays on the plateau well after the warm-up (printed), although its table needs no
# growing. So something else holds a run there too, and notebook 10's guess can explain at most part of the wait.
# The figure cannot rule the guess out: within a seed the two kinds start from different weights, and in some
# seeds the learned run waits much longer. A test of the guess would change only how the table starts.
#
# The blind run's batch loss sometimes dips a little below ln 2, although its held-out loss cannot (Exercise
# 1(b)): [why](#Evidence:-the-blind-run-below-ln-2).

# %% [markdown]
# ## 2. Moving the seams (17 min)
#
# A scramble's **seams** are the borders between its shuffled blocks: the lines where the picture jumps from one
# place of the scene to another. With 20 × 20 blocks they lie exactly on the borders of the ViT's patches.

# %% [markdown]
# ### Exercise 3 (predict)
#
# Keep the ViT's 20 × 20 patches, but let the scramble shuffle **10 × 10** blocks instead. Which statement is
# true, and which reason makes it true? Answer with the letter and the reason's number together, written like
# `"a-ii"`; the check grades the pair as one answer.
#
# - (a) Nothing changes: the model without positions stays at exactly 0.5.
# - (b) The model without positions can now beat chance.
# - (c) Every model is now at chance: the blocks are smaller than a patch.
# - (d) Only models with a position embedding can still learn the task.
#
# Reasons:
#
# - (i) A 20 × 20 patch of the scrambled image joins four 10 × 10 pieces from different places of the scene.
# - (ii) The patch embedding is linear, so a patch's token is a sum of its four quarters' contributions, and both
#   images are made of the same 10 × 10 pieces.
# - (iii) A scramble of 60 blocks reorders the image far more thoroughly than a scramble of 15, and attention
#   notices a large enough reordering.
# - (iv) A 10 × 10 block is smaller than a patch, so the scramble mostly moves pieces around inside the patches,
#   and the patch embedding does not see where a piece sits inside its patch.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "seam_blocks_pair-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_seams = None  # replace None with a letter and a reason's number, written like "a-ii"
### BEGIN SOLUTION
# A patch of a 10 x 10 scramble holds four blocks from different places: a token the intact image does not
# have. The two images' tokens are no longer one bag (multiset) in two orders, so the blind model's outputs can
# differ. (ii) is half true: the embedding is linear and both images hold the same pieces, but each pixel's
# weight depends on where it sits in the patch, and a patch's four quarters come from four different intact
# patches. So the sum is, in general, none of the intact image's tokens. (iii) would let attention see order,
# which section 1 ruled out. (iv) is false twice: most pieces come from other patches, and the patch embedding
# weights each pixel by its place in the patch.
answer_seams = "b-i"
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "seam_blocks_pair-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.seam_blocks_pair(answer_seams)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "seam_blocks_pair-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.seam_blocks_pair, answer_seams)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 3

# %% [markdown]
# With 20 × 20 blocks every patch of the scramble is a whole patch of the intact picture, moved. With 10 × 10
# blocks a patch joins four blocks, almost always from different places: the seams lie *inside* the patches. The
# cell under the figure counts the scramble's patches that are also patches of the intact picture.

# %% mystnb={"image": {"alt": "The course picture with a cyan grid of 15 patches, 3 rows by 5 columns; beside it the picture with its 20 by 20 blocks shuffled, whole patches moved, and with its 10 by 10 blocks shuffled, every patch a mosaic of four pieces, the 10 by 10 seams drawn in orange"}}
picture = load_mountains()
image = vitcourse.to_tensor(picture)  # (1, 1, 60, 100)
shuffle = torch.Generator().manual_seed(3)
panels = {
    "intact": image,
    "20 x 20 blocks scrambled": scenes.scramble_patches(image, 20, shuffle),
    "10 x 10 blocks scrambled": scenes.scramble_patches(image, 10, shuffle),
}
fig, axes = plt.subplots(1, 3, figsize=(16, 3.6), layout="constrained")
for ax, (name, img) in zip(axes, panels.items(), strict=True):
    plots.show_picture(img[0, 0], ax=ax, title=name, colorbar=False)
    plots.draw_patch_grid(ax, 60, 100, 20, numbers=False, color="cyan")
plots.draw_patch_grid(axes[2], 60, 100, 10, numbers=False, color="tab:orange")  # the 10 x 10 seams
plots.draw_patch_grid(axes[2], 60, 100, 20, numbers=False, color="cyan")  # patch borders drawn on top
fig.colorbar(axes[0].images[0], ax=axes, fraction=0.02, pad=0.01, label="brightness (0 to 1)")
fig.suptitle(
    "the course picture and two scrambles; cyan: the ViT's 20 x 20 patch grid; orange: 10 x 10 seams"
)
plt.show()


# %%
def shared_patches(intact: torch.Tensor, scrambled: torch.Tensor) -> torch.Tensor:
    """For each image pair, how many 20 x 20 patches of ``scrambled`` are also patches of ``intact``.

    Both (B, 1, 60, 100); returns (B,) counts out of 15.
    """
    mine = F.unfold(intact, 20, stride=20).transpose(1, 2)  # (B, 15, 400): the intact image's patches
    theirs = F.unfold(scrambled, 20, stride=20).transpose(1, 2)  # (B, 15, 400)
    same = (theirs[:, :, None] == mine[:, None]).all(
        -1
    )  # (B, 15, 15): scrambled patch i equals intact patch j
    return same.any(-1).sum(-1)  # (B,)


for name in ("20 x 20 blocks scrambled", "10 x 10 blocks scrambled"):
    print(
        f"course picture, {name}: {shared_patches(image, panels[name]).item()} of 15 patches are patches of "
        f"the intact picture"
    )
held_out_10 = scenes.make_batch("scramble", size=256, seed=10_000, block=10)
shared_10 = shared_patches(held_out_10.images[:half], held_out_10.images[half:])  # (128,)
print(
    f"held-out scenes, 10 x 10 blocks scrambled: {shared_10.sum()} of {15 * half} patches are patches of their "
    f"intact scene; scenes with none: {(shared_10 == 0).sum()} of {half}"
)
assert (
    shared_patches(image, panels["20 x 20 blocks scrambled"]).item() == 15
)  # whole blocks: true of any picture

# %% [markdown]
# So almost all of the scrambled image's tokens are new tokens, the two images no longer hold the same bag
# (multiset) of tokens, and nothing forces the two outputs to be equal. The next cells show it on the blind model
# of section 1, then train a ViT without positions on 10 × 10 scrambles. To keep the notebook quick this run is
# shorter: 60 steps of 32 images, 10 of them warm-up (printed below).

# %%
with torch.no_grad():
    out_10 = blind_run.model(held_out_10.images.to(device)).cpu()  # (256, 2)
gap = (out_10[:half] - out_10[half:]).abs().max()  # the largest change of an output within a pair
differ = bool(gap > 1e-6)
print(f"blind model, 10 x 10 scrambles: outputs for a scene and its scrambled copy differ: {differ}")
assert differ
seams = train.TrainConfig(
    pos_embed="none", scramble_block=10, steps=60, batch_size=32, warmup=10, device=device
)
seam_run = train.train(seams, progress=False)

# %%
# NBVAL_IGNORE_OUTPUT
print(f"blind model of section 1, 10 x 10 scrambles: largest output difference within a pair {gap:.1e}")
print(
    f"ViT without positions, trained on 10 x 10 scrambles ({seams.steps} steps of {seams.batch_size} images, "
    f"{seams.warmup} of warm-up): held-out accuracy {seam_run.metrics['accuracy']:.3f}"
)
assert seam_run.metrics["accuracy"] >= 0.75  # beats chance by far

# %% [markdown]
# Here the patch tokens themselves change, so no position is needed to tell the two images apart. This run's
# task (10 × 10 blocks) and settings (60 steps of 32, 10 of warm-up) differ from the runs above, so its accuracy
# is not a comparison with them. What it reads in the tokens, the seams or something else, is not tested here.

# %% [markdown]
# ## Summary
#
# - Without a position embedding a ViT sees a scene's patches as a bag, and a scrambled scene has the same bag:
#   it gives both one output, so its held-out accuracy is exactly chance and its held-out loss at least ln 2.
#   A training batch draws images, not pairs, so its loss can dip below ln 2.
# - With the sinusoidal or the learned table every run beats chance by far. Only some get every held-out image
#   right; in the runs stored here the others miss exactly scrambles that left patch 14 in place, a shortcut
#   that notebook 13 tests.
# - The sinusoidal runs, whose table needs no growing, also wait on the plateau after the warm-up: a learned
#   table's small start can explain at most part of a run's wait. Three seeds do not rank the two kinds.
# - With 10 × 10 blocks the seams fall inside the patches, so almost every scrambled patch is a token the intact
#   scene does not have. A ViT without positions then beats chance: it needs no position to tell the two images
#   apart.
#
# Next: notebook 12 looks at what a trained position table holds, and carries it to another image size. To train
# for longer, see [the commands](#Evidence:-longer-runs-from-the-command-line).

# %% [markdown]
# ## Evidence: position embeddings in the ViT paper
#
# Section 1 cites an *ablation* of the ViT paper (a test that removes one part of a model to see what it was
# worth): Appendix D.4, Table 8. A ViT-B/16 was pre-trained on a large data set, then evaluated on **ImageNet**
# (1000 classes) with a *5-shot linear probe*: a linear classifier fitted, on 5 images per class, to the vectors
# the model outputs (its *features*), with the model's weights kept fixed ("frozen"). The kinds of position
# embedding (1-D, 2-D, relative) differed little from each other. The model without one scored about 0.61
# against about 0.64; the paper calls that a large gap, yet it is far above chance (1 in 1000).

# %% [markdown]
# ## Evidence: the blind run below ln 2
#
# This section builds on Exercise 1's worked answers: do the exercise first.
#
# The blind run's batch loss dips below ln 2 now and then, although its held-out loss cannot. A batch draws
# images, not pairs, so ln 2 does not bind it (Exercise 1(b)). Here the route is simpler than learning images by
# heart: a batch's labels can be lopsided, and an output leaning towards its majority label scores below ln 2. The
# cell rebuilds the run's 200 batches and looks at its lowest one: its share of scrambled images, its complete pairs, and the
# lowest loss that an output the same for every image could reach on it (explained under the next cell).

# %%
# NBVAL_IGNORE_OUTPUT
# (where a run's loss dips depends on the run; see "What is reproducible" and the asserts of the next cell)
blind = torch.tensor(blind_run.losses)  # (steps,)
k = int(blind.argmin())
print(
    f"no position embedding: lowest batch loss {blind[k]:.4f} at step {k}, against ln 2 = {math.log(2):.4f}; "
    f"held-out loss {blind_run.metrics['loss']:.4f}"
)
# Rebuild the run's batches, as train.train draws them: the pool holds its 1024 intact images first (label 0),
# then their scrambled copies (label 1), so pool images i and i + 1024 are one scene's pair.
pool = scenes.scene_pool("scramble", defaults.train_scenes, seed=1, block=defaults.block)
scenes_in_pool = len(pool.targets) // 2
draws = torch.Generator().manual_seed(blind_run.config.seed)
batches = torch.stack(
    [torch.randint(len(pool.targets), (defaults.batch_size,), generator=draws) for _ in range(defaults.steps)]
)  # (steps, 64): the pool images of each step's batch
scrambled = pool.targets[batches].sum(-1)  # (steps,): scrambled images in each batch


def complete_pairs(index: torch.Tensor) -> int:
    """Scenes whose intact and scrambled images are both among the pool images ``index`` (B,)."""
    intact = set(index[index < scenes_in_pool].tolist())
    return len(intact & set((index[index >= scenes_in_pool] - scenes_in_pool).tolist()))


def label_entropy(share: float) -> float:
    """The lowest loss of a constant output on a batch whose share of scrambled images is ``share``."""
    return -(share * math.log(share) + (1 - share) * math.log(1 - share))


n = int(scrambled[k])
print(
    f"  batch of step {k}: {n} of {defaults.batch_size} images scrambled, {complete_pairs(batches[k])} complete "
    f"pairs; lowest loss of a constant output {label_entropy(n / defaults.batch_size):.3f}"
)
pairs = torch.tensor([complete_pairs(b) for b in batches]).float()  # (steps,)
print(
    f"  complete pairs per batch over the {defaults.steps} batches: mean {pairs.mean():.2f}, most {pairs.max():.0f}"
)
with torch.no_grad():
    p_held_out = blind_run.model(held_out.images.to(device)).softmax(-1)[:, 1].cpu()  # (256,)
    p_pool = (
        blind_run.model(pool.images.to(device)).softmax(-1)[:, 1].cpu()
    )  # (2048,): the images it trained on
for name, p in (("the 256 held-out images", p_held_out), (f"the {len(p_pool)} pool images", p_pool)):
    print(f"  the trained blind model's probability of 'scrambled' on {name}: {p.min():.4f} to {p.max():.4f}")

# %%
share = float(scrambled[k]) / defaults.batch_size
assert abs(share - 0.5) >= 0.1  # the lowest batch is lopsided
assert label_entropy(share) - 1e-3 <= blind[k] < math.log(2)  # between a constant output's floor and ln 2
assert 0.5 <= pairs.mean() <= 1.5  # about one complete pair per batch
assert p_pool.max() - p_pool.min() < 0.01  # by the end the blind model's output hardly depends on the image
print(
    f"the blind run's lowest batch has {share:.2f} of its images scrambled; its loss lies between a constant "
    f"output's floor ({label_entropy(share):.3f}) and ln 2"
)

# %% [markdown]
# A batch of whole pairs always holds as many intact images as scrambled ones, and on it the blind model's best
# is ln 2. A batch of unpaired images can be lopsided. For a constant output the lowest loss on a batch is the
# *entropy* of its label share, $-(s \ln s + (1 - s) \ln (1 - s))$ for a share $s$ of scrambled images: below
# ln 2 whenever $s \ne 1/2$. (Set the derivative of the mean loss $-(s \ln p + (1-s)\ln(1-p))$ to zero: the
# best constant $p$ is $s$ itself, and the loss there is that entropy.) An output leaning mildly towards the
# batch's majority label scores below ln 2, one leaning the other way above. The run's lowest batch is lopsided,
# and its loss lies between that floor and ln 2 (printed). By the end of the run the blind model gives almost the
# same output for every image, the pool images it trained on as well as the held-out ones (the ranges printed):
# it did not learn single images by heart, the route of Exercise 1(b)'s bound.

# %% [markdown]
# ## Evidence: longer runs from the command line
#
# The same code runs from a terminal, on the CPU or a GPU, for as long as you like:
#
# ```bash
# python -m vitcourse.train --help
# python -m vitcourse.train --model vit --pos-embed learned --steps 1000 --seeds 0 1 2
# python -m vitcourse.train --model t2t --task moon --steps 2000 --device cuda --save t2t_moon.pt
# python -m vitcourse.train --model t2t --pos-embed sinusoidal --scramble-block 10 --seeds 0 1 2 3 4
# ```
#
# `--task moon` asks where the moon is: the model gives one number, the moon's column divided by the picture's
# width. That is a *regression* task (the answer is a number, not a class), with a head of one output.
# `--scramble-block` sets the block side (default: the patch size). `--save` writes the weights and settings;
# `vitcourse.train.load_checkpoint` reads them back with `torch.load(..., weights_only=True)`, which loads
# tensors and plain settings only, never arbitrary Python objects.
