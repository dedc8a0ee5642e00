## Alert messages (bot/delivery). Offer fields arrive escaped; stock labels reuse stock-* keys.

alert-title-watch = 🔔 <b>{ $label }</b>: { $count ->
        [1] an alert matched
       *[other] { $count } changes
    }
alert-title-digest = 🔔 <b>gpuradar: { $count } { $count ->
        [one] change
       *[other] changes
    } for your alerts</b>
alert-title-quiet = 🌙 <b>Quiet hours digest</b>: { $count } { $count ->
        [one] change
       *[other] changes
    }
alert-watch-header = 🔔 <b>{ $label }</b>
alert-offer = { $icon } <b>{ $gpu } × { $count }</b> — { $provider }, { $location }
alert-change-stock = { $was } → <b>{ $now }</b>
alert-change-price = { $was } → <b>{ $now } ₽/h</b>{ $percent } · { $month } ₽/month{ $per_gpu }
alert-change-price-monthly = { $was } → <b>{ $now } ₽/month</b>{ $percent } · ≈{ $hour } ₽/h, monthly only{ $per_gpu }
alert-change-new-offer = new offer: <b>{ $now }</b>
alert-change-removed = { $was } → <b>no longer offered</b>
alert-stock-absent = not on sale

alert-button-open = 🔗 Open at { $provider }
alert-button-mute-watch = 🔕 { $label }: 24 h
alert-button-unsubscribe-watch = 🗑 { $label }: unsubscribe
alert-button-snooze = 💤 Until morning

alert-muted = 🔕 “{ $label }” is muted until { $until }. Your other alerts still work.
alert-unsubscribed = 🗑 Alert “{ $label }” deleted. The others: /subs.
alert-snoozed = 💤 Quiet until { $until }. Anything that comes up meanwhile arrives as one digest.
alert-stale = This subscription no longer exists. All subscriptions: /subs.

# The length guard (bot/delivery/alert_text.py: summary_message): a message Telegram would refuse
# as too long goes out as its offers' first lines and this.
alert-summary-more = The details did not fit in one message{ $hidden ->
        [0] .
       *[other] , and { $hidden } more { $hidden ->
            [one] change is
           *[other] changes are
        } not shown.
    } Subscriptions and prices: /subs and /prices.
