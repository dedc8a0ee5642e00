## Parts of a provider's poll (servers, cloud, locations, model pages) that did not update

provider-part-failed = { $part } ({ $error })
provider-part-empty = { $part } (empty answer)
provider-part-suspect = { $part } (sudden drop, waiting to confirm it)
prices-provider-partial = ⚠️ { $provider }: updated { $minutes } min ago, except { $parts } — showing the last poll's data there
admin-provider-partial = ⚠️ <b>{ $provider }</b>: last success { $at } ({ $age } ago), part of it did not update
admin-provider-part = { "   " }part <code>{ $part }</code>: { $state }, showing { $kept } { $kept ->
        [one] offer
       *[other] offers
    } from the last poll. { $error }
admin-part-state-failed = error <code>{ $error_class }</code> ({ $failures } in a row)
admin-part-state-empty = empty answer ({ $failures } in a row)
admin-part-state-suspect = sudden drop, seen { $runs } of 3 times

## An offer its provider's latest poll did not confirm (its part, or the whole poll, failed):
## the time is when its part last answered, on the user's clock

offer-stale = ⚠️ data from { $time }, the source is not answering
offer-stale-expired = ⚠️ data from { $time }, the source is not answering — left out of stock and plans
