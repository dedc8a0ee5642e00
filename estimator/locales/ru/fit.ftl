fit-title = <b>{ $model } · { $method } · ctx { $ctx } · bs { $bs }</b>{ $gpus }
fit-gpus-suffix = { " " }· { $count }× GPU ({ $shard })
fit-from-size = Размер { $size } — считаю на архитектуре { $model }.
fit-peak = Пик видеопамяти: <b>{ $peak } ГиБ</b> на GPU
fit-target-fits = ✅ <b>{ $gpu }</b>: помещается, запас { $headroom } ГиБ из { $usable }
fit-target-tight = ⚠️ <b>{ $gpu }</b>: впритык — запас { $headroom } ГиБ из { $usable }
fit-target-no = ❌ <b>{ $gpu }</b>: не помещается — не хватает { $missing } ГиБ из { $usable }
fit-target-no-multi = ❌ <b>{ $gpu }</b>: на одной не помещается; хватит { $count } шт. с шардированием (FSDP)
fit-smallest = Наименьшая подходящая карта: <b>{ $gpu }</b> ({ $usable } ГиБ)
fit-none = Ни одна карта не вмещает этот запуск целиком — см. советы ниже.
fit-table-title = <b>Какие GPU подойдут</b>
fit-row-fits = ✅ { $gpu } — запас { $headroom } ГиБ{ $time }
fit-row-tight = ⚠️ { $gpu } — впритык, запас { $headroom } ГиБ{ $time }
fit-row-no = ❌ { $gpu } — не хватает { $missing } ГиБ
fit-row-no-multi = ❌ { $gpu } — нужно { $count } шт.{ $time }
fit-row-time = { " " }· ~{ $time }
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
caution-high_rank = rank { $value }: выше 64 качество почти не растёт, а время и память — да. Обычно хватает 8–32.
caution-oom_step3 = Состояния оптимизатора создаются на первом шаге: проверяйте память на 3-м шаге, а не на 1-м.
caution-dataloader_workers = Ставьте <code>num_workers=4–8</code> в DataLoader — без воркеров GPU простаивает.
fit-assumed = <i>Допущения: { $items }.</i> Уточните, например: <code>/fit { $example }</code>
fit-prices-none = Цены: ещё не загружены — появятся, как только заработает мониторинг провайдеров.
fit-prices-none-fit = Подходящих предложений в наличии сейчас нет — подпишитесь на появление: /watch.
fit-rate-hour = { $provider }: { $gpu } ×{ $count } — { $rate } ₽/ч
fit-rate-month = { $provider }: { $gpu } ×{ $count } — { $rate } ₽/мес (помесячно)
fit-prices-title = <b>Дешевле всего сейчас</b>
fit-price-row = { $provider }: { $gpu } ×{ $count } — { $total } ₽ за ~{ $time } ({ $rate } ₽/ч)
fit-price-row-monthly = { $provider }: { $gpu } ×{ $count } — { $total } ₽ за месяц аренды (по часам вышло бы { $hourly } ₽)
fit-details-breakdown = Разбивка на GPU: веса { $weights } · адаптеры { $adapters } · градиенты { $gradients } · оптимизатор { $optimizer } · активации и логиты { $activations } · CUDA и аллокатор { $overhead } ГиБ
fit-details-model = Модель: { $model } — { $params } млрд параметров, { $layers } слоёв, h={ $hidden }, головы { $heads }/{ $kv_heads }, словарь { $vocab }
fit-details-setup = Настройки: { $precision }, { $optimizer }, gc={ $gc }, rank { $rank } на { $targets }, stack={ $stack }, обучаемых параметров { $trainable }
fit-details-time = Время: { $tokens } токенов × { $flops } ФЛОП/токен; MFU { $mfu }%
fit-details-method = ГиБ = 2³⁰ байт (как в nvidia-smi). Оценка откалибрована на 112 опубликованных замерах: медианная ошибка ~8%.
