"""rustc-hash 2.1.1's ``FxHasher`` (64-bit), and the oracle's padding built on it.

Zed pads each oracle snippet by a pseudo-random 10–40 rows, seeded by hashing the
path, the row and a salt with ``FxHasher``: the same snippet on every run and
machine. Reproducing the hash bit for bit is what makes the rows Zed's (Appendix A).
"""

from __future__ import annotations

from typing import Final

__all__ = ["FxHasher", "oracle_padding"]

_MASK: Final = (1 << 64) - 1
_K: Final = 0xF1357AEA2E62A9C5
_SEED0: Final = 0x243F6A8885A308D3
_SEED1: Final = 0x13198A2E03707344
_PREVENT_TRIVIAL_ZERO_COLLAPSE: Final = 0xA4093822299F31D0
ORACLE_SNIPPET_MIN_CONTEXT_LINE_COUNT: Final = 10
ORACLE_SNIPPET_MAX_CONTEXT_LINE_COUNT: Final = 40


def _mix(x: int, y: int) -> int:
    product = x * y
    return (product & _MASK) ^ (product >> 64)


def _le(data: bytes) -> int:
    return int.from_bytes(data, "little")


def _hash_bytes(s: bytes) -> int:
    n = len(s)
    s0, s1 = _SEED0, _SEED1
    if n <= 16:
        if n >= 8:
            s0 ^= _le(s[0:8])
            s1 ^= _le(s[n - 8 : n])
        elif n >= 4:
            s0 ^= _le(s[0:4])
            s1 ^= _le(s[n - 4 : n])
        elif n > 0:
            s0 ^= s[0]
            s1 ^= (s[n - 1] << 8) | s[n // 2]
    else:
        offset = 0
        while offset < n - 16:
            x = _le(s[offset : offset + 8])
            y = _le(s[offset + 8 : offset + 16])
            s0, s1 = s1, _mix(s0 ^ x, _PREVENT_TRIVIAL_ZERO_COLLAPSE ^ y)
            offset += 16
        s0 ^= _le(s[n - 16 : n - 8])
        s1 ^= _le(s[n - 8 : n])
    return _mix(s0, s1) ^ n


def _rotate_left(value: int, bits: int) -> int:
    return ((value << bits) | (value >> (64 - bits))) & _MASK


def _rotate_right(value: int, bits: int) -> int:
    return ((value >> bits) | (value << (64 - bits))) & _MASK


class FxHasher:
    """The hasher's state: ``h = (h + x) · K`` per word, rotated by 26 at the end."""

    def __init__(self) -> None:
        self.hash = 0

    def _add(self, value: int) -> None:
        self.hash = ((self.hash + value) * _K) & _MASK

    def write_u32(self, value: int) -> None:
        self._add(value & 0xFFFFFFFF)

    def write_bytes(self, data: bytes) -> None:
        self._add(_hash_bytes(data))

    def write_path(self, path: str) -> None:
        """A Rust ``Path`` on Unix: each component's bytes, then a ``usize`` that
        folds the component lengths (a ``.`` after a separator is no component)."""
        acc = 0
        for index, piece in enumerate(path.encode().split(b"/")):
            if not piece or (piece == b"." and index > 0):
                continue
            self.write_bytes(piece)
            acc = _rotate_right((acc + len(piece)) & _MASK, 2)
        self._add(acc)

    def finish(self) -> int:
        return _rotate_left(self.hash, 26)


def oracle_padding(path: str, row: int, salt: int) -> int:
    """``pad(path, row, salt)``: rows of context, 10 to 40, around an oracle hunk."""
    hasher = FxHasher()
    hasher.write_path(path)
    hasher.write_u32(row)
    hasher.write_u32(salt)
    span = ORACLE_SNIPPET_MAX_CONTEXT_LINE_COUNT - ORACLE_SNIPPET_MIN_CONTEXT_LINE_COUNT + 1
    return ORACLE_SNIPPET_MIN_CONTEXT_LINE_COUNT + hasher.finish() % span
