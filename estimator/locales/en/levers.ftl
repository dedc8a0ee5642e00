## Plan caveats of CPU offload (estimator/planner.py)

caveat-short-ram_unpublished = server RAM not stated — check it against the offload
