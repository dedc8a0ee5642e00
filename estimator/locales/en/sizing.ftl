## The short answer (under 900 characters): verdict, peak, the best three options

fit-title = <b>{ $model } · { $method } · ctx { $ctx } · bs { $bs }</b>{ $gpus }
fit-gpus-suffix = { " " }· { $count }× GPU ({ $shard })
fit-from-size = Size { $size } — sized on a Llama-like architecture ({ $model }).
fit-from-size-synthetic = Size { $size } — sized on a typical Llama-like architecture: { $layers } { $layers ->
        [one] layer
       *[other] layers
    }, h={ $hidden }, vocabulary { $vocab }.
fit-method-assumed = No method given — sizing { $method }.
fit-method-ruled-out = Not { $ruled } — sizing { $method }.
fit-int8-base = An 8-bit base (load_in_8bit) is not sized: this is the 16-bit base, an upper bound. For 4 bits: qlora.
fit-apple = ℹ️ A Mac is not sized: the estimate is for NVIDIA cards (CUDA), the kind rented out. A Mac shares its memory with the system and trains through MLX or PyTorch MPS, which use memory differently; the figures below are for a rented card.
fit-alias = { $alias } is sized as { $model }: they share one architecture (layers, width, vocabulary).
fit-preference = ℹ️ { $objective } is sized as supervised fine-tuning: TRL runs each chosen and rejected answer together, one batch of twice the examples, so its peak is that of bs={ $bs }: ask again with bs={ $bs }.
fit-preference-reference = Without LoRA it also holds the reference model: +{ $gib } GiB of weights.
fit-preference-kto = ℹ️ KTO is sized as supervised fine-tuning at bs={ $bs }: TRL runs each example alone, with no chosen and rejected pair.
fit-pretrain = ℹ️ Training from scratch is sized as { $method }: every weight with its gradient and optimizer state; the time is in the data — give its tokens (“1B tokens”, dataset=1000000000tok).
fit-inference = ℹ️ This sizes fine-tuning. To run { $model } (inference): weights { $bf16 } GiB in bf16, { $int8 } in 8 bits, { $int4 } in 4 bits; KV cache { $kv } GiB a sequence at { $ctx } tokens; ~{ $context } GiB of CUDA context on top.
fit-time-budget-yes = ⏱ Within { $limit }: { $cards }.
fit-time-budget-tight = ⏱ { $limit } is tight: { $cards }; if training runs slower than estimated, it will not make it.
fit-time-budget-no = ⏱ Not within { $limit }: the fastest is { $cards }. More cards (gpus=2) or less data would help.
fit-time-budget-no-data = ⏱ To say whether it takes under { $limit }, I need the dataset's size: dataset=20k or “2 GB of text”.
fit-time-budget-no-card = ⏱ { $limit }: no card holds this run, so there is no time to give.
fit-time-budget-card = { $gpu } (~{ $time })
fit-time-budget-epochs = ⏱ Within { $limit }: { $cards }.
fit-time-budget-epochs-card = { $gpu } — ~{ $low }–{ $high } epochs
fit-capacity-fits = ✅ A { $gb } GB card ({ $usable } GiB usable) holds it: { $headroom } GiB free even at a { $high } GiB peak
fit-capacity-tight = ⚠️ A { $gb } GB card is tight: a { $low }–{ $high } GiB peak on { $usable } GiB usable
fit-capacity-no = ❌ A { $gb } GB card is not enough: a { $low }–{ $high } GiB peak on { $usable } GiB usable
fit-capacity-set-fits = ✅ { $count } cards of { $gb } GB ({ $shard }): { $headroom } GiB free of { $usable } on each even at a { $high } GiB peak
fit-capacity-set-tight = ⚠️ { $count } cards of { $gb } GB ({ $shard }): tight — a { $low }–{ $high } GiB peak on each { $usable } GiB card
fit-capacity-set-no = ❌ { $count } cards of { $gb } GB ({ $shard }): a { $low }–{ $high } GiB peak on each, { $usable } GiB usable
fit-capacity-set-fsdp = ; with FSDP on the same cards, a peak up to { $high } GiB on each: shard=fsdp
fit-steps = { $steps } steps of { $per } examples (bs × ga × cards) — sizing { $examples } examples, once through.
fit-ctx-from-tokens = Examples of up to { $tokens } tokens — sizing ctx { $ctx } to hold them whole.
fit-ctx-cut = ⚠️ Examples of up to { $tokens } tokens are longer than ctx { $ctx }: training cuts them at { $ctx } (whole: <code>ctx={ $covering }</code>).
fit-constraints = Conditions: { $items }
fit-constraint-vram = cards with { $gb } GB or more
fit-constraint-russia = Russia only
fit-constraint-rate = up to { $rate } ₽/h
fit-constraint-gpu-rate = up to { $rate } ₽ per GPU-hour
fit-constraint-month-rate = up to { $rate } ₽ a month
fit-constraint-hours = { $hours } h a month
# $per: single (the run on one card: its whole peak) or each (a set: per card).
fit-peak = Peak VRAM: <b>{ $peak } GiB</b> (likely { $low }–{ $high }) { $per ->
    [single] on one GPU
   *[each] per GPU
} (as nvidia-smi shows it)
fit-peak-stack = Peak VRAM: <b>{ $peak } GiB</b> (likely { $low }–{ $high }) { $per ->
    [single] on one GPU
   *[each] per GPU
} with { $stack } (as nvidia-smi shows it)
fit-peak-stacks = Peak: <b>{ $peak } GiB</b> (likely { $low }–{ $high }) in nvidia-smi with { $stack } (no stack named); { $range } GiB with { $others }
fit-target-fits = ✅ <b>{ $gpu }</b>: fits, { $headroom } GiB free of { $usable } even at a { $high } GiB peak
fit-target-tight = ⚠️ <b>{ $gpu }</b>: tight — a { $low }–{ $high } GiB peak on a { $usable } GiB card
fit-target-no = ❌ <b>{ $gpu }</b>: does not fit — { $missing } GiB short of { $usable }
fit-target-no-multi = ❌ <b>{ $gpu }</b>: not on one card; { $count } of them with sharding (FSDP)
fit-target-no-multi-tight = ❌ <b>{ $gpu }</b>: not on one card; tight on { $count } of them with sharding (FSDP)
fit-target-set-more-tight = ❌ <b>{ $count }× { $gpu }</b> ({ $shard }): too few — tight on { $need }
fit-target-set-ddp-more-tight = ❌ <b>{ $count }× { $gpu }</b> (ddp): each card holds the whole model, { $missing } GiB short; with FSDP tight on { $need }: gpus={ $need } shard=fsdp
fit-target-no-servers = ❌ <b>{ $gpu }</b>: not on one server of 8; { $count } of them sharded across { $servers } servers (ZeRO-3/FSDP)
fit-target-set-fits = ✅ <b>{ $count }× { $gpu }</b> ({ $shard }): fits, { $headroom } GiB free of { $usable } on each even at a { $high } GiB peak
fit-target-set-tight = ⚠️ <b>{ $count }× { $gpu }</b> ({ $shard }): tight — a { $low }–{ $high } GiB peak on each { $usable } GiB card
fit-target-set-no = ❌ <b>{ $count }× { $gpu }</b> ({ $shard }): does not fit — { $missing } GiB short on each
fit-target-set-more = ❌ <b>{ $count }× { $gpu }</b> ({ $shard }): too few — { $need } needed
fit-target-set-ddp-fsdp = ❌ <b>{ $count }× { $gpu }</b> (ddp): each card holds the whole model, { $missing } GiB short; with FSDP it fits: shard=fsdp
fit-target-set-ddp-more = ❌ <b>{ $count }× { $gpu }</b> (ddp): each card holds the whole model, { $missing } GiB short; with FSDP { $need } are needed: gpus={ $need } shard=fsdp
fit-stack-fits = 🔸 With { $stack } it fits: { $peak } GiB (<code>stack={ $code }</code>)
fit-also = 🔸 <b>{ $gpu }</b> does fit: { $headroom } GiB free of { $usable }
fit-also-tight = 🔸 <b>{ $gpu }</b> is tight: a peak up to { $high } GiB of { $usable }
fit-smallest = Smallest card that fits: <b>{ $gpu }</b> ({ $usable } GiB)
fit-none = No single card holds this run — see “Details”.
fit-best-title = <b>Best options right now</b>
fit-best-card = { $n }. { $gpu } — { $headroom } GiB free{ $time }
fit-best-card-tight = { $n }. { $gpu } — tight: a peak up to { $high } of { $usable } GiB{ $time }
fit-best-cards-title = <b>These fit</b>
fit-time-hint = Time and cost need the dataset: <code>dataset=20k</code> or “dataset of 2 GB of text”.
fit-prices-none = Prices are not loaded yet — they appear once provider monitoring is running.
fit-prices-none-fit = No fitting offer is in stock right now — watch for one with /watch.
fit-warnings-count = ⚠️ { $count } { $count ->
        [one] warning
       *[other] warnings
    } and advice — under “Details”.
fit-budget-yes = 💰 Within { $budget } ₽: { $gpu } ×{ $count } at { $provider } — ≈{ $total } ₽ for ~{ $time }.
fit-budget-likely = 💰 { $budget } ₽ is probably enough: { $gpu } ×{ $count } at { $provider } — ≈{ $total } ₽ for ~{ $time }, but up to { $high } ₽ if training runs slower than estimated.
fit-budget-no = 💰 Not within { $budget } ₽: the cheapest is { $gpu } ×{ $count } at { $provider } — ≈{ $total } ₽.
fit-budget-hours = 💰 { $budget } ₽ buys ~{ $hours } h of { $gpu } ×{ $count } ({ $rate } ₽/h at { $provider }); give the dataset size and I will say how many hours it needs.
fit-budget-none = 💰 Budget { $budget } ₽: no fitting offer is in stock right now.
fit-more-advice = How to use less memory and the breakdown — under “Details”.
fit-button-details = Details
fit-button-short = Short

## Details

fit-table-title = <b>Which GPUs fit</b>
fit-row-fits = ✅ { $gpu } — { $headroom } GiB free{ $time }{ $mark }
fit-row-tight = ⚠️ { $gpu } — tight: a peak up to { $high } of { $usable } GiB{ $time }{ $mark }
fit-row-no = ❌ { $gpu } — { $missing } GiB short{ $mark }
fit-row-no-multi = ❌ { $gpu } — needs { $count }{ $time }{ $mark }
fit-row-time = { " " }· ~{ $time }
fit-row-fp16 = { " " }· fp16/fp32 only, slow
fit-hours = { $hours } h
fit-minutes = { $minutes } min
fit-days = { $days } days
fit-advice-title = <b>How to use less memory</b>
advice-gc_on = turn on gradient checkpointing (<code>gc=on</code>): −{ $saves } GiB, ~20% slower
advice-pure_bf16 = pure bf16 without fp32 master weights (<code>precision=bf16</code>, as torchtune does): −{ $saves } GiB
advice-adam8bit = 8-bit Adam (<code>optim=adamw8bit</code>): −{ $saves } GiB
advice-smaller_batch = micro-batch 1 with gradient accumulation (<code>bs=1</code>): −{ $saves } GiB
advice-shorter_ctx = context { $value } (<code>ctx={ $value }</code>): −{ $saves } GiB
advice-qlora = QLoRA instead of { $method } (<code>qlora</code>): −{ $saves } GiB
advice-unsloth = Unsloth (<code>stack=unsloth</code>): −{ $saves } GiB
advice-h200 = H200 (141 GB) instead of H100 — the same chip with nearly twice the memory
fit-warnings-title = <b>Watch out</b>
caution-no_bf16 = { $value } has no bf16: use fp16 with loss scaling (AMP) — pure fp16 often diverges.
caution-fp16_on_bf16 = { $value } supports bf16: use <code>precision=bf16</code> — fp16's narrow range diverges without loss scaling, at the same speed.
caution-native_ctx = The model's native context is { $value } tokens: beyond it RoPE must be stretched (rope_scaling) or quality drops.
caution-high_rank = rank { $value }: above 64 quality barely improves, time and memory do grow. 8–32 is usually enough.
caution-oom_step3 = Optimizer states are allocated at the first step: check memory at step 3, not step 1.
caution-dataloader_workers = Set <code>num_workers=4–8</code> in the DataLoader — without workers the GPU sits idle.
fit-assumed = <i>Assumed: { $items }.</i> Be specific, e.g. <code>/fit { $example }</code>
fit-text-tokens = dataset ≈{ $tokens } tokens ({ $bytes } bytes per token for { $lang ->
        [ru] Russian
       *[en] English
    } text)
fit-prices-title = <b>Cheapest right now</b>
fit-breakeven-job = This run takes ~{ $job }: { $choice ->
        [monthly] rent by the month
       *[hourly] rent by the hour
    }.
fit-checkpoint-adapter = <b>Checkpoint</b>: the LoRA adapter is { $adapter }; the merged full model { $model }.
fit-checkpoint-full = <b>Checkpoint</b>: weights { $model }; with the optimizer state to resume training, { $resume }.
fit-details-breakdown = Per GPU: weights { $weights } · adapters { $adapters } · gradients { $gradients } · optimizer { $optimizer } · activations and logits { $activations } · CUDA, allocator and buffers { $overhead } GiB
fit-details-figures = Per GPU: allocated (live tensors) { $allocated } · reserved (the allocator's pool) { $reserved } · nvidia-smi { $smi } GiB. The verdict is on nvidia-smi: it is what must fit in the card's memory.
fit-details-model = Model: { $model } — { $params }B parameters, { $layers } { $layers ->
        [one] layer
       *[other] layers
    }, h={ $hidden }, heads { $heads }/{ $kv_heads }, vocab { $vocab }
fit-details-setup = Setup: { $precision }, { $optimizer }, gc={ $gc }, rank { $rank } on { $targets }, stack={ $stack }, { $trainable } trainable parameters
fit-details-time = Time on { $gpu }: { $tokens } tokens × { $flops } FLOP/token; { $tps } tokens/s per GPU (MFU { $mfu }%)
# How the cards of the run talk, read from the card (estimator/interconnect.py).
fit-details-link = Link between the { $count } cards: { $link ->
    [nvlink] NVLink
    [pcie] PCIe with peer-to-peer
   *[pcie_host] PCIe without peer-to-peer, through the server's RAM (GeForce)
} — from the card
# The time model's own claim, from estimator/data/speed_accuracy.csv (bench/estimator_speed.py).
fit-details-time-claim = Time: ~{ $span }, from the 10th to the 90th percentile of the time model's error. It was checked against { $rows } published throughput measurements from { $repos } repositories, each with constants fitted without it; { $scope ->
    [stack] for { $stack }, { $method }
    [method] for { $method } (fewer than three repositories measured { $stack })
   *[all] over every stack and method
}: median error of the hours { $median }%, within 25% for { $within }%, more than 15% too few hours for { $short }% of the measurements.
fit-details-method = GiB = 2³⁰ bytes (as nvidia-smi shows). Checked on { $rows } published measurements from { $repos } repositories, each with the constants fitted without it. { $scope ->
    [stack] For { $stack }
   *[all] Across stacks ({ $stack }: { $own ->
        [none] no measurements of its own
       *[few] measurements from only { $own } { $own ->
            [one] repository
           *[other] repositories
        }, fewer than three, so no figure of its own
    })
}: median error { $median }%, { $within }% of measurements within 25%, { $under }% under-sized by more than 15%; on average the estimate is { $direction ->
    [low] { $bias }% below the measurement
   *[high] { $bias }% above the measurement
}. By metric: { $metrics }. The peak's range runs from the 10th to the 90th percentile of that error; "fits" only when its top leaves 10% of the card free.
fit-details-metric = { $metric } { $median }% ({ $rows })
fit-details-metric-few = { $metric }: fewer than three repositories ({ $repos })
fit-details-length = The peak is the longest batch: { $bs } × { $ctx } tokens (ctx caps a sample's length){ $typical ->
    [none] .
   *[some] ; the average sample of ~{ $typical } tokens sets the time, not the peak.
}

## /fit compare

fit-compare-title = <b>{ $model }: full, LoRA and QLoRA</b> · ctx { $ctx } · bs { $bs }
fit-compare-row = <b>{ $method }</b> — { $peak } GiB · { $gpu }{ $price }{ $time }
fit-compare-row-none = <b>{ $method }</b> — { $peak } GiB · does not fit even on one 8-card server
fit-compare-price = { " " }· from { $rate } ₽/h
fit-compare-time = { " " }· ~{ $time }
fit-compare-footer = Full fine-tuning with mixed precision and AdamW (18 bytes per parameter); LoRA and QLoRA with r={ $rank } on every linear layer. In detail: <code>/fit { $example }</code>
fit-smallest-multi = One card is not enough: it takes <b>{ $count }× { $gpu }</b> or more ({ $usable } GiB each)
# A plan: the server (count × card at a provider, a foreign location named), then its price.
fit-plan-where = { $gpu } ×{ $count } · { $provider }
fit-plan-where-abroad = { $gpu } ×{ $count } · { $provider } ({ $country })
fit-plan-hour = { $n }. { $where } — { $rate } ₽/h · ~{ $time } ≈ <b>{ $total } ₽</b>{ $flags }
fit-plan-month = { $n }. { $where } — <b>{ $total } ₽</b>: { $months ->
        [one] { $months } month
       *[other] { $months } months
    } of rent for ~{ $time } of work{ $flags }
fit-plan-rate-hour = { $n }. { $where } — <b>{ $rate } ₽/h</b>{ $flags }
fit-plan-rate-month = { $n }. { $where } — <b>{ $rate } ₽/month</b>, monthly only{ $flags }
fit-plan-flags = { " " }⚠️ { $flags }
fit-no-hourly = No hourly { $what } right now — monthly rent only.
fit-no-hourly-any = No hourly option right now — monthly rent only.
caveat-short-tight = tight fit
caveat-short-no_bf16 = no bf16, slow
caveat-short-slow = slow card
caveat-short-no_unsloth = Unsloth won't run
caveat-short-abroad = outside Russia
caveat-short-stock_unpublished = stock not published
caveat-short-month_for_hours = a month of rent for hours of work
caveat-short-link_assumed = card form not published: timed as PCIe
caveat-short-stale = source not answering: price and stock as last read
fit-unmet = Nothing matches ({ $what }); without that, offers would fit — drop it to see them.
unmet-russia_only = Russia only
unmet-min_vram = card memory
unmet-max_rate = hourly price
unmet-max_gpu_rate = price per GPU-hour
unmet-max_month_rate = monthly price
unmet-gpus = card count
fit-breakeven-pays = <b>Hourly or monthly</b> ({ $gpu } ×{ $count }): a month at { $monthly_provider } ({ $month } ₽) is cheaper above { $hours } h of use a month (~{ $days } days non-stop); hourly is { $rate } ₽/h at { $hourly_provider }.
fit-breakeven-never = <b>Hourly or monthly</b> ({ $gpu } ×{ $count }): hourly is cheaper even around the clock — 720 h × { $rate } ₽ = { $around } ₽ against { $month } ₽ for a month at { $monthly_provider }.
fit-breakeven-usage = At { $usage } h a month, { $choice ->
        [monthly] rent by the month
       *[hourly] rent by the hour
    }.
fit-compare-price-month = { " " }· { $rate } ₽/month, monthly only
fit-card-no-bf16 = ⚠️ { $gpu }: no bf16 — fp16/fp32 only, training is slow and may diverge; no FlashAttention 2 either (attention runs on SDPA's memory-efficient kernel).
