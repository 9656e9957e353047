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
# 1. work out, from what a ViT without a position embedding receives, the lowest loss it can reach on a set of
#    images and what that bound does and does not say about one training batch;
# 2. read three runs' training and held-out losses, and say what one seed's run does and does not show;
# 3. predict what a ViT without positions can do when the scramble's block borders no longer match its patch
#    borders, and give the reason.
#
# **What is reproducible.** Everything is seeded, but trained numbers can differ a little on another machine
# (rounding depends on the hardware and the PyTorch build). Where the text relies on a trained number, a cell
# checks it with a margin and stops with an error if your run settled otherwise.
#
# The Evidence sections after the Summary are optional, about 2 more minutes.

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
# ## 1. Position embeddings: none, sinusoidal, learned (30 min)
#
# On photos, a patch's content alone says much about the class. In one ablation the ViT paper pre-trained its
# models on a large data set, then tested them on **ImageNet** (1000 classes) with a *few-shot linear probe*: a
# linear classifier fitted, on 5 images per class, to the vectors the model outputs (its *features*), with the
# model's weights kept fixed ("frozen"). There the model without a position embedding scored about 0.61 against
# about 0.64 with one, worse but far above chance (0.001)
# ([the test and its numbers](#Evidence:-position-embeddings-in-the-ViT-paper)).
#
# Our task is built the other way round: an intact scene and its scrambled copy hold the same patches. We train
# three ViTs that differ only in the position embedding: none, the fixed sinusoidal table of notebook 03, and a
# learned one. Each trains with notebook 10's loop for 200 steps of 64 images, with one seed: one run per kind,
# not an average. The learned run is notebook 10's run again: its settings are `TrainConfig()`'s defaults, seed
# 0. We call the ViT without a position embedding the *blind* ViT. On this task *chance* means a held-out
# accuracy of 0.5, and a loss of ln 2 ≈ 0.693 (probability 1/2 for every image, notebook 10).

# %% [markdown]
# ### Exercise 1 (predict, then explain)
#
# (a) Whatever its weights, the ViT *without* a position embedding cannot
# push its held-out loss below some floor. Suppose the held-out set held each scene once intact and *twice*
# scrambled, with two different scrambles. What is the lowest held-out loss the blind ViT could reach on it? Give
# the number to three decimals. The loss is the mean cross-entropy over the held-out images, natural logarithm.
#
# (b) A training batch is drawn image by image from notebook 10's training pool, with replacement. Suppose a
# batch of 64 images holds both images (intact and scrambled) of 8 scenes and a single image of each of 48 other
# scenes. What is the lowest loss on this batch that the blind ViT could approach, whatever its weights? Three
# decimals.
#
# This batch is made up for the exercise: a real batch holds about one complete pair (both images of one scene),
# not eight, as a cell further down counts.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "no_position_loss_floor-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_floor = None  # replace None with a number
answer_dip = None  # replace None with a number
### BEGIN SOLUTION
# A scrambled scene holds the same patch tokens as its intact copy, in another order; without positions the
# model gives all three images of a scene one probability p of "scrambled". Their mean loss is
# -(log(1 - p) + 2 log p) / 3, smallest at p = 2/3, where it is -(1/3 log 1/3 + 2/3 log 2/3) = 0.637; the best
# accuracy is then 2/3. On the real set, one image of each label per scene, the same argument gives
# -(log p + log(1 - p)) / 2, smallest at p = 1/2: ln 2 = 0.693, and no mean over whole pairs can go lower.
answer_floor = 0.637
# Only the 8 whole pairs are bound to one output per scene: each pair's two images cost at least ln 2 on
# average, 2 ln 2 together. Each of the 48 single images can be fitted on its own (memorised), towards a loss of
# 0. The mean: 8 * 2 ln 2 / 64 = 0.173.
answer_dip = 0.173
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "no_position_loss_floor-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.no_position_loss_floor(answer_floor)
check.no_position_batch_dip(answer_dip)

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

# %% [markdown]
# ### After Exercise 1

# %% [markdown]
# Without positions the model gives all three images of a scene one probability $p$ of "scrambled". Their mean
# loss, $-(\ln(1-p) + 2\ln p)/3$, is lowest at $p = 2/3$: 0.637. In the made-up batch only the 8 complete pairs
# are tied to one output each, at best ln 2 per image; the 48 single images could each be learned by heart, towards
# a loss of 0. So the batch's floor is $16 \ln 2 / 64 = 0.173$.

# %% [markdown]
# ### The three runs

# %% [markdown]
# The *last training loss* is the loss of the last step's batch of 64 pool images. The *held-out loss* is the mean
# over the 256 held-out images: the number to compare between runs. The progress bar counts steps from 1; the
# prints and the figure below count them from 0, as Python does.

# %%
# NBVAL_IGNORE_OUTPUT
# (progress bars and times vary with the machine; the cell after the table checks the facts that do not)
runs = {}
for kind in ("none", "sinusoidal", "learned"):
    runs[kind] = train.train(train.TrainConfig(pos_embed=kind, device=device), progress=(kind == "none"))
print(f"one seed (0) per kind, trained on {device}")
print(
    f"{'position embedding':20s} {'last training loss':>19s} {'held-out loss':>14s} "
    f"{'held-out accuracy':>18s} {'seconds':>8s}"
)
for kind, run in runs.items():
    print(
        f"{kind:20s} {run.losses[-1]:19.4f} {run.metrics['loss']:14.4f} "
        f"{run.metrics['accuracy']:18.3f} {run.seconds:8.1f}"
    )

# %% [markdown]
# ### Exercise 2 (predict, then explain)
#
# The held-out set holds 128 scenes, each once intact and once scrambled, and the table
# gives the held-out accuracy of the blind ViT.
#
# (a) For how many of the 128 scenes does it give the scene's two images the same answer, both "intact" or both
# "scrambled"? Give a whole number.
#
# (b) A model that answered each of the 256 images by tossing a fair coin would also be right half the time, on
# average. How likely is it to score *exactly* 0.5, 128 right of 256? Give the probability to three significant
# figures. Then say, in a sentence to yourself, what this means for reading the blind ViT's 0.5 from one run.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "blind_pairs_same_answer-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_same = None  # replace None with a whole number
answer_coin = None  # replace None with a probability
### BEGIN SOLUTION
# Without positions the model sees a scene and its scrambled copy as the same bag (multiset) of tokens, so it
# gives them the same output and the same answer: in every scene, all 128. Their labels differ, so that answer
# is right for exactly one of the two images. That is why the accuracy is exactly one half, not one half on
# average, as two coin tosses per scene would give.
answer_same = 128
# Each of the 2**256 sequences of right and wrong is equally likely; comb(256, 128) of them hold 128 right.
answer_coin = math.comb(256, 128) / 2**256  # 0.0498: a coin lands on exactly 0.5 about one time in 20
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "blind_pairs_same_answer-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.blind_pairs_same_answer(answer_same)
check.coin_exact_half(answer_coin)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "blind_pairs_same_answer-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.blind_pairs_same_answer, answer_same)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "coin_exact_half-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.coin_exact_half, answer_coin)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 2

# %% [markdown]
# Without a position embedding the prediction token attends to a *bag* of patches (a multiset: order lost,
# repeats kept), and a scrambled scene has the same bag. So the output is the same for a scene and its scrambled
# copy, whatever the weights: exactly one of the two answers is right, accuracy exactly 0.5. The held-out loss cannot go below ln 2 ≈ 0.693, reached at
# probability 1/2 for both images of a pair. A training batch draws images, not pairs, so its loss can dip lower.
#
# A fair coin per image scores exactly 0.5 about one time in 20 (printed below), so an exact 0.5 alone proves
# little. The pairs are what rule out luck: the blind ViT gets exactly one image right in every one of the 128
# pairs, which a coin does with the far smaller chance printed below. The blind ViT does so with any weights,
# so one run is enough to show *this* 0.5: it follows from what the model receives.
#
# With either embedding the ViT learns the task in this run. The docstring of `train.TrainConfig` says its
# defaults were picked by trying seeds, and that with them the ViT left the ln 2 *plateau* (the flat stretch at
# chance before a run starts to learn) with every seed tried; those seeds are not rerun here. Which of the two
# did better is one seed's result, not a ranking of the two kinds. The next cell checks the claims about these
# runs.

# %%
with torch.no_grad():
    blind_out = runs["none"].model(held_out.images.to(device)).cpu()  # (256, 2): intact first, then scrambled
identical = torch.allclose(blind_out[:half], blind_out[half:], rtol=0, atol=1e-6)
blind_right = blind_out.argmax(-1) == held_out.targets  # (256,)
one_right = int((blind_right[:half] != blind_right[half:]).sum())  # pairs with exactly one image right
print(f"no position embedding: outputs for each scene and its scrambled copy identical (1e-6): {identical}")
print(
    f"no position embedding: held-out accuracy is exactly chance: {runs['none'].metrics['accuracy'] == 0.5}; "
    f"pairs with exactly one image right: {one_right} of {half}"
)
assert identical and runs["none"].metrics["accuracy"] == 0.5 and one_right == half
coin = math.comb(2 * half, half) / 2 ** (2 * half)  # a fair coin on each of the 256 images
print(f"a fair coin per image scores exactly 0.5 with probability {coin:.4f}")
print(
    f"a fair coin per image gets exactly one image right in all {half} pairs with probability {0.5**half:.1e}"
)
at_floor = runs["none"].metrics["loss"] >= math.log(2) - 1e-4
print(f"no position embedding: held-out loss at or above ln 2 = {math.log(2):.4f}: {at_floor}")
assert at_floor
for kind in ("sinusoidal", "learned"):
    learned_it = runs[kind].metrics["accuracy"] >= 0.8
    print(f"{kind}: held-out accuracy at least 0.8: {learned_it}")
    assert learned_it
same_as_10 = runs["learned"].config == defaults  # notebook 10's run: TrainConfig()'s defaults
print(f"learned: the settings of notebook 10's run (TrainConfig() defaults, seed 0): {same_as_10}")
assert same_as_10

# %% [markdown]
# ### The three runs' training losses

# %% [markdown]
# What to look at: the blind run (thick pale band) stays on the dotted chance line; its dips below it and bumps
# above it are too small to read at this scale. The two other runs sit on the chance line well past the grey
# warm-up steps, then fall towards 0, not steadily: the learned run is knocked back up once (its peak is cut off
# at the top of the plot). The cell under the figure prints each run's largest rise, and the blind run's lowest
# batch with its labels.

# %% mystnb={"image": {"alt": "Training loss against step for the three ViTs: the one without a position embedding stays on the chance line at ln 2; the sinusoidal and learned ones fall towards 0, the learned one with a spike"}}
fig, ax_loss = plt.subplots(figsize=(9, 4), layout="constrained")
styles = {  # the blind run lies on the chance line: a thick pale band, with the dotted line drawn over it
    "none": dict(color="tab:blue", lw=4, alpha=0.45),
    "sinusoidal": dict(color="tab:orange", lw=1.5, ls="--"),
    "learned": dict(color="tab:green", lw=1.5),
}
for kind, run in runs.items():
    ax_loss.plot(run.losses, label=f"position embedding: {kind}", **styles[kind])
ax_loss.axvspan(0, defaults.warmup, color="0.9", zorder=0, label=f"warm-up ({defaults.warmup} steps)")
ax_loss.set_ylim(0, 1.0)  # a higher peak is cut off: the cell below prints each run's highest loss
ax_loss.axhline(math.log(2), color="black", ls=":", lw=1.5, zorder=4, label="chance (ln 2)")
ax_loss.set_xlabel("training step")
ax_loss.set_ylabel("cross-entropy loss")
ax_loss.set_title("ViT on intact-or-scrambled: loss by kind of position embedding")
ax_loss.legend(loc="upper right", fontsize=8)
plt.show()

# %%
# NBVAL_IGNORE_OUTPUT
# (where a run's loss rises depends on the run; see "What is reproducible")
for kind, run in runs.items():
    curve = torch.tensor(run.losses)  # (steps,)
    rise = curve.diff()  # (steps - 1,): the change from each step to the next
    k = int(rise.argmax())
    print(
        f"{kind:10s}: largest rise {rise[k]:+.2f}, from step {k} to {k + 1} ({curve[k]:.2f} -> {curve[k + 1]:.2f}); "
        f"highest loss {curve.max():.2f} at step {int(curve.argmax())}; last training loss {curve[-1]:.3f}"
    )
blind = torch.tensor(runs["none"].losses)  # (steps,)
k = int(blind.argmin())
print(
    f"no position embedding: lowest batch loss {blind[k]:.4f} at step {k}, against ln 2 = {math.log(2):.4f}; "
    f"held-out loss {runs['none'].metrics['loss']:.4f}"
)
# Rebuild the run's batches, as train.train draws them: the pool holds its 1024 intact images first (label 0),
# then their scrambled copies (label 1), so pool images i and i + 1024 are one scene's pair.
pool = scenes.scene_pool("scramble", defaults.train_scenes, seed=1, block=defaults.block)
scenes_in_pool = len(pool.targets) // 2
draws = torch.Generator().manual_seed(runs["none"].config.seed)
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


for step in (k, k + 1):
    n = int(scrambled[step])
    print(
        f"  batch of step {step}: {n} of {defaults.batch_size} images scrambled, "
        f"{complete_pairs(batches[step])} complete pairs; lowest loss of a constant output "
        f"{label_entropy(n / defaults.batch_size):.3f}; the run's loss {blind[step]:.4f}"
    )
pairs = torch.tensor([complete_pairs(b) for b in batches]).float()  # (steps,)
most = int((scrambled - defaults.batch_size / 2).abs().argmax())
print(
    f"  complete pairs per batch over the {defaults.steps} batches: mean {pairs.mean():.2f}, most {pairs.max():.0f}; "
    f"the most lopsided batch is step {most}'s"
)
with torch.no_grad():
    blind_out = runs["none"].model(held_out.images.to(device)).cpu()  # (256, 2): the blind model, held out
p_scrambled = blind_out.softmax(-1)[:, 1]  # (256,): the trained blind model, on the held-out images
print(
    f"  the trained blind model's probability of 'scrambled' on the 256 held-out images: "
    f"{p_scrambled.min():.4f} to {p_scrambled.max():.4f}"
)
curve = torch.tensor(runs["learned"].losses)  # (steps,)
jump = int(curve.diff().argmax()) + 1
back = jump + int((curve[jump:] < 0.5).int().argmax())
print(f"learned: after its jump at step {jump}, first batch loss below 0.5 at step {back}")

# %%
share = float(scrambled[k]) / defaults.batch_size
assert abs(share - 0.5) >= 0.1  # the lowest batch is lopsided
assert label_entropy(share) - 1e-3 <= blind[k] < math.log(2)  # between a constant output's floor and ln 2
assert 0.5 <= pairs.mean() <= 1.5  # about one complete pair per batch
assert p_scrambled.max() - p_scrambled.min() < 0.01  # the blind model's output hardly depends on the image
print(
    f"the blind run's lowest batch has {share:.2f} of its images scrambled; its loss lies between a constant "
    f"output's floor ({label_entropy(share):.3f}) and ln 2"
)

# %% [markdown]
# Why the blind run dips: a batch draws images, not pairs. A batch of whole pairs always holds as many intact
# images as scrambled ones, and on it the blind model's best is ln 2. A batch of unpaired images can be lopsided.
# The trained blind model gives almost the same output for every image (its range is printed above). For such a
# constant output the lowest loss on a batch is the *entropy* of the label share,
# $-(s \ln s + (1 - s) \ln (1 - s))$ for a share $s$ of scrambled images, below ln 2 whenever $s \ne 1/2$. So
# the loss depends on the batch's labels: an output leaning mildly towards the batch's majority label scores
# below ln 2, one leaning the other way above. The printout shows the run's lowest batch: lopsided, its loss
# between that floor and ln 2. In the run stored here it is also the most lopsided batch, with no complete pair,
# and the next batch, lopsided the other way, gives the run's largest rise. Memorising single images, Exercise
# 1(b)'s bound, played no part: the blind model's output hardly moves from image to image.

# %% [markdown]
# In the run stored here the learned run's jump sent its batch loss back up to the chance line or above, and it
# took some steps (printed above) to recover. From one seed that says nothing about which table is better:
# another seed may jump elsewhere or not at all.

# %% [markdown]
# ## 2. Moving the seams (16 min)
#
# A scramble's **seams** are the borders between its shuffled blocks: the lines where the picture jumps from one
# place of the scene to another. With 20 × 20 blocks they lie exactly on the borders of the ViT's patches.

# %% [markdown]
# ### Exercise 3 (predict)
#
# Keep the ViT's 20 × 20 patches, but let the scramble shuffle **10 × 10**
# blocks instead. Which is true? Answer with a letter, and with the number, i to iv, of the reason that makes it
# true.
#
# - (a) Nothing changes: the model without positions stays at exactly 0.5.
# - (b) The model without positions can now beat chance.
# - (c) Every model is now at chance: the blocks are smaller than a patch.
# - (d) Only models with a position embedding can still learn the task.
#
# Reasons:
#
# - (i) A 20 × 20 patch of the scrambled image joins four 10 × 10 pieces from different places of the scene,
#   so, in general, its token is none of the intact image's tokens.
# - (ii) The patch embedding is linear, so a patch's token is the sum of its four quarters' contributions,
#   whatever their order.
# - (iii) A scramble of 60 blocks reorders the image far more thoroughly than a scramble of 15, and attention
#   notices a large enough reordering.
# - (iv) A 10 × 10 block is smaller than a patch, so the patch embedding averages each block away and the two
#   images' tokens become alike.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "seam_blocks_choice-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_seams = None  # replace None with "a", "b", "c" or "d"
answer_seams_reason = None  # replace None with "i", "ii", "iii" or "iv"
### BEGIN SOLUTION
# A patch of a 10 x 10 scramble holds four blocks from different places: a token the intact image does not
# have. The two images' tokens are no longer one bag (multiset) in two orders, so the blind model's outputs can
# differ. (ii) is half true: the embedding is linear, so a token is the sum of its quarters' contributions, but
# the four quarters come from four different intact patches, and each pixel's weight depends on where it sits in
# the patch. So the sum is, in general, none of the intact image's tokens. (iii) would let attention see order,
# which section 1 ruled out; (iv) no weights average a block away.
answer_seams = "b"
answer_seams_reason = "i"
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "seam_blocks_choice-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.seam_blocks_choice(answer_seams)
check.seam_blocks_reason(answer_seams_reason)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "seam_blocks_choice-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.seam_blocks_choice, answer_seams)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "seam_blocks_reason-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.seam_blocks_reason, answer_seams_reason)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 3

# %% [markdown]
# With 20 × 20 blocks every patch of the scramble is a whole patch of the intact picture, moved. With 10 × 10
# blocks a patch joins four blocks from different places: the seams lie *inside* the patches. The cell under the
# figure counts the scramble's patches that are also patches of the intact picture.

# %% mystnb={"image": {"alt": "The course picture with a cyan grid of 15 patches, 3 rows by 5 columns; beside it the picture with its 20 by 20 blocks shuffled, whole patches moved, and with its 10 by 10 blocks shuffled, every patch a mosaic of four pieces, the 10 by 10 seams drawn in magenta"}}
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
plots.draw_patch_grid(axes[2], 60, 100, 10, numbers=False, color="magenta")  # the 10 x 10 seams
plots.draw_patch_grid(axes[2], 60, 100, 20, numbers=False, color="cyan")  # patch borders drawn on top
fig.colorbar(axes[0].images[0], ax=axes, fraction=0.02, pad=0.01, label="brightness (0 to 1)")
fig.suptitle(
    "the course picture and two scrambles; cyan: the ViT's 20 x 20 patch grid; magenta: 10 x 10 seams"
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
# of section 1, then train a ViT without positions on 10 × 10 scrambles: 60 steps of 32 images, 10 of warm-up.

# %%
with torch.no_grad():
    out_10 = runs["none"].model(held_out_10.images.to(device)).cpu()  # (256, 2)
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
    f"ViT without positions, trained on 10 x 10 scrambles ({seams.steps} steps of {seams.batch_size} images): "
    f"held-out accuracy {seam_run.metrics['accuracy']:.3f}"
)

# %%
assert seam_run.metrics["accuracy"] >= 0.75
print("the ViT without positions beats chance on 10 x 10 scrambles (held-out accuracy at least 0.75)")

# %% [markdown]
# Here the patch tokens themselves change, so no position is needed to tell the two images apart. This run's
# task (10 × 10 blocks) and settings (60 steps of 32, 10 of warm-up) differ from the runs above, so its accuracy
# is not a comparison with them. What it reads in the tokens, the seams or something else, is not tested here.

# %% [markdown]
# ## Summary
#
# - Without a position embedding a ViT sees a scene's patches as a bag, and a scrambled scene has the same bag: it
#   gives both the same output, so it gets exactly one image of every scene right. Its held-out accuracy is
#   exactly chance, not chance on average, and its held-out loss at least ln 2. A training batch draws images,
#   not pairs, so its labels can be lopsided: leaning towards its majority label, the blind model scores below
#   ln 2 on it.
# - With the sinusoidal or the learned table the same ViT learns the task in this run. Which of the two did
#   better is one seed's result, not a ranking.
# - Section 2 moves the seams inside the patches and asks what a ViT without positions can then do; its answer,
#   and the run that shows it, are under "After Exercise 3".
#
# Next: notebook 12 looks at what a trained position table holds, and carries it to another image size. To train
# for longer, see [the commands](#Evidence:-longer-runs-from-the-command-line).

# %% [markdown]
# ## Evidence: position embeddings in the ViT paper
#
# Section 1 cites the ViT paper's Appendix D.4, Table 8: a ViT-B/16 pre-trained on a larger data set, then
# evaluated on ImageNet by 5-shot linear evaluation, the few-shot linear probe of Section 1. The kinds of position
# embedding (1-D, 2-D, relative) differed little from each other. The model without one scored about 0.61
# against about 0.64; the paper calls that a large gap, yet it is far above chance (1 in 1000).

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
# width. That is a regression task, with a one-output head like the article series' model.
# `--scramble-block` sets the block side (default: the patch size). `--save` writes the weights and settings;
# `vitcourse.train.load_checkpoint` reads them back with `torch.load(..., weights_only=True)`.
