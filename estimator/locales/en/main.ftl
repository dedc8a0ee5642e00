## /start and the main menu

start-greeting =
    Hi, <b>{ $name }</b>! I am <b>gpuradar</b>.
    I watch GPU stock and prices at { $providers } and message you when the card you need appears or gets cheaper.
    I work out how much VRAM a fine-tune needs, which GPUs fit, and what the rent will cost.
start-menu-hint = Pick a section:
# Joins the last two names of a list: "Selectel, HOSTKEY and immers.cloud".
list-and = and
start-user-fallback = there

menu-prices = 💰 Prices and stock
menu-fit = 🧮 Size a GPU
menu-subscriptions = 🔔 My alerts
menu-settings = ⚙️ Settings
menu-help = ❓ Help
menu-back = « Menu


## /help

help =
    <b>What I can do</b>

    /start — main menu
    /fit <code>13b qlora ctx=4096</code> — how much VRAM, which GPUs fit, training time and cost. Without arguments it asks step by step.
    Or just ask: <i>“will a 4090 do llama 3 8b lora at 8k context?”</i>
    /watch <code>a100 80gb max=250</code> — an alert: shows what already matches at once, then messages you about anything new. New means a matching offer that goes on sale or is back in stock after selling out (with <code>max=</code>: at or under the cap), or an offer in stock that cost more than the cap and drops to it. <code>/watch 70b qlora ctx=8192 max=400</code> — whatever fits a training run
    /subs — my alerts: pause, price, delete
    /prices — prices per GPU, training-grade first. Filters: <code>/prices 80gb</code>, <code>/prices h100 hourly</code>, <code>/prices max=300</code>, <code>/prices provider=selectel</code>
    /stock <code>h100</code> — the same, in stock only
    /history <code>h100</code> — 30-day price chart with the low marked
    /settings — language, time zone, quiet hours
    /help — this help

    Settings can be typed too:
    <code>/settings tz Novosibirsk</code> (a city or <code>Asia/Novosibirsk</code>)
    <code>/settings quiet 23:00-08:00</code> or <code>/settings quiet off</code>
    <code>/settings lang ru</code>

## /settings

settings-title = <b>⚙️ Settings</b>
settings-language = Language: { $language }
settings-timezone = Time zone: { $timezone } (UTC{ $offset }, now { $local_time })
settings-quiet-off = Quiet hours: off
settings-quiet-on = Quiet hours: { $window }
settings-quiet-explain = During quiet hours alerts are held back and arrive as one digest when they end.
settings-button-timezone = 🕒 Time zone
settings-button-quiet = 🌙 Quiet hours
settings-button-back = « Back
settings-choose-timezone = Pick a time zone. Any other can be typed as a city or an IANA name, e.g. <code>/settings tz Novosibirsk</code> or <code>/settings tz Europe/Berlin</code>.
settings-choose-quiet = Pick quiet hours (your local time). Custom ones can be typed, e.g. <code>/settings quiet 23:30-07:00</code>.
settings-quiet-disable = 🔔 No quiet hours
settings-saved = Saved
settings-bad-timezone = Unknown time zone “{ $value }”. Type a city (<code>/settings tz Novosibirsk</code>, <code>/settings tz Berlin</code>) or an IANA name (<code>Asia/Yekaterinburg</code>).
settings-bad-quiet = Could not read “{ $value }”. Example: <code>/settings quiet 23:00-08:00</code> or <code>/settings quiet off</code>.
settings-bad-language = Languages: <code>ru</code>, <code>en</code>.
settings-bad-command = Not understood. Examples: <code>/settings tz Novosibirsk</code>, <code>/settings quiet 23:00-08:00</code>, <code>/settings lang ru</code>.
settings-stale-button = This button is out of date. Open /settings again.

language-name-ru = Русский
language-name-en = English

## /settings: what silences alerts now (bot/views/settings.py)

settings-snoozed = 💤 Quiet until { $until } (the “Until morning” button): alerts will arrive as one digest.
settings-muted = 🔕 { $count } { $count ->
        [one] alert is
       *[other] alerts are
    } muted (until { $until }), see /subs.
settings-button-unsnooze = 🔔 End the quiet until morning
settings-unsnoozed = 🔔 Quiet ended{ $count ->
        [0] .
        [one] : { $count } alert arrives now.
       *[other] : { $count } alerts arrive now.
    }

tz-Europe-Kaliningrad = Kaliningrad
tz-Europe-Moscow = Moscow
tz-Europe-Samara = Samara
tz-Asia-Yekaterinburg = Yekaterinburg
tz-Asia-Omsk = Omsk
tz-Asia-Novosibirsk = Novosibirsk
tz-Asia-Krasnoyarsk = Krasnoyarsk
tz-Asia-Irkutsk = Irkutsk
tz-Asia-Yakutsk = Yakutsk
tz-Asia-Vladivostok = Vladivostok
tz-Asia-Magadan = Magadan
tz-Asia-Kamchatka = Kamchatka
tz-UTC = UTC

## Fallbacks and errors

unknown-command = I don't know the command { $command }. See /help for the list.
unknown-command-guess = I don't know the command { $command }. Did you mean /{ $guess }? All commands: /help.
unknown-text = I did not get that. Ask about GPU sizing, e.g. “will a 4090 do llama 3 8b lora at 8k context?” — or see /help.
unsupported-message = I only understand text. Start with /start or /help.
throttled = Too many messages in a row: I'll skip some of them. Send at most one a second and I'll answer each.
throttled-callback = Not so fast — wait a second.
button-stale = This button is out of date — send the command again.
error-apology = Sorry, something went wrong. The error is in our log — please try again a bit later.
held-notice = Our database is briefly unavailable. Your message is kept: the answer will follow as soon as it is back — no need to send it again.

## Bot menu commands (setMyCommands)

command-start = Main menu
command-help = Commands and examples
command-settings = Language, time zone, quiet hours

## /fit

command-fit = How much VRAM, which GPUs fit
fit-wizard-size = 🧮 How big is the model?
fit-wizard-method = Model { $size }. How do we fine-tune?
fit-wizard-ctx = Context length (the longest sample)?
fit-not-understood = I could not read that. Example: <code>/fit 13b qlora ctx=4096</code> or <code>/fit llama 3 8b lora ctx=8k bs=2</code>. Every option is in /help.
fit-too-long = That query is too long — keep it under { $limit } { $limit ->
        [one] character
       *[other] characters
    }.
fit-error-no_model = I see no model or size. Start with one: <code>/fit 13b qlora</code> or <code>/fit qwen2.5 7b lora</code>.
fit-error-bad_value = I could not read <code>{ $key }={ $value }</code>. Allowed: { $allowed }.
fit-error-out_of_range = <code>{ $key }={ $value }</code> is out of a sensible range.
fit-error-unknown_gpu = I do not know the GPU “{ $value }”. Examples: <code>gpu=4090</code>, <code>gpu=a100-80</code>, <code>gpu=h100</code>.
fit-error-conflict = Conflicting options: { $value }.

## /prices

command-prices = GPU prices and stock now
# A billing kind among the /prices filter words (bot/price_query.py).
prices-billing-hourly = hourly
prices-billing-monthly = monthly
prices-billing-preemptible = preemptible
prices-title = <b>💰 Prices and stock</b> — training-grade GPUs first
prices-title-gpu = <b>💰 { $gpu }: prices and stock</b>
prices-provider-fresh = { $provider }: updated { $minutes } min ago
prices-provider-failing = ⚠️ { $provider }: failing ({ $error }) — showing data from { $minutes } min ago
prices-provider-never = ⚠️ { $provider }: not loaded yet ({ $error })
prices-no-health = Prices are not loaded yet — the first poll of the providers is running now.
prices-empty = No offers found.
prices-unknown-gpu = I do not know the GPU “{ $gpu }”. Examples: <code>/prices 4090</code>, <code>/prices a100 80gb</code>, <code>/prices h100 hourly</code>.

## /prices and /stock: the table per GPU (bot/views/prices.py)

prices-filter = Filter: <code>{ $filters }</code>
prices-empty-filtered = Nothing matches this filter right now. Every offer: /prices.
prices-bad-filter = Could not read “{ $value }”. Examples: <code>/prices 80gb</code>, <code>/prices h100 hourly</code>, <code>/prices max=300</code>, <code>/prices provider=selectel</code>.
prices-filter-hint = Filters: <code>/prices 80gb</code> · <code>/prices h100 hourly</code> · <code>/prices max=300</code> · <code>/prices provider=selectel</code>
prices-gpu = <b>{ $gpu }</b>
prices-gpu-vram = <b>{ $gpu }</b> · { $vram } GB
prices-card-price = { $icon } { $count }× { $price }
prices-price-hourly = <b>{ $hour } ₽/h</b> · { $month } ₽/month · hourly{ $per_gpu }
prices-price-monthly = <b>{ $month } ₽/month</b> · ≈{ $hour } ₽/h · monthly only{ $per_gpu }
prices-price-preemptible = <b>{ $hour } ₽/h</b> · { $month } ₽/month · preemptible{ $per_gpu }
prices-per-gpu = , { $price } ₽ per GPU-hour
prices-card-where = { $provider }, { $location }
prices-brief = <b>{ $gpu } ×{ $count }</b>
prices-cpu-ram-extra = vCPU and RAM extra
prices-vcpu = { $count } vCPU
prices-ram = { $gb } GB RAM
prices-age-now = just now
prices-age-minutes = { $minutes } min ago
prices-age-hours = { $hours } h ago
prices-age-days = { $days } d ago
prices-footer = Page { $page } of { $pages } · showing { $shown } of { $total } { $total ->
        [one] offer
       *[other] offers
    }
prices-footer-all = { $total } { $total ->
        [one] offer
       *[other] offers
    }
stock-in_stock = in stock{ $count ->
        [0] {""}
       *[other] : { $count }
    }
stock-preorder = pre-order
stock-unknown = stock not published
stock-out_of_stock = out of stock
prices-converted = converted from { $currency } at { $rate } ₽
