"""Exercise checkers for notebook 03 position embeddings."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from .. import position
from ._core import Mistake, Verdict, check_function, choice_answer, float_answer, never_raises, reread, say

__all__ = [
    "far_slots_similarity",
    "far_slots_value",
    "permuted_weights_function",
    "sinusoidal_function",
]


def _attention_weights(x: torch.Tensor, w_q: torch.Tensor, w_k: torch.Tensor) -> torch.Tensor:
    """Single-head attention weights softmax(x W_q (x W_k)^T / sqrt(d)) of tokens x (N, D); returns (N, N)."""
    q, k = x @ w_q, x @ w_k  # (N, d) each
    return torch.softmax(q @ k.T / math.sqrt(q.shape[-1]), dim=-1)


def _permutation_cases() -> list[tuple[tuple, torch.Tensor]]:
    """(weights, perm) -> the weights attention really computes on the permuted tokens."""
    gen = torch.Generator().manual_seed(5)
    cases = []
    for n, perm in (
        (6, [1, 2, 3, 4, 5, 0]),
        (15, torch.randperm(15, generator=gen).tolist()),
        (4, [2, 1, 0, 3]),
    ):
        x = torch.randn(n, 12, generator=gen)  # (N, 12)
        w_q, w_k = torch.randn(12, 8, generator=gen), torch.randn(12, 8, generator=gen)
        order = torch.tensor(perm)
        cases.append(((_attention_weights(x, w_q, w_k), order), _attention_weights(x[order], w_q, w_k)))
    return cases


@never_raises
def permuted_weights_function(func: object) -> Verdict:
    """Exercise 03.1: ``func(weights, perm)`` predicts the attention weights of the permuted tokens."""
    half = (
        "your prediction gets some entries right and others wrong. Test it on the warm-up: with tokens 0 and 2 "
        "swapped, which old entry is A'[0, 5] on paper, and which does your function give? Then A'[5, 0]."
    )  # one text for both halves: which half moved is for the learner to find
    mistakes = [
        Mistake(lambda a, p: a[p], half),
        Mistake(lambda a, p: a[:, p], half),
        Mistake(
            lambda a, p: a[torch.argsort(p)][:, torch.argsort(p)],
            "you used the inverse permutation.",
        ),
        Mistake(
            lambda a, p: a[p][:, p].T,
            "your matrix is transposed.",
        ),
        Mistake(
            lambda a, p: a.clone(),
            "the weights do change when the tokens are reordered.",
        ),
    ]
    return check_function(
        func,
        "your predicted weights",
        _permutation_cases(),
        mistakes=mistakes,
        nudge="An attention weight is computed from one query and one key, and nothing else; ask which tokens "
        "the query and the key of a new entry belong to.",
        pointer=reread("Attention in one paragraph"),
    )


#: Exercise 03.2(a)'s statements, as the notebook lists them: each says what the similarity is made of; "c" is right.
_FAR_OPTIONS = ("a", "b", "c", "d", "e")


def _far_similarity(n: int = 176, d: int = 768) -> float:
    """cos(PE_0, PE_(n-1)) of the (n, d) sinusoidal table."""
    table = position.sinusoidal_table(n, d)
    return F.cosine_similarity(table[:1], table[-1:], dim=-1).item()


@never_raises
def far_slots_similarity(answer: object) -> Verdict:
    """Exercise 03.2(a) (predict, from the figure): the letter of the statement, among a to e, that says what the
    cosine similarity of slots 0 and 175 of the 176 x 768 sinusoidal table is mostly made of (the slow pairs, which
    barely turn over 175 slots and add nearly 1 each). Wrong options get no diagnosis of their own, so that the
    question cannot be solved by walking through the options."""
    assert 0.3 < _far_similarity() < 0.5  # the value the right statement names
    return choice_answer(
        answer,
        "c",
        "the cosine similarity of slots 0 and 175",
        _FAR_OPTIONS,
        nudge="The idea is the sum of cosines, one term per pair of columns, with frequencies from fast to very "
        "slow.",
        pointer=reread("What the table offers: similarity depends on distance"),
    )


@never_raises
def far_slots_value(answer: object) -> Verdict:
    """Exercise 03.2(b) (predict, from the figure): an estimate of the cosine similarity of slots 0 and 175 of the
    176 x 768 sinusoidal table (0.377). The prompt's method counts the pairs that have turned by less than a radian
    at slot 175 (168 of 384, read off the wavelength panel) as adding 1 each and the rest as 0, about 0.44: it
    overestimates a little, and the panel is read to a few pairs. So the check accepts the span from 0.1 below
    the true value to 0.06 above the method's estimate (0.28 to 0.50), centred between them."""
    value = _far_similarity()
    omega = 10000.0 ** (-2 * torch.arange(384, dtype=torch.float64) / 768)  # (384,) the pairs' frequencies
    method = float((175 * omega < 1).double().mean())  # the share of pairs turned by less than a radian
    low, high = value - 0.1, method + 0.06
    one_wave = float((175 * omega < 2 * math.pi).double().mean())  # turned by less than a whole wave
    if isinstance(answer, int | float) and not isinstance(answer, bool) and abs(answer - one_wave) < 0.03:
        return say(
            False,
            f"your estimate of the cosine similarity of slots 0 and 175: {answer:.4g} is not it: you counted the "
            "pairs whose wavelength exceeds 175 slots: those have turned by less than one wave, not by less than "
            "the prompt's one radian.",
        )
    return float_answer(
        answer,
        (low + high) / 2,
        "your estimate of the cosine similarity of slots 0 and 175",
        nudge="The cosine is the mean of the pairs' terms; ask which pairs' terms are still close to 1 at slot 175, "
        "and what share of the pairs they are.",
        wrong=(
            (
                0.0,
                "that is what two random vectors give; these rows are not random: ask which of their terms are still near 1.",
            ),
            (
                1.0,
                "that would make the two rows nearly one vector, with every pair's term close to 1.",
            ),
            (
                -1.0,
                "rows at the two ends of the table do not point opposite ways: ask which of their terms are still near 1.",
            ),
            (
                -0.5,
                "rows at the two ends of the table do not point opposite ways: ask which of their terms are still near 1.",
            ),
        ),
        rel=(high - low) / (low + high),
        pointer=reread("What the table offers: similarity depends on distance"),
    )


def _table(n: int, d: int, base: float = 10000.0, exponent: str = "pair", start: int = 0) -> torch.Tensor:
    """Sinusoidal-table variants for diagnosing: ``exponent`` "pair" (right), "j", "2j" or "tiled" (the
    per-pair frequencies laid out with ``repeat(2)``, w0 w1 ... w0 w1 ..., as the notebook's buggy_table does)."""
    i = torch.arange(start, start + n, dtype=torch.float64)[:, None]  # (n, 1)
    j = torch.arange(d)  # (d,)
    if exponent == "tiled":
        # (d,): column j gets pair (j mod ceil(d / 2))'s exponent 2m
        power = (2 * torch.arange(0, (d + 1) // 2)).repeat(2)[:d].to(torch.float64)
    else:
        power = {"pair": 2 * (j // 2), "j": j, "2j": 2 * j}[exponent].to(torch.float64)
    return i / base ** (power / d)  # (n, d) angles


def _sin_cos(angle: torch.Tensor, swapped: bool = False) -> torch.Tensor:
    even = torch.arange(angle.shape[-1]) % 2 == 0  # (d,)
    if swapped:
        even = ~even
    return torch.where(even, torch.sin(angle), torch.cos(angle))


def _roles_swapped(n: int, d: int) -> torch.Tensor:
    """The table with the roles of i and j exchanged in the formula, at the right shape (n, d)."""
    i = torch.arange(n, dtype=torch.float64)[:, None]  # (n, 1)
    j = torch.arange(d, dtype=torch.float64)[None, :]  # (1, d)
    angle = j / 10000 ** (2 * torch.div(i, 2, rounding_mode="floor") / d)  # (n, d)
    return torch.where(i % 2 == 0, torch.sin(angle), torch.cos(angle))


@never_raises
def sinusoidal_function(func: object) -> Verdict:
    """Exercise 03.3 (find the bug): ``func(n, d)``, the learner's fix of ``buggy_table``, must return the (n, d)
    sinusoidal table. The given bug (the per-pair frequencies spread with ``repeat(2)`` where
    ``repeat_interleave(2)`` is meant, so a pair's sine and cosine get different frequencies) is recognised
    without being named, so that running the check on the unchanged function gives nothing away."""
    cases = [
        ((n, d), position.sinusoidal_table(n, d)) for n, d in ((15, 400), (176, 768), (4, 9), (1, 2), (7, 3))
    ]
    mistakes = [
        Mistake(
            lambda n, d: _sin_cos(_table(n, d, exponent="tiled")).float(),
            "this is what the given buggy_table returns: the bug is still in it.",
        ),
        Mistake(
            lambda n, d: _sin_cos(_table(n, d, exponent="j")),
            "every column has a frequency of its own here; the formula gives the two columns of a pair one "
            "frequency.",
        ),
        Mistake(
            lambda n, d: _sin_cos(_table(n, d), swapped=True),
            "sine and cosine are swapped: your even entries hold cosines and your odd entries sines.",
        ),
        Mistake(
            lambda n, d: _sin_cos(_table(n, d, exponent="2j")),
            "you doubled j in the exponent; that is not the formula's exponent either.",
        ),
        Mistake(
            lambda n, d: position.sinusoidal_table(n, d).T,
            "your table is transposed: its rows are the entries j and its columns the slots i.",
        ),
        Mistake(
            _roles_swapped,
            "i and j have swapped roles: the slot i plays the entry's part in your formula, and j the slot's.",
        ),
        Mistake(
            lambda n, d: _sin_cos(_table(n, d, start=1)),
            "your slots start at 1; the first token's slot is 0.",
        ),
        Mistake(
            lambda n, d: _sin_cos(_table(n, d, base=1000.0)),
            "wrong base: your wavelengths grow with powers of 1000, not of the formula's base.",
        ),
        Mistake(
            lambda n, d: _sin_cos(_table(n, d, base=100000.0)),
            "wrong base: your wavelengths grow with powers of 100000, not of the formula's base.",
        ),
    ]
    return check_function(
        func,
        "your fixed sinusoidal table",
        cases,
        mistakes=mistakes,
        forbidden=("sinusoidal_table", "table_by_hand", "sinusoidal_position_embedding"),
        forbidden_objects=(position.sinusoidal_table,),
        write_with="the colleague's tensor operations, one line changed",
        nudge="The distance-only similarity rests on the two columns of a pair, a sine and a cosine, sharing "
        "something; ask which frequency each of the colleague's columns gets.",
        pointer=reread("The sinusoidal table"),
    )
