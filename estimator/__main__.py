"""`python -m estimator "<query or question>" [--json] [--lang ru|en]`: the sizing answer.

`python -m estimator --config config.json "qlora ctx=4096"` sizes the model the Hugging Face
config.json describes (estimator.model_config); the text then says only the run.

Exit status 2, with one line on stderr, when the text cannot be read as a sizing question or
the config cannot be sized.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from estimator.answer import build_answer, to_json
from estimator.config_query import sizing_for_config
from estimator.fit_words import understand
from estimator.gpus import load_gpus
from estimator.i18n import translator
from estimator.model_config import MAX_CONFIG_BYTES, ConfigError, read_config
from estimator.parse import ParsedQuery, QueryError
from estimator.sizing_text import render, render_short, to_plain

EXIT_UNREADABLE = 2


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m estimator", description=__doc__)
    parser.add_argument("text", nargs="*", help='e.g. "13b qlora ctx=4096" or a question')
    parser.add_argument(
        "--config", metavar="FILE", help="a Hugging Face config.json: size that model"
    )
    parser.add_argument("--json", action="store_true", help="one JSON object instead of text")
    parser.add_argument("--lang", choices=("ru", "en"), default="en")
    parser.add_argument(
        "--short", action="store_true", help="only the first answer the bot sends (no details)"
    )
    args = parser.parse_args(argv)
    question = " ".join(args.text)
    if not question and not args.config:
        parser.error("give a question, or --config FILE")
    try:
        parsed = _from_config(args.config, question) if args.config else understand(question)
    except QueryError as error:
        print(f"estimator: {error.reason}", file=sys.stderr)
        return EXIT_UNREADABLE
    if parsed is None:
        print(
            "estimator: not a sizing question (name a model or a size, e.g. 13b)", file=sys.stderr
        )
        return EXIT_UNREADABLE
    answer = build_answer(parsed, load_gpus())
    if args.json:
        print(json.dumps(to_json(answer), ensure_ascii=False, indent=2))
    else:
        view = render_short(answer, args.lang) if args.short else render(answer, args.lang)
        print(to_plain(view))
    return 0


def _from_config(path: str, question: str) -> ParsedQuery:
    try:
        with open(path, "rb") as f:
            text = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as error:
        raise ConfigError(f"cannot read {path}: {error.strerror}", key="config") from None
    model = read_config(text)
    english = translator("en")
    for item in model.assumed:
        print(f"estimator: config.json: {to_plain(item.say(english))}", file=sys.stderr)
    return sizing_for_config(model.spec, question)


def run() -> int:
    """main(), quiet when the reader of its output goes away (`… | head -1`)."""
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # Python's own advice (the signal module's notes on SIGPIPE): point stdout at
        # /dev/null so the interpreter's final flush does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return status


if __name__ == "__main__":
    sys.exit(run())
