"""Model names as tokens, and loose matching of user phrases against a catalog's names.

How a phrase is read:

1. It is lower-cased, Cyrillic model words are transliterated (`MODEL_WORDS_RU`), an org
   prefix ("unsloth/") and parenthesised remarks are dropped, and it is split into tokens:
   words, version numbers, sizes ("8b", "8x7b", "6.7b"), "v0.3", "a3b", "4k".
2. Words that do not change the architecture ("instruct", "chat", "it", "bnb", ...) go.
3. If the tokens equal those of a catalog name (id or alias), that row wins. Version dots are
   ignored there, so "qwen25 7b" = "Qwen2.5-7B".
4. Otherwise the tokens are matched loosely: the model line word ("llama", "qwen") must match,
   a given size must equal the name's size, a given version must equal or prefix the name's
   ("3" matches 3.1 and 3.3). Among several rows the one with the fewest words the user did not
   say wins, then the newest release: "llama 70b" is Llama-3.3-70B, "qwen 7b" is Qwen2.5-7B
   (the newest generation with a 7B; Qwen3 has an 8B instead). Without a size the match must
   be unique: "mixtral" alone names two models and matches nothing.

This module knows nothing about ModelSpec: a `NameIndex` maps names to row numbers.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from estimator.parsing.words import MODEL_NOISE_WORDS, MODEL_WORDS_RU

_RU_TO_LATIN: dict[str, str] = {
    form: latin for latin, forms in MODEL_WORDS_RU.items() for form in forms
}
_CYRILLIC_WORD = re.compile(r"[а-яё]+(?:-[а-яё]+)*")
_TOKEN = re.compile(
    r"(?P<size>(?:\d+x)?\d+(?:[.,]\d+)?b(?:\d+)?)(?![a-z])"  # 8b, 8x7b, 6.7b, 7b1 (BLOOM)
    r"|(?P<active>a\d+(?:\.\d+)?b)(?![a-z])"  # Qwen3-30B-A3B: active parameters
    r"|(?P<rev>v\d+(?:\.\d+)*)(?![a-z])"  # v0.3
    r"|(?P<ctxq>\d+k)(?![a-z])"  # Phi-3-mini-4k: a context variant, not a number
    r"|(?P<bits>\d+bit)(?![a-z])"  # bnb-4bit
    r"|(?P<num>\d+(?:\.\d+)*)"
    r"|(?P<word>[a-z]+)"
)


# Words after which a model line names the base of a derived model: DeepSeek's
# "DeepSeek-R1-Distill-Qwen-7B" is Qwen2.5-7B's architecture (the catalogue's aliases).
DERIVATION_WORDS = frozenset({"distill"})


@dataclass(frozen=True)
class Token:
    kind: str  # size, active, rev, ctxq, bits, num, word
    text: str  # normalised: sizes without "b" ("8x7", "6.7"), versions with dots


def _transliterate(text: str) -> str:
    def word(m: re.Match[str]) -> str:
        w = m.group()
        if w in _RU_TO_LATIN:  # "дипсик-кодер" as a whole, else part by part
            return f" {_RU_TO_LATIN[w]} "
        return "-".join(_RU_TO_LATIN.get(part, part) for part in w.split("-"))

    text = text.lower()
    text = re.sub(r"(\d)\s*б(?![а-яё])", r"\1b", text)  # 7б, 70 б
    text = re.sub(r"(\d)\s*[xх×]\s*(\d)", r"\1x\2", text)  # 8х7b with a Cyrillic х
    return _CYRILLIC_WORD.sub(word, text)


def _size_text(raw: str) -> str:
    raw = raw.replace(",", ".")
    if "x" in raw:
        experts, size = raw[:-1].split("x")
        return f"{experts}x{_number(size)}"
    if re.fullmatch(r"\d+b\d+", raw):  # bloom-7b1 = 7.1B
        whole, frac = raw.split("b")
        return _number(f"{whole}.{frac}")
    return _number(raw[:-1])


def _number(text: str) -> str:
    value = float(text)
    return str(int(value)) if value.is_integer() else f"{value:g}"


def tokenize(text: str) -> list[Token]:
    """Tokens of a model phrase, noise words removed (see the module docstring)."""
    text = _transliterate(text)
    text = re.sub(r"\([^)]*\)", " ", text)
    if "/" in text:
        text = text.rsplit("/", 1)[1]  # "unsloth/Llama-3.2-3B": the org names no architecture
    tokens: list[Token] = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup or "word"
        raw = m.group()
        if kind == "size":
            tokens.append(Token(kind, _size_text(raw)))
        elif kind == "bits" or (kind == "word" and raw in MODEL_NOISE_WORDS):
            continue
        else:
            tokens.append(Token(kind, raw))
    return tokens


def key(tokens: list[Token]) -> tuple[str, ...]:
    """The exact-match form: version dots dropped ("2.5" = "25"), kinds kept apart."""
    return tuple(
        f"{t.kind}:{t.text.replace('.', '') if t.kind == 'num' else t.text}" for t in tokens
    )


@dataclass(frozen=True)
class Descriptor:
    """What a name or a phrase says: line words, version, size and the rest."""

    words: frozenset[str]
    first_word: str | None
    version: str | None
    size: str | None
    extras: frozenset[str]  # dates (2409), revisions (v0.3), a3b, 4k, stray numbers


def describe(tokens: list[Token]) -> Descriptor:
    words: list[str] = []
    version: str | None = None
    size: str | None = None
    extras: set[str] = set()
    for t in tokens:
        if t.kind == "word":
            words.append(t.text)
        elif t.kind == "size" and size is None:
            size = t.text
        elif t.kind == "num" and len(t.text) == 4 and t.text.isdigit():
            extras.add(t.text)  # Mistral's yymm release tags
        elif t.kind == "num" and version is None and size is None:
            version = t.text
        else:
            extras.add(f"{t.kind}:{t.text}")
    return Descriptor(
        frozenset(words), words[0] if words else None, version, size, frozenset(extras)
    )


def _version_rank(user: str, name: str | None) -> int | None:
    """0 exact, 1 prefix ("3" of "3.1"), None no match. Dots are optional ("31" = "3.1")."""
    if name is None:
        return None
    if user == name or user.replace(".", "") == name.replace(".", ""):
        return 0
    if name.startswith(user + "."):
        return 1
    return None


def _same_size(a: str, b: str) -> bool:
    if "x" in a or "x" in b:
        return a == b
    return math.isclose(float(a), float(b), rel_tol=1e-6)


class NameClashError(ValueError):
    """Two rows have names that read the same; `row` and `other` are row numbers."""

    def __init__(self, name: str, row: int, other: int) -> None:
        super().__init__(f"{name!r} reads the same as a name of row {other}")
        self.name, self.row, self.other = name, row, other


@dataclass(frozen=True)
class _Name:
    row: int
    descriptor: Descriptor


def _is_noise(chunk: str) -> bool:
    """ "Instruct", "-bnb-4bit": a chunk that only repeats what names may carry."""
    chunk = chunk.lower()
    words = re.findall(r"[a-z]+", chunk)
    return (
        bool(words)
        and re.fullmatch(r"[a-z0-9._\-]+", chunk) is not None
        and all(w in MODEL_NOISE_WORDS for w in words)
    )


def _trailing_dots(chunk: str) -> int:
    return len(chunk) - len(chunk.rstrip(".…-"))


# A chunk of free text: no spaces and none of the punctuation that ends a model name.
_CHUNK = re.compile(r"[^\s,;:!?()\[\]{}«»\"“”„']+")


def name_chunks(text: str) -> list[tuple[int, int]]:
    """The spans of the chunks of free text a model name is made of: no spaces and none of
    the punctuation that ends a name, trailing dots and dashes left out (a chunk of nothing
    else is an empty span)."""
    return [(m.start(), m.end() - _trailing_dots(m.group())) for m in _CHUNK.finditer(text)]


class NameIndex:
    """Every spelling of every row, ready for exact and loose lookups."""

    def __init__(self, rows: Iterable[tuple[Iterable[str], str]]) -> None:
        """`rows`: (names, released "YYYY-MM") per row, in row order. Raises NameClashError."""
        self.exact: dict[tuple[str, ...], int] = {}
        names: list[_Name] = []
        released: list[int] = []
        for row, (spellings, date) in enumerate(rows):
            year, month = date.split("-")
            released.append(int(year) * 12 + int(month))
            for name in spellings:
                tokens = tokenize(name)
                other = self.exact.setdefault(key(tokens), row)
                if other != row:
                    raise NameClashError(name, row, other)
                names.append(_Name(row, describe(tokens)))
        self.names = tuple(names)
        self.released = tuple(released)
        self.vocabulary = frozenset(w for n in names for w in n.descriptor.words)
        # Words a mention starts with ("llama", "qwen"; "t" for T0, matched exactly only).
        self.lines = frozenset(n.descriptor.first_word for n in names if n.descriptor.first_word)

    def match(self, text: str) -> int | None:
        """The row a model phrase names, or None when it names none or several."""
        tokens = tokenize(text)
        if not tokens:
            return None
        row = self.exact.get(key(tokens))
        return row if row is not None else self._loose(describe(tokens))

    def _loose(self, user: Descriptor) -> int | None:
        best = self._candidates(user)
        if not best:
            return None
        if user.size is None and len(best) > 1:
            return None  # "mixtral", "gemma 2": which one? do not guess
        return min(best, key=lambda r: (best[r], -self.released[r], r))

    def candidates(self, text: str) -> int:
        """How many rows a model phrase could loosely name: "qwen 2" names none alone but
        two rows (Qwen2-7B, Qwen2-72B) could be meant."""
        tokens = tokenize(text)
        return len(self._candidates(describe(tokens))) if tokens else 0

    def _candidates(self, user: Descriptor) -> dict[int, tuple[int, int]]:
        # Unknown words ("super") do not veto a match, nor do single letters ("R" in a build tag).
        known = {w for w in user.words & self.vocabulary if len(w) > 1}
        # Loose matching needs a real model line: short ones ("t", "mt", "yi") only match exactly.
        if not any(w in self.lines and len(w) >= 3 for w in known):
            return {}
        # Stray numbers after the size ("Vikhr-Nemo-12B-R-21-09-24") are build tags; release tags,
        # revisions and active sizes ("2409", "v0.3", "a3b") do tell models apart.
        telling = {e for e in user.extras if not e.startswith("num:")}
        best: dict[int, tuple[int, int]] = {}  # row -> (words the user did not say, version rank)
        for name in self.names:
            d = name.descriptor
            if d.first_word is None or len(d.first_word) < 3 or not known <= d.words:
                continue
            if user.size is not None and (d.size is None or not _same_size(user.size, d.size)):
                continue
            version_rank = 0
            if user.version is not None:
                rank = _version_rank(user.version, d.version)
                if rank is None:
                    continue
                version_rank = rank
            if not telling <= d.extras:
                continue
            score = (len(d.words - known), version_rank)
            best[name.row] = min(score, best.get(name.row, score))
        return best

    def find(self, text: str) -> tuple[int, int, int] | None:
        """The first model named in free text: (row, start, end) of its span in `text`.

        A mention starts at a chunk holding a model line word ("llama", "Qwen2.5-7B",
        "meta-llama/..."), takes in the following chunks while they look like parts of a name
        (versions, sizes, "instruct", "mini"), and is then shortened from the right until it
        matches: "llama 3 8b с лорой" yields "llama 3 8b".
        """
        chunks = [(s, e) for s, e in name_chunks(text) if e > s]
        parsed = [tokenize(text[s:e]) for s, e in chunks]
        for i, tokens in enumerate(parsed):
            if not any(t.kind == "word" and t.text in self.lines for t in tokens):
                continue
            end = i
            seen_size = any(t.kind == "size" for t in tokens)
            while end + 1 < len(chunks) and end - i < 5:
                nxt = parsed[end + 1]
                raw = text[chunks[end + 1][0] : chunks[end + 1][1]]
                # "deepseek r1 distill qwen 7b": a distilled model is named by its base after
                # the word (DeepSeek-R1-Distill-Qwen-7B), so that model line continues it.
                derived = any(t.text in DERIVATION_WORDS for t in parsed[end])
                if not (nxt and self._continues(nxt, seen_size, derived)) and not _is_noise(raw):
                    break
                seen_size = seen_size or any(t.kind == "size" for t in nxt)
                end += 1
            for last in range(end, i - 1, -1):
                start, stop = chunks[i][0], chunks[last][1]
                row = self.match(text[start:stop])
                if row is not None:
                    return row, start, stop
        return None

    def _continues(self, tokens: list[Token], seen_size: bool, derived: bool = False) -> bool:
        """Whether a separate chunk can belong to the model name before it; another model
        line starts a new name unless the chunk before said the model is `derived` from it."""
        for t in tokens:
            if t.kind == "word":
                if t.text not in self.vocabulary or (t.text in self.lines and not derived):
                    return False
            elif t.kind == "num":
                # Versions come before the size ("llama 3 8b"); after it a number is something
                # else ("qwen 7b 2 gpus"), except Mistral's 4-digit release tags.
                if seen_size and not (len(t.text) == 4 and t.text.isdigit()):
                    return False
                if not seen_size and len(t.text.replace(".", "")) > 4:
                    return False
            elif t.kind == "size":
                if seen_size:
                    return False
            elif t.kind == "ctxq":
                return False  # "8k" on its own is a context length, not part of the name
        return True
