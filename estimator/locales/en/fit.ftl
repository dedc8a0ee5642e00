fit-title = <b>{ $model } · { $method } · ctx { $ctx } · bs { $bs }</b>{ $gpus }
fit-gpus-suffix = { " " }· { $count }× GPU ({ $shard })
fit-from-size = Size { $size } — sized on the { $model } architecture.
fit-peak = Peak VRAM: <b>{ $peak } GiB</b> per GPU
fit-target-fits = ✅ <b>{ $gpu }</b>: fits, { $headroom } GiB free of { $usable }
fit-target-tight = ⚠️ <b>{ $gpu }</b>: tight — { $headroom } GiB free of { $usable }
fit-target-no = ❌ <b>{ $gpu }</b>: does not fit — { $missing } GiB short of { $usable }
fit-target-no-multi = ❌ <b>{ $gpu }</b>: not on one card; { $count } of them with sharding (FSDP)
fit-smallest = Smallest card that fits: <b>{ $gpu }</b> ({ $usable } GiB)
fit-none = No single card holds this run — see the advice below.
fit-table-title = <b>Which GPUs fit</b>
fit-row-fits = ✅ { $gpu } — { $headroom } GiB free{ $time }
fit-row-tight = ⚠️ { $gpu } — tight, { $headroom } GiB free{ $time }
fit-row-no = ❌ { $gpu } — { $missing } GiB short
fit-row-no-multi = ❌ { $gpu } — needs { $count }{ $time }
fit-row-time = { " " }· ~{ $time }
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
caution-high_rank = rank { $value }: above 64 quality barely improves, time and memory do grow. 8–32 is usually enough.
caution-oom_step3 = Optimizer states are allocated at the first step: check memory at step 3, not step 1.
caution-dataloader_workers = Set <code>num_workers=4–8</code> in the DataLoader — without workers the GPU sits idle.
fit-assumed = <i>Assumed: { $items }.</i> Be specific, e.g. <code>/fit { $example }</code>
fit-prices-none = Prices: not loaded yet — they appear once provider monitoring is running.
fit-prices-none-fit = No fitting offer is in stock right now — watch for one with /watch.
fit-rate-hour = { $provider }: { $gpu } ×{ $count } — { $rate } ₽/h
fit-rate-month = { $provider }: { $gpu } ×{ $count } — { $rate } ₽/month (monthly rent)
fit-prices-title = <b>Cheapest right now</b>
fit-price-row = { $provider }: { $gpu } ×{ $count } — { $total } ₽ for ~{ $time } ({ $rate } ₽/h)
fit-price-row-monthly = { $provider }: { $gpu } ×{ $count } — { $total } ₽ for a month of rent (hourly would be { $hourly } ₽)
fit-details-breakdown = Per GPU: weights { $weights } · adapters { $adapters } · gradients { $gradients } · optimizer { $optimizer } · activations and logits { $activations } · CUDA and allocator { $overhead } GiB
fit-details-model = Model: { $model } — { $params }B parameters, { $layers } layers, h={ $hidden }, heads { $heads }/{ $kv_heads }, vocab { $vocab }
fit-details-setup = Setup: { $precision }, { $optimizer }, gc={ $gc }, rank { $rank } on { $targets }, stack={ $stack }, { $trainable } trainable parameters
fit-details-time = Time: { $tokens } tokens × { $flops } FLOP/token; MFU { $mfu }%
fit-details-method = GiB = 2³⁰ bytes (as nvidia-smi shows). Calibrated on 112 published measurements: median error ~8%.
