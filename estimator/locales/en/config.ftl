## A model sized from its config.json (bot.routers.model_config).

config-model = Model from config.json: <b>{ $name }</b> — { $params }B parameters, { $layers } layers, hidden { $hidden }, heads { $heads }/{ $kv_heads } (q/kv), vocabulary { $vocab }{ $experts ->
        [0] {""}
       *[other] , { $experts } experts, { $active } per token
    }.
config-assumed = Assumed about the file: { $assumed }.
config-missing = config.json has no <code>{ $field }</code> field: the model cannot be sized without it. Send the model's whole config.json (from Hugging Face).
config-wrong = config.json has a wrong <code>{ $field }</code>: { $reason }.
config-not-config = This is not a model's config.json: { $reason }.
config-too-big = The file is over { $limit } KB: not a model's config.json. Send config.json (usually 1–8 KB).

# What the reader assumed where the file said nothing (estimator.model_config.Assumption).
config-assumed-text-config = text_config read: the language model only, no vision tower
config-assumed-no-type = no model_type: read as a Llama-style decoder
config-assumed-unknown-type = model_type “{ $type }” is not known: read as a Llama-style decoder
config-assumed-kv-heads-default = { $key } = { $value } (no GQA field: one per query head)
config-assumed-falcon-ffn-default = { $key } = { $value } (FalconConfig default 4 × hidden_size)
config-assumed-mla = MLA attention: sized as multi-head attention of v_head_dim per head
config-assumed-dense-moe = { $dense } dense and { $moe } MoE layers: sized as { $experts } routed experts in every layer (the same parameter count)
