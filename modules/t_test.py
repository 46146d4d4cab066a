"""The pooled two-sample t-test, computed here without scipy (Wallace et
al., section V: a running job's samples against its history).

The Student t tail comes from the regularised incomplete beta function.
The paper prints the standard error as ``s_p sqrt(N1/N1 + 1/N2)``; the
pooled test it names uses ``s_p sqrt(1/N1 + 1/N2)``, which is what is
computed.  :class:`Significance` makes the learner's many decisions fast.
"""

from __future__ import annotations

import functools
import math
from statistics import NormalDist
from typing import NamedTuple, Sequence

import numpy as np


class Summary(NamedTuple):
    """A sample as the t-test needs it: size, mean, variance (ddof 1)."""

    n: int
    mean: float
    variance: float


def _continued_fraction(a: float, b: float, x: float) -> float:
    """Lentz's continued fraction for the incomplete beta function."""
    tiny, eps = 1e-300, 1e-15
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < eps:
            return h
    raise ArithmeticError(f"incomplete beta did not converge for a={a}, b={b}, x={x}")


def regularized_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularised incomplete beta function."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                 + a * math.log(x) + b * math.log1p(-x))
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _continued_fraction(a, b, x) / a
    return 1.0 - front * _continued_fraction(b, a, 1.0 - x) / b


def student_t_pvalue(t: float, df: float) -> float:
    """Two-sided p-value of Student's t with ``df`` degrees of freedom."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, not {df}")
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 0.0
    return regularized_beta(df / 2.0, 0.5, df / (df + t * t))


def t_critical(alpha: float, df: float) -> float:
    """``t_{1-alpha/2, df}``: |T| above it rejects equal means at ``alpha``."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be within (0, 1), not {alpha}")
    low, high = 0.0, 1.0
    while student_t_pvalue(high, df) > alpha:
        high *= 2.0
    for _ in range(200):
        middle = (low + high) / 2.0
        if student_t_pvalue(middle, df) > alpha:
            low = middle
        else:
            high = middle
        if high - low < 1e-12 * high:
            break
    return (low + high) / 2.0


def pooled_t_test(n1: int, mean1: float, var1: float, n2: int, mean2: float,
                  var2: float) -> tuple[float, float]:
    """Pooled two-sample t-test (equal variances) from summary statistics:
    ``(T, two-sided p)``.  ``var`` are sample variances (ddof 1)."""
    if n1 < 1 or n2 < 1 or n1 + n2 < 3:
        raise ValueError(f"need n1, n2 >= 1 and n1 + n2 >= 3, not {n1}, {n2}")
    df = n1 + n2 - 2
    pooled = ((n1 - 1) * var1 + (n2 - 1) * var2) / df
    error = math.sqrt(max(pooled, 0.0) * (1.0 / n1 + 1.0 / n2))
    difference = mean1 - mean2
    if error == 0.0:
        t = 0.0 if difference == 0 else math.copysign(math.inf, difference)
    else:
        t = difference / error
    return t, student_t_pvalue(t, df)


def t_test(sample1: Sequence[float], sample2: Sequence[float]) -> tuple[float, float]:
    """:func:`pooled_t_test` of two samples (what
    ``scipy.stats.ttest_ind(equal_var=True)`` computes)."""
    a, b = np.asarray(sample1, dtype=float), np.asarray(sample2, dtype=float)
    var = lambda x: float(x.var(ddof=1)) if len(x) > 1 else 0.0  # noqa: E731
    return pooled_t_test(len(a), float(a.mean()), var(a), len(b), float(b.mean()), var(b))


class Significance:
    """The decision ``p < alpha`` for samples of at least ``min_df``
    degrees of freedom, fast: |T| at most the normal quantile is never
    significant, |T| above the t quantile at ``min_df`` always is (the t
    quantile falls as df grows); only between them is p computed."""

    def __init__(self, alpha: float, min_df: int):
        if not 0 < alpha < 1:
            raise ValueError(f"alpha must be within (0, 1), not {alpha}")
        self.alpha, self.min_df = alpha, max(min_df, 1)
        self.never = NormalDist().inv_cdf(1 - alpha / 2)
        self.always = t_critical(alpha, self.min_df)

    def differ(self, first: Summary, second: Summary) -> bool:
        n1, n2 = first.n, second.n
        df = n1 + n2 - 2
        pooled = ((n1 - 1) * first.variance + (n2 - 1) * second.variance) / df
        error = math.sqrt(max(pooled, 0.0) * (1.0 / n1 + 1.0 / n2))
        difference = abs(first.mean - second.mean)
        if error == 0.0:
            return difference > 0
        t = difference / error
        if t <= self.never:
            return False
        if t > self.always and df >= self.min_df:
            return True
        return student_t_pvalue(t, df) < self.alpha


@functools.lru_cache(maxsize=None)
def significance(alpha: float, min_df: int) -> Significance:
    """One :class:`Significance` per level and degrees of freedom (its
    quantiles cost a bisection each)."""
    return Significance(alpha, min_df)
