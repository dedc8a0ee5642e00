## /fit answers (a short first answer, the rest under a button) and general questions.
## Kept in this file, apart from main.ftl, so that the two can change without clashing.

fitb-button-details = Подробнее
fitb-button-short = Кратко
fitb-button-method = { $method ->
        [lora] Посчитать LoRA
        [full] Посчитать полное дообучение
       *[qlora] Посчитать QLoRA
    }
fitb-stale = Эта кнопка устарела — повторите вопрос, например <code>/fit 13b qlora</code>.
fitb-compare-usage = Например: <code>/fit compare 13b</code> или <code>/fit compare llama 3 8b ctx=8k</code>.
fitb-error-no_model = Не вижу модели или размера. Начните с них: { $allowed }. Пример: <code>/fit { $example }</code>.
fitb-error-bad_value = Не понял значение <code>{ $key }={ $value }</code>. Можно: { $allowed }.
fitb-error-out_of_range = Значение <code>{ $key }={ $value }</code> вне разумных пределов: можно { $allowed }.
fitb-error-unknown_gpu = Не знаю видеокарту «{ $value }». Можно, например: { $allowed }.
fitb-error-unknown_key = Не знаю параметр <code>{ $key }</code>. Можно: { $allowed }.
fitb-error-unknown_key-near = Не знаю параметр <code>{ $key }</code> — может быть, <code>{ $value }</code>? Можно: { $allowed }.
fitb-error-conflict = Противоречивые параметры: { $value }. Выберите одно из: { $allowed }.

ask-faster = На обучении (bf16, LoRA 8B) <b>{ $fast }</b> быстрее <b>{ $slow }</b> примерно в { $ratio } раза — по реальной, а не паспортной производительности.
ask-faster-price = { $gpu }: от { $rate } ₽/ч за карту ({ $provider }{ $server }) — ≈{ $million } ₽ за 1 млн токенов обучения
ask-faster-verdict = За ту же работу сейчас дешевле <b>{ $gpu }</b>.
ask-faster-hint = Для своего запуска: <code>/fit 13b qlora gpu={ $fast }</code> и <code>/fit 13b qlora gpu={ $slow }</code>.
ask-cheapest-title = <b>{ $gpu } дешевле всего сейчас</b>
ask-cheapest-any = <b>Дешевле всего сейчас (карты с bf16)</b>
ask-cheapest-hint = Все предложения: <code>/prices { $gpu }</code>; сообщить о снижении цены: <code>/watch { $gpu } max=…</code>
ask-cheapest-any-hint = Все предложения: /prices; под конкретное обучение: <code>/fit 13b qlora</code>
ask-offer-hour = • { $gpu } ×{ $count } — <b>{ $rate } ₽/ч</b> · { $provider }{ $where }{ $stock }
ask-offer-month = • { $gpu } ×{ $count } — <b>{ $rate } ₽/мес</b> за весь сервер, только помесячно · { $provider }{ $where }{ $stock }
ask-stock-title = <b>{ $gpu } сейчас в наличии</b>: { $count } { $count ->
        [one] предложение
        [few] предложения
       *[many] предложений
    }, дешевле всего:
ask-stock-hint = Всё по наличию: <code>/stock { $gpu }</code>
ask-none-now = { $gpu } сейчас нет в наличии. Сообщу, как только появится: <code>/watch { $query }</code>
ask-no-prices = Цены ещё не загружены — первый опрос провайдеров идёт прямо сейчас. Попробуйте через минуту: /prices
ask-hourly-monthly = <b>Почасовая или помесячная?</b> Почасовая — для LoRA-экспериментов, отладки и разовых прогонов (обычно 2–6 ч). Помесячная (dedicated) — для полного дообучения на несколько эпох и постоянного цикла экспериментов: месяц окупается, если карта занята дольше, чем цена месяца ÷ цена часа.
ask-breakeven = • { $gpu } ×{ $count }: месяц { $month } ₽ ({ $month_provider }) против { $rate } ₽/ч ({ $hour_provider }) — месяц выгоднее, если работать больше { $hours } ч в месяц (~{ $days } сут без перерыва)
ask-hourly-hint = Для своего запуска: <code>/fit 13b qlora dataset=50k</code> — в «Подробнее» будет точка окупаемости по живым ценам.
ask-suggest = Подскажу по командам:
    • сколько памяти и какие GPU: <code>/fit { $fit }</code> (или <code>/fit compare { $model }</code>)
    • цены и наличие: <code>/prices { $gpu }</code>, <code>/stock { $gpu }</code>
    • сообщить о появлении или снижении цены: <code>/watch { $gpu } max=300</code>
    Можно и словами: «что быстрее h100 или a100?», «где дешевле { $gpu }?», «почасовая или помесячная?».
ask-faster-server = , сервер ×{ $count } — { $rate } ₽/ч
ask-faster-no-offer = { $gpu }: почасовых предложений сейчас нет
ask-cheapest-vram = <b>Дешевле всего сейчас — карты от { $vram } ГБ</b>
ask-offer-abroad = { " " }({ $country })
ask-offer-unpublished = { " " }· наличие не публикуется
ask-stock-none-published = <b>{ $gpu }</b>: провайдеры не подтверждают наличие ни одного предложения
ask-stock-unpublished = { $count ->
        [one] Ещё { $count } предложение — наличие не публикуется (обычно можно арендовать, но не гарантировано).
        [few] Ещё { $count } предложения — наличие не публикуется (обычно можно арендовать, но не гарантировано).
       *[many] Ещё { $count } предложений — наличие не публикуется (обычно можно арендовать, но не гарантировано).
    }
ask-breakeven-never = • { $gpu } ×{ $count }: почасовая дешевле даже круглосуточно — 720 ч × { $rate } ₽ ({ $hour_provider }) = { $around } ₽ против { $month } ₽ за месяц ({ $month_provider })
ask-breakeven-usage = При { $usage } ч в месяц выгоднее { $choice ->
        [monthly] помесячная.
       *[hourly] почасовая.
    }
ask-breakeven-none = • { $gpu }: одну и ту же конфигурацию сейчас не сдают и по часам, и помесячно — сравнить не с чем.
