# A /watch filter in words (monitor/watch_describe.py): "H100 · ≤ 250 ₽/GPU·h · in stock".
# Plain text: the describer's caller escapes the whole line.
watch-filter-any = any GPU
watch-filter-fit = fits: { $query }
watch-filter-count = ≥ { $count } GPUs
watch-filter-vram = ≥ { $gb } GB/GPU
watch-filter-total = ≥ { $gb } GB total
watch-filter-max = ≤ { $price } ₽/GPU·h
watch-filter-location = location: { $location }
watch-filter-cooldown = at most every { $duration }
watch-filter-in_stock = in stock
watch-filter-price_drop = price drop
watch-filter-below_target = below target
watch-filter-seconds = { $count }s
watch-filter-minutes = { $count }m
watch-filter-hours = { $count }h
watch-filter-days = { $count }d
