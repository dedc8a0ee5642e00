## /watch and /subs

command-watch = Подписаться на наличие и цену
command-subs = Мои подписки
command-stock = Что есть в наличии
command-history = График цены и наличия
watch-wizard-gpu = 🔔 За какой видеокартой следить? Другие — текстом: <code>/watch a100 80gb max=250</code>
watch-wizard-price = { $gpu }: до какой цены за GPU·час сообщать?
watch-created = ✅ Подписка: <b>{ $summary }</b>. Напишу, как только появится подходящее предложение. Все подписки — /subs.
watch-limit = Не больше { $limit } подписок. Удалите лишние в /subs.
watch-too-long = Слишком длинный фильтр — уложитесь в { $limit } символов.
watch-error-empty = Что отслеживать? Например: <code>/watch h100</code>, <code>/watch a100 80gb max=250</code>, <code>/watch 70b qlora ctx=8192 max=400</code>.
watch-error-unknown_gpu = Не знаю видеокарту «{ $value }». Например: <code>/watch 4090</code>, <code>/watch h100</code>, <code>/watch a100 80gb</code>.
watch-error-bad_value = Не понял «{ $value }». Пример: <code>/watch a100 80gb max=250 provider=selectel</code>.
watch-error-unknown_key = Не знаю параметр «{ $value }». Можно: max, count, vram, total_vram, provider, location, kinds, cooldown.
watch-error-no_filter = Нужен хотя бы один фильтр: видеокарта, модель для обучения или цена.
watch-error-fit_error = Не понял модель для подбора: «{ $value }». Пример: <code>/watch 70b qlora ctx=8192 max=400</code>.
subs-empty = Подписок пока нет. Создайте: <code>/watch h100</code> или /watch без аргументов.
subs-title = <b>🔔 Мои подписки</b> ({ $count } из { $limit })
subs-line = { $number }. { $summary }
subs-paused = { " " }— ⏸ на паузе
subs-stale = Этой подписки уже нет. Откройте /subs заново.
subs-edit-price = До какой цены за GPU·час сообщать?
stock-title = <b>✅ В наличии сейчас</b>
history-usage = Укажите видеокарту: <code>/history h100</code> или <code>/history 4090</code>.
history-empty = По { $gpu } пока нет истории цен — она копится с каждым опросом провайдеров.
history-caption = { $gpu }: цена за GPU·час за 30 дней. Минимум: { $low } ₽ ({ $provider }).
history-caption-nolow = { $gpu }: цена за GPU·час за 30 дней.
fit-watch-button = 🔔 Следить за подходящими
fit-watch-stale = Кнопка устарела — создайте подписку командой <code>/watch</code>.
# A chart is drawn at most once per user every few seconds, and only a few at once.
history-wait = ⏳ Графики рисуются по очереди. Попробуйте через { $seconds } с.
