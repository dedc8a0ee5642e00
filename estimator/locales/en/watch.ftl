## /watch and /subs

command-watch = Alert on stock and price
command-subs = My alerts
command-stock = What is in stock now
command-history = Price and stock chart
watch-wizard-gpu = 🔔 Which GPU should I watch? Others can be typed: <code>/watch a100 80gb max=250</code>
watch-wizard-price = { $gpu }: alert up to what price per GPU-hour?
watch-created = ✅ Watching: <b>{ $summary }</b>.
watch-exists = You already have this watch — #{ $number } in /subs: <b>{ $summary }</b>. Not adding it twice.
watch-limit = At most { $limit } { $limit ->
        [one] alert
       *[other] alerts
    }. Remove some in /subs.
watch-too-long = That filter is too long — keep it under { $limit } { $limit ->
        [one] character
       *[other] characters
    }.
watch-error-empty = What should I watch? E.g. <code>/watch h100</code>, <code>/watch a100 80gb max=250</code>, <code>/watch 70b qlora ctx=8192 max=400</code>.
watch-error-unknown_gpu = I do not know the GPU “{ $value }”. E.g. <code>/watch 4090</code>, <code>/watch h100</code>, <code>/watch a100 80gb</code>.
watch-error-bad_value = Could not read “{ $value }”. Example: <code>/watch a100 80gb max=250 provider=selectel</code>.
watch-error-unknown_key = Unknown option “{ $value }”. Allowed: max, count, vram, total_vram, provider, location, kinds, cooldown.
watch-error-no_filter = Give at least one filter: a GPU, a model to train, or a price.
watch-error-fit_error = Could not read the model to size: “{ $value }”. Example: <code>/watch 70b qlora ctx=8192 max=400</code>.
subs-empty = No alerts yet. Create one: <code>/watch h100</code> or /watch with no arguments.
subs-title = <b>🔔 My alerts</b> ({ $count } of { $limit })
subs-line = { $number }. { $summary }
subs-paused = { " " }— ⏸ paused
subs-stale = This alert is gone. Open /subs again.
subs-edit-price = Alert up to what price per GPU-hour?
subs-edit-current = Subscription { $number } “{ $label }”: now up to { $max } ₽ per GPU·h.
subs-edit-current-none = Subscription { $number } “{ $label }”: now with no price limit.
subs-edit-type = Press a button or type the price as a number, e.g. <code>450</code> (0 for no limit).
subs-edit-back = ⬅️ Back
subs-edit-bad = Type the price per GPU-hour as a number from 1 to { $limit }, e.g. <code>450</code> (0 for no limit), or press “⬅️ Back”.
stock-title = <b>✅ In stock now</b>
history-usage = Name a GPU: <code>/history h100</code> or <code>/history 4090</code>.
history-unknown-gpu = I do not know the GPU “{ $gpu }”. Examples: <code>/history h100</code>, <code>/history a100</code>, <code>/history 4090</code>.
history-empty = No price history for { $gpu } yet — it builds up with every poll of the providers.
history-caption = { $gpu }: price per GPU-hour over 30 days. Low in stock: { $low } ₽ ({ $provider }).
history-caption-nolow = { $gpu }: price per GPU-hour over 30 days. Never in stock.
# A lower price drawn while that offer could not be rented (out of stock, pre-order).
history-caption-unrentable-low = Lower only while out of stock: { $low } ₽ ({ $provider }).
history-caption-cut = The chart shows the { $shown } cheapest of { $total } offers.
# The chart's own words: title, axes, legend keys (bot/charts.py draws them).
history-chart-title = { $gpu }: price and stock over 30 days
history-axis-price = ₽ per GPU-hour
history-axis-time = Date ({ $zone })
history-key-in-stock = thick line — in stock
history-key-out-of-stock = faint line — out of stock
history-key-low = low in stock: { $low } ₽ ({ $provider })
fit-watch-button = 🔔 Watch for fitting offers
fit-watch-stale = This button is out of date — create the alert with <code>/watch</code>.
# A chart is drawn at most once per user every few seconds, and only a few at once.
history-wait = ⏳ Charts are drawn one after another. Try again in { $seconds } s.

## /watch: what already matches, and what "new" means (bot/routers/watch.py)

watch-matches-now = Already matching now: { $count } { $count ->
        [one] offer
       *[other] offers
    }, cheapest per GPU-hour:
watch-matches-more = …and { $count } more: all of them in /prices.
watch-matches-none = Nothing matches right now.
watch-new-title = <b>I will message you when something is new:</b>
watch-new-in_stock = • a matching offer goes on sale, or is back in stock after selling out
watch-new-in_stock-max = • a matching offer goes on sale, or is back in stock after selling out — at up to { $max } ₽ per GPU-hour
watch-new-below_target = • a matching offer in stock priced above { $max } ₽ per GPU-hour drops to { $max } ₽ or less
watch-new-price_drop = • a matching offer you can rent gets cheaper
watch-new-repeat = What already matches (above) makes an alert only if it sells out and comes back.
watch-new-repeat-drop = What already matches (above) makes an alert if it gets cheaper, or sells out and comes back.
watch-created-footer = All alerts: /subs.
subs-muted = { " " }— 🔕 muted until { $until }
subs-toast-paused = ⏸ “{ $label }” paused
subs-toast-resumed = ▶️ “{ $label }” watching again
subs-toast-deleted = 🗑 Alert “{ $label }” deleted
subs-toast-price = ✏️ “{ $label }”: up to { $max } ₽ per GPU-hour
subs-toast-price-off = ✏️ “{ $label }”: no price limit

## A watch asked for in words (bot/routers/watch_question.py)

watchq-offer = 🔔 I can watch for: <b>{ $summary }</b>.
watchq-cap = The price is per GPU-hour, as in <code>/watch max=</code>: up to { $max } ₽ per GPU·h.
watchq-cap-server = The price is per GPU-hour, as in <code>/watch max=</code>: up to { $max } ₽ per GPU·h, so a { $count }-GPU server up to { $server } ₽/h.
watchq-press = Press the button to subscribe.
watchq-command = To subscribe, send <code>{ $command }</code>
watchq-button = 🔔 Watch: { $label }
watchq-run-offer = 🔔 I can watch the cost of the run <code>{ $run }</code>: I will write when the whole run — its hours on an offer's cards, at that offer's billing — costs no more than { $budget } ₽.
watchq-run-button = 🔔 Watch: the run under { $budget } ₽
watchq-run-needs-sizing = To watch a run's cost, first ask about it with a dataset, e.g. <code>/fit 8b lora dataset=20k</code>, then write "notify me when my run costs under 5000 rub".
watchq-run-stale = This button is about an earlier run — ask again about the one you want.
