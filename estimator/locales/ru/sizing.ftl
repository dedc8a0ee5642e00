## The short answer (under 900 characters): verdict, peak, the best three options

fit-title = <b>{ $model } · { $method } · ctx { $ctx } · bs { $bs }</b>{ $gpus }
fit-gpus-suffix = { " " }· { $count }× GPU ({ $shard })
fit-from-size = Размер { $size } — считаю на Llama-подобной архитектуре ({ $model }).
fit-from-size-synthetic = Размер { $size } — считаю на типичной Llama-подобной архитектуре: { $layers } { $layers ->
        [one] слой
        [few] слоя
       *[many] слоёв
    }, h={ $hidden }, словарь { $vocab }.
fit-method-assumed = Метод не указан — считаю { $method }.
fit-method-ruled-out = Без { $ruled } — считаю { $method }.
fit-int8-base = 8-битную базу (load_in_8bit) не считаю: посчитал с 16-битной — это верхняя граница. Для 4 бит — qlora.
fit-apple = ℹ️ Mac не считаю: оценка — для видеокарт NVIDIA (CUDA), какие сдают в аренду. У Mac память общая с системой, а обучение идёт через MLX или PyTorch MPS, которые расходуют её иначе; цифры ниже — для арендной карты.
fit-alias = { $alias } считаю как { $model }: у них одна архитектура (слои, ширина, словарь).
fit-preference = ℹ️ { $objective } считаю как обычное дообучение: TRL прогоняет chosen и rejected одним батчем вдвое больше, так что пик будет как у bs={ $bs }: спросите с bs={ $bs }.
fit-preference-reference = Без LoRA ещё держит эталонную модель: +{ $gib } ГиБ весов.
fit-preference-kto = ℹ️ KTO считаю как обычное дообучение с bs={ $bs }: TRL прогоняет каждый пример отдельно, без пары chosen и rejected.
fit-pretrain = ℹ️ Обучение с нуля считаю как { $method }: все веса с градиентами и состоянием оптимизатора; время зависит от данных — укажите их объём в токенах («1 млрд токенов», dataset=1000000000tok).
fit-inference = ℹ️ Это расчёт дообучения. Для запуска { $model } (инференс): веса { $bf16 } ГиБ в bf16, { $int8 } в 8 бит, { $int4 } в 4 бит; KV-кэш { $kv } ГиБ на последовательность в { $ctx } токенов; сверху ~{ $context } ГиБ контекста CUDA.
fit-time-budget-yes = ⏱ В { $limit } уложитесь: { $cards }.
fit-time-budget-tight = ⏱ { $limit } — впритык: { $cards }; если обучение пойдёт медленнее расчёта, не уложитесь.
fit-time-budget-no = ⏱ В { $limit } не уложитесь: быстрее всего { $cards }. Помогут больше карт (gpus=2) или меньше данных.
fit-time-budget-no-data = ⏱ Чтобы сказать, уложитесь ли в { $limit }, нужен размер датасета: dataset=20k или «датасет 2 гб текста».
fit-time-budget-no-card = ⏱ { $limit }: ни одна карта не вмещает этот запуск — времени не назову.
fit-time-budget-card = { $gpu } (~{ $time })
fit-time-budget-epochs = ⏱ За { $limit } успеете: { $cards }.
fit-time-budget-epochs-card = { $gpu } — ~{ $low }–{ $high } эпохи
fit-capacity-fits = ✅ Карте на { $gb } ГБ ({ $usable } ГиБ доступно) хватит: запас { $headroom } ГиБ даже при пике { $high }
fit-capacity-tight = ⚠️ Карте на { $gb } ГБ впритык: пик { $low }–{ $high } ГиБ при { $usable } доступных
fit-capacity-no = ❌ Карте на { $gb } ГБ не хватит: пик { $low }–{ $high } ГиБ при { $usable } доступных
fit-capacity-set-fits = ✅ { $count } карты на { $gb } ГБ ({ $shard }): на каждой запас { $headroom } ГиБ из { $usable } даже при пике { $high }
fit-capacity-set-tight = ⚠️ { $count } карты на { $gb } ГБ ({ $shard }): впритык — на каждой пик { $low }–{ $high } ГиБ при { $usable }
fit-capacity-set-no = ❌ { $count } карты на { $gb } ГБ ({ $shard }): на каждой пик { $low }–{ $high } ГиБ при { $usable } доступных
fit-capacity-set-fsdp = ; с FSDP на тех же картах — пик до { $high } ГиБ на каждой: shard=fsdp
fit-steps = { $steps } шагов по { $per } примеров (bs × ga × карты) — считаю { $examples } примеров, одна эпоха.
fit-ctx-from-tokens = Примеры до { $tokens } токенов — считаю ctx { $ctx }, чтобы они поместились целиком.
fit-ctx-cut = ⚠️ Примеры до { $tokens } токенов длиннее ctx { $ctx }: при обучении они обрежутся до { $ctx } (целиком — <code>ctx={ $covering }</code>).
fit-constraints = Условия: { $items }
fit-constraint-vram = карта от { $gb } ГБ
fit-constraint-russia = только РФ
fit-constraint-rate = до { $rate } ₽/ч
fit-constraint-gpu-rate = до { $rate } ₽ за GPU·ч
fit-constraint-month-rate = до { $rate } ₽ в месяц
fit-constraint-hours = { $hours } ч в месяц
# $per: single (the run on one card: its whole peak) or each (a set: per card).
fit-peak = Пик видеопамяти: <b>{ $peak } ГиБ</b> (вероятно { $low }–{ $high }) { $per ->
    [single] на одной GPU
   *[each] на каждой GPU
} (по nvidia-smi)
fit-peak-stack = Пик видеопамяти: <b>{ $peak } ГиБ</b> (вероятно { $low }–{ $high }) { $per ->
    [single] на одной GPU
   *[each] на каждой GPU
} с { $stack } (по nvidia-smi)
fit-peak-stacks = Пик: <b>{ $peak } ГиБ</b> (вероятно { $low }–{ $high }) по nvidia-smi с { $stack } (если стек не указан); { $range } ГиБ с { $others }
fit-target-fits = ✅ <b>{ $gpu }</b>: помещается, запас { $headroom } ГиБ из { $usable } даже при пике { $high }
fit-target-tight = ⚠️ <b>{ $gpu }</b>: впритык — пик { $low }–{ $high } ГиБ при { $usable } на карте
fit-target-no = ❌ <b>{ $gpu }</b>: не помещается — не хватает { $missing } ГиБ из { $usable }
fit-target-no-multi = ❌ <b>{ $gpu }</b>: на одной не помещается; хватит { $count } шт. с шардированием (FSDP)
fit-target-no-multi-tight = ❌ <b>{ $gpu }</b>: на одной не помещается; впритык на { $count } шт. с шардированием (FSDP)
fit-target-set-more-tight = ❌ <b>{ $count }× { $gpu }</b> ({ $shard }): мало — впритык на { $need } шт.
fit-target-set-ddp-more-tight = ❌ <b>{ $count }× { $gpu }</b> (ddp): каждая карта держит всю модель, не хватает { $missing } ГиБ; с FSDP впритык на { $need } шт.: gpus={ $need } shard=fsdp
fit-target-no-servers = ❌ <b>{ $gpu }</b>: в одном сервере (8 карт) не помещается; хватит { $count } шт. с шардированием на { $servers } серверах (ZeRO-3/FSDP)
fit-target-set-fits = ✅ <b>{ $count }× { $gpu }</b> ({ $shard }): помещается, на каждой запас { $headroom } ГиБ из { $usable } даже при пике { $high }
fit-target-set-tight = ⚠️ <b>{ $count }× { $gpu }</b> ({ $shard }): впритык — на каждой пик { $low }–{ $high } ГиБ при { $usable }
fit-target-set-no = ❌ <b>{ $count }× { $gpu }</b> ({ $shard }): не помещается — на каждой не хватает { $missing } ГиБ
fit-target-set-more = ❌ <b>{ $count }× { $gpu }</b> ({ $shard }): мало — нужно { $need } шт.
fit-target-set-ddp-fsdp = ❌ <b>{ $count }× { $gpu }</b> (ddp): каждая карта держит всю модель, не хватает { $missing } ГиБ; с FSDP поместится: shard=fsdp
fit-target-set-ddp-more = ❌ <b>{ $count }× { $gpu }</b> (ddp): каждая карта держит всю модель, не хватает { $missing } ГиБ; с FSDP нужно { $need } шт.: gpus={ $need } shard=fsdp
fit-stack-fits = 🔸 С { $stack } поместится: { $peak } ГиБ (<code>stack={ $code }</code>)
fit-also = 🔸 А <b>{ $gpu }</b> подойдёт: запас { $headroom } ГиБ из { $usable }
fit-also-tight = 🔸 А <b>{ $gpu }</b> — впритык: пик до { $high } ГиБ из { $usable }
fit-smallest = Наименьшая подходящая карта: <b>{ $gpu }</b> ({ $usable } ГиБ)
fit-none = Ни одна карта не вмещает этот запуск целиком — см. «Подробнее».
fit-best-title = <b>Лучшие варианты сейчас</b>
fit-best-card = { $n }. { $gpu } — запас { $headroom } ГиБ{ $time }
fit-best-card-tight = { $n }. { $gpu } — впритык: пик до { $high } ГиБ из { $usable }{ $time }
fit-best-cards-title = <b>Подойдут</b>
fit-time-hint = Время и сумма — если дать датасет: <code>dataset=20k</code> или «датасет 2 гб текста».
fit-prices-none = Цены ещё не загружены — появятся, как только заработает мониторинг провайдеров.
fit-prices-none-fit = Подходящих предложений в наличии сейчас нет — подпишитесь на появление: /watch.
fit-warnings-count = ⚠️ { $count } { $count ->
        [one] предупреждение
        [few] предупреждения
       *[many] предупреждений
    } и советы — в «Подробнее».
fit-budget-yes = 💰 В { $budget } ₽ укладываетесь: { $gpu } ×{ $count } у { $provider } — ≈{ $total } ₽ за ~{ $time }.
fit-budget-likely = 💰 В { $budget } ₽ скорее всего уложитесь: { $gpu } ×{ $count } у { $provider } — ≈{ $total } ₽ за ~{ $time }, но если обучение пойдёт медленнее расчёта — до { $high } ₽.
fit-budget-no = 💰 В { $budget } ₽ не уложиться: дешевле всего { $gpu } ×{ $count } у { $provider } — ≈{ $total } ₽.
fit-budget-hours = 💰 На { $budget } ₽ — ~{ $hours } ч на { $gpu } ×{ $count } ({ $rate } ₽/ч у { $provider }); сколько нужно часов, скажу по размеру датасета.
fit-budget-none = 💰 Бюджет { $budget } ₽: подходящих предложений в наличии сейчас нет.
fit-more-advice = Как уменьшить память и разбивка — в «Подробнее».
fit-button-details = Подробнее
fit-button-short = Кратко

## Details («Подробнее»)

fit-table-title = <b>Какие GPU подойдут</b>
fit-row-fits = ✅ { $gpu } — запас { $headroom } ГиБ{ $time }{ $mark }
fit-row-tight = ⚠️ { $gpu } — впритык: пик до { $high } ГиБ из { $usable }{ $time }{ $mark }
fit-row-no = ❌ { $gpu } — не хватает { $missing } ГиБ{ $mark }
fit-row-no-multi = ❌ { $gpu } — нужно { $count } шт.{ $time }{ $mark }
fit-row-time = { " " }· ~{ $time }
fit-row-fp16 = { " " }· только fp16/fp32, медленно
fit-hours = { $hours } ч
fit-minutes = { $minutes } мин
fit-days = { $days } сут
fit-advice-title = <b>Как уменьшить память</b>
advice-gc_on = включить gradient checkpointing (<code>gc=on</code>): −{ $saves } ГиБ, обучение ~20% медленнее
advice-pure_bf16 = чистый bf16 без fp32-копии весов (<code>precision=bf16</code>, как в torchtune): −{ $saves } ГиБ
advice-adam8bit = 8-битный Adam (<code>optim=adamw8bit</code>): −{ $saves } ГиБ
advice-smaller_batch = micro-batch 1 с накоплением градиентов (<code>bs=1</code>): −{ $saves } ГиБ
advice-shorter_ctx = контекст { $value } (<code>ctx={ $value }</code>): −{ $saves } ГиБ
advice-qlora = QLoRA вместо { $method } (<code>qlora</code>): −{ $saves } ГиБ
advice-unsloth = Unsloth (<code>stack=unsloth</code>): −{ $saves } ГиБ
advice-h200 = H200 (141 ГБ) вместо H100 — тот же чип, почти вдвое больше памяти
fit-warnings-title = <b>Внимание</b>
caution-no_bf16 = { $value } не поддерживает bf16: берите fp16 со скейлингом лосса (AMP) — «чистый» fp16 часто расходится.
caution-fp16_on_bf16 = { $value } умеет bf16: берите <code>precision=bf16</code> — у fp16 узкий диапазон, без скейлинга лосса обучение расходится, а скорость та же.
caution-native_ctx = Родной контекст модели — { $value } токенов: дальше нужно растягивать RoPE (rope_scaling), иначе качество падает.
caution-high_rank = rank { $value }: выше 64 качество почти не растёт, а время и память — да. Обычно хватает 8–32.
caution-oom_step3 = Состояния оптимизатора создаются на первом шаге: проверяйте память на 3-м шаге, а не на 1-м.
caution-dataloader_workers = Ставьте <code>num_workers=4–8</code> в DataLoader — без воркеров GPU простаивает.
fit-assumed = <i>Допущения: { $items }.</i> Уточните, например: <code>/fit { $example }</code>
fit-text-tokens = датасет ≈{ $tokens } токенов ({ $bytes } байт на токен для текста на { $lang ->
        [ru] русском
       *[en] английском
    })
fit-prices-title = <b>Дешевле всего сейчас</b>
fit-breakeven-job = Этот запуск — ~{ $job }: выгоднее { $choice ->
        [monthly] помесячная аренда
       *[hourly] почасовая
    }.
fit-checkpoint-adapter = <b>Чекпоинт</b>: адаптер LoRA — { $adapter }; модель целиком после слияния — { $model }.
fit-checkpoint-full = <b>Чекпоинт</b>: веса — { $model }; с состоянием оптимизатора, чтобы продолжить обучение, — { $resume }.
fit-details-breakdown = Разбивка на GPU: веса { $weights } · адаптеры { $adapters } · градиенты { $gradients } · оптимизатор { $optimizer } · активации и логиты { $activations } · CUDA, аллокатор и буферы { $overhead } ГиБ
fit-details-figures = На GPU: выделено тензорами (allocated) { $allocated } · пул аллокатора (reserved) { $reserved } · nvidia-smi { $smi } ГиБ. Вердикт — по nvidia-smi: это то, что должно влезть в память карты.
fit-details-model = Модель: { $model } — { $params } млрд параметров, { $layers } { $layers ->
        [one] слой
        [few] слоя
       *[many] слоёв
    }, h={ $hidden }, головы { $heads }/{ $kv_heads }, словарь { $vocab }
fit-details-setup = Настройки: { $precision }, { $optimizer }, gc={ $gc }, rank { $rank } на { $targets }, stack={ $stack }, обучаемых параметров { $trainable }
fit-details-time = Время на { $gpu }: { $tokens } токенов × { $flops } ФЛОП/токен; { $tps } токенов/с на GPU (MFU { $mfu }%)
# How the cards of the run talk, read from the card (estimator/interconnect.py).
fit-details-link = Связь между { $count } картами: { $link ->
    [nvlink] NVLink
    [pcie] PCIe с прямым обменом (P2P)
   *[pcie_host] PCIe без P2P — через ОЗУ сервера (GeForce)
} — по модели карты
# The time model's own claim, from estimator/data/speed_accuracy.csv (bench/estimator_speed.py).
fit-details-time-claim = Время: ~{ $span } — от 10-го до 90-го процентиля ошибки модели времени. Она проверена на { $rows } опубликованных замерах скорости из { $repos } репозиториев, каждый — с константами, подобранными без него; { $scope ->
    [stack] для { $stack }, { $method }
    [method] для { $method } (своих замеров { $stack } меньше чем из трёх репозиториев)
   *[all] по всем стекам и методам
}: медианная ошибка часов { $median }%, в пределах 25% — { $within }%, часов меньше настоящего больше чем на 15% — у { $short }% замеров.
fit-details-method = ГиБ = 2³⁰ байт (как в nvidia-smi). Оценка проверена на { $rows } опубликованных замерах из { $repos } репозиториев, каждый — с константами, подобранными без него. { $scope ->
    [stack] Для { $stack }
   *[all] По всем стекам ({ $stack }: { $own ->
        [none] своих замеров нет
       *[few] замеры только из { $own } { $own ->
            [one] репозитория
           *[other] репозиториев
        }, меньше трёх — своей цифры не даю
    })
}: медианная ошибка { $median }%, в пределах 25% — { $within }% замеров, занижено больше чем на 15% — { $under }%; в среднем оценка { $direction ->
    [low] ниже замера на { $bias }%
   *[high] выше замера на { $bias }%
}. По метрикам: { $metrics }. Диапазон пика — от 10-го до 90-го процентиля этой ошибки; «помещается» — только если его верх оставляет 10% карты свободными.
fit-details-metric = { $metric } { $median }% ({ $rows })
fit-details-metric-few = { $metric }: меньше трёх репозиториев ({ $repos })
fit-details-length = Пик — на самом длинном батче: { $bs } × { $ctx } токенов (ctx — потолок длины примера){ $typical ->
    [none] .
   *[some] ; средний пример ~{ $typical } токенов влияет на время, не на пик.
}

## /fit compare

fit-compare-title = <b>{ $model }: full, LoRA и QLoRA</b> · ctx { $ctx } · bs { $bs }
fit-compare-row = <b>{ $method }</b> — { $peak } ГиБ · { $gpu }{ $price }{ $time }
fit-compare-row-none = <b>{ $method }</b> — { $peak } ГиБ · не помещается даже на 8 карт одного сервера
fit-compare-price = { " " }· от { $rate } ₽/ч
fit-compare-time = { " " }· ~{ $time }
fit-compare-footer = Полное дообучение — со смешанной точностью и AdamW (18 байт на параметр); LoRA и QLoRA — r={ $rank } на всех линейных слоях. Подробно: <code>/fit { $example }</code>
fit-smallest-multi = Одной карты мало: нужно от <b>{ $count }× { $gpu }</b> ({ $usable } ГиБ каждая)
# A plan: the server (count × card at a provider, a foreign location named), then its price.
fit-plan-where = { $gpu } ×{ $count } · { $provider }
fit-plan-where-abroad = { $gpu } ×{ $count } · { $provider } ({ $country })
fit-plan-hour = { $n }. { $where } — { $rate } ₽/ч · ~{ $time } ≈ <b>{ $total } ₽</b>{ $flags }
fit-plan-month = { $n }. { $where } — <b>{ $total } ₽</b>: { $months ->
        [one] { $months } месяц
        [few] { $months } месяца
       *[many] { $months } месяцев
    } аренды за ~{ $time } работы{ $flags }
fit-plan-rate-hour = { $n }. { $where } — <b>{ $rate } ₽/ч</b>{ $flags }
fit-plan-rate-month = { $n }. { $where } — <b>{ $rate } ₽/мес</b>, только помесячно{ $flags }
fit-plan-flags = { " " }⚠️ { $flags }
fit-no-hourly = Почасовых { $what } сейчас нет — только помесячная аренда.
fit-no-hourly-any = Почасовых вариантов сейчас нет — только помесячная аренда.
caveat-short-tight = впритык
caveat-short-no_bf16 = без bf16, медленно
caveat-short-slow = медленная карта
caveat-short-no_unsloth = Unsloth не запустится
caveat-short-abroad = не в РФ
caveat-short-stock_unpublished = наличие не публикуется
caveat-short-month_for_hours = месяц аренды ради часов работы
caveat-short-link_assumed = форма карт не указана — считаю PCIe
caveat-short-stale = источник не отвечает, цена и наличие из прошлого ответа
fit-unmet = Под условия ({ $what }) ничего нет; без них подошло бы — уберите условие, чтобы увидеть.
unmet-russia_only = только РФ
unmet-min_vram = память карты
unmet-max_rate = цена за час
unmet-max_gpu_rate = цена за GPU·час
unmet-max_month_rate = цена за месяц
unmet-gpus = число карт
fit-breakeven-pays = <b>Почасовая или помесячная</b> ({ $gpu } ×{ $count }): месяц у { $monthly_provider } ({ $month } ₽) выгоднее, если работать больше { $hours } ч в месяц (~{ $days } сут. без перерыва); почасово — { $rate } ₽/ч у { $hourly_provider }.
fit-breakeven-never = <b>Почасовая или помесячная</b> ({ $gpu } ×{ $count }): почасовая дешевле даже круглосуточно — 720 ч × { $rate } ₽ = { $around } ₽ против { $month } ₽ за месяц у { $monthly_provider }.
fit-breakeven-usage = При { $usage } ч в месяц выгоднее { $choice ->
        [monthly] помесячная аренда
       *[hourly] почасовая
    }.
fit-compare-price-month = { " " }· { $rate } ₽/мес, только помесячно
fit-card-no-bf16 = ⚠️ { $gpu }: нет bf16 — только fp16/fp32, обучение медленное и может расходиться; нет и FlashAttention 2 (внимание через SDPA memory-efficient).
