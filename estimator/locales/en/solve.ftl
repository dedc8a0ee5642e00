# Reverse questions (estimator/solve_text.py): the largest ctx / micro-batch / LoRA rank that
# fits the named card with headroom (the verdict's "fits"). $gpus is "1× RTX 3090"; $value
# comes formatted, $count is the same number for the plural form. $state is "tight" when
# larger values fit only tightly (up to $tight), "over" when the next step is over.
solve-lever-ctx = context
solve-lever-bs = micro-batch
solve-lever-rank = LoRA rank
solve-solved-ctx = 📐 <b>Max context on { $gpus }: { $value } tokens</b>{ $state ->
    [tight] ; up to { $tight } it is tight
   *[over] ; the next step ({ $next }) would not fit by { $over } GiB
}
solve-solved-bs = 📐 <b>Max micro-batch on { $gpus }: { $value }</b>{ $state ->
    [tight] ; up to { $tight } it is tight
   *[over] ; the next step ({ $next }) would not fit by { $over } GiB
}
solve-solved-rank = 📐 <b>Max LoRA rank on { $gpus }: { $value }</b>{ $state ->
    [tight] ; up to { $tight } it is tight
   *[over] ; the next step ({ $next }) would not fit by { $over } GiB
}
solve-cap-ctx = 📐 <b>Max context on { $gpus }: { $value } tokens</b> — the model's native context; I do not size beyond it
solve-cap-bs = 📐 <b>Max micro-batch on { $gpus }: { $value }</b> — I do not size beyond it
solve-cap-rank = 📐 <b>Max LoRA rank on { $gpus }: { $value }</b> — I do not size beyond it
solve-none-ctx = 📐 Even a context of { $value } tokens { $state ->
    [tight] does not fit on { $gpus } with headroom: up to { $tight } it is tight.
   *[over] does not fit on { $gpus }: { $over } GiB short.
}
solve-none-bs = 📐 Even a micro-batch of { $value } { $state ->
    [tight] does not fit on { $gpus } with headroom: up to { $tight } it is tight.
   *[over] does not fit on { $gpus }: { $over } GiB short.
}
solve-none-rank = 📐 Even a LoRA rank of { $value } { $state ->
    [tight] does not fit on { $gpus } with headroom: up to { $tight } it is tight.
   *[over] does not fit on { $gpus }: { $over } GiB short.
}
solve-needs-gpu = 📐 To find the largest { $lever } that fits, name a card: e.g. <code>/fit { $example }</code>
# "cheapest card for this": the planner's cheapest plan that holds the run.
solve-cheapest-plan = 💸 <b>Cheapest for this: { $where }</b>: { $rate } ₽/h per server, { $headroom } GiB to spare
solve-cheapest-card = 💸 No live prices; the smallest rented card that holds it: <b>{ $gpu }</b> ({ $headroom } GiB to spare)
solve-cheapest-none = 💸 No offer and no card holds this run.
# A reverse question that names no model: which one, with its own run as the example.
solve-needs-model = 📐 Which model and method? For example, <code>/fit { $example }</code>, or tap the button.
solve-needs-model-button = Size { $model } { $method }
solve-card-of-size = { $gb } GB card
