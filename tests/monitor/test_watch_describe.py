"""monitor.watch_describe: a watch in the user's words, as Telegram HTML."""

from __future__ import annotations

from monitor.watch_describe import describe, filter_parts, short_label
from monitor.watch_words import parse_watch


def test_describe_russian_and_english():
    watch = parse_watch("h100 max=250")
    assert describe(watch, "ru") == "H100 · до 250 ₽/GPU·ч · в наличии"
    assert describe(watch, "en") == "H100 · ≤ 250 ₽/GPU·h · in stock"


def test_describe_everything():
    watch = parse_watch(
        "8x a100 80gb max=199.5 provider=immers location=msk kinds=in_stock,price_drop cooldown=1h"
    )
    assert describe(watch, "ru") == (
        "A100 · от 8 GPU · от 80 ГБ/GPU · до 199,5 ₽/GPU·ч · immers.cloud · локация: msk"
        " · в наличии, снижение цены · не чаще раза в 1 ч"
    )
    assert describe(watch, "en") == (
        "A100 · ≥ 8 GPUs · ≥ 80 GB/GPU · ≤ 199.5 ₽/GPU·h · immers.cloud · location: msk"
        " · in stock, price drop · at most every 1h"
    )


def test_describe_fit_and_any():
    fit = parse_watch("70b qlora ctx=8192 max=400")
    assert describe(fit, "ru") == "подойдёт для: 70b qlora ctx=8192 · до 400 ₽/GPU·ч · в наличии"
    assert describe(parse_watch("80gb"), "en") == "any GPU · ≥ 80 GB/GPU · in stock"
    only_below = parse_watch("t4 max=40 kinds=below_target")
    assert describe(only_below, "en") == "T4 · ≤ 40 ₽/GPU·h · below target"


def test_the_users_words_are_escaped_once():
    watch = parse_watch("h100 location=<b>&amp;</b>")
    assert describe(watch, "en") == "H100 · location: &lt;b&gt;&amp;amp;&lt;/b&gt; · in stock"
    assert filter_parts(watch, "ru") == ["H100", "локация: &lt;b&gt;&amp;amp;&lt;/b&gt;"]
    assert short_label(watch) == "H100 <b>&amp;</b>"  # plain: the caller escapes it


def test_a_cooldown_is_said_in_its_largest_whole_unit():
    assert describe(parse_watch("h100 cooldown=1d"), "ru").endswith("не чаще раза в 1 сут")
    assert describe(parse_watch("h100 cooldown=90m"), "en").endswith("at most every 90m")
    assert describe(parse_watch("h100 cooldown=86401s"), "ru").endswith("раза в 86401 с")
