## /admin (operators in GPURADAR_ADMIN_IDS only) and provider alarms

admin-title = <b>🛠 gpuradar: operator view</b>
admin-users = Users: { $users } (blocked the bot: { $blocked })
admin-subscriptions = Subscriptions: { $active } active, { $paused } paused
admin-offers = Offers on sale: { $offers }
admin-outbox = Outbox: { $pending } pending
admin-providers = <b>Providers</b>
admin-no-providers = No provider has been polled yet.
admin-provider-ok = ✅ <b>{ $provider }</b>: last success { $at } ({ $age } ago)
admin-provider-failing = ⚠️ <b>{ $provider }</b>: last success { $at } ({ $age } ago), { $failures } { $failures ->
        [one] failure
       *[other] failures
    } in a row
admin-provider-never = ⚠️ <b>{ $provider }</b>: never succeeded, { $failures } { $failures ->
        [one] failure
       *[other] failures
    } in a row
admin-provider-error = { "   " }last error { $at }: <code>{ $error_class }</code> { $error }
admin-age-seconds = { $n } s
admin-age-minutes = { $n } min
admin-age-hours = { $n } h
admin-age-days = { $n } d

admin-alarm-failing = 🚨 <b>{ $provider }</b> has failed { $failures } { $failures ->
        [one] refresh
       *[other] refreshes
    } in a row.
    Last error: <code>{ $error_class }</code> { $error }
    Details: /admin
admin-alarm-recovered = ✅ <b>{ $provider }</b> works again after { $failures } failed { $failures ->
        [one] refresh
       *[other] refreshes
    } in a row.

## Input limits shared by commands that had none of their own

args-too-long = That is too long — keep it under { $limit } { $limit ->
        [one] character
       *[other] characters
    }.
