"""Zed's ``f32`` numbers: a value rounded to single precision, and its JSON text.

``ep eval`` computes the QA averages of its ``SummaryJson`` in ``f32`` and serde
writes them as the shortest text that reads back as the same ``f32`` (ryu's):
``0.6666667``, not Python's ``0.6666666865348816`` for the same number. To print the
digits ``ep`` prints, a value goes through :func:`float32` before it is formatted,
and :func:`float32_text` gives the text ``ep`` writes. Exact: rational arithmetic on
the number's two neighbours, no platform float formatting involved.
"""

from __future__ import annotations

import math
import struct
from fractions import Fraction

__all__ = ["float32", "float32_text"]


def float32(value: float) -> float:
    """``value`` rounded to the nearest ``f32`` (ties to even), as a Python float.

    Exact for the arithmetic ``ep`` does: a quotient or product of ``f32`` operands
    computed in double and rounded once to ``f32`` is the ``f32`` result (double has
    more than twice ``f32``'s 24 bits, so rounding twice cannot differ)."""
    return float(struct.unpack("<f", struct.pack("<f", value))[0])


def _neighbours(value: float) -> tuple[Fraction, Fraction]:
    """The ``f32`` numbers just below and above a positive finite ``f32`` ``value``."""
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    below = struct.unpack("<f", struct.pack("<I", bits - 1))[0]
    above = struct.unpack("<f", struct.pack("<I", bits + 1))[0]
    if math.isinf(above):  # past the largest f32: the step it would have had
        return Fraction(below), 2 * Fraction(value) - Fraction(below)
    return Fraction(below), Fraction(above)


def _shortest(value: float) -> tuple[int, int]:
    """The shortest decimal ``digits × 10**exponent`` that reads back as the positive
    ``f32`` ``value`` (the closer of two, and the even one of a tie), as ryu finds it:
    a decimal reads back when it lies strictly between the midpoints to the two
    neighbours, or on one of them when the value's significand is even (the tie goes
    to it)."""
    exact = Fraction(value)
    below, above = _neighbours(value)
    low, high = (below + exact) / 2, (exact + above) / 2
    even = struct.unpack("<I", struct.pack("<f", value))[0] % 2 == 0

    def reads_back(decimal: Fraction) -> bool:
        return low < decimal < high or (even and decimal in (low, high))

    power = math.floor(math.log10(value))  # 10**power <= value < 10**(power + 1), give or take one
    while Fraction(10) ** power > exact:
        power -= 1
    while Fraction(10) ** (power + 1) <= exact:
        power += 1
    for length in range(1, 10):  # nine significant digits always read back an f32
        exponent = power - length + 1
        scale = Fraction(10) ** exponent
        down = math.floor(exact / scale)
        fits = [m for m in (down, down + 1) if reads_back(m * scale)]
        if fits:
            best = min(fits, key=lambda m: (abs(m * scale - exact), m % 2))
            while best and best % 10 == 0:
                best //= 10
                exponent += 1
            return best, exponent
    raise AssertionError(f"no decimal of nine digits reads back as {value!r}")  # pragma: no cover


def float32_text(value: float) -> str:
    """The ``f32`` nearest ``value`` as serde_json writes it (ryu's ``format32``):
    ``0.0``, ``3.5``, ``3.0``, ``0.6666667``, ``0.000001``, ``1e-7``, ``1.5e-7``.

    Decimal notation while the number's decimal exponent ``kk`` (``10**(kk-1) <=
    value < 10**kk``) is within -5..13, scientific otherwise, as ryu does for an
    ``f32``. NaN and the infinities are no JSON number: ``null``, as serde writes them."""
    number = float32(value)
    if not math.isfinite(number):
        return "null"
    if number == 0:
        return "-0.0" if math.copysign(1.0, number) < 0 else "0.0"
    sign = "-" if number < 0 else ""
    mantissa, k = _shortest(abs(number))
    digits = str(mantissa)
    length = len(digits)
    kk = length + k
    if 0 <= k and kk <= 13:
        return f"{sign}{digits}{'0' * k}.0"
    if 0 < kk <= 13:
        return f"{sign}{digits[:kk]}.{digits[kk:]}"
    if -6 < kk <= 0:
        return f"{sign}0.{'0' * -kk}{digits}"
    if length == 1:
        return f"{sign}{digits}e{kk - 1}"
    return f"{sign}{digits[0]}.{digits[1:]}e{kk - 1}"
