"""Right answers for the checkers of notebook 10; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

from vitcourse import check

VALUE_CHECKS: dict = {
    check.decay_choice: "ad",  # the two weight matrices among the five tensors
    check.zero_table_accuracy: 0.5,  # a scene and its scramble get the same label: one of each pair is right
    check.schedule_bug_line: 2,  # the cosine's progress forgets to subtract the warm-up
    check.schedule_zero_step: 185,
    check.stuck_learning_rate: 0.001
    / 15,  # LambdaLR stays at step 0, factor (0 + 1) / 15  # progress = step / (200 - 15) reaches 1 at step 185
}


def _train_step(model, optimiser, scheduler, images, labels):
    """The loop body of Exercise 10.2."""
    import torch.nn.functional as F

    loss = F.cross_entropy(model(images), labels)
    optimiser.zero_grad(set_to_none=True)
    loss.backward()
    optimiser.step()
    scheduler.step()
    return loss.item()


FUNCTION_CHECKS: dict = {check.train_step: _train_step}
MISTAKES: list = [
    (check.decay_choice, "a", "multiply the input"),
    (check.decay_choice, "xyz", "not a string made of the letters"),
    (check.zero_table_accuracy, 1.0, "sees the blocks' order"),
    (check.zero_table_accuracy, 0.96, "runs with a table"),
    (check.zero_table_accuracy, 0.0, "answers swapped"),
    (check.zero_table_accuracy, 0.7, "what is left"),
    (check.stuck_learning_rate, 0.001, "peak rate"),
    (check.stuck_learning_rate, 0.0, "no step a rate of 0"),
    (check.stuck_learning_rate, 0.002 / 15, "count the steps from 0"),
    (check.stuck_learning_rate, 0.5, "Which step"),
    (check.schedule_bug_line, 0, "Compare each line"),  # every wrong line (0, 1, 3) gets the same ladder
    (check.schedule_bug_line, 1, "Compare each line"),
    (check.schedule_bug_line, 3, "Compare each line"),
    (check.schedule_bug_line, 4, "count from 0"),
    (check.schedule_bug_line, 7, "Compare each line"),
    (check.schedule_zero_step, 200, "one step after the run"),
    (check.schedule_zero_step, 199, "last step"),
    (check.schedule_zero_step, 170, "twice"),
    (check.schedule_zero_step, 100, "at its lowest"),
]
