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
# # 10 · Training a ViT
#
# **Time:** about 56 minutes
#
# Before this: notebook 07 (the whole ViT). Notebooks 11 to 14 use every word this one teaches.
#
# Until now every model had random weights, and its output meant nothing. **Training** changes the weights, step
# by step, until the outputs answer a task. Here we set up the data, the loss and the loop that trains a small ViT
# from scratch, and write that loop in plain PyTorch. This notebook is where the course teaches its training
# words: the later notebooks use them, mostly without explaining them again.
#
# By the end you can
# 1. say what a training run sees: a fixed pool of scenes, batches, steps × batch samples, epochs, a held-out set,
#    and a seed that makes the run repeat;
# 2. compute the cross-entropy loss from the probability a model gives the right label, tell a training loss
#    from a held-out loss, and say why guessing costs ln 2;
# 3. say what AdamW and weight decay do, and which tensors weight decay should leave alone;
# 4. write the body of the training loop, train a small ViT for 200 steps, and find a bug in a learning-rate
#    schedule;
# 5. say in a sentence each what pre-training, fine-tuning and a teacher are.
#
# What follows each exercise sits under a heading "After Exercise N", folded in your copy: click it to open it
# once you have answered.
#
# **What is reproducible.** Every run is seeded, but its rounding depends on the hardware and the PyTorch build,
# so trained numbers may differ a little on another machine. "In the run stored here" marks one run's details:
# the course's reference run, whose outputs `notebooks/` stores (your copy shows your own run). Where the text
# relies on a trained number, a cell checks it with a margin.

# %%
import math

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F

import vitcourse
from vitcourse import check, plots, scenes, train

torch.manual_seed(0)
device = vitcourse.get_device()
defaults = train.TrainConfig(device=device)  # the settings of every run below unless a cell says otherwise

# %% [markdown]
# ## 1. The data: a fixed pool of scenes (7 min)
#
# `vitcourse.scenes` draws scenes of the picture's world with random parameters: the moon, the mountain, the
# ridges, the sky band. The task is about *where* things are: **is the scene intact, or are its 20 × 20 blocks
# scrambled?** Every scene appears twice, intact (label 0) and scrambled (label 1). The block side is 20, the
# ViT's patch size, unless a cell says otherwise.
#
# A run trains in **steps**. Each step takes a **batch** of B = 64 images here (some runs of later notebooks use
# other batch sizes), computes how wrong the model is on them, and changes the weights a little. So a run of
# T steps sees **T × B samples**, "steps × batch": one number to compare when two runs use different batch sizes.
#
# The images come from a **fixed pool** of 1024 scenes, drawn once: 2048 images. Every batch samples that pool
# **with replacement**, so an image can come twice in a run, or never. A run's samples divided by the pool's size
# count its **epochs**. Elsewhere an epoch usually means one pass over every image; here, where batches sample
# with replacement, the word names only the count: one epoch is as many samples as the pool holds. The
# **held-out set** that measures the model holds 128 other scenes, each intact and scrambled: images the model
# never trains on, so a good score there cannot come from remembering them.
#
# A **seed** is the number a random generator starts from: the same seed gives the same draws. The pool, the
# held-out set and each run have their own; a run's seed fixes its starting weights and batch order. One seed is
# one run, not an average: train again with other seeds to see how much is luck.

# %%
# train_scenes counts images: 2048 images, 1024 scenes
pool = scenes.scene_pool(task=defaults.task, size=defaults.train_scenes, seed=1, block=defaults.block)
samples = defaults.steps * defaults.batch_size
print(
    f"training pool: {len(pool.targets)} images ({len(pool.targets) // 2} scenes, each intact and scrambled)"
)
draws = torch.Generator().manual_seed(defaults.seed)  # the batch order of a run, as train.train draws it
drawn = torch.cat(
    [torch.randint(len(pool.targets), (defaults.batch_size,), generator=draws) for _ in range(defaults.steps)]
)
times = torch.bincount(drawn, minlength=len(pool.targets))  # (2048,): how often each pool image is drawn
print(
    f"one run: {defaults.steps} steps x {defaults.batch_size} images = {samples:,} samples "
    f"= {samples / len(pool.targets):.2f} epochs of the pool"
)
print(
    f"seed {defaults.seed}'s batches: each pool image drawn {times.min()} to {times.max()} times; "
    f"{(times == 0).sum()} of {len(times)} never"
)
held_out = scenes.make_batch("scramble", size=256, seed=10_000, block=defaults.block)  # train.evaluate's set
print(
    f"held-out set: {len(held_out.targets)} images ({len(held_out.targets) // 2} scenes, each intact and scrambled)"
)
in_pool = {img.numpy().tobytes() for img in pool.images}
overlap = sum(img.numpy().tobytes() in in_pool for img in held_out.images)
print(f"held-out images that are also in the training pool: {overlap}")
assert overlap == 0

# %% [markdown]
# Four scenes, intact and scrambled. Look along the rows and columns at multiples of 20 pixels: there a scrambled
# scene often breaks (not where two blocks of plain sky meet), where an intact one runs on.

# %% mystnb={"image": {"alt": "Four generated scenes, each shown intact and with its 20 by 20 blocks scrambled: a moon, a mountain and ridges, then the same pieces shuffled into a patchwork"}}
examples = scenes.make_batch("scramble", 8, seed=0)
print(f"images {tuple(examples.images.shape)}, labels {examples.targets.tolist()}")
fig, axes = plt.subplots(2, 4, figsize=(14, 5.4), layout="constrained")
for i, ax in enumerate(axes.flat):
    j = i // 2 + (4 if i % 2 else 0)  # scene i // 2, intact then scrambled
    plots.show_picture(
        examples.images[j, 0],
        ax=ax,
        title=f"scene {i // 2}: {'scrambled' if examples.targets[j] else 'intact'}",
        colorbar=False,
    )
    ax.set_xticks(range(0, 101, 20))
    ax.set_yticks(range(0, 61, 20))
for ax in axes[0]:
    ax.set_xlabel("")  # the bottom row's labels name the same pixel columns
fig.colorbar(axes[0, 0].images[0], ax=axes, fraction=0.02, pad=0.01, label="brightness (0 to 1)")
fig.suptitle(
    "four scenes drawn like the training ones: each intact (label 0) and with its 20 x 20 blocks scrambled (label 1)"
)
plt.show()

# %% [markdown]
# ## 2. The loss: cross-entropy, and ln 2 for a guess (12 min)
#
# The model is the small ViT of notebooks 06 and 07: tokens of width D = 64, 2 encoder blocks (block 0 and
# block 1), 4 heads, with an **MLP ratio of 2** in place of 4. So each block's MLP has a hidden layer of 2D = 128 units, where
# ViT-Base uses 4D. The next cell prints such a ViT, with the fixed sinusoidal position table of notebook 03 (the
# runs below use a learned one).

# %%
sinusoidal_vit = train.build_model(train.TrainConfig(pos_embed="sinusoidal"))
print(sinusoidal_vit)
for name in ("cls_token", "pos_embed"):
    tensor = getattr(sinusoidal_vit, name)
    print(f"{name}: shape {tuple(tensor.shape)}, trains (requires_grad): {tensor.requires_grad}")
print(
    f"MLP ratio: {defaults.mlp_ratio:g} (hidden layer {sinusoidal_vit.blocks[0].mlp.fc1.out_features} wide)"
)

# %% [markdown]
# The model gives two scores z, its **logits**, per image. Softmax turns them into probabilities. The
# **cross-entropy loss** of a batch is the mean negative log-probability the model gives the right label y:
#
# $$\mathcal L = -\frac1B\sum_{b=0}^{B-1}\log\frac{e^{z_{b,y_b}}}{e^{z_{b,0}} + e^{z_{b,1}}}.$$
#
# ($\mathcal L$ is the loss, not the number of blocks L of notebook 00's sheet.) It tends to 0 as the right label's probability tends to 1 and grows without bound for a confident wrong one. Here log is the
# natural logarithm, ln, as in PyTorch's `F.cross_entropy`; every log in the course's losses is natural.
#
# A model that gives both labels probability 1/2 pays −ln(1/2) = **ln 2** on every image: the loss of guessing.
# An untrained model is close to that. Two names for one formula: the **training loss** is the loss of the batch
# a step trains on; the **held-out loss** is the same mean over the held-out set. The **held-out accuracy** is the
# share of held-out images whose larger logit is the right label: 0.5 for a guess. The next cell computes the
# held-out loss of an untrained ViT, by hand and with PyTorch. From here on every run uses the default settings,
# `defaults`, whose ViT has a learned position table (notebook 03) in place of the sinusoidal one printed above.

# %%
untrained = train.build_model(defaults).to(device).eval()
with torch.no_grad():
    logits = untrained(held_out.images.to(device)).cpu()  # (256, 2)
probs = logits.softmax(-1)  # (256, 2): each row sums to 1
by_hand = -probs[torch.arange(len(logits)), held_out.targets].log().mean()
print(f"logits {tuple(logits.shape)}; untrained model, image 0: probabilities {probs[0].numpy().round(2)}")
print(
    f"held-out loss by hand: {by_hand:.3f}; F.cross_entropy: {F.cross_entropy(logits, held_out.targets):.3f}"
)
print(f"ln 2 = {math.log(2):.3f}, the loss of a model that gives each label 1/2")
assert torch.isclose(by_hand, F.cross_entropy(logits, held_out.targets))

# %% [markdown]
# Accuracy counts only which logit is the larger; the loss also counts how sure the model is of the right label.

# %% [markdown]
# ## 3. The optimiser: AdamW and weight decay (10 min)
#
# `loss.backward()` adds the gradient of the loss to `θ.grad` for every parameter θ, and `optimiser.step()`
# moves every parameter the optimiser holds. The **optimiser** decides how far. Ours is **AdamW**. With learning rate η_t at step t
# and weight decay λ it updates
#
# $$\theta \leftarrow \theta - \eta_t\left(\frac{\hat m}{\sqrt{\hat v} + \epsilon} + \lambda\,\theta\right).$$
#
# m̂, the **momentum**, and v̂ are running averages of the gradient and of its square (β1 and β2, printed after
# Exercise 1, set how fast they forget), corrected for their start at 0. So each entry's step is divided by the
# typical size of its own recent gradients; ε keeps the division finite. The term λθ is the **weight decay**: it
# pulls each entry a little towards 0 at every step, which keeps weights from growing large. The W of AdamW says
# the decay is added to the step directly; Adam with an L2 penalty (λ‖θ‖²/2 added to the loss, whose gradient
# is λθ) would divide it by √v̂ like a gradient.

# %% [markdown]
# ### Exercise 1 (explain)
#
# Weight decay keeps a model simple by stopping its weights from growing large. For
# some tensors, though, a pull towards 0 makes the model no simpler, or works against what they do. Which of these tensors of the
# ViT above should AdamW pull towards 0? Answer with their letters, such as `"bd"`.
#
# - (a) `patch_embed.proj.weight`, the matrix that projects a patch to a token;
# - (b) `blocks.0.attn.qkv.bias`, the bias of the query, key and value projection;
# - (c) `blocks.0.norm1.weight`, a LayerNorm's scale;
# - (d) `blocks.0.mlp.fc1.weight`, the first matrix of the MLP;
# - (e) `pos_embed`, the position table of the ViT printed above.
#
# Then say which statement about (c), a LayerNorm scale, is true:
#
# - (i) Its neutral value is 1, not 0: a pull towards 0 pulls it away from passing the features on unchanged.
# - (ii) It is a weight like the others: decaying it keeps the model simple.
# - (iii) LayerNorm divides by the standard deviation after the scale, which undoes any pull.
# - (iv) A LayerNorm scale receives no gradient, so AdamW never updates it.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "decay_choice-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_decay = None  # replace None with a string of letters, such as "bd"
answer_decay_reason = None  # replace None with "i", "ii", "iii" or "iv"
### BEGIN SOLUTION
# Only the weight matrices, (a) and (d), multiply their input; a pull towards 0 keeps their entries small. A
# bias (b) adds a constant to one output whatever the input, so shrinking it makes the model no simpler (timm
# leaves biases undecayed). A LayerNorm scale (c) is neutral at 1; the sinusoidal table (e) does not train
# (requires_grad False above), so no optimiser group holds it.
answer_decay = "ad"
answer_decay_reason = "i"  # scale 1 passes the normalised features on; scale 0 would erase them
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "decay_choice-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.decay_choice(answer_decay)
check.decay_reason(answer_decay_reason)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "decay_choice-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.decay_choice, answer_decay)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "decay_reason-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.decay_reason, answer_decay_reason)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 1

# %% [markdown]
# A weight matrix multiplies its input: small entries make each output follow the input less. A bias only adds
# a constant to one output, whatever the input, so shrinking it does not make the outputs follow the input less.
#
# `train.param_groups` follows timm's rule. Every parameter with fewer than 2 dims, the biases and LayerNorm
# scales and shifts, goes into a group with λ = 0. So do the names in `model.no_weight_decay()`: the prediction
# token and the position embedding. Leaving those two out is timm's and DeiT's convention, not a rule that
# follows from their shape. A parameter that does not train goes into neither group. The pull is gentle: each
# step shrinks a decayed entry by the factor 1 − η_t λ; the cell prints that factor at the peak rate and what
# all the run's steps multiply to.

# %%
# the groups of the sinusoidal ViT printed above, whose table does not train
adamw, _ = train.make_optimiser(sinusoidal_vit, defaults)
decayed, not_decayed = adamw.param_groups
names = {id(p): name for name, p in sinusoidal_vit.named_parameters()}
print(f"no_weight_decay(): {sorted(sinusoidal_vit.no_weight_decay())}")
print(f"weight decay {decayed['weight_decay']}: {len(decayed['params'])} tensors:")
print(", ".join(names[id(p)] for p in decayed["params"]))
print(f"weight decay {not_decayed['weight_decay']}: {len(not_decayed['params'])} tensors:")
print(", ".join(names[id(p)] for p in not_decayed["params"]))
in_groups = {id(p) for group in adamw.param_groups for p in group["params"]}
print(f"in neither group: {[n for n, p in sinusoidal_vit.named_parameters() if id(p) not in in_groups]}")
learned_groups = train.make_optimiser(untrained, defaults)[0].param_groups  # the default ViT: learned table
no_decay = {id(p) for p in learned_groups[1]["params"]}
print(
    f"default ViT (learned table, trains): {len(no_decay)} tensors without decay; "
    f"pos_embed among them: {id(untrained.pos_embed) in no_decay}"
)
beta1, beta2 = adamw.defaults["betas"]
print(
    f"AdamW: beta1 {beta1}, beta2 {beta2}, eps {adamw.defaults['eps']:.0e}; runs below: seed {defaults.seed}, "
    f"warm-up {defaults.warmup} steps, peak learning rate {defaults.lr}, weight decay {defaults.weight_decay}"
)
shrink = math.prod(
    1 - defaults.lr * train.lr_factor(k, defaults.warmup, defaults.steps) * defaults.weight_decay
    for k in range(defaults.steps)
)
print(
    f"eta * lambda at the peak: {defaults.lr * defaults.weight_decay:.0e} per step (factor "
    f"{1 - defaults.lr * defaults.weight_decay:.5f}); decay alone over "
    f"{defaults.steps} steps shrinks an entry by {1 - shrink:.1%}"
)

# %% [markdown]
# ## 4. The schedule and the loop (22 min)
#
# The learning rate follows a **schedule**: a linear **warm-up** over the first T_w steps, the common practice
# for transformers (ViT and DeiT both warm up), then a **cosine decay** over the T − T_w steps left:
#
# $$\eta_t = \eta_{\max}\,\frac{t + 1}{T_w}\ \ (t < T_w), \qquad
#   \eta_t = \eta_{\max}\,\tfrac12\left(1 + \cos\frac{\pi\,(t - T_w)}{T - T_w}\right)\ \ (t \ge T_w).$$
#
# The warm-up keeps the first steps small while v̂ still averages only a few squared gradients, a poor estimate
# of their typical size; the decay makes the last steps small, so that one batch moves the weights less as the
# run ends.
#
# Steps count from 0; the +1 gives step 0 a small rate instead of none. The rate would reach 0 at t = T, where the
# cosine's angle reaches π, one step after the last step, T − 1. So the last step still uses a small rate.
#
# A step of the loop uses these pieces of PyTorch, listed here in no particular order:
#
# - `scheduler.step()`, where `scheduler = LambdaLR(optimiser, lr_factor)` scales the optimiser's `lr=` by
#   `lr_factor(t)` at step t: it moves the schedule on by one step;
# - `loss.backward()`, which adds the gradients of `loss` to those already in `θ.grad`;
# - `F.cross_entropy(logits, labels)`, the mean loss of a batch;
# - `optimiser.step()`, the AdamW step;
# - `optimiser.zero_grad(set_to_none=True)`, which empties every `θ.grad`.

# %% [markdown]
# ### Exercise 2 (code)
#
# Write `train_step(model, optimiser, scheduler, images, labels)`: one step of the loop, returning the batch's
# training loss as a float (`loss.item()`). The check runs it as the body of a short loop and compares every loss
# with that of a right step on the same batches.


# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "train_step-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
def train_step(model, optimiser, scheduler, images, labels):
    """One training step on a batch; returns its training loss as a float."""
    ### BEGIN SOLUTION
    loss = F.cross_entropy(model(images), labels)
    optimiser.zero_grad(set_to_none=True)  # before backward(), which adds to the gradients
    loss.backward()
    optimiser.step()
    scheduler.step()
    return loss.item()
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "train_step-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.train_step(train_step)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "train_step-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.train_step, train_step)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 2

# %% [markdown]
# `vitcourse.train.train` runs this step in a loop, after `model.train()`, the switch to training mode (it matters
# for layers that act differently while training; this ViT has none). The whole loop written out and compared with
# it: [the loop by hand](#Evidence:-the-loop-by-hand), with a separate 20-step run (its own schedule) that ends
# still guessing.

# %% [markdown]
# ### The default run's training loss

# %% [markdown]
# The default run takes 200 steps; its warm-up takes steps 0 to 14 (the dotted line marks step 15, the first after
# it). Before you run the next cell:
# does the training loss leave the ln 2 line when the warm-up ends?

# %% mystnb={"image": {"alt": "Training loss against step for a 200-step run: near the dashed ln 2 line long after the dotted end of the warm-up, then a drop below the dash-dotted 0.6 line, a spike cut off at the top of the plot with an arrow giving its peak, a second stretch near ln 2, and a final fall to about 0.2"}}
# NBVAL_IGNORE_OUTPUT
run = train.train(defaults, progress=False)
curve = torch.tensor(run.losses)  # (200,): the training loss of each step
first_drop = int((curve < 0.6).nonzero()[0])  # the first step below 0.6
below_for_good = next(t for t in range(defaults.steps) if curve[t:].max() < 0.6)
spike = first_drop + int(curve[first_drop:].argmax())  # the highest loss after the first drop
fig, ax = plt.subplots(figsize=(9, 3.6), layout="constrained")
ax.plot(run.losses, color="tab:blue", label="training loss (each step's batch)")
ax.axhline(math.log(2), color="grey", ls="--", label="ln 2, the loss of a guess")
ax.axhline(0.6, color="tab:green", ls="-.", lw=1, label="0.6, the level the printout below uses")
ax.axvline(
    defaults.warmup, color="grey", ls=":", label=f"step {defaults.warmup}: first step after the warm-up"
)
top = 1.2  # the plot's top edge: a higher loss is cut off there
ax.set_ylim(0, top)
if curve[spike] > top:  # point at the cut-off spike and give its peak
    ax.annotate(
        f"cut off: peaks at {curve[spike]:.2f} (step {spike})",
        xy=(spike, top),
        xytext=(spike + 8, top - 0.15),
        arrowprops={"arrowstyle": "->"},
        fontsize=8,
        va="center",
    )
ax.set_xlabel("training step")
ax.set_ylabel("loss")
ax.set_title(
    f"{defaults.steps} steps: held-out loss {run.metrics['loss']:.2f}, accuracy {run.metrics['accuracy']:.2f}"
)
fig.legend(fontsize=8, loc="outside lower center", ncols=2)
plt.show()
print(f"training loss: step 0 {curve[0]:.2f}; first below 0.6 at step {first_drop}")
print(
    f"highest loss after that: {curve[spike]:.2f} at step {spike}; below 0.6 for good from step {below_for_good}"
)
print(
    f"last step {curve[-1]:.2f}; held-out: loss {run.metrics['loss']:.2f}, accuracy {run.metrics['accuracy']:.2f}"
)

# %%
assert first_drop > defaults.warmup  # the plateau outlasts the warm-up
assert run.metrics["accuracy"] > 0.8 and run.metrics["loss"] < 0.5  # far better than a guess (0.5, ln 2)

# %% [markdown]
# No: the loss is still near ln 2 when the warm-up ends and first drops below 0.6 only later (the cell after the
# figure checks this). In the run stored here it waits some 45 steps past the warm-up, and a spike follows the
# drop: for several steps in a row the loss climbs far above ln 2, then it comes back, sits near ln 2 again for a
# while and falls for good. The held-out accuracy shows the model has learned the task, not only its pool.
#
# A likely reason for the wait: a scramble of 20 × 20 blocks only reorders the patch tokens (notebook 03), so the
# model can tell the two images apart only through its position table, which starts as small random numbers and
# has to grow into something the blocks can read. Notebook 11 takes the table away to show it is needed.
# One seed's curve shows one path; whether a long plateau or a spike is typical of these settings or luck of this
# seed takes runs with other seeds to tell.

# %% [markdown]
# ### Exercise 3 (find the bug)
#
# A colleague wrote the schedule of a 200-step run with a 15-step warm-up as the function below. Its lines are
# numbered in comments, from 0. Without running it: which line holds the bug? And at which step does its learning
# rate first reach 0?


# %%
def buggy_lr_factor(step: int, warmup: int = 15, steps: int = 200) -> float:
    """A learning-rate schedule with one bug in it."""
    if step < warmup:  # line 0
        return (step + 1) / warmup  # line 1
    progress = step / (steps - warmup)  # line 2
    return 0.5 * (1 + math.cos(math.pi * progress))  # line 3


# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "schedule_bug-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_bug_line = None  # replace None with the line number, 0 to 3
answer_zero_step = None  # replace None with a step number
### BEGIN SOLUTION
# The cosine's clock must start when the warm-up ends: progress = (step - warmup) / (steps - warmup).
# Line 2 forgets to subtract the warm-up, so its progress reaches 1 at step steps - warmup = 185, before the end:
# there the cosine is -1 and the rate 0; after it the cosine climbs back and so does the rate.
answer_bug_line = 2
answer_zero_step = 185
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "schedule_bug-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.schedule_bug_line(answer_bug_line)
check.schedule_zero_step(answer_zero_step)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "schedule_bug_line-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.schedule_bug_line, answer_bug_line)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "schedule_zero_step-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.schedule_zero_step, answer_zero_step)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 3

# %% [markdown]
# The figure draws the schedule of the formula, which every run in notebook 11 uses, and the buggy one. The
# right panel zooms into the last steps, where the two differ: look for the step where the buggy rate touches 0.

# %% mystnb={"image": {"alt": "Learning rate against training step: both schedules climb over 15 warm-up steps to the peak; the right one then falls smoothly to near 0 at step 199, the buggy one reaches 0 before the end and climbs again"}}
right_rates = [
    defaults.lr * train.lr_factor(k, defaults.warmup, defaults.steps) for k in range(defaults.steps)
]
buggy_rates = [defaults.lr * buggy_lr_factor(k) for k in range(defaults.steps)]
fig, (ax, zoom) = plt.subplots(1, 2, figsize=(13, 3.2), layout="constrained", width_ratios=(2, 1))
for panel in (ax, zoom):
    plots.show_learning_rate(right_rates, defaults.warmup, ax=panel, title="")
    panel.plot(buggy_rates, color="tab:red", ls="--", label="buggy_lr_factor")
    panel.lines[0].set_label("the formula")
    panel.legend(fontsize=8)
ax.set_title("learning rate: warm-up, then cosine decay (dotted: first cosine step)")
zoom.set_xlim(160, defaults.steps - 1)
zoom.set_ylim(0, 3e-5)
zoom.set_title(f"steps 160 to {defaults.steps - 1}, zoomed")
plt.show()
zero = min(range(defaults.steps), key=lambda k: buggy_rates[k])
print(
    f"buggy schedule: lowest rate {buggy_rates[zero]:.1e} at step {zero}, then up to {buggy_rates[-1]:.1e} at "
    f"step {defaults.steps - 1}; the formula's last rate: {right_rates[-1]:.1e}"
)
assert zero < defaults.steps - 1 and buggy_rates[-1] > buggy_rates[zero]

# %% [markdown]
# ## 5. Words the later notebooks use (3 min)
#
# Every run in notebooks 10 and 11 trains **from scratch**: its weights start random, drawn from its seed. Three
# more words name other ways to start or to teach a model.
#
# - **Pre-training**: training first on a large data set or another task, so that later training starts from
#   useful weights.
# - **Fine-tuning**: training a pre-trained model a little longer on the task that matters
#   (`train.TrainConfig(start_from=...)` in the package).
# - **A teacher**: a trained model whose predictions a second model, the student, learns to match
#   (**distillation**).
#
# Notebook 12 fine-tunes a model at a larger image size, notebook 13 looks at what pre-training by hidden patches
# changes, and notebook 14 compares a ViT that learns from a teacher with one that does not.

# %% [markdown]
# ## Summary
#
# - A run takes steps; each step trains on a batch of images sampled from a fixed pool, so a run sees
#   steps × batch samples. The held-out set, never trained on, measures the model. A seed fixes a run's starting
#   weights and batch order; one seed is one run.
# - The cross-entropy loss is the mean negative log-probability of the right label. A guess costs ln 2 ≈ 0.693
#   on two labels; only certainty of the right label costs 0, so the loss can keep falling while the accuracy
#   stays the same. The training loss is measured on a step's batch, the held-out loss on the held-out set.
# - A training step is a handful of lines: loss, zero_grad, backward, AdamW step, schedule step; 200 of them take
#   the default ViT from the loss of a guess, ln 2, to a held-out accuracy far above 0.5, though not at once: the
#   loss is still near ln 2 when the warm-up ends. Weight decay pulls entries towards 0, and not every tensor
#   should take it; the learning rate warms up, then follows a cosine towards 0.
# - Pre-training, fine-tuning and a teacher are other starts and other targets for the same loop.
#
# Next: notebook 11 trains this ViT for 200 steps, with and without position embeddings, and moves the block borders
# the scramble cuts along.


# %% [markdown]
# ## Evidence: the loop by hand
#
# Here is the whole loop for 20 steps, with the step written out. It holds the answer to Exercise 2, so its
# code opens folded: unfold it (the "..." below) once you have tried. `vitcourse.train.train` runs the same loop, with a few extras (it records the learning
# rates, and other tasks' losses); at these settings it gives the same losses, as the cell checks.
# `model.train()` switches the model to training mode, which matters for layers that act differently while
# training; this small ViT has none, but the habit keeps a loop right for models that do.

# %% jupyter={"source_hidden": true} tags=["answer-inside"]
config = train.TrainConfig(steps=20, device=device)
model = train.build_model(config).to(device)
optimiser = torch.optim.AdamW(train.param_groups(model, config.weight_decay), lr=config.lr)


def lr_factor(step: int) -> float:
    """The learning rate at ``step`` as a fraction of the peak (the formula above, T_w = warmup, T = steps)."""
    if step < config.warmup:
        return (step + 1) / config.warmup  # linear warm-up
    return 0.5 * (1 + math.cos(math.pi * (step - config.warmup) / (config.steps - config.warmup)))


scheduler = torch.optim.lr_scheduler.LambdaLR(optimiser, lr_factor)
images_pool, labels_pool = pool.images.to(device), pool.targets.to(device)  # (2048, 1, 60, 100), (2048,)
order = torch.Generator().manual_seed(config.seed)  # the batch order of this run
losses_by_hand = []  # the training loss of every step
model.train()
for _step in range(config.steps):
    index = torch.randint(len(labels_pool), (config.batch_size,), generator=order).to(device)
    loss = F.cross_entropy(model(images_pool[index]), labels_pool[index])
    optimiser.zero_grad(set_to_none=True)
    loss.backward()
    optimiser.step()
    scheduler.step()
    losses_by_hand.append(loss.item())
same_run = train.train(config, progress=False)
same = torch.allclose(torch.tensor(losses_by_hand), torch.tensor(same_run.losses), atol=1e-4)
same_schedule = all(
    math.isclose(lr_factor(k), train.lr_factor(k, config.warmup, config.steps)) for k in range(config.steps)
)
print(f"{config.steps} steps by hand and with vitcourse.train.train: same losses (within 1e-4): {same}")
print(f"lr_factor here and train.lr_factor agree at every step: {same_schedule}")
assert same and same_schedule
print(
    f"training loss: step 0 {losses_by_hand[0]:.2f}, step {config.steps - 1} {losses_by_hand[-1]:.2f}; "
    f"held-out loss after {config.steps} steps {same_run.metrics['loss']:.2f}, "
    f"held-out accuracy {same_run.metrics['accuracy']:.2f}; ln 2 = {math.log(2):.2f}"
)
assert abs(same_run.metrics["loss"] - math.log(2)) < 0.02
