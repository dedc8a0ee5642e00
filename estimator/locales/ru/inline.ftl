## Inline mode: «@бот h100» or «@бот 13b qlora ctx=4096» in any chat

inline-hint-title = Напишите GPU или задачу
inline-hint-description = h100 · a100 80gb max=300 · 13b qlora ctx=4096
inline-hint-text = Напишите после имени бота GPU (<code>h100</code>, <code>a100 80gb max=300</code>) — покажу лучшие предложения, или задачу (<code>13b qlora ctx=4096</code>) — посчитаю видеопамять.
inline-error-title = Не понял запрос
inline-error-description = Не понял «{ $words }». Например: h100 max=300 или 13b qlora
inline-too-long = Запрос длиннее { $limit } символов
inline-no-offers-title = Сейчас ничего не подходит
inline-no-offers-description = Ни одного предложения под «{ $query }»
inline-offer-title = { $gpu } ×{ $count } · { $price } ₽/ч за GPU
inline-offer-description = { $provider }, { $location } · { $stock }
inline-fit-title = Влезет ли { $model } · { $method }
inline-open-bot = 🤖 Открыть бота

## Links people can share (bot/deep_links.py)

share-button = ↗️ Поделиться
share-sizing-text = Сколько видеопамяти нужно и где арендовать дешевле — ответ gpuradar
link-malformed = Эта ссылка не открывается: она повреждена. Спросите меня сами, например <code>/fit 13b qlora ctx=4096</code>.
link-too_long = Эта ссылка слишком длинная, чтобы быть моей. Спросите меня сами, например <code>/fit 13b qlora ctx=4096</code>.
link-stale = Эта ссылка устарела. Спросите заново — отвечу по сегодняшним ценам, например <code>/fit 13b qlora ctx=4096</code>.
share-watch-text = Слежу за GPU в российских облаках — подпишитесь на то же в gpuradar
