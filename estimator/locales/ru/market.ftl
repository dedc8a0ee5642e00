## Ответы на общие вопросы словами (bot/routers/market.py): какая карта быстрее, где дешевле,
## что есть сейчас, почасовая или помесячная аренда.

market-faster = На обучении (bf16, LoRA 8B) <b>{ $fast }</b> быстрее <b>{ $slow }</b> примерно в { $ratio } раза — по реальной, а не паспортной производительности.
market-faster-price = { $gpu }: от { $rate } ₽/ч за карту ({ $provider }{ $server }) — ≈{ $million } ₽ за 1 млн токенов обучения
market-faster-verdict = За ту же работу сейчас дешевле <b>{ $gpu }</b>.
market-faster-hint = Для своего запуска: <code>/fit 13b qlora gpu={ $fast }</code> и <code>/fit 13b qlora gpu={ $slow }</code>.
market-cheapest-title = <b>{ $gpu } дешевле всего сейчас</b>
market-cheapest-any = <b>Дешевле всего сейчас (карты с bf16)</b>
market-cheapest-hint = Все предложения: <code>/prices { $gpu }</code>; сообщить о снижении цены: <code>/watch { $gpu } max=…</code>
market-cheapest-any-hint = Все предложения: /prices; под конкретное обучение: <code>/fit 13b qlora</code>
market-offer-hour = • { $gpu } ×{ $count } — <b>{ $rate } ₽/ч</b> · { $provider }{ $where }{ $stock }
market-offer-month = • { $gpu } ×{ $count } — <b>{ $rate } ₽/мес</b> за весь сервер, только помесячно · { $provider }{ $where }{ $stock }
market-stock-title = <b>{ $gpu } сейчас в наличии</b>: { $count } { $count ->
        [one] предложение
        [few] предложения
       *[many] предложений
    }, дешевле всего:
market-stock-hint = Всё по наличию: <code>/stock { $gpu }</code>
market-none-now = { $gpu } сейчас нет в наличии. Сообщу, как только появится: <code>/watch { $query }</code>
market-no-prices = Цены ещё не загружены — первый опрос провайдеров идёт прямо сейчас. Попробуйте через минуту: /prices
market-rub-only = Цены — в рублях, как их выставляют российские провайдеры; в другие валюты не перевожу.
market-hourly-monthly = <b>Почасовая или помесячная?</b> Почасовая — для LoRA-экспериментов, отладки и разовых прогонов (обычно 2–6 ч). Помесячная (dedicated) — для полного дообучения на несколько эпох и постоянного цикла экспериментов: месяц окупается, если карта занята дольше, чем цена месяца ÷ цена часа.
market-breakeven-pays = • { $gpu } ×{ $count }: месяц { $month } ₽ ({ $monthly_provider }) против { $rate } ₽/ч ({ $hourly_provider }) — месяц выгоднее, если работать больше { $hours } ч в месяц (~{ $days } сут без перерыва)
market-hourly-hint = Для своего запуска: <code>/fit 13b qlora dataset=50k</code> — в «Подробнее» будет точка окупаемости по живым ценам.
market-suggest = Подскажу по командам:
    • сколько памяти и какие GPU: <code>/fit { $fit }</code> (или <code>/fit compare { $model }</code>)
    • цены и наличие: <code>/prices { $gpu }</code>, <code>/stock { $gpu }</code>
    • сообщить о появлении или снижении цены: <code>/watch { $gpu } max=300</code>
    Можно и словами: «что быстрее h100 или a100?», «где дешевле { $gpu }?», «почасовая или помесячная?».
market-faster-server = , сервер ×{ $count } — { $rate } ₽/ч
market-faster-no-offer = { $gpu }: почасовых предложений сейчас нет
market-cheapest-vram = <b>Дешевле всего сейчас — карты от { $vram } ГБ</b>
market-offer-abroad = { " " }({ $country })
market-offer-unpublished = { " " }· наличие не публикуется
market-stock-none-published = <b>{ $gpu }</b>: провайдеры не подтверждают наличие ни одного предложения
market-stock-unpublished = { $count ->
        [one] Ещё { $count } предложение — наличие не публикуется (обычно можно арендовать, но не гарантировано).
        [few] Ещё { $count } предложения — наличие не публикуется (обычно можно арендовать, но не гарантировано).
       *[many] Ещё { $count } предложений — наличие не публикуется (обычно можно арендовать, но не гарантировано).
    }
market-breakeven-never = • { $gpu } ×{ $count }: почасовая дешевле даже круглосуточно — 720 ч × { $rate } ₽ ({ $hourly_provider }) = { $around } ₽ против { $month } ₽ за месяц ({ $monthly_provider })
market-breakeven-usage = При { $usage } ч в месяц выгоднее { $choice ->
        [monthly] помесячная.
       *[hourly] почасовая.
    }
market-breakeven-none = • { $gpu }: одну и ту же конфигурацию сейчас не сдают и по часам, и помесячно — сравнить не с чем.
market-offer-month-as-month = • { $gpu } ×{ $count } — <b>{ $rate } ₽/мес</b>, только помесячно · { $provider }{ $where }{ $stock }
market-offer-month-as-month-per-gpu = • { $gpu } ×{ $count } — <b>{ $rate } ₽/мес за GPU</b>, { $server } ₽ за сервер, только помесячно · { $provider }{ $where }{ $stock }
market-offer-hour-as-month = • { $gpu } ×{ $count } — <b>≈{ $rate } ₽/мес при аренде 24/7</b> ({ $hours } ч, почасово) · { $provider }{ $where }{ $stock }
market-offer-hour-as-month-per-gpu = • { $gpu } ×{ $count } — <b>≈{ $rate } ₽/мес за GPU при аренде 24/7</b>, ≈{ $server } ₽ за сервер ({ $hours } ч, почасово) · { $provider }{ $where }{ $stock }
largest-title = Какую модель можно дообучить на <b>{ $gpu }</b> ({ $usable } ГиБ): { $cards }, ctx { $ctx }, { $stack }, bs { $bs }
largest-one-card = одна карта
largest-cards = { $count } карты ({ $shard })
largest-fits = • { $method }: до <b>{ $size }</b> ({ $model }, пик до { $high } ГиБ){ $tight }
largest-none = • { $method }: не помещается даже 1B
largest-only-tight = • { $method }: с запасом — ни одна; { $size } — впритык
largest-tight = ; { $size } — впритык
largest-hint = Unsloth и короткий контекст вмещают больше. Посчитать свой запуск: <code>/fit { $example }</code>
largest-hint-own = Посчитать свой запуск: <code>/fit { $example }</code>
largest-card-of-size = карте на { $gb } ГБ
