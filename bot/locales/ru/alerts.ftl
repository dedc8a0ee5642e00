## Alert messages (bot/delivery). Offer fields arrive escaped; stock labels reuse stock-* keys.

alert-title = 🔔 <b>gpuradar: изменение по подписке</b>
alert-title-digest = 🔔 <b>gpuradar: { $count } { $count ->
        [one] изменение
        [few] изменения
       *[many] изменений
    } по подпискам</b>
alert-offer = { $icon } <b>{ $gpu } × { $count }</b> — { $provider }, { $location }
alert-prices = { $hour } ₽/ч · { $month } ₽/мес
alert-change-stock = { $was } → <b>{ $now }</b>
alert-change-price = { $was } → <b>{ $now } ₽/ч</b>{ $percent } · { $month } ₽/мес
alert-change-new-offer = новое предложение: <b>{ $now }</b>
alert-change-removed = { $was } → <b>снято с продажи</b>
alert-stock-absent = не было в продаже

alert-button-open = 🔗 Открыть на { $provider }
alert-button-mute = 🔕 24 ч
alert-button-mute-gpu = 🔕 { $gpu }: 24 ч
alert-button-unsubscribe = 🗑 Отписаться
alert-button-unsubscribe-gpu = 🗑 { $gpu }: отписаться
alert-button-snooze = 💤 До утра

alert-muted = 🔕 Подписка молчит до { $until }.
alert-unsubscribed = 🗑 Подписка удалена.
alert-snoozed = 💤 Тишина до { $until }. Что придёт за это время, пришлю одной сводкой.
alert-stale = Этой подписки уже нет. Все подписки — /subs.

# The length guard (bot/delivery/render.py: summary_message): a message Telegram would refuse
# as too long goes out as its offers' first lines and this.
alert-summary-more = Подробности не поместились в одно сообщение{ $hidden ->
        [0] .
       *[other] , и ещё { $hidden } { $hidden ->
            [one] изменение
            [few] изменения
           *[many] изменений
        } не показано.
    } Подписки и цены — /subs и /prices.
