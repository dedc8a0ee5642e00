## The conversation around a sizing (bot/routers/fit.py, followup.py, fallback.py): a question
## when two readings give different answers, thanks, and questions about the last run.
## Kept apart from fit.ftl and main.ftl so that they can change without clashing.

# «14b»: which model; «a100»: which memory. One short question, a button per reading.
clarify-model = The model { $size } is not named, and the answer depends on it. Which one?
clarify-model-button = { $model } — peak { $peak } GiB
clarify-card = { $family } comes with different memory, and the answer depends on it. Which one?
clarify-card-button = { $fits ->
        [yes] { $gpu } — fits
       *[no] { $gpu } — does not fit
    }
clarify-gpu-suggest = I do not know the GPU “{ $value }”. Did you mean { $near }?
clarify-gpu-unknown = I do not know the GPU “{ $value }” — it is not in my catalogue, so I will not size another card in its place. Name one from the catalogue, e.g. 4090, 3090, a100 80gb, h100, l40s.

# “thanks”: a short reply, not the command help.
chat-thanks = You are welcome! To size it again, just say what to change.

# “any cheaper?”, “monthly?” after a sizing: the plans that hold that run.
run-cheaper-title = Cheapest where { $run } fits (peak { $peak } GiB per card):
run-month-title = By the month, where { $run } fits (peak { $peak } GiB per card):
run-none = No offer holds { $run } right now (peak { $peak } GiB per card). I can tell you when one appears: the “🔔 Watch for fitting offers” button under the answer.
run-month-none = No monthly offer holds { $run } right now (peak { $peak } GiB per card).
run-hour-title = By the hour, where { $run } fits (peak { $peak } GiB per card):
run-hour-none = No hourly offer holds { $run } right now (peak { $peak } GiB per card).
run-cheaper-note = Cards this run does not fit on are left out, even when they are cheaper.
