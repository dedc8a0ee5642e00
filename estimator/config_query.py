"""A sizing question about a model given by its config.json rather than by name.

    sizing_for_config(spec, "lora ctx=8192") -> ParsedQuery of that run on `spec`

The text says the run (method, ctx, bs, gpu, ...) in the /fit grammar or as a question; the
model comes from the config, and a model or size the text names too is overruled by it (noted
as `config_model:<what the text named>`). An empty text is the default run (QLoRA).
"""

from __future__ import annotations

from dataclasses import replace

from estimator.fit_words import understand
from estimator.parse import ParsedQuery, QueryError
from estimator.specs import ModelSpec

# A bare size the parser reads as a model, standing in while the run's words are read; the
# config's model replaces it (nothing `finish` fills in depends on the model). A remembered
# config sizing was stored as a command on it before the typed texts (bot.conversation).
STAND_IN = "7b"


def sizing_for_config(spec: ModelSpec, text: str = "") -> ParsedQuery:
    """The run `text` describes, on the config's model. QueryError for a bad value in it."""
    text = text.strip()
    parsed: ParsedQuery | None = None
    named: str | None = None
    if text:
        try:
            parsed = understand(text)
        except QueryError as error:
            if error.code != "no_model":
                raise
        if parsed is not None:
            named = f"{parsed.asked_size:g}b" if parsed.asked_size is not None else parsed.model.id
    if parsed is None:
        parsed = understand(f"{STAND_IN} {text}".strip())
    if parsed is None:  # pragma: no cover - a bare size always reads as a command
        raise QueryError("no_model", "the text does not read as a run", key="model")
    return with_config_model(parsed, spec, named)


def with_config_model(
    parsed: ParsedQuery, spec: ModelSpec, named: str | None = None
) -> ParsedQuery:
    """`parsed`'s run on the config's model; `named` is the model the text named, overruled."""
    notes = parsed.notes + ((f"config_model:{named}",) if named else ())
    return replace(
        parsed,
        query=replace(parsed.query, model=spec.id),
        model=spec,
        model_from_size=False,
        model_from_config=True,
        asked_size=None,
        assumptions=tuple(a for a in parsed.assumptions if a.key != "model"),
        notes=notes,
    )
