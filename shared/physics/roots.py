"""Exact event times: the first time a polynomial of degree ≤ 4 crosses zero going down.

Between events every ball moves on a parabola, so the gap to a cushion line is a quadratic in time
and the squared distance between two balls is a quartic. We find the first root by isolating
monotone pieces (between the real roots of the derivative, found the same way, recursively) and
polishing the bracketed root with safeguarded Newton steps. No closed-form quartic: it loses
digits exactly when contacts are grazing, which is where the contact normal matters most.

Coefficients are lowest degree first: ``c[0] + c[1]·t + c[2]·t² + …``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

_MAX_ITER = 100


def poly_eval(c: Sequence[float], t: float) -> float:
    """Horner's rule from ``acc = 0``. The engine's polynomials have up to five coefficients
    (a pair's squared gap is a quartic): those are written out, which skips the loop and gives
    the same bits."""
    n = len(c)
    if n == 5:
        c0, c1, c2, c3, c4 = c
        return ((((0.0 * t + c4) * t + c3) * t + c2) * t + c1) * t + c0
    if n == 4:
        c0, c1, c2, c3 = c
        return (((0.0 * t + c3) * t + c2) * t + c1) * t + c0
    if n == 3:
        c0, c1, c2 = c
        return ((0.0 * t + c2) * t + c1) * t + c0
    acc = 0.0
    for k in range(n - 1, -1, -1):
        acc = acc * t + c[k]
    return acc


def _derivative(c: Sequence[float]) -> list[float]:
    return [k * c[k] for k in range(1, len(c))]


def _trim(c: Sequence[float]) -> list[float]:
    out = list(c)
    while out and out[-1] == 0.0:
        out.pop()
    return out


def _quadratic_roots(c0: float, c1: float, c2: float, lo: float, hi: float) -> list[float]:
    if c2 == 0.0:
        if c1 == 0.0:
            return []
        r = -c0 / c1
        return [r] if lo < r < hi else []
    disc = c1 * c1 - 4.0 * c2 * c0
    if disc < 0.0:
        return []
    # Numerically stable pair (no cancellation between -b and sqrt(disc)).
    q = -0.5 * (c1 + math.copysign(math.sqrt(disc), c1))
    roots = [q / c2]
    if q != 0.0:
        roots.append(c0 / q)
    return sorted(r for r in roots if lo < r < hi)


def _bracketed_root(
    c: Sequence[float], d: Sequence[float], lo: float, hi: float, flo: float
) -> float:
    """Root of ``c`` in ``[lo, hi]`` where ``c`` is monotone and changes sign (``flo = c(lo)``)."""
    t = 0.5 * (lo + hi)
    for _ in range(_MAX_ITER):
        f = poly_eval(c, t)
        if f == 0.0:
            return t
        if (f > 0.0) == (flo > 0.0):
            lo = t
        else:
            hi = t
        if hi - lo <= 4e-16 * (1.0 + abs(hi)):
            break
        df = poly_eval(d, t)
        nt = t - f / df if df != 0.0 else lo - 1.0
        t = nt if lo < nt < hi else 0.5 * (lo + hi)
    # Return the bracket end on the far side so the contact is never reported early (before
    # the surfaces actually touch) by more than rounding.
    return hi if flo > 0.0 else lo


def real_roots(c: Sequence[float], lo: float, hi: float) -> list[float]:
    """All real roots of ``c`` strictly inside ``(lo, hi)``, ascending (simple roots only)."""
    c = _trim(c)
    if len(c) <= 3:
        if len(c) <= 1:
            return []
        return _quadratic_roots(c[0], c[1], c[2] if len(c) == 3 else 0.0, lo, hi)
    d = _derivative(c)
    knots = [lo, *real_roots(d, lo, hi), hi]
    out: list[float] = []
    fa = poly_eval(c, lo)
    for a, b in itertools.pairwise(knots):
        fb = poly_eval(c, b)
        if (fa < 0.0 < fb) or (fb < 0.0 < fa):
            out.append(_bracketed_root(c, d, a, b, fa))
        elif fb == 0.0 and b < hi:
            out.append(b)
        fa = fb
    return out


def first_down_crossing(c: Sequence[float], horizon: float) -> float | None:
    """First ``t`` in ``[0, horizon]`` where ``c`` reaches zero while decreasing, else None.

    ``c(t) > 0`` means "apart". A pair already touching or slightly overlapping at ``t = 0``
    (rounding after a previous event) counts as a contact at 0 only if it is approaching.
    """
    c = _trim(c)
    if not c:
        return None
    f0 = c[0]
    d = _derivative(c)
    if f0 <= 0.0:
        slope = d[0] if d else 0.0
        if slope < 0.0 or (slope == 0.0 and len(d) > 1 and d[1] < 0.0):
            return 0.0
    if horizon <= 0.0:
        return None
    knots = [0.0, *real_roots(d, 0.0, horizon), horizon] if d else [0.0, horizon]
    fa = f0
    for a, b in itertools.pairwise(knots):
        fb = poly_eval(c, b)
        if fa > 0.0 >= fb:
            if fb == 0.0:
                return b
            return _bracketed_root(c, d, a, b, fa)
        if fa <= 0.0 and fb < fa:
            # Still touching (never got apart beyond rounding) and approaching again from here.
            return a
        fa = fb
    return None
