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
# **Time:** about 58 minutes
#
# Before this: notebook 07 (the whole ViT). Notebooks 11 to 14 use the words this one teaches.
#
# Until now every model had random weights, and its output meant nothing. **Training** changes the weights, step
# by step, until the outputs answer a task. Here we set up the data, the loss and the loop that trains a small ViT
# from scratch, and write that loop in plain PyTorch.
#
# By the end you can
# 1. say what a training run sees: a fixed pool of scenes, batches, steps × batch samples, epochs, a held-out set,
#    and a seed that makes the run repeat;
# 2. say how the cross-entropy loss follows from the probability a model gives the right label, tell a training
#    loss from a held-out loss, and say why guessing costs ln 2;
# 3. say what gradient descent, the learning rate, AdamW and weight decay do, and which tensors weight decay
#    should leave alone;
# 4. write the body of the training loop, read the training and held-out losses of a 200-step run under three
#    seeds, and find a bug in a learning-rate schedule;
# 5. say in a sentence each what pre-training, fine-tuning and a teacher are.
#
# What follows each exercise sits under a heading "After Exercise N", folded in your copy: click it to open it
# once you have answered.
#
# **What is reproducible.** Every run is seeded, but its rounding depends on the hardware and the PyTorch build,
# so trained numbers may differ a little on another machine. Where the text makes a claim about trained numbers,
# a cell checks it with a margin.

# %%
import copy
import dataclasses
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
# count its **epochs**: here one epoch is as many samples as the pool holds, not one pass over every image. The
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
# ViT-Base uses 4D. Its position table is a learned one (notebook 03): it starts as small random numbers and
# trains with the rest. The next cell prints the ViT that every run below trains, `defaults` unchanged.

# %%
vit = train.build_model(defaults)
print(vit)
for name in ("cls_token", "pos_embed"):
    tensor = getattr(vit, name)
    print(f"{name}: shape {tuple(tensor.shape)}, trains (requires_grad): {tensor.requires_grad}")
print(f"MLP ratio: {defaults.mlp_ratio:g} (hidden layer {vit.blocks[0].mlp.fc1.out_features} wide)")

# %% [markdown]
# The model gives two scores per image b, its **logits** $s_{b,0}$ and $s_{b,1}$ (s for score; bold z stays the
# token state of notebook 06). Softmax turns them into probabilities. The **cross-entropy loss** of a batch is
# the mean negative log-probability the model gives the right label y:
#
# $$\mathcal L = -\frac1B\sum_{b=0}^{B-1}\log\frac{e^{s_{b,y_b}}}{e^{s_{b,0}} + e^{s_{b,1}}}.$$
#
# ($\mathcal L$ is the loss, not the number of blocks L of notebook 00's sheet.) It tends to 0 as the right label's probability tends to 1 and grows without bound for a confident wrong one. Here log is the
# natural logarithm, ln, as in PyTorch's `F.cross_entropy`; every log in the course's losses is natural.
#
# A model that gives both labels probability 1/2 pays −ln(1/2) = **ln 2** on every image: the loss of guessing.
# An untrained model is close to that. Two names for one formula: the **training loss** is the loss of the batch
# a step trains on; the **held-out loss** is the same mean over the held-out set. The **held-out accuracy** is the
# share of held-out images whose larger logit is the right label: 0.5 for a guess. The next cell computes the
# held-out loss of an untrained ViT, by hand and with PyTorch.

# %%
untrained = train.build_model(defaults).to(device).eval()  # evaluation mode; section 4 meets training mode
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
for p_right in (0.6, 0.9, 0.99):  # one image that the model gets right, more and more surely
    print(f"right label given probability {p_right}: counted right; loss -ln p = {-math.log(p_right):.2f}")

# %% [markdown]
# Accuracy counts only which logit is the larger; the loss also counts how sure the model is of the right label.
# The last three lines show it: the same image counts as right each time, while its loss falls from 0.51 to 0.01.

# %% [markdown]
# ## 3. The optimiser: AdamW and weight decay (11 min)
#
# Training moves each parameter θ against its **gradient** ∂ℒ/∂θ, the direction in which the loss grows fastest.
# `loss.backward()` computes the gradients and **adds** them to `θ.grad`, on top of what is already there. The
# simplest rule, **gradient descent**, then steps
#
# $$\theta \leftarrow \theta - \eta\,\frac{\partial \mathcal L}{\partial \theta}.$$
#
# The **learning rate** η sets the size of the step: too small and training crawls, too large and a step
# overshoots. The **optimiser** is the rule; `optimiser.step()` applies it to every parameter it holds.
#
# Ours is **AdamW**. With learning rate η_t at step t and weight decay λ it updates
#
# $$\theta \leftarrow \theta - \eta_t\left(\frac{\hat m}{\sqrt{\hat v} + \epsilon} + \lambda\,\theta\right).$$
#
# m̂ and v̂ are running averages of the gradient and of its square; β1 and β2 (not LayerNorm's shift) set how
# fast they forget. Both averages start at 0, so their first values are too small; the **bias correction**
# divides them by 1 − β1^(t+1) and 1 − β2^(t+1) to undo that. m̂ is also called the **momentum**. So AdamW takes gradient descent's
# step, divided for each entry by the typical size of that entry's recent gradients; ε keeps the division finite.
#
# The term λθ is the **weight decay**: it pulls each entry a little towards 0 at every step, which keeps weights
# from growing large. The W of AdamW stands for this weight decay, added to the step directly ("decoupled").
# Adam with an L2 penalty instead adds λ‖θ‖²/2 to the loss, whose gradient λθ is then divided by √v̂ like any
# gradient. The cell prints the settings of every run below.

# %%
adamw, _ = train.make_optimiser(vit, defaults)
beta1, beta2 = adamw.defaults["betas"]
print(
    f"AdamW: peak learning rate {defaults.lr}, weight decay lambda {defaults.weight_decay}, "
    f"beta1 {beta1}, beta2 {beta2}, eps {adamw.defaults['eps']:.0e}"
)
print(f"run: {defaults.steps} steps of {defaults.batch_size} images, warm-up {defaults.warmup} steps")

# %% [markdown]
# ### Exercise 1 (explain, then predict)
#
# Weight decay pulls every entry towards 0. A tensor should take it only if both of these hold:
# its entries multiply the input, so that smaller entries make the outputs depend on the input less; and 0 is
# its plain setting, the one it would keep if it had nothing to learn.
#
# First, which of these tensors of the ViT printed in section 2 should AdamW pull towards 0? Answer with their
# letters, such as `"bd"`.
#
# - (a) `patch_embed.proj.weight`, the matrix that projects a patch to a token;
# - (b) `blocks.0.attn.qkv.bias`, the bias of the query, key and value projection;
# - (c) `blocks.0.norm1.weight`, a LayerNorm's scale;
# - (d) `blocks.0.mlp.fc1.weight`, the first matrix of the MLP;
# - (e) `pos_embed`, the learned position table, added to the tokens.
#
# Then, decay would pull (e) towards a table of zeros. Predict: if the table were all zeros for a whole run, what
# held-out accuracy could the model reach on this task, however long it trained? Answer with a number from 0
# to 1, and have a reason ready.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "decay_choice-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_decay = None  # replace None with a string of letters, such as "bd"
answer_zero_table_accuracy = None  # replace None with a number from 0 to 1
### BEGIN SOLUTION
# Only the weight matrices, (a) and (d), multiply their input and rest at 0. A bias (b) and the table (e) add,
# whatever the input; a LayerNorm scale (c) multiplies but rests at 1.
answer_decay = "ad"
# With a table of zeros a scene and its scramble give the same tokens in another order, and the prediction
# token's output does not depend on their order (notebook 03): both images get the same label, one of them wrong.
answer_zero_table_accuracy = 0.5
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "decay_choice-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.decay_choice(answer_decay)
check.zero_table_accuracy(answer_zero_table_accuracy)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "decay_choice-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.decay_choice, answer_decay)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "zero_table_accuracy-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.zero_table_accuracy, answer_zero_table_accuracy)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 1

# %% [markdown]
# **The tensors.** A weight matrix multiplies its input and rests at 0. A bias only adds a constant, whatever the input. A
# LayerNorm scale multiplies, but it rests at 1, where it passes the normalised features on unchanged: decay
# would pull it towards erasing them. The position table adds, like a bias, and here it carries the blocks' order.
#
# **The table of zeros.** With it, a scene and its scramble give the same tokens in another order. Notebook 03 showed
# that the prediction token's output then does not change. So the model gives both images of a scene the same
# label and gets exactly one of them right: accuracy 0.5, a guess. [Evidence: a table of
# zeros](#Evidence:-a-table-of-zeros) checks it on a trained model.
#
# `train.param_groups` follows timm's rule. Every parameter with fewer than 2 dims, the biases and LayerNorm
# scales and shifts, goes into a group with λ = 0. So do the names in `model.no_weight_decay()`: the prediction
# token and the position table, by timm's and DeiT's convention. The pull is gentle: each step shrinks a decayed
# entry by the factor 1 − η_t λ, which [Evidence: the parameter groups](#Evidence:-the-parameter-groups)
# prints, with both groups and what a whole run's factors multiply to.

# %% [markdown]
# ## 4. The schedule and the loop (25 min)
#
# The learning rate follows a **schedule**: a linear **warm-up** over the first T_w steps, the common practice
# for transformers (the ViT paper warms up, section 4.1), then a **cosine decay** over the T − T_w steps left:
#
# $$\eta_t = \eta_{\max}\,\frac{t + 1}{T_w}\ \ (t < T_w), \qquad
#   \eta_t = \eta_{\max}\,\tfrac12\left(1 + \cos\frac{\pi\,(t - T_w)}{T - T_w}\right)\ \ (t \ge T_w).$$
#
# One common explanation of the warm-up: it keeps the first steps small while v̂ still averages only a few squared
# gradients, a poor estimate of their typical size. The decay makes the last steps small, so that one batch moves the weights less as the
# run ends.
#
# Steps count from 0; the +1 gives step 0 a small rate instead of none. The rate would reach 0 at t = T, where the
# cosine's angle reaches π, one step after the last step, T − 1. So the last step still uses a small rate.
#
# A step of the loop uses these pieces of PyTorch, listed here in no particular order:
#
# - `scheduler.step()`, where `scheduler = LambdaLR(optimiser, lr_factor)` scales the optimiser's `lr=` by
#   `lr_factor(t)` at step t: it moves the schedule on by one step;
# - `loss.backward()`, which computes the gradients of `loss` (section 3 says where it puts them);
# - `F.cross_entropy(logits, labels)`, the mean loss of a batch;
# - `optimiser.step()`, the AdamW step, which reads `θ.grad`;
# - `optimiser.zero_grad(set_to_none=True)`, which empties every `θ.grad`.

# %% [markdown]
# ### Exercise 2 (code)
#
# (a) Write `train_step(model, optimiser, scheduler, images, labels)`: one step of the loop, returning the batch's
# training loss as a float (`loss.item()`). The check runs it as the body of a short loop and compares every loss
# with that of a right step on the same batches.
#
# (b) Then predict: if a step left out `scheduler.step()`, what learning rate would every step of the 200-step
# run use? Answer with a number (section 3 printed the settings).


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


answer_stuck_lr = None  # (b): replace None with a learning rate
### BEGIN SOLUTION
answer_stuck_lr = 0.001 / 15  # the schedule stays at step 0, whose factor is (0 + 1) / 15
### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "train_step-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.train_step(train_step)
check.stuck_learning_rate(answer_stuck_lr)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "train_step-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.train_step, train_step)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "stuck_learning_rate-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.stuck_learning_rate, answer_stuck_lr)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 2

# %% [markdown]
# (b) `LambdaLR` sets the rate of step 0 when it is made, and only `scheduler.step()` moves it on. Without it
# every step keeps step 0's rate: the peak times (0 + 1)/15, about 6.7e-05, a fifteenth of the peak.
#
# `vitcourse.train.train` runs this step in a loop, after `model.train()`, the switch to training mode (it matters
# for layers that act differently while training; this ViT has none). The whole loop written out and compared with
# it: [the loop by hand](#Evidence:-the-loop-by-hand), with a separate 20-step run (its own schedule) that ends
# still guessing.

# %% [markdown]
# ### Three runs of 200 steps

# %% [markdown]
# The runs below take 200 steps each, with seeds 0, 1 and 2; the warm-up takes steps 0 to 14. After every 10th
# step (steps 9, 19, …, 199) each run also measures its held-out loss and accuracy. Before you run the next two
# cells, predict: does the training loss leave the ln 2 line as soon as the warm-up ends? And do the three seeds
# leave it at about the same step?

# %%
# NBVAL_IGNORE_OUTPUT
# (the tests that rerun this notebook skip comparing this cell's printout: trained numbers vary by machine)
seeds = (0, 1, 2)
runs = {
    seed: train.train(dataclasses.replace(defaults, seed=seed), progress=False, eval_every=10)
    for seed in seeds
}
first_drop = {}  # seed -> the first step whose training loss is below 0.6
for seed, run in runs.items():
    curve = torch.tensor(run.losses)  # (200,): the training loss of each step
    first_drop[seed] = int((curve < 0.6).nonzero()[0])
    peak = int(curve[first_drop[seed] :].argmax()) + first_drop[seed]
    accuracy = [(t, m["accuracy"]) for t, m in run.held_out]  # (step, held-out accuracy after it)
    print(
        f"seed {seed}: first below 0.6 at step {first_drop[seed]}; highest loss after that {curve[peak]:.2f} "
        f"(step {peak}); held-out after step 199: loss {run.metrics['loss']:.2f}, "
        f"accuracy {run.metrics['accuracy']:.2f}"
    )
    print("  held-out accuracy after steps 9, 19, ..., 199:", " ".join(f"{a:.2f}" for _, a in accuracy))
    learned = next((t for t, a in accuracy if a >= 0.9), None)  # first evaluation at 0.9 or more
    lost = next((t for t, a in accuracy if learned is not None and t > learned and a <= 0.6), None)
    if lost is not None:
        again = next((f"step {t}" for t, a in accuracy if t > lost and a >= 0.9), "no step")
        print(
            f"  learned the task by step {learned}, lost it (0.6 or less) after step {lost}, relearned by {again}"
        )
assert all(first_drop[seed] > defaults.warmup for seed in seeds)  # checks a sentence of the text below
assert max(first_drop.values()) - min(first_drop.values()) > 20  # the seeds leave ln 2 at different steps
assert all(run.metrics["accuracy"] > 0.8 and run.metrics["loss"] < 0.5 for run in runs.values())

# %% mystnb={"image": {"alt": "Left, training loss against step for three seeds, thin lines, with each seed's held-out loss every 10 steps as dots in the same colour: all three stay near the dashed ln 2 line past the dotted end of the warm-up, leave it at different steps, and end near 0.2; one seed's loss spikes far above ln 2. Right, held-out accuracy against step: each seed climbs from 0.5 to near 1, and the seed that spiked falls back to 0.5 for a while before it climbs again"}}
colours = dict(zip(seeds, ("tab:blue", "tab:orange", "tab:green"), strict=True))
fig, (ax, right) = plt.subplots(1, 2, figsize=(13, 3.8), layout="constrained", width_ratios=(3, 2))
for seed, colour in colours.items():
    run = runs[seed]
    steps_held = [t for t, _ in run.held_out]
    ax.plot(run.losses, color=colour, lw=0.8, alpha=0.7)
    ax.plot(steps_held, [m["loss"] for _, m in run.held_out], "o-", color=colour, ms=4, lw=1.5)
    right.plot(
        steps_held, [m["accuracy"] for _, m in run.held_out], "o-", color=colour, ms=4, label=f"seed {seed}"
    )
ax.axhline(math.log(2), color="grey", ls="--", label="ln 2, the loss of a guess")
right.axhline(0.5, color="grey", ls="--", label="0.5, a guess")
for panel in (ax, right):
    panel.axvline(
        defaults.warmup, color="grey", ls=":", label=f"step {defaults.warmup}: first after the warm-up"
    )
ax.plot([], [], color="black", lw=0.8, label="training loss (each batch)")
ax.plot([], [], "o-", color="black", ms=4, label="held-out loss (every 10 steps)")
ax.set(
    xlabel="training step", ylabel="loss (cross-entropy)", title="loss: colours are seeds, as on the right"
)
right.set(xlabel="training step", ylabel="held-out accuracy", ylim=(0, 1.02), title="held-out accuracy")
ax.legend(fontsize=8)
right.legend(fontsize=8, loc="lower right")
plt.show()

# %% [markdown]
# Look first at the flat start of the left panel, then at where each seed leaves it, then at the right panel.
#
# No seed's training loss falls below 0.6 during the warm-up: each **plateau**, a stretch where the loss stays flat
# near the loss of a guess, outlasts the warm-up (the runs cell checks it). The seeds leave it at quite different
# steps, so the wait's length is partly luck of the seed, which one run alone could not tell. Recall what the
# model must find: a scramble only reorders the patch tokens, so the model can tell intact from scrambled only
# through its position table (Exercise 1). A likely reason for the wait: the table has to grow from small random
# numbers into something the blocks can read.
# (Notebook 11 shows that the table is needed; it does not time its growth.)
#
# The held-out dots follow the training loss, and every seed's held-out accuracy ends far above 0.5: the model
# has learned the task, not only its pool. The training loss is noisier: each step's batch is only 64 images.
# A training loss that shoots far above ln 2 after its first drop is a **loss spike**. It can cost more than a
# few steps: where the printout adds a "lost it" line, that seed had learned the task, fell back to a guess, and
# had to learn the task again. What causes a spike is not tested here.

# %% [markdown]
# ### Exercise 3 (find the bug)
#
# A colleague wrote the schedule of a 200-step run with a 15-step warm-up as the function below. Its lines are
# numbered in comments, from 0. Without running it: which line holds the bug? And at which step does its learning
# rate first reach 0? Think also about what its rate does after that step; the figure after the exercise shows it.


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
# The figure draws the schedule of the formula, which every run in notebooks 10 and 11 uses, and the buggy one.
# The two differ from step 15 on: the buggy rate falls a little faster. The right panel zooms into the last steps:
# look for the step where the buggy rate touches 0 and climbs again.

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
zoom.yaxis.set_major_formatter(plt.FuncFormatter(lambda y, _: f"{y:.1e}"))  # each tick its own power of 10
zoom.legend(
    handles=[zoom.lines[0], zoom.lines[-1]], fontsize=8
)  # the two curves; the dotted line is out of view
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
# Notebook 12 fine-tunes a model at a larger image size, notebook 13 looks at what pre-training changes when the
# model learns to fill in hidden patches, and notebook 14 compares a ViT that learns from a teacher with one that does not.

# %% [markdown]
# ## Summary
#
# - A run takes steps; each trains on a batch sampled from a fixed pool, so a run sees steps × batch samples. The
#   held-out set, never trained on, measures the model. A seed fixes a run's start and batch order; one seed is
#   one run.
# - The cross-entropy loss is the mean −ln of the probability given to the right label. A guess costs
#   ln 2 ≈ 0.693 on two labels.
# - Gradient descent steps against the gradient, scaled by the learning rate. AdamW also divides each entry's step
#   by the size of its recent gradients, and adds weight decay, which only the weight matrices take.
# - A training step is loss, zero_grad, backward, AdamW step, schedule step. The rate warms up, then follows a
#   cosine towards 0. Every seed tried stays near ln 2 past the warm-up, for a time that is partly luck.
# - Pre-training, fine-tuning and a teacher are other starts and other targets for the same loop.
#
# Next: notebook 11 trains this ViT for 200 steps, with and without position embeddings, and moves the block borders
# the scramble cuts along.


# %% [markdown]
# ## Evidence: the parameter groups
#
# The two groups of `train.param_groups` for the ViT of section 2 (Exercise 1's answer), the decay factor at the
# peak rate, and what the factors of all 200 steps multiply to.

# %%
decayed, not_decayed = adamw.param_groups  # the groups of the ViT printed in section 2
names = {id(p): name for name, p in vit.named_parameters()}
print(f"no_weight_decay(): {sorted(vit.no_weight_decay())}")
print(f"weight decay {decayed['weight_decay']}: {len(decayed['params'])} tensors:")
print(", ".join(names[id(p)] for p in decayed["params"]))
print(f"weight decay {not_decayed['weight_decay']}: {len(not_decayed['params'])} tensors:")
print(", ".join(names[id(p)] for p in not_decayed["params"]))
shrink = math.prod(
    1 - defaults.lr * train.lr_factor(k, defaults.warmup, defaults.steps) * defaults.weight_decay
    for k in range(defaults.steps)
)
print(
    f"eta * lambda at the peak: {defaults.lr * defaults.weight_decay:.0e} per step (factor "
    f"{1 - defaults.lr * defaults.weight_decay:.5f}); decay alone over "
    f"{defaults.steps} steps shrinks an entry by {1 - shrink:.1%}"
)
assert 1 - shrink < 0.01

# %% [markdown]
# Under 1 % over a whole run: in runs this short, weight decay barely moves the weights. The factors multiply, so
# the pull grows with the number of steps.


# %% [markdown]
# ## Evidence: the loop by hand
#
# Here is the whole loop for 20 steps, with the step written out. It holds the answer to Exercise 2, so its
# code opens folded: unfold it (the "..." below) once you have tried. `vitcourse.train.train` runs the same loop,
# with a few extras (it records the learning rates, and other tasks' losses); at these settings it gives the same
# losses, as the cell checks.

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


# %% [markdown]
# ## Evidence: a table of zeros
#
# Exercise 1's prediction in numbers. The cell copies seed 0's trained ViT from section 4, sets every entry of its position
# table to 0, and measures both models on the held-out set. The held-out set holds each of its 128 scenes twice,
# intact (images 0 to 127) and scrambled (images 128 to 255, in the same order), so the cell also compares each
# scene's logits with its scramble's.

# %%
trained = runs[0].model  # seed 0's trained ViT (section 4)
zeroed = copy.deepcopy(trained)
with torch.no_grad():
    zeroed.pos_embed.zero_()  # (1, 16, 64): the prediction token's row and the 15 patches' rows
    logits_zeroed = zeroed(held_out.images.to(device)).cpu()  # (256, 2)
scores = {
    name: train.evaluate(model, "scramble", block=defaults.block)["accuracy"]
    for name, model in (("its trained table", trained), ("a table of zeros", zeroed))
}
for name, accuracy in scores.items():
    print(f"seed 0's trained ViT with {name}: held-out accuracy {accuracy:.2f}")
same = torch.allclose(logits_zeroed[:128], logits_zeroed[128:], atol=1e-4)
print(f"table of zeros: every scene's logits equal its scramble's (within 1e-4): {same}")
assert same and abs(scores["a table of zeros"] - 0.5) < 0.02
