## What the answer read, the levers a question asked about, the defaults that decide a
## verdict, and what CPU offload costs (estimator/lever_text.py)

# The settings read that differ from the defaults and are not in the title; $items are /fit
# words, each with the words that set it when the reader recorded them.
fit-read = Прочитал: { $items }
fit-read-words = { $setting } («{ $words }»)
fit-unread = ❓ Не учёл { $items } — не понял, что это. Скажите точнее: «50к примеров», «бюджет 5000 ₽», «на 4090» — или ключом /fit: dataset=50k, budget=5000, gpu=4090.
fit-unread-item = «{ $words }»
fit-unread-currency = ❓ Не учёл { $items }: цены и бюджет — в рублях, как считают провайдеры. Скажите бюджет в ₽: «бюджет 45 000 ₽» или budget=45000.
fit-repeated = ❓ { $key } назван дважды — считаю первое значение{ $first }, второе не учёл.
fit-repeated-last = ❓ { $key } задан дважды — считаю последнее значение{ $first }, первое не учёл.
fit-extra-size = ❓ Вторую модель ({ $size }B) не считаю — спросите о ней отдельным сообщением.
fit-extra-method = ❓ Второй метод ({ $method }) не считаю — спросите отдельно или «сравни qlora и lora».
fit-out-of-range = ❓ Не учёл { $key }: значение вне допустимого ({ $low }…{ $high }).
fit-no-effect = ℹ️ { $settings }: не влияет ни на память, ни на время — не учитываю.

lever-name-offload = Offload
lever-name-shard = Шардирование (DeepSpeed/FSDP)
lever-name-optimizer = Оптимизатор
lever-name-precision = Точность
lever-name-grad_checkpointing = Gradient checkpointing
lever-name-stack = Стек
lever-name-method = Метод

# A lever asked about («нужен ли offload?»): the run as read, then the lever switched.
lever-asked = ❓ { $name } — вы спросили. Считаю { $current }. С { $setting } — { $other }{ $costs }.
# A setting not stated whose default decides the verdict on the asked card.
lever-default = ℹ️ Считаю { $current } — не указано. С { $setting } — { $other }{ $costs }.
lever-current-none = без offload
lever-outcome-fits = { $peak } ГиБ на GPU, помещается
lever-outcome-tight = { $peak } ГиБ на GPU, впритык
lever-outcome-no = { $peak } ГиБ на GPU, не помещается
lever-outcome-card = { $peak } ГиБ на GPU, подойдёт { $gpu }
lever-outcome-nothing = { $peak } ГиБ на GPU, не вмещает ни одна карта
lever-cost-ram = на сервере нужно ≥{ $ram } ОЗУ
lever-cost-step = шаг оптимизатора на CPU ~{ $seconds } с
lever-cost-slower = в ~{ $times } { $times ->
        [one] раз
        [few] раза
        [many] раз
       *[other] раза
    } медленнее
lever-cost-faster = в ~{ $times } { $times ->
        [one] раз
        [few] раза
        [many] раз
       *[other] раза
    } быстрее
lever-cost-percent-slower = на ~{ $percent }% медленнее
lever-cost-percent-faster = на ~{ $percent }% быстрее
lever-cost-same-speed = скорость та же
lever-cost-hours = ~{ $time } вместо ~{ $was }

lever-details-title = <b>С ним и без</b>
lever-details-asked = { $name } — вы спросили:
lever-details-default = { $name } не указан, а решает вердикт:
lever-details-row = • { $setting }{ $as_read }: { $outcome }{ $costs }
lever-details-as-read = { " " }(так считаю)
lever-details-offload-note = ОЗУ — состояния модели в памяти сервера по оценке DeepSpeed (×1,5 на буферы), не меньше 16-битной модели: она проходит через ОЗУ при загрузке. Шаг оптимизатора на CPU идёт после каждого micro-batch (gradient_accumulation_steps=1); с накоплением градиентов в N шагов — в N раз реже.

# The run's own CPU offload (offload=optimizer / offload=params).
offload-line = 🧠 <code>offload={ $value }</code>: на сервере нужно ≥{ $ram } ОЗУ; шаг оптимизатора на CPU ~{ $seconds } с{ $stream }.
offload-stream = , подгрузка весов по PCIe ~{ $seconds } с на micro-batch
offload-details = <b>CPU offload</b> (<code>offload={ $value }</code>): в ОЗУ сервера — { $parts }; ×1,5 на буферы DeepSpeed — { $ram } (не меньше 16-битной модели, { $checkpoint }: она проходит через ОЗУ при загрузке). Шаг оптимизатора на CPU ~{ $seconds } с: сервер обновляет ~1,7 млрд параметров в секунду (замеры DeepSpeed), шаг — после каждого micro-batch; с накоплением градиентов в N шагов — в N раз реже.
fit-ram-short = На серверах, где карты вмещают запуск, мало ОЗУ для offload: нужно ≥{ $ram }.
caveat-short-ram_unpublished = ОЗУ сервера не указано — сверьте с нуждой offload
offload-part-master = fp32-копия весов { $size }
offload-part-gradients = градиенты { $size }
offload-part-optimizer = состояния оптимизатора { $size }
offload-part-params = параметры { $size }

# The offload lever among «Как уменьшить память»: its saving, with the host RAM it needs.
advice-offload = CPU offload оптимизатора (<code>offload=optimizer</code>): −{ $saves } ГиБ, но на сервере нужно ≥{ $value } ГБ ОЗУ, а шаг оптимизатора идёт на CPU — во много раз медленнее
