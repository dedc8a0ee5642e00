"""Words as their dictionary forms, so that one table entry covers every form of a word.

Russian declines numerals and nouns: «двух», «двумя» and «два» are one numeral, «тысячами»
and «тысяч» one noun. pymorphy3 (OpenCorpora's dictionary with suffix guessing for unknown
words) gives every reading's normal form; a word's lemmas are all of them, since a short
message gives no context to choose («клора»: «клор» or «клора»). English needs only the
plural: "tokens" -> "token". The analyzer loads once per process (about 0.15 s), the first
time a Cyrillic word is looked up, and each word is analysed once (an LRU cache): a parse is
about 40 µs, a cached look-up well under one.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pymorphy3

_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)


@functools.cache
def analyzer() -> pymorphy3.MorphAnalyzer:
    import pymorphy3  # imported here: most processes that import the estimator read no text

    return pymorphy3.MorphAnalyzer()


def fold(word: str) -> str:
    """Lower case, «ё» as «е»: people write either."""
    return word.lower().replace("ё", "е")


@functools.lru_cache(maxsize=8192)
def lemmas(word: str) -> frozenset[str]:
    """Every dictionary form `word` may be, folded, the word itself among them."""
    folded = fold(word)
    if not _CYRILLIC.search(folded):
        forms = {folded}
        if len(folded) > 3 and folded.endswith("s") and not folded.endswith("ss"):
            forms.add(folded[:-1])  # tokens -> token, samples -> sample, gpus -> gpu
        return frozenset(forms)
    parses = analyzer().parse(folded)
    return frozenset({folded, *(fold(p.normal_form) for p in parses)})


@functools.lru_cache(maxsize=8192)
def is_known(word: str) -> bool:
    """Whether the dictionary holds `word` as it is (not guessed from its ending): a known
    word («флора») is never read as a typo of a term («лора»)."""
    folded = fold(word)
    if not _CYRILLIC.search(folded):
        return True
    return bool(analyzer().word_is_known(folded))


@functools.lru_cache(maxsize=8192)
def is_infinitive(word: str) -> bool:
    """«брать», «включать»: the verb after «стоит ли», «нужно ли»."""
    if not _CYRILLIC.search(word):
        return False
    return any("INFN" in p.tag for p in analyzer().parse(fold(word)))
