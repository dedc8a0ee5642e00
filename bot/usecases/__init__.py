"""Use cases: what the bot does, between its transports and the domain.

Chat commands and free text (bot/routers), the Mini App (bot/miniapp), the open data
(bot/ops/open_data.py), inline mode and the console ask these modules, never a router: a
router is only the aiogram face of a use case (reading the update, sending the reply).

    sizing.py    a sizing answer at live prices (build, live_quotes, measured_speed)
    watches.py   subscribing: a watch's words or filter to a new watch and the reply
    market.py    the market: a page of offers, the answers to market questions
"""
