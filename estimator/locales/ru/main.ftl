## /start and the main menu

start-greeting =
    Привет, <b>{ $name }</b>! Я <b>gpuradar</b>.
    Слежу за наличием и ценами GPU в { $providers } и напишу, когда нужная карта появится или подешевеет.
    Считаю, сколько видеопамяти нужно для дообучения модели, какие GPU подойдут и во что обойдётся аренда.
start-menu-hint = Выберите раздел:
start-user-fallback = друг
# Joins the last two names of a list: «Selectel, HOSTKEY и immers.cloud».
list-and = и

menu-prices = 💰 Цены и наличие
menu-fit = 🧮 Подобрать GPU
menu-subscriptions = 🔔 Мои подписки
menu-settings = ⚙️ Настройки
menu-help = ❓ Помощь
menu-back = « Меню


## /help

help =
    <b>Что я умею</b>

    /start — главное меню
    /fit <code>13b qlora ctx=4096</code> — сколько видеопамяти нужно, какие GPU подойдут, время и цена обучения. Без аргументов — пошаговый выбор.
    Можно спросить и словами: <i>«хватит ли 4090 для llama 3 8b с лорой на 8к контексте?»</i>
    /watch <code>a100 80gb max=250</code> — подписка: сразу покажу, что уже подходит, потом напишу о новом. Новое — это подходящее предложение, которое появилось в продаже или снова в наличии после распродажи (с <code>max=</code> — не дороже порога), или предложение в наличии, которое стоило дороже порога и подешевело до него. <code>/watch 70b qlora ctx=8192 max=400</code> — всё, что подходит под обучение
    /subs — мои подписки: пауза, цена, удаление
    /prices — цены по GPU, сначала GPU для обучения. Фильтры: <code>/prices 80gb</code>, <code>/prices h100 hourly</code>, <code>/prices max=300</code>, <code>/prices provider=selectel</code>
    /stock <code>h100</code> — то же, только что в наличии
    /history <code>h100</code> — график цены за 30 дней с минимумом
    /settings — язык, часовой пояс, тихие часы
    /help — эта справка

    Настройки можно задать и текстом:
    <code>/settings tz Новосибирск</code> (город или <code>Asia/Novosibirsk</code>)
    <code>/settings quiet 23:00-08:00</code> или <code>/settings quiet off</code>
    <code>/settings lang en</code>

## /settings

settings-title = <b>⚙️ Настройки</b>
settings-language = Язык: { $language }
settings-timezone = Часовой пояс: { $timezone } (UTC{ $offset }, сейчас { $local_time })
settings-quiet-off = Тихие часы: выключены
settings-quiet-on = Тихие часы: { $window }
settings-quiet-explain = В тихие часы оповещения не приходят, а собираются в одну сводку к их концу.
settings-button-timezone = 🕒 Часовой пояс
settings-button-quiet = 🌙 Тихие часы
settings-button-back = « Назад
settings-choose-timezone = Выберите часовой пояс. Другой можно задать текстом — городом или названием IANA, например <code>/settings tz Новосибирск</code> или <code>/settings tz Asia/Almaty</code>.
settings-choose-quiet = Выберите тихие часы (по вашему времени). Свои — текстом, например <code>/settings quiet 23:30-07:00</code>.
settings-quiet-disable = 🔔 Без тихих часов
settings-saved = Сохранено
settings-bad-timezone = Не знаю часовой пояс «{ $value }». Напишите город (<code>/settings tz Новосибирск</code>, <code>/settings tz Berlin</code>) или название из базы IANA (<code>Asia/Yekaterinburg</code>).
settings-bad-quiet = Не понял «{ $value }». Пример: <code>/settings quiet 23:00-08:00</code> или <code>/settings quiet off</code>.
settings-bad-language = Доступны языки: <code>ru</code>, <code>en</code>.
settings-bad-command = Не понял. Примеры: <code>/settings tz Новосибирск</code>, <code>/settings quiet 23:00-08:00</code>, <code>/settings lang en</code>.
settings-stale-button = Эта кнопка устарела. Откройте /settings заново.

language-name-ru = Русский
language-name-en = English

## /settings: what silences alerts now (bot/views/settings.py)

settings-snoozed = 💤 Тишина до { $until } (кнопка «До утра»): оповещения придут одной сводкой.
settings-muted = 🔕 { $count } { $count ->
        [one] подписка молчит
        [few] подписки молчат
       *[many] подписок молчат
    } (до { $until }), см. /subs.
settings-button-unsnooze = 🔔 Снять тишину до утра
settings-unsnoozed = 🔔 Тишина снята{ $count ->
        [0] .
        [one] : { $count } оповещение придёт сейчас.
        [few] : { $count } оповещения придут сейчас.
       *[many] : { $count } оповещений придут сейчас.
    }

tz-Europe-Kaliningrad = Калининград
tz-Europe-Moscow = Москва
tz-Europe-Samara = Самара
tz-Asia-Yekaterinburg = Екатеринбург
tz-Asia-Omsk = Омск
tz-Asia-Novosibirsk = Новосибирск
tz-Asia-Krasnoyarsk = Красноярск
tz-Asia-Irkutsk = Иркутск
tz-Asia-Yakutsk = Якутск
tz-Asia-Vladivostok = Владивосток
tz-Asia-Magadan = Магадан
tz-Asia-Kamchatka = Камчатка
tz-UTC = UTC

## Fallbacks and errors

unknown-command = Не знаю команду { $command }. Список команд — /help.
unknown-command-guess = Не знаю команду { $command }. Может, /{ $guess }? Все команды — /help.
unknown-text = Не понял вопроса. Спросите о подборе GPU, например: «хватит ли 4090 для llama 3 8b с лорой на 8к контексте?» — или откройте /help.
unsupported-message = Я понимаю только текст. Начните с /start или /help.
throttled = Слишком много сообщений подряд: на часть из них я не отвечу. Пишите не чаще раза в секунду — тогда отвечу на каждое.
throttled-callback = Не так быстро — подождите секунду.
button-stale = Эта кнопка устарела — отправьте команду заново.
error-apology = Извините, что-то пошло не так. Мы уже видим ошибку в журнале — попробуйте ещё раз чуть позже.
held-notice = База данных ненадолго недоступна. Ваше сообщение сохранено: ответ придёт, как только она вернётся, — отправлять его заново не нужно.

## Bot menu commands (setMyCommands)

command-start = Главное меню
command-help = Команды и примеры
command-settings = Язык, часовой пояс, тихие часы

## /fit

command-fit = Сколько VRAM нужно и какие GPU подойдут
fit-wizard-size = 🧮 Какого размера модель?
fit-wizard-method = Модель { $size }. Как дообучаем?
fit-wizard-ctx = Какая длина контекста (самый длинный пример)?
fit-not-understood = Не понял запрос. Пример: <code>/fit 13b qlora ctx=4096</code> или <code>/fit llama 3 8b lora ctx=8k bs=2</code>. Все параметры — в /help.
fit-too-long = Слишком длинный запрос — уложитесь в { $limit } { $limit ->
        [one] символ
        [few] символа
       *[many] символов
    }.
fit-error-no_model = Не вижу модели или размера. Начните с них: <code>/fit 13b qlora</code> или <code>/fit qwen2.5 7b lora</code>.
fit-error-bad_value = Не понял значение <code>{ $key }={ $value }</code>. Можно: { $allowed }.
fit-error-out_of_range = Значение <code>{ $key }={ $value }</code> вне разумных пределов.
fit-error-unknown_gpu = Не знаю видеокарту «{ $value }». Пример: <code>gpu=4090</code>, <code>gpu=a100-80</code>, <code>gpu=h100</code>.
fit-error-conflict = Противоречивые параметры: { $value }.

## /prices

command-prices = Цены и наличие GPU сейчас
# A billing kind among the /prices filter words (bot/price_query.py).
prices-billing-hourly = почасово
prices-billing-monthly = помесячно
prices-billing-preemptible = прерываемые
prices-title = <b>💰 Цены и наличие</b> — сначала GPU для обучения
prices-title-gpu = <b>💰 { $gpu }: цены и наличие</b>
prices-provider-fresh = { $provider }: обновлено { $minutes } { $minutes ->
        [one] минуту
        [few] минуты
       *[many] минут
    } назад
prices-provider-failing = ⚠️ { $provider }: не отвечает ({ $error }) — показываю данные { $minutes } { $minutes ->
        [one] минуту
        [few] минуты
       *[many] минут
    } назад
prices-provider-never = ⚠️ { $provider }: ещё не удалось загрузить ({ $error })
prices-no-health = Цены ещё не загружены — первый опрос провайдеров идёт прямо сейчас.
prices-empty = Предложений не найдено.
prices-unknown-gpu = Не знаю видеокарту «{ $gpu }». Примеры: <code>/prices 4090</code>, <code>/prices a100 80gb</code>, <code>/prices h100 hourly</code>.

## /prices and /stock: the table per GPU (bot/views/prices.py)

prices-filter = Фильтр: <code>{ $filters }</code>
prices-empty-filtered = Под этот фильтр сейчас ничего нет. Все предложения — /prices.
prices-bad-filter = Не понял «{ $value }». Примеры: <code>/prices 80gb</code>, <code>/prices h100 hourly</code>, <code>/prices max=300</code>, <code>/prices provider=selectel</code>.
prices-filter-hint = Фильтры: <code>/prices 80gb</code> · <code>/prices h100 hourly</code> · <code>/prices max=300</code> · <code>/prices provider=selectel</code>
prices-gpu = <b>{ $gpu }</b>
prices-gpu-vram = <b>{ $gpu }</b> · { $vram } ГБ
prices-card-price = { $icon } { $count }× { $price }
prices-price-hourly = <b>{ $hour } ₽/ч</b> · { $month } ₽/мес · почасово{ $per_gpu }
prices-price-monthly = <b>{ $month } ₽/мес</b> · ≈{ $hour } ₽/ч · только помесячно{ $per_gpu }
prices-price-preemptible = <b>{ $hour } ₽/ч</b> · { $month } ₽/мес · прерываемая{ $per_gpu }
prices-per-gpu = , { $price } ₽ за GPU·ч
prices-card-where = { $provider }, { $location }
prices-brief = <b>{ $gpu } ×{ $count }</b>
prices-cpu-ram-extra = vCPU и RAM — отдельно
prices-vcpu = { $count } vCPU
prices-ram = { $gb } ГБ RAM
prices-age-now = только что
prices-age-minutes = { $minutes } мин назад
prices-age-hours = { $hours } ч назад
prices-age-days = { $days } дн. назад
prices-footer = Стр. { $page } из { $pages } · показано { $shown } из { $total } { $total ->
        [one] предложения
       *[other] предложений
    }
prices-footer-all = { $total } { $total ->
        [one] предложение
        [few] предложения
       *[many] предложений
    }
stock-in_stock = в наличии{ $count ->
        [0] {""}
       *[other] : { $count } шт.
    }
stock-preorder = предзаказ
stock-unknown = наличие не публикуется
stock-out_of_stock = нет в наличии
prices-converted = пересчитано из { $currency } по { $rate } ₽
