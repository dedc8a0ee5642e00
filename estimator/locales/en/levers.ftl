## What the answer read, the levers a question asked about, the defaults that decide a
## verdict, and what CPU offload costs (estimator/lever_text.py)

# The settings read that differ from the defaults and are not in the title; $items are /fit
# words, each with the words that set it when the reader recorded them.
fit-read = Read: { $items }
fit-read-words = { $setting } (“{ $words }”)
fit-unread = ❓ Not counted: { $items } — I could not tell what it is. Say it plainly: “50k examples”, “budget 5000 ₽”, “on a 4090” — or as a /fit key: dataset=50k, budget=5000, gpu=4090.
fit-unread-item = “{ $words }”
fit-unread-currency = ❓ Not counted: { $items } — prices and budgets are in ₽, as the providers bill. Give the budget in roubles: “budget 45000 ₽” or budget=45000.
fit-repeated = ❓ { $key } was given twice — sized with the first value{ $first }; the second is not counted.
fit-repeated-last = ❓ { $key } was given twice — sized with the last value{ $first }; the first is not counted.
fit-extra-size = ❓ The second model ({ $size }B) is not sized — ask about it in a message of its own.
fit-extra-method = ❓ The second method ({ $method }) is not sized — ask separately, or “compare qlora and lora”.
fit-out-of-range = ❓ Not counted: { $key } — the value is outside what it can be ({ $low }…{ $high }).
fit-no-effect = ℹ️ { $settings }: changes neither memory nor time — not counted.

lever-name-offload = Offload
lever-name-shard = Sharding (DeepSpeed/FSDP)
lever-name-optimizer = Optimizer
lever-name-precision = Precision
lever-name-grad_checkpointing = Gradient checkpointing
lever-name-stack = Stack
lever-name-method = Method

# A lever asked about ("do we need offload?"): the run as read, then the lever switched.
lever-asked = ❓ { $name } — you asked. Sized { $current }. With { $setting } — { $other }{ $costs }.
# A setting not stated whose default decides the verdict on the asked card.
lever-default = ℹ️ Sized { $current } — not stated. With { $setting } — { $other }{ $costs }.
lever-current-none = without offload
lever-outcome-fits = { $peak } GiB per GPU, fits
lever-outcome-tight = { $peak } GiB per GPU, tight
lever-outcome-no = { $peak } GiB per GPU, does not fit
lever-outcome-card = { $peak } GiB per GPU, { $gpu } will do
lever-outcome-nothing = { $peak } GiB per GPU, no card holds it
lever-cost-ram = the server needs ≥{ $ram } of RAM
lever-cost-step = optimizer step on the CPU ~{ $seconds } s
lever-cost-slower = ~{ $times }× slower
lever-cost-faster = ~{ $times }× faster
lever-cost-percent-slower = ~{ $percent }% slower
lever-cost-percent-faster = ~{ $percent }% faster
lever-cost-same-speed = same speed
lever-cost-hours = ~{ $time } instead of ~{ $was }

lever-details-title = <b>With it and without</b>
lever-details-asked = { $name } — you asked:
lever-details-default = { $name } not stated, and it decides the verdict:
lever-details-row = • { $setting }{ $as_read }: { $outcome }{ $costs }
lever-details-as-read = { " " }(as sized)
lever-details-offload-note = RAM: the model states in the server's memory by DeepSpeed's estimate (×1.5 for buffers), never below the 16-bit model, which passes through RAM as it loads. The optimizer step runs on the CPU after every micro-batch (gradient_accumulation_steps=1); accumulating gradients over N steps makes it N times rarer.

# The run's own CPU offload (offload=optimizer / offload=params).
offload-line = 🧠 <code>offload={ $value }</code>: the server needs ≥{ $ram } of RAM; optimizer step on the CPU ~{ $seconds } s{ $stream }.
offload-stream = , weights streamed over PCIe ~{ $seconds } s a micro-batch
offload-details = <b>CPU offload</b> (<code>offload={ $value }</code>): in the server's RAM — { $parts }; ×1.5 for DeepSpeed's buffers — { $ram } (never below the 16-bit model, { $checkpoint }, which passes through RAM as it loads). Optimizer step on the CPU ~{ $seconds } s: a server updates ~1.7B parameters a second (DeepSpeed's measurements), once per micro-batch; accumulating gradients over N steps makes it N times rarer.
fit-ram-short = The servers whose cards hold the run have too little RAM for its offload: it needs ≥{ $ram }.
caveat-short-ram_unpublished = server RAM not stated — check it against the offload
offload-part-master = fp32 master weights { $size }
offload-part-gradients = gradients { $size }
offload-part-optimizer = optimizer states { $size }
offload-part-params = parameters { $size }

# The offload lever among «Как уменьшить память»: its saving, with the host RAM it needs.
advice-offload = CPU offload of the optimizer (<code>offload=optimizer</code>): −{ $saves } GiB, but the server needs ≥{ $value } GB of RAM and the optimizer step runs on the CPU — many times slower
