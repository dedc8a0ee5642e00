# A /watch filter in words (monitor/watch_describe.py): «H100 · до 250 ₽/GPU·ч · в наличии».
# Plain text: the describer's caller escapes the whole line.
watch-filter-any = любая GPU
watch-filter-fit = подойдёт для: { $query }
watch-filter-count = от { $count } GPU
watch-filter-vram = от { $gb } ГБ/GPU
watch-filter-total = от { $gb } ГБ всего
watch-filter-max = до { $price } ₽/GPU·ч
watch-filter-location = локация: { $location }
watch-filter-cooldown = не чаще раза в { $duration }
watch-filter-in_stock = в наличии
watch-filter-price_drop = снижение цены
watch-filter-below_target = цена ниже цели
watch-filter-seconds = { $count } с
watch-filter-minutes = { $count } мин
watch-filter-hours = { $count } ч
watch-filter-days = { $count } сут
