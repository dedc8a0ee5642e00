## /fit answers (a short first answer, the rest under a button).
## Kept in this file, apart from main.ftl, so that the two can change without clashing.

fitb-button-details = Подробнее
fitb-button-short = Кратко
fitb-button-method = { $method ->
        [lora] Посчитать LoRA
        [full] Посчитать полное дообучение
       *[qlora] Посчитать QLoRA
    }
fitb-stale = Эта кнопка устарела — повторите вопрос, например <code>/fit 13b qlora</code>.
fitb-compare-usage = Например: <code>/fit compare 13b</code> или <code>/fit compare llama 3 8b ctx=8k</code>.
fitb-error-no_model = Не вижу модели или размера. Начните с них: { $allowed }. Пример: <code>/fit { $example }</code>.
fitb-error-bad_value = Не понял значение <code>{ $key }={ $value }</code>. Можно: { $allowed }.
fitb-error-out_of_range = Значение <code>{ $key }={ $value }</code> вне разумных пределов: можно { $allowed }.
fitb-error-unknown_gpu = Не знаю видеокарту «{ $value }». Можно, например: { $allowed }.
fitb-error-unknown_key = Не знаю параметр <code>{ $key }</code>. Можно: { $allowed }.
fitb-error-unknown_key-near = Не знаю параметр <code>{ $key }</code> — может быть, <code>{ $value }</code>? Можно: { $allowed }.
fitb-error-conflict = Противоречивые параметры: { $value }. Выберите одно из: { $allowed }.
fit-unknown-model = 🤔 Модели «{ $name }» нет в моём каталоге. Как посчитать:
    • пришлите её <code>config.json</code> с Hugging Face — файлом или текстом, — и я посчитаю по нему;
    • или по размеру: <code>/fit { $example }</code>, где N — полное число параметров в миллиардах (у MoE — всех экспертов).
fit-unknown-model-sized = 🤔 Модели «{ $name }» нет в моём каталоге. Как посчитать:
    • пришлите её <code>config.json</code> с Hugging Face — файлом или текстом, — и я посчитаю по нему;
    • или по размеру из названия: <code>/fit { $example }</code> (архитектура будет типовой, как у Llama).
