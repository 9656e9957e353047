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
# **Time:** about 50 minutes
#
# Before this: notebook 07 (the whole ViT). Notebooks 11 to 14 use every word this one teaches.
#
# Until now every model had random weights, and its output meant nothing. **Training** changes the weights, step
# by step, until the outputs answer a task. Here we set up the data, the loss and the loop that trains a small ViT
# from scratch, and write that loop in plain PyTorch. This notebook is where the course teaches its training
# words: the later notebooks use them without explaining them again.
#
# By the end you can
# 1. say what a training run sees: a fixed pool of scenes, batches, steps × batch samples, epochs, a held-out set,
#    and a seed that makes the run repeat;
# 2. compute the cross-entropy loss from the probability a model gives the right label, tell a training loss
#    from a held-out loss, and say why guessing costs ln 2;
# 3. say what AdamW and weight decay do, and which tensors weight decay should leave alone;
# 4. write the training loop with a warm-up and a cosine decay, and find a bug in a schedule;
# 5. say in a sentence each what pre-training, fine-tuning and a teacher are.

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
# ## 1. The data: a fixed pool of scenes (6 min)
#
# `vitcourse.scenes` draws scenes of the picture's world with random parameters: the moon, the mountain, the
# ridges, the sky band. The task is about *where* things are: **is the scene intact, or are its 20 × 20 blocks
# scrambled?** Every scene appears twice, intact (label 0) and scrambled (label 1). The block side is 20, the
# ViT's patch size, unless a cell says otherwise.
#
# A run trains in **steps**. Each step takes a **batch** of B images, computes how wrong the model is on them,
# and changes the weights a little. So a run of T steps sees **T × B samples**, "steps × batch": the number to
# compare when two runs use different batch sizes.
#
# The images come from a **fixed pool** of 1024 scenes, drawn once: 2048 images. Every batch samples that pool
# **with replacement**, so an image can come twice in a run, or never. A run's samples divided by the pool's size
# count its **epochs**: passes over the pool. The **held-out set** that measures the model holds 128 other scenes, each intact and
# scrambled: images the model never trains on, so a good score there cannot come from remembering them.
#
# Randomness enters through **seeds**. A seed is the number a random generator starts from: the same seed gives
# the same draws, on every run. The pool has its own seed, and so does the held-out set. Each run's seed,
# `defaults.seed`, fixes its starting weights and the order of its batches. One seed gives one run, not an
# average: to see how much of a result is luck, train it again with other seeds. The next cell counts all this.

# %%
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
    "four scenes of the training world: each intact (label 0) and with its 20 x 20 blocks scrambled (label 1)"
)
plt.show()

# %% [markdown]
# ## 2. The loss: cross-entropy, and ln 2 for a guess (16 min)
#
# The model is the ViT of notebook 07, made small: tokens of width D = 64, 2 encoder blocks (block 0 and
# block 1), 4 heads, and an **MLP ratio of 2**. So each block's MLP has a hidden layer of 2D = 128 units, where
# ViT-Base uses 4D. The next cell prints such a ViT, with the fixed sinusoidal position table of notebook 03.

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
# $$L = -\frac1B\sum_{b=0}^{B-1}\log\frac{e^{z_{b,y_b}}}{e^{z_{b,0}} + e^{z_{b,1}}}.$$
#
# It is 0 for a confident right answer and grows without bound for a confident wrong one. Here log is the
# natural logarithm, ln, as in PyTorch's `F.cross_entropy`; every log in the course's losses is natural.
#
# A model that gives both labels probability 1/2 pays −ln(1/2) = **ln 2** on every image: the loss of guessing.
# An untrained model is close to that. Two names for one formula: the **training loss** is the loss of the batch
# a step trains on; the **held-out loss** is the same mean over the held-out set. The **held-out accuracy** is the
# share of held-out images whose larger logit is the right label: 0.5 for a guess. The next cell computes the
# held-out loss of the untrained ViT, by hand and with PyTorch.

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
# ### Exercise 1 (predict)
#
# A trained ViT gives the right label probability 0.9 on every held-out image, so its
# held-out accuracy is 1.0. What is its held-out loss? Give the number to three decimals.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "confident_loss-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_confident_loss = None  # replace None with a number
### BEGIN SOLUTION
# Each held-out image costs the negative natural log of the right label's probability, -ln 0.9, and the mean of
# 256 equal costs is that cost: about 0.105. Only a probability of 1 for the right label costs 0, so the loss
# keeps falling after the accuracy reaches 1, as long as the model grows surer.
answer_confident_loss = -math.log(0.9)
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "confident_loss-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.confident_loss(answer_confident_loss)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "confident_loss-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.confident_loss, answer_confident_loss)
### END HIDDEN TESTS

# %% [markdown]
# ## 3. The optimiser: AdamW and weight decay (10 min)
#
# `loss.backward()` stores the gradient of the loss in `θ.grad` for every parameter θ, and `optimiser.step()`
# moves every parameter. The **optimiser** decides how far. Ours is **AdamW**. With learning rate η_k at step k
# and weight decay λ it updates
#
# $$\theta \leftarrow \theta - \eta_k\left(\frac{\hat m}{\sqrt{\hat v} + \epsilon} + \lambda\,\theta\right).$$
#
# m̂ and v̂ are running averages of the gradient and of its square, corrected for their start at 0. So each
# parameter's step is divided by the typical size of its own recent gradients; ε keeps the division finite. The
# term λθ is the **weight decay**: it pulls the parameter a little towards 0 at every step, which keeps weights
# from growing large.

# %% [markdown]
# ### Exercise 2 (explain)
#
# Weight decay keeps a model simple by stopping its weights from growing large. For
# some tensors, though, a pull towards 0 makes the model no simpler, or does harm. Which of these tensors of the
# ViT above should AdamW pull towards 0? Answer with their letters, such as `"bd"`.
#
# - (a) `patch_embed.proj.weight`, the matrix that projects a patch to a token;
# - (b) `blocks.0.attn.qkv.bias`, the bias of the query, key and value projection;
# - (c) `blocks.0.norm1.weight`, a LayerNorm's scale;
# - (d) `blocks.0.mlp.fc1.weight`, the first matrix of the MLP;
# - (e) `pos_embed`, the fixed sinusoidal table, which does not train.
#
# Then explain (c): why should weight decay leave a LayerNorm scale alone?
#
# - (i) Its neutral value is 1, not 0: pulled towards 0, it would shrink the features it scales towards nothing.
# - (ii) It holds too few values for a pull towards 0 to change it.
# - (iii) LayerNorm divides by the standard deviation after the scale, which undoes any pull.
# - (iv) A LayerNorm scale receives no gradient, so AdamW never updates it.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "decay_choice-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_decay = None  # replace None with a string of letters, such as "bd"
answer_decay_reason = None  # replace None with "i", "ii", "iii" or "iv"
### BEGIN SOLUTION
# Only the weight matrices, (a) and (d), mix features; a pull towards 0 keeps their entries small. A bias (b)
# sets one output each and mixes no features, so leaving it free costs little, while a pull towards 0 can make
# the layer underfit (the "does harm" case). A LayerNorm scale (c) is neutral at 1; the fixed table (e) does not
# train, so no optimiser group holds it.
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
# ### After Exercise 2

# %% [markdown]
# `train.param_groups` follows timm's rule. Every parameter with fewer than 2 dims, the biases and LayerNorm
# scales and shifts, goes into a group with λ = 0. So do the names in `model.no_weight_decay()`: the prediction
# token and the position embedding. Leaving those two out is timm's and DeiT's convention, not a rule that
# follows from their shape. A parameter that does not train goes into neither group.

# %%
adamw, _ = train.make_optimiser(sinusoidal_vit, defaults)  # the optimiser every run below uses
decayed, not_decayed = adamw.param_groups
names = {id(p): name for name, p in sinusoidal_vit.named_parameters()}
print(f"no_weight_decay(): {sorted(sinusoidal_vit.no_weight_decay())}")
print(f"weight decay {decayed['weight_decay']}: {len(decayed['params'])} tensors:")
print(", ".join(names[id(p)] for p in decayed["params"]))
print(f"weight decay {not_decayed['weight_decay']}: {len(not_decayed['params'])} tensors:")
print(", ".join(names[id(p)] for p in not_decayed["params"]))
in_groups = {id(p) for group in adamw.param_groups for p in group["params"]}
print(f"in neither group: {[n for n, p in sinusoidal_vit.named_parameters() if id(p) not in in_groups]}")
beta1, beta2 = adamw.defaults["betas"]
print(
    f"AdamW: beta1 {beta1}, beta2 {beta2}, eps {adamw.defaults['eps']:.0e}; runs below: seed {defaults.seed}, "
    f"warm-up {defaults.warmup} steps, peak learning rate {defaults.lr}, weight decay {defaults.weight_decay}"
)

# %% [markdown]
# ## 4. The schedule and the loop (13 min)
#
# The learning rate follows a **schedule**: a linear **warm-up** over the first W steps, since large steps on
# random weights can throw a transformer off, then a **cosine decay** over the T − W steps left:
#
# $$\eta_k = \eta_{\max}\,\frac{k + 1}{W}\ \ (k < W), \qquad
#   \eta_k = \eta_{\max}\,\tfrac12\left(1 + \cos\frac{\pi\,(k - W)}{T - W}\right)\ \ (k \ge W).$$
#
# Steps count from 0, so the last is T − 1. The rate would reach 0 at k = T, where the cosine's angle reaches π,
# one step after the last. So the last step still uses a small rate.
#
# Here is the loop, written out for 20 steps. `vitcourse.train.train` runs exactly this loop and gives the same
# losses. Four pieces of PyTorch in it:
#
# - `LambdaLR(optimiser, lr_factor)` scales the optimiser's `lr=` by `lr_factor(k)` at step k.
# - `optimiser.zero_grad(set_to_none=True)` clears the last step's gradients, since `backward()` adds to them.
# - `model.train()` puts the model in training mode, where layers such as dropout behave differently.
# - `order`, a generator seeded with the run's seed, draws the batches: the same batch order on every machine.

# %%
config = train.TrainConfig(pos_embed="learned", steps=20, device=device)
model = train.build_model(config).to(device)
optimiser = torch.optim.AdamW(train.param_groups(model, config.weight_decay), lr=config.lr)


def lr_factor(step: int) -> float:
    """The learning rate at ``step`` as a fraction of the peak (the formula above, W = warmup, T = steps)."""
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
# Twenty steps, most of them warm-up, are far too few: the model still guesses, with a loss near ln 2. Notebook 11
# trains for 200 steps and leaves ln 2 behind.

# %% [markdown]
# ### Exercise 3 (find the bug)
#
# A colleague wrote the schedule of a 200-step run with a 15-step warm-up as the
# function below. Its lines are numbered in comments. Without running it: which line holds the bug? And what does
# the bug do to the learning rate? Answer with a letter.
#
# - (a) It never falls below half the peak.
# - (b) It falls to 0 before the last step, then climbs again.
# - (c) It drops from the peak to a small rate as soon as the warm-up ends.
# - (d) It is 0 at step 0, so the first step is wasted.


# %%
def buggy_lr_factor(step: int, warmup: int = 15, steps: int = 200) -> float:
    """A learning-rate schedule with one bug in it."""
    if step < warmup:  # line 1
        return (step + 1) / warmup  # line 2
    progress = step / (steps - warmup)  # line 3
    return 0.5 * (1 + math.cos(math.pi * progress))  # line 4


# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "schedule_bug-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_bug_line = None  # replace None with the line number, 1 to 4
answer_bug_effect = None  # replace None with "a", "b", "c" or "d"
### BEGIN SOLUTION
# The cosine's clock must start when the warm-up ends: progress = (step - warmup) / (steps - warmup).
# Line 3 forgets to subtract the warm-up, so its progress reaches 1 at step steps - warmup, before the end:
# there the cosine is -1 and the rate 0; after it the cosine climbs back and so does the rate.
answer_bug_line = 3
answer_bug_effect = "b"
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "schedule_bug-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.schedule_bug_line(answer_bug_line)
check.schedule_bug_effect(answer_bug_effect)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "schedule_bug_line-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.schedule_bug_line, answer_bug_line)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "schedule_bug_effect-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.schedule_bug_effect, answer_bug_effect)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 3

# %% [markdown]
# The figure draws the schedule of the formula, which every run in notebook 11 uses, and the buggy one.

# %% mystnb={"image": {"alt": "Learning rate against training step: both schedules climb over 15 warm-up steps to the peak; the right one then falls smoothly to near 0 at step 199, the buggy one reaches 0 before the end and climbs again"}}
right_rates = [
    defaults.lr * train.lr_factor(k, defaults.warmup, defaults.steps) for k in range(defaults.steps)
]
buggy_rates = [defaults.lr * buggy_lr_factor(k) for k in range(defaults.steps)]
ax = plots.show_learning_rate(
    right_rates,
    defaults.warmup,
    title="learning rate: linear warm-up, then cosine decay (dotted: end of warm-up)",
)
ax.plot(buggy_rates, color="tab:red", ls="--", label="buggy_lr_factor")
ax.lines[0].set_label("the formula")
ax.legend()
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
# - **Pre-training**: training a model first on a large data set, or on another task such as predicting hidden
#   patches, so that later training starts from useful weights instead of random ones.
# - **Fine-tuning**: training a pre-trained model a little longer, from those weights, on the task that matters,
#   usually with fewer steps. In the package, `train.TrainConfig(start_from=...)` starts a run from a shipped
#   model's weights.
# - **A teacher**: an already trained model whose predictions a second model, the student, learns to match, with
#   or instead of the true labels. Learning from a teacher is called **distillation**.
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
#   on two labels; only certainty of the right label costs 0, so the loss keeps falling after the accuracy
#   reaches 1. The training loss is measured on a step's batch, the held-out loss on the held-out set.
# - A training loop is a handful of lines: batch, loss, backward, AdamW step, schedule step. Weight decay goes on
#   the weight matrices only; the learning rate warms up, then follows a cosine towards 0.
# - Pre-training, fine-tuning and a teacher are other starts and other targets for the same loop.
#
# Next: notebook 11 trains this ViT for 200 steps, with and without position embeddings, and moves the seams of
# the scramble.
