## Answers to general questions in words (bot/routers/market.py): which card is faster,
## where it is cheaper, what is in stock, hourly or monthly rent.

market-faster = For training (bf16, an 8B LoRA) <b>{ $fast }</b> is about { $ratio }× as fast as <b>{ $slow }</b> — by real, not datasheet, throughput.
market-faster-price = { $gpu }: from { $rate } ₽/h per card ({ $provider }{ $server }) — ≈{ $million } ₽ per million training tokens
market-faster-verdict = For the same work <b>{ $gpu }</b> is cheaper right now.
market-faster-hint = For your own run: <code>/fit 13b qlora gpu={ $fast }</code> and <code>/fit 13b qlora gpu={ $slow }</code>.
market-cheapest-title = <b>Cheapest { $gpu } right now</b>
market-cheapest-any = <b>Cheapest right now (cards with bf16)</b>
market-cheapest-hint = All offers: <code>/prices { $gpu }</code>; tell me when it gets cheaper: <code>/watch { $gpu } max=…</code>
market-cheapest-any-hint = All offers: /prices; for a particular run: <code>/fit 13b qlora</code>
market-offer-hour = • { $gpu } ×{ $count } — <b>{ $rate } ₽/h</b> · { $provider }{ $where }{ $stock }
market-offer-month = • { $gpu } ×{ $count } — <b>{ $rate } ₽/month</b> for the whole server, monthly only · { $provider }{ $where }{ $stock }
market-stock-title = <b>{ $gpu } in stock now</b>: { $count } { $count ->
        [one] offer
       *[other] offers
    }, the cheapest:
market-stock-hint = Everything in stock: <code>/stock { $gpu }</code>
market-none-now = No { $gpu } in stock right now. I will tell you when one appears: <code>/watch { $query }</code>
market-no-prices = Prices are not loaded yet — the first poll of the providers is running now. Try again in a minute: /prices
market-rub-only = Prices are in roubles, as the Russian providers bill them; I do not convert them into other currencies.
market-hourly-monthly = <b>Hourly or monthly?</b> Hourly for LoRA experiments, debugging and one-off runs (usually 2–6 h). Monthly (dedicated) for full fine-tuning over several epochs and a steady stream of experiments: a month pays off once the card is busy longer than the month's price ÷ the hourly price.
market-breakeven-pays = • { $gpu } ×{ $count }: a month { $month } ₽ ({ $monthly_provider }) against { $rate } ₽/h ({ $hourly_provider }) — the month wins above { $hours } h of use a month (~{ $days } days non-stop)
market-hourly-hint = For your own run: <code>/fit 13b qlora dataset=50k</code> — “Details” shows the break-even at live prices.
market-suggest = These commands will answer it:
    • how much memory and which GPUs: <code>/fit { $fit }</code> (or <code>/fit compare { $model }</code>)
    • prices and stock: <code>/prices { $gpu }</code>, <code>/stock { $gpu }</code>
    • tell me when it appears or gets cheaper: <code>/watch { $gpu } max=300</code>
    You can ask in words too: “which is faster, h100 or a100?”, “where is { $gpu } cheapest?”, “hourly or monthly?”.
market-faster-server = , a ×{ $count } server — { $rate } ₽/h
market-faster-no-offer = { $gpu }: no hourly offer right now
market-cheapest-vram = <b>Cheapest right now — cards with { $vram } GB or more</b>
market-offer-abroad = { " " }({ $country })
market-offer-unpublished = { " " }· stock not published
market-stock-none-published = <b>{ $gpu }</b>: no provider confirms stock for any offer
market-stock-unpublished = { $count ->
        [one] { $count } more offer has no published stock (usually rentable, not guaranteed).
       *[other] { $count } more offers have no published stock (usually rentable, not guaranteed).
    }
market-breakeven-never = • { $gpu } ×{ $count }: hourly is cheaper even around the clock — 720 h × { $rate } ₽ ({ $hourly_provider }) = { $around } ₽ against { $month } ₽ a month ({ $monthly_provider })
market-breakeven-usage = At { $usage } h a month { $choice ->
        [monthly] monthly wins.
       *[hourly] hourly wins.
    }
market-breakeven-none = • { $gpu }: no configuration is rented both by the hour and by the month right now — nothing to compare.
market-offer-month-as-month = • { $gpu } ×{ $count } — <b>{ $rate } ₽/month</b>, monthly only · { $provider }{ $where }{ $stock }
market-offer-month-as-month-per-gpu = • { $gpu } ×{ $count } — <b>{ $rate } ₽/month per GPU</b>, { $server } ₽ for the server, monthly only · { $provider }{ $where }{ $stock }
market-offer-hour-as-month = • { $gpu } ×{ $count } — <b>≈{ $rate } ₽/month rented 24/7</b> ({ $hours } h, hourly) · { $provider }{ $where }{ $stock }
market-offer-hour-as-month-per-gpu = • { $gpu } ×{ $count } — <b>≈{ $rate } ₽/month per GPU rented 24/7</b>, ≈{ $server } ₽ for the server ({ $hours } h, hourly) · { $provider }{ $where }{ $stock }
largest-title = What you can fine-tune on <b>{ $gpu }</b> ({ $usable } GiB): { $cards }, ctx { $ctx }, { $stack }, bs { $bs }
largest-one-card = one card
largest-cards = { $count } cards ({ $shard })
largest-fits = • { $method }: up to <b>{ $size }</b> ({ $model }, peak up to { $high } GiB){ $tight }
largest-none = • { $method }: not even 1B fits
largest-only-tight = • { $method }: none with room; { $size } is tight
largest-tight = ; { $size } is tight
largest-hint = Unsloth and a shorter context hold more. Size your own run: <code>/fit { $example }</code>
largest-hint-own = Size your own run: <code>/fit { $example }</code>
largest-card-of-size = a { $gb } GB card
