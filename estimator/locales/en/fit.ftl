## /fit answers (a short first answer, the rest under a button).
## Kept in this file, apart from main.ftl, so that the two can change without clashing.

fitb-button-details = Details
fitb-button-short = Short
fitb-button-method = { $method ->
        [lora] Size LoRA
        [full] Size a full fine-tune
       *[qlora] Size QLoRA
    }
fitb-stale = This button is out of date — ask again, e.g. <code>/fit 13b qlora</code>.
fitb-compare-usage = For example: <code>/fit compare 13b</code> or <code>/fit compare llama 3 8b ctx=8k</code>.
fitb-error-no_model = I see no model or size. Start with one: { $allowed }. Example: <code>/fit { $example }</code>.
fitb-error-bad_value = I could not read <code>{ $key }={ $value }</code>. Allowed: { $allowed }.
fitb-error-out_of_range = <code>{ $key }={ $value }</code> is out of a sensible range: allowed { $allowed }.
fitb-error-unknown_gpu = I do not know the GPU “{ $value }”. For example: { $allowed }.
fitb-error-unknown_key = I do not know the option <code>{ $key }</code>. Allowed: { $allowed }.
fitb-error-unknown_key-near = I do not know the option <code>{ $key }</code> — did you mean <code>{ $value }</code>? Allowed: { $allowed }.
fitb-error-conflict = Conflicting options: { $value }. Pick one of: { $allowed }.
fit-unknown-model = 🤔 “{ $name }” is not in my model catalogue. To size it:
    • send its <code>config.json</code> from Hugging Face — as a file or pasted text — and I will size it from that;
    • or by its size: <code>/fit { $example }</code>, where N is its total number of parameters in billions (for a MoE, all experts).
fit-unknown-model-sized = 🤔 “{ $name }” is not in my model catalogue. To size it:
    • send its <code>config.json</code> from Hugging Face — as a file or pasted text — and I will size it from that;
    • or by the size in its name: <code>/fit { $example }</code> (with a typical Llama-like architecture).
