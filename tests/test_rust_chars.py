"""``_rust_chars``: Rust's ``char::is_whitespace`` and ``char::is_alphanumeric`` as
regular-expression classes, where Python's own classes differ."""

from __future__ import annotations

import re
import unicodedata

from pytest_editpred._rust_chars import RUST_WHITESPACE, WHITESPACE_CLASS, WORD_CLASS, rust_trim

WORD = re.compile(f"[{WORD_CLASS}]")
SPACE = re.compile(f"[{WHITESPACE_CLASS}]")


def test_the_whitespace_class_is_unicode_white_space_and_not_pythons_isspace() -> None:
    everything = "".join(map(chr, range(0x3001)))
    assert set(SPACE.findall(everything)) == set(RUST_WHITESPACE)
    assert len(RUST_WHITESPACE) == 25  # White_Space has 25 characters
    assert {chr(c) for c in range(0x1C, 0x20)}.isdisjoint(RUST_WHITESPACE)
    assert all(chr(c).isspace() for c in range(0x1C, 0x20))


def test_the_word_class_holds_pythons_word_characters_and_rusts_other_alphabetic_ones() -> None:
    for char in ("a", "Z", "_", "7", "é", "ß", "Ⅻ", "½", "\u0945", "\u093e", "\u05b0", "\u064b", "Ⓐ", "\U0001f130"):
        assert WORD.match(char), f"U+{ord(char):04X}"
    for char in ("-", " ", "\u0300", "\u0301", "\u094d", "€", "→", "\x1c"):
        assert not WORD.match(char), f"U+{ord(char):04X}"
    # beyond \w, only marks, symbols and letters/numbers Python's tables are too old for
    extra = [chr(c) for c in range(0x30000) if WORD.match(chr(c)) and not re.match(r"\w", chr(c))]
    assert extra and {unicodedata.category(c) for c in extra} <= {"Mn", "Mc", "So", "Cn", "Lo", "Lm", "Nd", "No"}


def test_rust_trim_keeps_the_characters_rust_does_not_call_whitespace() -> None:
    assert rust_trim("\xa0\u3000 x \n\t") == "x"
    assert rust_trim("\x1cx\x1f") == "\x1cx\x1f"
