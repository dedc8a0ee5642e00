## Alert messages (bot/delivery). Offer fields arrive escaped; stock labels reuse stock-* keys.

alert-title-watch = 🔔 <b>{ $label }</b>: { $count ->
        [1] изменение по подписке
        [one] { $count } изменение по подписке
        [few] { $count } изменения по подписке
       *[many] { $count } изменений по подписке
    }
alert-title-digest = 🔔 <b>gpuradar: { $count } { $count ->
        [one] изменение
        [few] изменения
       *[many] изменений
    } по подпискам</b>
alert-title-quiet = 🌙 <b>Сводка за тихие часы</b>: { $count } { $count ->
        [one] изменение
        [few] изменения
       *[many] изменений
    }
alert-watch-header = 🔔 <b>{ $label }</b>
alert-offer = { $icon } <b>{ $gpu } × { $count }</b> — { $provider }, { $location }
alert-change-stock = { $was } → <b>{ $now }</b>
alert-change-price = { $was } → <b>{ $now } ₽/ч</b>{ $percent } · { $month } ₽/мес{ $per_gpu }
alert-change-price-monthly = { $was } → <b>{ $now } ₽/мес</b>{ $percent } · ≈{ $hour } ₽/ч, только помесячно{ $per_gpu }
alert-change-new-offer = новое предложение: <b>{ $now }</b>
alert-change-removed = { $was } → <b>снято с продажи</b>
alert-stock-absent = не было в продаже

alert-button-open = 🔗 Открыть на { $provider }
alert-button-mute-watch = 🔕 { $label }: 24 ч
alert-button-unsubscribe-watch = 🗑 { $label }: отписаться
alert-button-snooze = 💤 До утра

alert-muted = 🔕 «{ $label }» молчит до { $until }. Остальные подписки работают.
alert-unsubscribed = 🗑 Подписка «{ $label }» удалена. Остальные — /subs.
alert-snoozed = 💤 Тишина до { $until }. Что придёт за это время, пришлю одной сводкой.
alert-stale = Этой подписки уже нет. Все подписки — /subs.

# The length guard (bot/delivery/alert_text.py: summary_message): a message Telegram would refuse
# as too long goes out as its offers' first lines and this.
alert-summary-more = Подробности не поместились в одно сообщение{ $hidden ->
        [0] .
       *[other] , и ещё { $hidden } { $hidden ->
            [one] изменение
            [few] изменения
           *[many] изменений
        } не показано.
    } Подписки и цены — /subs и /prices.
