"""`python -m estimator "<query or question>" [--json] [--lang ru|en]`: the sizing answer.

Exit status 2, with one line on stderr, when the text cannot be read as a sizing question.
"""

from __future__ import annotations

import argparse
import json
import sys

from estimator.answer import build_answer, to_json
from estimator.fit_words import understand
from estimator.gpus import load_gpus
from estimator.parse import QueryError
from estimator.sizing_text import render, render_short, to_plain

EXIT_UNREADABLE = 2


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m estimator", description=__doc__)
    parser.add_argument("text", nargs="+", help='e.g. "13b qlora ctx=4096" or a question')
    parser.add_argument("--json", action="store_true", help="one JSON object instead of text")
    parser.add_argument("--lang", choices=("ru", "en"), default="en")
    parser.add_argument(
        "--short", action="store_true", help="only the first answer the bot sends (no details)"
    )
    args = parser.parse_args(argv)
    question = " ".join(args.text)
    try:
        parsed = understand(question)
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


if __name__ == "__main__":
    sys.exit(main())
