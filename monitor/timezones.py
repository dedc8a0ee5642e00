"""A time zone from what a user types: an IANA name, or a city in Russian or English.

    find_timezone("Asia/Novosibirsk")  -> "Asia/Novosibirsk"
    find_timezone("Новосибирск")       -> "Asia/Novosibirsk"
    find_timezone("питер")             -> "Europe/Moscow"
    find_timezone("berlin")            -> "Europe/Berlin"  (any zone's city part)

Russian cities map to the zone that keeps their clock. Source: the IANA tz database
(zone1970.tab, whose comments name the regions of each Russian zone) and Federal Law 107-FZ
"Об исчислении времени" with its later amendments (which regions keep which offset).
"""

from __future__ import annotations

import functools
import re
import zoneinfo

from monitor.users import is_known_timezone

_CITIES: dict[str, tuple[str, ...]] = {
    "Europe/Kaliningrad": ("калининград", "kaliningrad"),
    "Europe/Moscow": (
        "москва",
        "moscow",
        "мск",
        "msk",
        "санкт-петербург",
        "петербург",
        "питер",
        "спб",
        "saint petersburg",
        "st petersburg",
        "petersburg",
        "нижний новгород",
        "nizhny novgorod",
        "казань",
        "kazan",
        "ростов-на-дону",
        "ростов",
        "rostov-on-don",
        "краснодар",
        "krasnodar",
        "воронеж",
        "voronezh",
        "сочи",
        "sochi",
        "ярославль",
        "тула",
        "тверь",
        "рязань",
        "мурманск",
        "архангельск",
        "белгород",
        "курск",
        "калуга",
        "смоленск",
        "ставрополь",
        "махачкала",
        "пенза",
        "чебоксары",
        "вологда",
    ),
    "Europe/Simferopol": ("симферополь", "simferopol", "севастополь", "sevastopol"),
    "Europe/Volgograd": ("волгоград", "volgograd"),
    "Europe/Samara": ("самара", "samara", "ижевск", "izhevsk", "тольятти", "togliatti"),
    "Europe/Saratov": ("саратов", "saratov"),
    "Europe/Ulyanovsk": ("ульяновск", "ulyanovsk"),
    "Europe/Astrakhan": ("астрахань", "astrakhan"),
    "Europe/Kirov": ("киров", "kirov"),
    "Asia/Yekaterinburg": (
        "екатеринбург",
        "yekaterinburg",
        "ekaterinburg",
        "екб",
        "челябинск",
        "chelyabinsk",
        "пермь",
        "perm",
        "уфа",
        "ufa",
        "тюмень",
        "tyumen",
        "оренбург",
        "orenburg",
        "сургут",
        "surgut",
        "курган",
        "магнитогорск",
    ),
    "Asia/Omsk": ("омск", "omsk"),
    "Asia/Novosibirsk": ("новосибирск", "novosibirsk", "нск"),
    "Asia/Barnaul": ("барнаул", "barnaul"),
    "Asia/Tomsk": ("томск", "tomsk"),
    "Asia/Novokuznetsk": ("новокузнецк", "novokuznetsk", "кемерово", "kemerovo"),
    "Asia/Krasnoyarsk": ("красноярск", "krasnoyarsk", "норильск", "norilsk"),
    "Asia/Irkutsk": ("иркутск", "irkutsk", "улан-удэ", "ulan-ude", "братск"),
    "Asia/Chita": ("чита", "chita"),
    "Asia/Yakutsk": ("якутск", "yakutsk", "благовещенск", "blagoveshchensk"),
    "Asia/Vladivostok": (
        "владивосток",
        "vladivostok",
        "хабаровск",
        "khabarovsk",
        "комсомольск-на-амуре",
    ),
    "Asia/Sakhalin": ("южно-сахалинск", "yuzhno-sakhalinsk", "сахалин", "sakhalin"),
    "Asia/Magadan": ("магадан", "magadan"),
    "Asia/Kamchatka": (
        "петропавловск-камчатский",
        "petropavlovsk-kamchatsky",
        "камчатка",
        "kamchatka",
    ),
    "Asia/Anadyr": ("анадырь", "anadyr", "чукотка"),
    # Neighbours people often work from.
    "Europe/Minsk": ("минск", "minsk"),
    "Asia/Almaty": ("алматы", "алма-ата", "almaty", "астана", "astana"),
    "Asia/Tashkent": ("ташкент", "tashkent"),
    "Asia/Bishkek": ("бишкек", "bishkek"),
    "Asia/Yerevan": ("ереван", "yerevan"),
    "Asia/Tbilisi": ("тбилиси", "tbilisi"),
    "Asia/Baku": ("баку", "baku"),
    "Asia/Dubai": ("дубай", "dubai"),
    "Europe/Istanbul": ("стамбул", "istanbul"),
    "Europe/Belgrade": ("белград", "belgrade"),
    "Asia/Bangkok": ("бангкок", "bangkok", "пхукет", "phuket"),
    "UTC": ("utc", "gmt", "всемирное"),
}


def _key(text: str) -> str:
    """Case, ё, the word "город"/"г.", and the separators people type differently."""
    cleaned = text.strip().lower().replace("ё", "е")
    cleaned = re.sub(r"^(?:г\.|город)\s*", "", cleaned)
    return re.sub(r"[\s_\-–—.]+", " ", cleaned).strip()


@functools.cache
def _index() -> dict[str, str]:
    """Every accepted spelling -> zone: each IANA name in any case and its city part, then
    the table above."""
    found: dict[str, str] = {}
    for zone in sorted(zoneinfo.available_timezones()):
        found[_key(zone)] = zone  # "europe/moscow" typed in lower case
        if "/" in zone and not zone.startswith(("Etc/", "SystemV/", "posix/", "right/")):
            found.setdefault(_key(zone.rsplit("/", 1)[1]), zone)
    for zone, names in _CITIES.items():
        for name in names:
            found[_key(name)] = zone  # the table wins over a same-named city elsewhere
    return found


def find_timezone(text: str) -> str | None:
    """The IANA zone meant by `text`, or None when it names none this machine knows."""
    name = text.strip()
    if not name or len(name) > 64:
        return None
    if is_known_timezone(name):
        return name
    zone = _index().get(_key(name))
    return zone if zone is not None and is_known_timezone(zone) else None
