"""Exercise checkers for notebook 03 position embeddings."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from .. import position
from ._core import (
    Mistake,
    Verdict,
    _number,
    check_function,
    never_raises,
    reread,
    right,
    say,
    unexplained,
    uses_any,
)

__all__ = [
    "far_slots_similarity",
    "permuted_weights_function",
    "sinusoidal_function",
    "slow_pairs_count",
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
        "your prediction gets some entries right and others wrong. Test it on the warm-up: with perm = [1, 2, 0, "
        "...], which old entry is A'[0, 1] on paper, and which does your function give? Then A'[1, 0]."
    )  # one text for both halves: which half moved is for the learner to find
    mistakes = [
        Mistake(lambda a, p: a[p], half),
        Mistake(lambda a, p: a[:, p], half),
        Mistake(
            lambda a, p: a[torch.argsort(p)][:, torch.argsort(p)],
            "your rows and columns move the wrong way round: new token r is old token perm[r], not the other way. "
            "Try the warm-up's A'[0, 1] on paper and with your function.",
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
        nudge="Reordering moves every query and every key to a new slot together; ask which tokens the query and "
        "the key of a new entry belong to.",
        pointer=reread("Attention in one paragraph"),
    )


def _far_similarity(n: int = 176, d: int = 768) -> float:
    """cos(PE_0, PE_(n-1)) of the (n, d) sinusoidal table."""
    table = position.sinusoidal_table(n, d)
    return F.cosine_similarity(table[:1], table[-1:], dim=-1).item()


#: Exercise 03.2(b): an estimate from the figure and the count is accepted to within 0.1 of the true value.
FAR_SLACK = 0.1


@never_raises
def far_slots_similarity(answer: object) -> Verdict:
    """Exercise 03.2(b) (predict, from the figure): an estimate of the cosine similarity of slots 0 and 175 of the
    176 x 768 sinusoidal table, made from the sum of cosines and the count of slow pairs (the slow pairs add
    nearly 1 each, the fast ones mostly cancel). Accepted to within 0.1."""
    true = _far_similarity()
    assert 0.3 < true < 0.5
    what = "your estimate of cos(PE_0, PE_175)"
    value, refusal = _number(answer, what, "a number between -1 and 1")
    if refusal is not None:
        return refusal
    value = float(value)
    if abs(value - true) <= FAR_SLACK:
        return right(what)
    if abs(value) > 1:
        return say(
            False,
            f"{what}: {value:.4g} is not it: a cosine similarity lies between -1 and 1; that looks like a count "
            "or a dot product, not yet divided by the number of terms.",
        )
    if value < -0.05:
        return say(
            False,
            f"{what}: {value:.4g} is not it: being at the two ends of the table does not make two rows point "
            "opposite ways; each term depends only on how far a pair has turned.",
        )
    if abs(value) <= 0.05:
        return say(
            False,
            f"{what}: {value:.4g} is not it: that assumes every pair's term cancels; look at how far the slowest "
            "pairs have turned by slot 175.",
        )
    if value >= 0.85:
        return say(
            False,
            f"{what}: {value:.4g} is not it: that assumes every pair's term stays near 1; the fast pairs have "
            "turned many times by slot 175.",
        )
    if abs(value - ONE_WAVE_PAIRS / 384) <= 0.05:
        return say(
            False,
            f"{what}: {value:.4g} is not it: you counted as slow the pairs whose wavelength exceeds 175 slots; "
            "many of those have turned so far that their term is small or negative.",
        )
    if abs(value - SLOW_PAIRS / 768) <= 0.04:
        return say(
            False,
            f"{what}: {value:.4g} is not it: you divided by the token length d; the sum has one term per pair "
            "of columns.",
        )
    return unexplained(
        what,
        f"{value:.4g} is not it.",
        nudge="The cosine similarity is the sum of one term cos(175 omega_m) per pair, divided by the number of "
        "pairs. Which terms are near 1, and which average out?",
        pointer=reread("What the table offers: similarity depends on distance"),
    )


#: Exercise 03.2(a): the pairs m of the 176 x 768 table that have turned by less than one radian at slot 175.
_OMEGA = 10000.0 ** (-2 * torch.arange(384, dtype=torch.float64) / 768)  # (384,) the pairs' frequencies
SLOW_PAIRS = int((175 * _OMEGA < 1).sum())  # the pairs above the wavelength panel's upper dashed line
ONE_WAVE_PAIRS = int((175 * _OMEGA < 2 * math.pi).sum())  # turned by less than a whole wave
#: read off a log-scale panel with a minor tick every 10 pairs: within 12 pairs of the true count
SLOW_PAIRS_SLACK = 12


@never_raises
def slow_pairs_count(answer: object) -> Verdict:
    """Exercise 03.2(a) (read a figure): how many of the 384 pairs of the 176 x 768 sinusoidal table have turned
    by less than one radian at slot 175 (the pairs above the wavelength panel's upper dashed line). Read off a
    log-scale panel, so the check accepts the count to within 12 pairs."""
    what = "your count of the pairs turned by less than one radian at slot 175"
    value, refusal = _number(answer, what, "a whole number")
    if refusal is not None:
        return refusal
    value = float(value)
    if abs(value - SLOW_PAIRS) <= SLOW_PAIRS_SLACK:
        return right(what)
    if 0 < value < 1:
        return say(
            False, f"{what}: {value:.4g} is not it: that is a share or a similarity, not a count of pairs."
        )
    if abs(value - ONE_WAVE_PAIRS) <= 6:
        return say(
            False,
            f"{what}: {value:.4g} is not it: you counted the pairs whose wavelength exceeds 175 slots: those have "
            "turned by less than one wave, not by less than one radian.",
        )
    if abs(value - (384 - SLOW_PAIRS)) <= 6:
        return say(
            False,
            f"{what}: {value:.4g} is not it: that is a pair index m (or the count of the pairs below the line); "
            "the question asks how many pairs lie above it.",
        )
    return unexplained(
        what,
        f"{value:.4g} is not it.",
        nudge="A pair that has turned by less than one radian at slot 175 has a wavelength longer than 2 pi x 175 "
        "slots.",
        pointer=reread("The table, built"),
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


def _gives_the_table(func: object) -> bool:
    """Whether ``func(15, 400)`` returns the right 15 x 400 table; False for anything else, an error included."""
    try:
        out = func(15, 400)
        want = position.sinusoidal_table(15, 400)
        return (
            isinstance(out, torch.Tensor)
            and out.shape == want.shape
            and torch.allclose(out.double(), want.double(), atol=1e-5)
        )
    except Exception:  # the learner's function may raise anything; check_function reports it
        return False


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
    forbidden = ("sinusoidal_table", "table_by_hand", "sinusoidal_position_embedding")
    if callable(func) and uses_any(func, forbidden, (position.sinusoidal_table,)) is None:
        if uses_any(func, ("range",)) is not None:  # a Python loop over the entries, as table_by_hand has
            return say(
                False,
                "your fixed sinusoidal table: your function loops over `range`, one entry at a time; the exercise "
                "asks you to fix the colleague's tensor code, with no Python loop.",
            )
        if uses_any(func, ("omega",)) is None and _gives_the_table(func):  # right values from a rewrite
            return say(
                False,
                "your fixed sinusoidal table: your function has no `omega`; the exercise asks you to fix the "
                "colleague's code yourself, keeping its names, not to write the table anew.",
            )
    return check_function(
        func,
        "your fixed sinusoidal table",
        cases,
        mistakes=mistakes,
        forbidden=forbidden,
        forbidden_objects=(position.sinusoidal_table,),
        write_with="the colleague's tensor operations, one line changed",
        nudge="The distance-only similarity rests on the two columns of a pair, a sine and a cosine, sharing "
        "something; ask which frequency each of the colleague's columns gets.",
        pointer=reread("The sinusoidal table"),
    )
