# Reverse questions (estimator/solve_text.py): the largest ctx / micro-batch / LoRA rank that
# fits the named card with headroom (the verdict's «помещается»). $gpus is "1× RTX 3090";
# $value comes formatted, $count is the same number for the plural form. $state is "tight"
# when larger values fit only «впритык» (up to $tight), "over" when the next step is over.
solve-lever-ctx = контекст
solve-lever-bs = micro-batch
solve-lever-rank = ранг LoRA
solve-solved-ctx = 📐 <b>Максимальный контекст на { $gpus }: { $value } { $count ->
    [one] токен
    [few] токена
   *[many] токенов
}</b>{ $state ->
    [tight] ; до { $tight } — впритык
   *[over] ; следующий шаг ({ $next }) не влезет на { $over } ГиБ
}
solve-solved-bs = 📐 <b>Максимальный micro-batch на { $gpus }: { $value }</b>{ $state ->
    [tight] ; до { $tight } — впритык
   *[over] ; следующий шаг ({ $next }) не влезет на { $over } ГиБ
}
solve-solved-rank = 📐 <b>Максимальный ранг LoRA на { $gpus }: { $value }</b>{ $state ->
    [tight] ; до { $tight } — впритык
   *[over] ; следующий шаг ({ $next }) не влезет на { $over } ГиБ
}
solve-cap-ctx = 📐 <b>Максимальный контекст на { $gpus }: { $value } { $count ->
    [one] токен
    [few] токена
   *[many] токенов
}</b> — это родной контекст модели, дальше я не считаю
solve-cap-bs = 📐 <b>Максимальный micro-batch на { $gpus }: { $value }</b> — больше я не считаю
solve-cap-rank = 📐 <b>Максимальный ранг LoRA на { $gpus }: { $value }</b> — больше я не считаю
solve-none-ctx = 📐 На { $gpus } { $state ->
    [tight] с запасом не влезает даже контекст { $value } { $count ->
        [one] токен
        [few] токена
       *[many] токенов
    }: до { $tight } — впритык.
   *[over] не влезает даже контекст { $value } { $count ->
        [one] токен
        [few] токена
       *[many] токенов
    }: не хватает { $over } ГиБ.
}
solve-none-bs = 📐 На { $gpus } { $state ->
    [tight] с запасом не влезает даже micro-batch { $value }: до { $tight } — впритык.
   *[over] не влезает даже micro-batch { $value }: не хватает { $over } ГиБ.
}
solve-none-rank = 📐 На { $gpus } { $state ->
    [tight] с запасом не влезает даже ранг LoRA { $value }: до { $tight } — впритык.
   *[over] не влезает даже ранг LoRA { $value }: не хватает { $over } ГиБ.
}
solve-needs-gpu = 📐 Чтобы найти, какой { $lever } максимально влезет, назовите карту: например, <code>/fit { $example }</code>
# The cheapest card that holds the run, when asked for: the planner's first plan.
solve-cheapest-plan = 💸 <b>Дешевле всего это пойдёт на { $where }</b>: { $rate } ₽/ч за сервер, запас { $headroom } ГиБ
solve-cheapest-card = 💸 Живых цен нет; самая маленькая карта из тех, что сдают, которая потянет: <b>{ $gpu }</b> (запас { $headroom } ГиБ)
solve-cheapest-none = 💸 Ни одно предложение и ни одна карта это не потянут.
# A reverse question that names no model: which one, with its own run as the example.
solve-needs-model = 📐 Для какой модели и каким методом? Например, <code>/fit { $example }</code> — или нажмите кнопку.
solve-needs-model-button = Посчитать: { $model } { $method }
solve-card-of-size = карте { $gb } ГБ
