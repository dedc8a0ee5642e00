## Inline mode: "@bot h100" or "@bot 13b qlora ctx=4096" in any chat

inline-hint-title = Type a GPU or a job
inline-hint-description = h100 · a100 80gb max=300 · 13b qlora ctx=4096
inline-hint-text = After the bot's name, type a GPU (<code>h100</code>, <code>a100 80gb max=300</code>) for the best offers, or a job (<code>13b qlora ctx=4096</code>) for its GPU memory.
inline-error-title = Could not read that
inline-error-description = Could not read “{ $words }”. For example: h100 max=300 or 13b qlora
inline-too-long = The query is over { $limit } characters
inline-no-offers-title = Nothing matches right now
inline-no-offers-description = No offer for “{ $query }”
inline-offer-title = { $gpu } ×{ $count } · { $price } ₽/h per GPU
inline-offer-description = { $provider }, { $location } · { $stock }
inline-fit-title = Does { $model } fit · { $method }
inline-open-bot = 🤖 Open the bot

## Links people can share (bot/deep_links.py)

share-button = ↗️ Share
share-sizing-text = How much GPU memory it takes and where to rent it cheapest, answered by gpuradar
link-malformed = This link does not open: it is damaged. Ask me yourself, e.g. <code>/fit 13b qlora ctx=4096</code>.
link-too_long = This link is too long to be mine. Ask me yourself, e.g. <code>/fit 13b qlora ctx=4096</code>.
link-stale = This link is out of date. Ask again and I answer at today's prices, e.g. <code>/fit 13b qlora ctx=4096</code>.
share-watch-text = I watch GPUs at Russian clouds: get the same alert from gpuradar
