## /watch and /subs

command-watch = Подписаться на наличие и цену
command-subs = Мои подписки
command-stock = Что есть в наличии
command-history = График цены и наличия
watch-wizard-gpu = 🔔 За какой видеокартой следить? Другие — текстом: <code>/watch a100 80gb max=250</code>
watch-wizard-price = { $gpu }: до какой цены за GPU·час сообщать?
watch-created = ✅ Подписка: <b>{ $summary }</b>.
watch-exists = Такая подписка уже есть — №{ $number } в /subs: <b>{ $summary }</b>. Вторую такую же не создаю.
watch-limit = Не больше { $limit } { $limit ->
        [one] подписки
       *[other] подписок
    }. Удалите лишние в /subs.
watch-too-long = Слишком длинный фильтр — уложитесь в { $limit } { $limit ->
        [one] символ
        [few] символа
       *[many] символов
    }.
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
subs-edit-current = Подписка { $number } «{ $label }»: сейчас до { $max } ₽ за GPU·ч.
subs-edit-current-none = Подписка { $number } «{ $label }»: сейчас без ограничения цены.
subs-edit-type = Нажмите кнопку или напишите цену числом, например <code>450</code> (0 — без ограничения).
subs-edit-back = ⬅️ Назад
subs-edit-bad = Напишите цену за GPU·час числом от 1 до { $limit }, например <code>450</code> (0 — без ограничения), или нажмите «⬅️ Назад».
stock-title = <b>✅ В наличии сейчас</b>
history-usage = Укажите видеокарту: <code>/history h100</code> или <code>/history 4090</code>.
history-unknown-gpu = Не знаю видеокарту «{ $gpu }». Примеры: <code>/history h100</code>, <code>/history a100</code>, <code>/history 4090</code>.
history-empty = По { $gpu } пока нет истории цен — она копится с каждым опросом провайдеров.
history-caption = { $gpu }: цена за GPU·час за 30 дней. Минимум в наличии: { $low } ₽ ({ $provider }).
history-caption-nolow = { $gpu }: цена за GPU·час за 30 дней. В наличии не было.
# A lower price drawn while that offer could not be rented (out of stock, pre-order).
history-caption-unrentable-low = Ниже цена была только без наличия: { $low } ₽ ({ $provider }).
history-caption-cut = На графике { $shown } самых дешёвых из { $total } { $total ->
        [one] предложения
       *[other] предложений
    }.
# The chart's own words: title, axes, legend keys (bot/charts.py draws them).
history-chart-title = { $gpu }: цена и наличие за 30 дней
history-axis-price = ₽ за GPU·час
history-axis-time = Дата ({ $zone })
history-key-in-stock = толстая линия — в наличии
history-key-out-of-stock = бледная линия — нет в наличии
history-key-low = минимум в наличии: { $low } ₽ ({ $provider })
fit-watch-button = 🔔 Следить за подходящими
fit-watch-stale = Кнопка устарела — создайте подписку командой <code>/watch</code>.
# A chart is drawn at most once per user every few seconds, and only a few at once.
history-wait = ⏳ Графики рисуются по очереди. Попробуйте через { $seconds } с.

## /watch: what already matches, and what "new" means (bot/routers/watch.py)

watch-matches-now = Уже подходит сейчас: { $count } { $count ->
        [one] предложение
        [few] предложения
       *[many] предложений
    }, самые дешёвые за GPU·час:
watch-matches-more = …и ещё { $count }: все — в /prices.
watch-matches-none = Сейчас ничего подходящего нет.
watch-new-title = <b>Напишу, когда появится новое:</b>
watch-new-in_stock = • подходящее предложение появится в продаже или снова будет в наличии после распродажи
watch-new-in_stock-max = • подходящее предложение появится в продаже или снова будет в наличии после распродажи — по цене до { $max } ₽ за GPU·ч
watch-new-below_target = • подходящее предложение в наличии дороже { $max } ₽ за GPU·ч подешевеет до { $max } ₽ или ниже
watch-new-price_drop = • подешевеет подходящее предложение, которое можно арендовать
watch-new-repeat = То, что уже подходит (выше), придёт оповещением, только если закончится и появится снова.
watch-new-repeat-drop = То, что уже подходит (выше), придёт оповещением, если подешевеет или закончится и появится снова.
watch-created-footer = Все подписки — /subs.
subs-muted = { " " }— 🔕 молчит до { $until }
subs-toast-paused = ⏸ «{ $label }» на паузе
subs-toast-resumed = ▶️ «{ $label }» снова следит
subs-toast-deleted = 🗑 Подписка «{ $label }» удалена
subs-toast-price = ✏️ «{ $label }»: до { $max } ₽ за GPU·ч
subs-toast-price-off = ✏️ «{ $label }»: без ограничения цены

## A watch asked for in words (bot/routers/watch_question.py)

watchq-offer = 🔔 Могу следить: <b>{ $summary }</b>.
watchq-cap = Цена — за один GPU в час, как в <code>/watch max=</code>: до { $max } ₽ за GPU·ч.
watchq-cap-server = Цена — за один GPU в час, как в <code>/watch max=</code>: до { $max } ₽ за GPU·ч, то есть сервер из { $count } GPU — до { $server } ₽/ч.
watchq-press = Нажмите кнопку, чтобы подписаться.
watchq-command = Чтобы подписаться, отправьте <code>{ $command }</code>
watchq-button = 🔔 Следить: { $label }
watchq-run-offer = 🔔 Могу следить за ценой запуска <code>{ $run }</code>: напишу, когда весь запуск — его часы на картах предложения, по его тарифу — обойдётся не дороже { $budget } ₽.
watchq-run-button = 🔔 Следить: запуск до { $budget } ₽
watchq-run-needs-sizing = Чтобы следить за ценой запуска, сначала спросите про него с датасетом, например <code>/fit 8b lora dataset=20k</code>, а потом напишите «сообщи, когда мой запуск будет стоить меньше 5 000 ₽».
watchq-run-stale = Эта кнопка про прошлый запуск — спросите ещё раз про нужный.
