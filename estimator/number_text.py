"""Numbers and money as every answer writes them, in one place.

money(16)          "16"        a round price has no ",00" noise
money(45.5)        "45,50"     kopecks below 1000 ₽, with a decimal comma ("45.50" in English)
money(230400)      "230 400"   thin no-break spaces between thousands, no kopecks
grouped(12288)     "12 288"    a count (tokens, tokens/s) with its thousands apart
plain(1e9)         "1000000000"  a value as a command or a filter word writes it: never
                               an exponent (Python's :g turns 1e9 into "1e+09" and
                               1234567 into "1.23457e+06"), no trailing zeros
"""

from __future__ import annotations

# The thin no-break space between thousands: a number never breaks across lines.
THOUSANDS_SEPARATOR = "\u202f"


def grouped(value: float, language: str = "ru") -> str:
    """A whole number, thousands apart: 12 288 in Russian, 12,288 in English."""
    text = f"{round(value):,}"
    return text if language == "en" else text.replace(",", THOUSANDS_SEPARATOR)


def money(value: float, language: str = "ru") -> str:
    """Rubles: 320 -> "320", 45.5 -> "45,50" ("45.50" in English: a comma there reads as
    thousands), 230400 -> "230 400" (thin spaces in both: SI grouping reads the same)."""
    if value >= 1000 or float(value).is_integer():
        return grouped(value)
    text = f"{value:.2f}"
    return text if language == "en" else text.replace(".", ",")


def plain(value: float) -> str:
    """A value as typed: 24 -> "24", 0.5 -> "0.5", 1e9 -> "1000000000", 599.999 -> "599.999"."""
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.6f}".rstrip("0").rstrip(".")
