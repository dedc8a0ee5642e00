## /admin (только для GPURADAR_ADMIN_IDS) и тревоги о провайдерах

admin-title = <b>🛠 gpuradar: панель оператора</b>
admin-users = Пользователи: { $users } (заблокировали бота: { $blocked })
admin-subscriptions = Подписки: активных { $active }, на паузе { $paused }
admin-offers = Предложений в продаже: { $offers }
admin-outbox = Очередь отправки: { $pending }
admin-providers = <b>Провайдеры</b>
admin-no-providers = Провайдеры ещё ни разу не опрашивались.
admin-provider-ok = ✅ <b>{ $provider }</b>: последний успех { $at } ({ $age } назад)
admin-provider-failing = ⚠️ <b>{ $provider }</b>: последний успех { $at } ({ $age } назад), { $failures } { $failures ->
        [one] ошибка
        [few] ошибки
       *[many] ошибок
    } подряд
admin-provider-never = ⚠️ <b>{ $provider }</b>: ни одного успеха, { $failures } { $failures ->
        [one] ошибка
        [few] ошибки
       *[many] ошибок
    } подряд
admin-provider-error = { "   " }последняя ошибка { $at }: <code>{ $error_class }</code> { $error }
admin-age-seconds = { $n } с
admin-age-minutes = { $n } мин
admin-age-hours = { $n } ч
admin-age-days = { $n } дн

admin-alarm-failing = 🚨 <b>{ $provider }</b>: { $failures } { $failures ->
        [one] неудачный опрос
        [few] неудачных опроса
       *[many] неудачных опросов
    } подряд.
    Последняя ошибка: <code>{ $error_class }</code> { $error }
    Подробнее: /admin
admin-alarm-recovered = ✅ <b>{ $provider }</b> снова работает после { $failures } { $failures ->
        [one] неудачного опроса
       *[other] неудачных опросов
    } подряд.

## Ограничения длины для команд, у которых не было своих

args-too-long = Слишком длинно — уложитесь в { $limit } { $limit ->
        [one] символ
        [few] символа
       *[many] символов
    }.
