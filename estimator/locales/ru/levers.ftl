## Plan caveats of CPU offload (estimator/planner.py)

caveat-short-ram_unpublished = ОЗУ сервера не указано — сверьте с нуждой offload
