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
