"""A method named with a typo: «а с клорой?» is QLoRA, "qlroa" too.

Only words the Russian dictionary does not hold are tried (a known word such as «флора» is
never a typo of «лора»), and Latin words that start as the methods' names do; each of the
word's lemmas (pymorphy3 guesses one for an unknown word: «клорой» -> «клора») is scored by
rapidfuzz's normalised Indel similarity against the methods' spellings, and the best above
`CUTOFF` wins. The normalisation prefers the longer name at the same distance: «клора» is one
edit from both «кулора» and «лора», and scores 91 against 89, which is the QLoRA the person
meant («кью-лора»).
"""

from __future__ import annotations

import re

from rapidfuzz import fuzz, process

from estimator.parsing.lemmas import is_known, lemmas
from estimator.parsing.words import METHOD_SPELLINGS
from estimator.query import Method

CUTOFF = 80.0  # one edit in a five-letter word scores 80-91; two edits in four score 50
_WORD = re.compile(r"[^\W\d_]{4,}")
_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
_SPELLINGS = tuple(METHOD_SPELLINGS)


def _candidate(word: str) -> bool:
    if _CYRILLIC.search(word):
        return not is_known(word)
    return word[0].lower() == "q" and len(word) <= 6  # "qlroa"; "flora" stays English


def fuzzy_method(text: str) -> tuple[Method, int, int] | None:
    """The first word of `text` that is a method with a typo: (method, start, end)."""
    for m in _WORD.finditer(text):
        if not _candidate(m.group()):
            continue
        best = max(
            (
                found
                for form in lemmas(m.group())
                if (found := process.extractOne(form, _SPELLINGS, scorer=fuzz.ratio))
            ),
            key=lambda found: found[1],
            default=None,
        )
        if best is not None and best[1] >= CUTOFF:
            return METHOD_SPELLINGS[best[0]], m.start(), m.end()
    return None
