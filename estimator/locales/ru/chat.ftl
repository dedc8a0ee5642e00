## The conversation around a sizing (bot/routers/fit.py, followup.py, fallback.py): a question
## when two readings give different answers, thanks, and questions about the last run.
## Kept apart from fit.ftl and main.ftl so that they can change without clashing.

# «14b»: which model; «a100»: which memory. One short question, a button per reading.
clarify-model = Модель { $size } не названа, а от неё зависит ответ. Какую считать?
clarify-model-button = { $model } — пик { $peak } ГиБ
clarify-card = { $family } бывает с разной памятью, и от неё зависит ответ. Какую считать?
clarify-card-button = { $fits ->
        [yes] { $gpu } — помещается
       *[no] { $gpu } — не помещается
    }
clarify-gpu-suggest = Не знаю видеокарту «{ $value }». Может быть, { $near }?
clarify-gpu-unknown = Не знаю видеокарту «{ $value }» — её нет в моём каталоге, поэтому не считаю за неё другую. Назовите карту из каталога, например: 4090, 3090, a100 80gb, h100, l40s.

# «спасибо», "thanks": a short reply, not the command help.
chat-thanks = Пожалуйста! Если захотите пересчитать — просто напишите, что поменять.

# «а дешевле есть?», «а помесячно?» after a sizing: the plans that hold that run.
run-cheaper-title = Самое дешёвое, где помещается { $run } (пик { $peak } ГиБ на карту):
run-month-title = Помесячно, где помещается { $run } (пик { $peak } ГиБ на карту):
run-none = Сейчас нет предложений, где помещается { $run } (пик { $peak } ГиБ на карту). Сообщу, когда появятся: кнопка «🔔 Следить за подходящими» под ответом.
run-month-none = Помесячных предложений, где помещается { $run } (пик { $peak } ГиБ на карту), сейчас нет.
run-hour-title = Почасово, где помещается { $run } (пик { $peak } ГиБ на карту):
run-hour-none = Почасовых предложений, где помещается { $run } (пик { $peak } ГиБ на карту), сейчас нет.
run-cheaper-note = Карты, на которых этот запуск не помещается, не предлагаю, даже если они дешевле.
