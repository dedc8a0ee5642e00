## Alert messages (bot/delivery). Offer fields arrive escaped; stock labels reuse stock-* keys.

alert-title = 🔔 <b>gpuradar: a subscription matched</b>
alert-title-digest = 🔔 <b>gpuradar: { $count } { $count ->
        [one] change
       *[other] changes
    } for your subscriptions</b>
alert-offer = { $icon } <b>{ $gpu } × { $count }</b> — { $provider }, { $location }
alert-prices = { $hour } ₽/h · { $month } ₽/month
alert-change-stock = { $was } → <b>{ $now }</b>
alert-change-price = { $was } → <b>{ $now } ₽/h</b>{ $percent } · { $month } ₽/month
alert-change-new-offer = new offer: <b>{ $now }</b>
alert-change-removed = { $was } → <b>no longer offered</b>
alert-stock-absent = not on sale

alert-button-open = 🔗 Open at { $provider }
alert-button-mute = 🔕 24 h
alert-button-mute-gpu = 🔕 { $gpu }: 24 h
alert-button-unsubscribe = 🗑 Unsubscribe
alert-button-unsubscribe-gpu = 🗑 { $gpu }: unsubscribe
alert-button-snooze = 💤 Until morning

alert-muted = 🔕 Subscription muted until { $until }.
alert-unsubscribed = 🗑 Subscription deleted.
alert-snoozed = 💤 Quiet until { $until }. Anything that comes up meanwhile arrives as one digest.
alert-stale = This subscription no longer exists. All subscriptions: /subs.

# The length guard (bot/delivery/render.py: summary_message): a message Telegram would refuse
# as too long goes out as its offers' first lines and this.
alert-summary-more = The details did not fit in one message{ $hidden ->
        [0] .
       *[other] , and { $hidden } more { $hidden ->
            [one] change is
           *[other] changes are
        } not shown.
    } Subscriptions and prices: /subs and /prices.
