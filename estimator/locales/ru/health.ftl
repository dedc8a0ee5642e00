## Части опроса провайдера (серверы, облако, локации, страницы моделей), которые не обновились

provider-part-failed = { $part } ({ $error })
provider-part-empty = { $part } (пустой ответ)
provider-part-suspect = { $part } (резкий спад, жду подтверждения)
prices-provider-partial = ⚠️ { $provider }: обновлено { $minutes } { $minutes ->
        [one] минуту
        [few] минуты
       *[many] минут
    } назад, кроме: { $parts } — там данные прошлого опроса
admin-provider-partial = ⚠️ <b>{ $provider }</b>: последний успех { $at } ({ $age } назад), часть данных не обновилась
admin-provider-part = { "   " }часть <code>{ $part }</code>: { $state }, показываю { $kept } { $kept ->
        [one] предложение
        [few] предложения
       *[many] предложений
    } прошлого опроса. { $error }
admin-part-state-failed = ошибка <code>{ $error_class }</code> ({ $failures } подряд)
admin-part-state-empty = пустой ответ ({ $failures } подряд)
admin-part-state-suspect = резкий спад, увиден { $runs } из 3 раз

## Предложение, которое последний опрос провайдера не подтвердил (его часть или весь опрос
## не удались): время — когда его часть ответила в последний раз, по часам пользователя

offer-stale = ⚠️ данные от { $time }, источник не отвечает
offer-stale-expired = ⚠️ данные от { $time }, источник не отвечает — в наличии и подборах не учитываю
