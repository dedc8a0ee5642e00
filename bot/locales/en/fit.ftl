## /fit answers (a short first answer, the rest under a button) and general questions.
## Kept in this file, apart from main.ftl, so that the two can change without clashing.

fitb-button-details = Details
fitb-button-short = Short
fitb-button-method = { $method ->
        [lora] Size LoRA
        [full] Size a full fine-tune
       *[qlora] Size QLoRA
    }
fitb-stale = This button is out of date — ask again, e.g. <code>/fit 13b qlora</code>.
fitb-compare-usage = For example: <code>/fit compare 13b</code> or <code>/fit compare llama 3 8b ctx=8k</code>.
fitb-error-no_model = I see no model or size. Start with one: { $allowed }. Example: <code>/fit { $example }</code>.
fitb-error-bad_value = I could not read <code>{ $key }={ $value }</code>. Allowed: { $allowed }.
fitb-error-out_of_range = <code>{ $key }={ $value }</code> is out of a sensible range: allowed { $allowed }.
fitb-error-unknown_gpu = I do not know the GPU “{ $value }”. For example: { $allowed }.
fitb-error-unknown_key = I do not know the option <code>{ $key }</code>. Allowed: { $allowed }.
fitb-error-unknown_key-near = I do not know the option <code>{ $key }</code> — did you mean <code>{ $value }</code>? Allowed: { $allowed }.
fitb-error-conflict = Conflicting options: { $value }. Pick one of: { $allowed }.

ask-faster = For training (bf16, an 8B LoRA) <b>{ $fast }</b> is about { $ratio }× as fast as <b>{ $slow }</b> — by real, not datasheet, throughput.
ask-faster-price = { $gpu }: from { $rate } ₽/h per card ({ $provider }{ $server }) — ≈{ $million } ₽ per million training tokens
ask-faster-verdict = For the same work <b>{ $gpu }</b> is cheaper right now.
ask-faster-hint = For your own run: <code>/fit 13b qlora gpu={ $fast }</code> and <code>/fit 13b qlora gpu={ $slow }</code>.
ask-cheapest-title = <b>Cheapest { $gpu } right now</b>
ask-cheapest-any = <b>Cheapest right now (cards with bf16)</b>
ask-cheapest-hint = All offers: <code>/prices { $gpu }</code>; tell me when it gets cheaper: <code>/watch { $gpu } max=…</code>
ask-cheapest-any-hint = All offers: /prices; for a particular run: <code>/fit 13b qlora</code>
ask-offer-hour = • { $gpu } ×{ $count } — <b>{ $rate } ₽/h</b> · { $provider }{ $where }{ $stock }
ask-offer-month = • { $gpu } ×{ $count } — <b>{ $rate } ₽/month</b> for the whole server, monthly only · { $provider }{ $where }{ $stock }
ask-stock-title = <b>{ $gpu } in stock now</b>: { $count } { $count ->
        [one] offer
       *[other] offers
    }, the cheapest:
ask-stock-hint = Everything in stock: <code>/stock { $gpu }</code>
ask-none-now = No { $gpu } in stock right now. I will tell you when one appears: <code>/watch { $query }</code>
ask-no-prices = Prices are not loaded yet — the first poll of the providers is running now. Try again in a minute: /prices
ask-hourly-monthly = <b>Hourly or monthly?</b> Hourly for LoRA experiments, debugging and one-off runs (usually 2–6 h). Monthly (dedicated) for full fine-tuning over several epochs and a steady stream of experiments: a month pays off once the card is busy longer than the month's price ÷ the hourly price.
ask-breakeven = • { $gpu } ×{ $count }: a month { $month } ₽ ({ $month_provider }) against { $rate } ₽/h ({ $hour_provider }) — the month wins above { $hours } h of use a month (~{ $days } days non-stop)
ask-hourly-hint = For your own run: <code>/fit 13b qlora dataset=50k</code> — “Details” shows the break-even at live prices.
ask-suggest = These commands will answer it:
    • how much memory and which GPUs: <code>/fit { $fit }</code> (or <code>/fit compare { $model }</code>)
    • prices and stock: <code>/prices { $gpu }</code>, <code>/stock { $gpu }</code>
    • tell me when it appears or gets cheaper: <code>/watch { $gpu } max=300</code>
    You can ask in words too: “which is faster, h100 or a100?”, “where is { $gpu } cheapest?”, “hourly or monthly?”.
ask-faster-server = , a ×{ $count } server — { $rate } ₽/h
ask-faster-no-offer = { $gpu }: no hourly offer right now
ask-cheapest-vram = <b>Cheapest right now — cards with { $vram } GB or more</b>
ask-offer-abroad = { " " }({ $country })
ask-offer-unpublished = { " " }· stock not published
ask-stock-none-published = <b>{ $gpu }</b>: no provider confirms stock for any offer
ask-stock-unpublished = { $count ->
        [one] { $count } more offer has no published stock (usually rentable, not guaranteed).
       *[other] { $count } more offers have no published stock (usually rentable, not guaranteed).
    }
ask-breakeven-never = • { $gpu } ×{ $count }: hourly is cheaper even around the clock — 720 h × { $rate } ₽ ({ $hour_provider }) = { $around } ₽ against { $month } ₽ a month ({ $month_provider })
ask-breakeven-usage = At { $usage } h a month { $choice ->
        [monthly] monthly wins.
       *[hourly] hourly wins.
    }
ask-breakeven-none = • { $gpu }: no configuration is rented both by the hour and by the month right now — nothing to compare.
