## A model sized from its config.json (bot.routers.model_config).

config-model = Модель из config.json: <b>{ $name }</b> — { $params } млрд параметров, { $layers } { $layers ->
        [one] слой
        [few] слоя
       *[many] слоёв
    }, hidden { $hidden }, головы { $heads }/{ $kv_heads } (q/kv), словарь { $vocab }{ $experts ->
        [0] {""}
       *[other] , { $experts } экспертов, { $active } на токен
    }.
config-assumed = Допущения по файлу: { $assumed }.
config-missing = В config.json нет поля <code>{ $field }</code> — без него модель не посчитать. Пришлите config.json модели целиком (с Hugging Face).
config-wrong = В config.json неверное поле <code>{ $field }</code>: { $reason }.
config-not-config = Это не config.json модели: { $reason }.
config-too-big = Файл больше { $limit } КБ — это не config.json модели. Пришлите config.json (обычно 1–8 КБ).

# What the reader assumed where the file said nothing (estimator.model_config.Assumption).
config-assumed-text-config = прочитан text_config: только языковая модель, без визуальной части
config-assumed-no-type = нет model_type — читаю как декодер в духе Llama
config-assumed-unknown-type = model_type «{ $type }» мне не знаком — читаю как декодер в духе Llama
config-assumed-kv-heads-default = { $key } = { $value } (поля GQA нет: по одной на голову запроса)
config-assumed-falcon-ffn-default = { $key } = { $value } (по умолчанию в FalconConfig: 4 × hidden_size)
config-assumed-mla = внимание MLA считаю как многоголовое с v_head_dim на голову
config-assumed-dense-moe = { $dense } плотных и { $moe } MoE-слоёв: считаю как { $experts } экспертов в каждом слое (то же число параметров)
