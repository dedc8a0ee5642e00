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
