"""Every language-specific word the parser knows, Russian and English, in one place.

The matchers in `text.py`, `command.py` and `estimator.models` build their regular expressions
from these tables; nothing else in the package spells out a word. Conventions:

- Entries are lower-case. A phrase may contain spaces and hyphens; the matcher accepts any run
  of spaces, hyphens or underscores there ("8-bit adam" = "8bit adam" = "8 bit adam").
- A trailing `*` on a word means "any ending": Russian declines nouns and adjectives, so
  "контекст*" covers контекст, контекста, контексте, контекстом.
- Longer or more specific phrases come first where two could match the same text (qlora
  before lora, paged 8-bit before 8-bit before plain adam).
"""

from __future__ import annotations

from estimator.optimizers import NAMES as OPTIMIZER_NAMES
from estimator.query import (
    Checkpointing,
    Loss,
    Method,
    Offload,
    Optimizer,
    Packing,
    Precision,
    Sharding,
    Stack,
    Targets,
)

# --- model names -------------------------------------------------------------------------
# Cyrillic spellings of model lines, mapped to the Latin word the catalog uses. Only whole
# words are replaced, so "ламповый" stays itself.
MODEL_WORDS_RU: dict[str, tuple[str, ...]] = {
    "llama": (
        "ллама",
        "лламу",
        "лламы",
        "лламе",
        "лламой",
        "лама",
        "ламу",
        "ламы",
        "ламе",
        "ламой",
        "ламма",
        "ламму",
        "ламмы",
        "ламме",
    ),
    "codellama": ("кодлама", "кодламу", "кодламы", "кодллама", "кодлламу", "кодлламы"),
    "tinyllama": ("тинилама", "тиниламу", "тиниллама", "тинилламу", "тайнилама", "тайниллама"),
    "mistral": ("мистраль", "мистраля", "мистралю", "мистрале", "мистралем", "мистрал"),
    "mixtral": ("микстраль", "микстраля", "микстралю", "микстрале", "микстралем"),
    "qwen": ("квен", "квена", "квену", "квене", "квеном", "квэн", "кьювен", "цвен"),
    "gemma": (
        "гемма",
        "гемму",
        "геммы",
        "гемме",
        "геммой",
        "джемма",
        "джемму",
        "джеммы",
        "джемме",
        "джеммой",
    ),
    "phi": ("фи",),
    "deepseek": ("дипсик", "дипсика", "дипсику", "дипсике", "дипсиком"),
    "falcon": ("фалкон", "фалькон", "фалкона", "фалькона", "фалконе", "фальконе"),
    "yi": ("йи",),
    "saiga": ("сайга", "сайгу", "сайги", "сайге", "сайгой"),
    "vikhr": ("вихрь", "вихря", "вихрю", "вихре", "вихрем"),
    "coder": ("кодер", "кодера", "кодере"),
    "nemo": ("немо",),
    "distill": ("дистилл", "дистил", "дистиллят"),  # DeepSeek-R1-Distill-Qwen-7B
}

# Parts of a model's name that do not change its architecture: fine-tune flavours,
# packaging, quantised re-uploads, the vendor's prefix.
MODEL_NOISE_WORDS: frozenset[str] = frozenset(
    {
        "instruct",
        "chat",
        "it",
        "base",
        "hf",
        "pt",
        "bnb",
        "unsloth",
        "gguf",
        "awq",
        "gptq",
        "exl2",
        "mlx",
        "nf4",
        "int4",
        "int8",
        "fp8",
        "fp16",
        "bf16",
        "bit",
        "bits",
        "meta",
        "llm",
        "pretrain",
        "sft",
        "dpo",
        "orpo",
        "model",
        "модель",
        "модели",
        "модельку",
    }
)

# A bare size after a number: "7b", "7б", "13 млрд", "13 миллиардов", "70 billion".
SIZE_UNITS: tuple[str, ...] = ("b", "bn", "б", "млрд", "миллиард*", "billion*")

# --- numbers -----------------------------------------------------------------------------
THOUSAND_UNITS: tuple[str, ...] = ("k", "к", "тыс", "тысяч*", "тысяча", "тысячи", "thousand*")
MILLION_UNITS: tuple[str, ...] = ("m", "м", "млн", "миллион*", "million*", "mln")

# Counts said as idioms before a card: "a single A100", "dual 4090", "quad A100", «пара
# 4090». Numerals in any case form («двух», «четырьмя», "two") are read by lemma
# (NUMBER_LEMMAS, estimator.parsing.numbers).
NUMBER_WORDS: dict[str, int] = {
    "single": 1,
    "a single": 1,
    "dual": 2,
    "pair of": 2,
    "a pair of": 2,
    "пара": 2,
    "паре": 2,
    "паре из": 2,
    "quad": 4,
}

# --- what is being trained ------------------------------------------------------------------
# "Без лоры" / "no lora" means no adapters at all: every weight is trained (a full fine-tune).
NO_ADAPTER_PHRASES: tuple[str, ...] = (
    "без lora",
    "без лор*",
    "без адаптер*",
    "без peft",
    "no lora",
    "no loras",
    "without lora",
    "without loras",
    "w/o lora",
    "no adapters",
    "without adapters",
    "no peft",
    "without peft",
)
# A method after one of these is ruled out, not chosen: «без qlora», «не полный файнтюн»,
# "not qlora", "instead of full". (Ruling out LoRA with «без»/"no"/"without" is a full
# fine-tune, above; «не лора» only rules LoRA out.)
NEGATION_WORDS: tuple[str, ...] = (
    "не",
    "без",
    "кроме",
    "вместо",
    "а не",
    "no",
    "not",
    "without",
    "w/o",
    "except",
    "instead of",
    "rather than",
    "don't",
    "dont",
    "do not",
)
# The base model loaded in 8 bits (bitsandbytes LLM.int8, load_in_8bit): not modelled; read
# so that the answer says it sized the 16-bit base instead of dropping the words.
INT8_BASE_PHRASES: tuple[str, ...] = (
    "load_in_8bit", "load in 8bit", "int8", "llm.int8", "8 bit", "8 бит*", "в 8 битах",
    "восьмибитн*",
)  # fmt: skip
# A question about running a model, not training it: answered with the training sizing and
# what inference holds beside it (estimator.inference).
INFERENCE_PHRASES: tuple[str, ...] = (
    "инференс*", "inference", "inferencing", "serving", "vllm", "ollama",
)  # fmt: skip
# Training a model from scratch: every weight trained with its gradient and optimizer state,
# as a full fine-tune, on as many tokens as the data has (estimator/sizing_text.py says so).
PRETRAIN_PHRASES: tuple[str, ...] = (
    "с нуля", "from scratch", "pretrain*", "pre-train*", "предобуч*", "претрейн*", "претрен*",
)  # fmt: skip
# A preference objective (TRL's DPOTrainer and its kin): sized as supervised fine-tuning, with
# what the objective adds said beside it (estimator/sizing_text.py, `_preference_line`).
# ORPO and SimPO need no reference model; DPO keeps one.
PREFERENCE_PHRASES: tuple[str, ...] = ("dpo", "orpo", "simpo", "kto")
# Words a negation may reach a method over: «не хочу qlora», «не надо использовать qlora»,
# "don't want qlora", "i do not want to use qlora".
NEGATED_VERBS: tuple[str, ...] = (
    "хочу", "хотим", "хотелось", "надо", "нужно", "нужна", "нужен", "буду", "будем",
    "использовать", "брать", "юзать", "делать", "want", "wanna", "need", "to", "use", "using",
    "do", "does", "используем", "использую", "используется", "включаем", "включаю", "ставим",
    "ставлю", "will", "we", "i", "am", "are",
)  # fmt: skip
# Ruling out quantisation rules out QLoRA: «без квантования», "no quantization".
NO_QUANTISATION_PHRASES: tuple[str, ...] = (
    "без квантован*",
    "без квантизаци*",
    "без 4 бит*",
    "no quantization",
    "no quantisation",
    "without quantization",
    "without quantisation",
    "unquantized",
    "unquantised",
    "не квантованн*",
    "неквантованн*",
)
# Free text. QLoRA first: "qlora" contains "lora".
METHOD_PHRASES: dict[Method, tuple[str, ...]] = {
    Method.QLORA: (
        "qlora*",
        "q-lora",
        "кулор*",
        "кьюлор*",
        "ку-лор*",
        "4 bit*",
        "4 бит*",
        "nf4",
        "четырёхбитн*",
        "четырехбитн*",
        "4-х бит*",
    ),
    Method.LORA: ("lora", "loras", "лора", "лору", "лоры", "лоре", "лорой", "лорам", "лорах"),
    Method.FULL: (
        *NO_ADAPTER_PHRASES,
        "фул",
        "фулл",
        "фул* файнтюн*",
        "фул* файн тюн*",
        "фул* fine tun*",
        "фул* finetun*",
        "фул* ft",
        "фул* тюн*",
        "фул* обучени*",
        "фул* дообучени*",
        "фулфайнтюн*",
        "fullfinetun*",
        "full fine tun*",
        "full finetun*",
        "full fine-tun*",
        "full ft",
        "full train*",
        "fft",
        "fine tune all weights",
        "finetune all weights",
        "fine-tune all weights",
        "train all weights",
        "all weights",
        "full parameter*",
        "full-parameter*",
        "полн* дообучени*",
        "полн* дообуч*",
        "полн* файнтюн*",
        "полн* файн тюн*",
        "полн* fine tun*",
        "полн* обучени*",
        "полн* тюнинг*",
        "все веса",
        "всех весов",
        "всеми весами",
        "full",
        "full ft",
        "full-ft",
        "полный",
        "полное",
        "полного",
        "полную",
        "полностью",
        "целиком",
        "всю модель",
        "всей модели",
        "всю сеть",
        "все параметры",
        "всех параметров",
        "whole model",
        "entire model",
        "all parameters",
        "every weight",
        "all the weights",
    ),
}

# One token of the command grammar, after lower-casing.
COMMAND_METHOD_WORDS: dict[str, Method] = {
    "qlora": Method.QLORA,
    "qlora4": Method.QLORA,
    "qlora-4bit": Method.QLORA,
    "4bit": Method.QLORA,
    "4-bit": Method.QLORA,
    "nf4": Method.QLORA,
    "q4": Method.QLORA,
    "кулора": Method.QLORA,
    "кулору": Method.QLORA,
    "lora": Method.LORA,
    "лора": Method.LORA,
    "лору": Method.LORA,
    "лорой": Method.LORA,
    "full": Method.FULL,
    "fft": Method.FULL,
    "full-ft": Method.FULL,
    "полное": Method.FULL,
    "полный": Method.FULL,
    "полного": Method.FULL,
    "полностью": Method.FULL,
    "полную": Method.FULL,
    "целиком": Method.FULL,
    "фул": Method.FULL,
    "фулл": Method.FULL,
    "full-finetune": Method.FULL,
    "full-fine-tune": Method.FULL,
}

# --- training levers in free text --------------------------------------------------------
CTX_WORDS: tuple[str, ...] = (
    "context length",
    "context window",
    "context",
    "ctx",
    "seq len",
    "seq length",
    "sequence length",
    "max seq len",
    "max_seq_len",
    "max length",
    "cutoff len",
    "cutoff",
    "длин* контекст*",
    "длин* последовательност*",
    "контекст*",
    "окн* контекст*",
    "максимальн* длин*",
    "макс длин*",
    "длин*",
)
BATCH_WORDS: tuple[str, ...] = (
    "micro batch size",
    "micro-batch size",
    "microbatch size",
    "per device batch size",
    "batch size",
    "micro batch",
    "micro-batch",
    "microbatch",
    "batch",
    "bs",
    "mbs",
    "размер* микро батч*",
    "размер* батч*",
    "микро батч*",
    "микробатч*",
    "батч*",
    "бс",
)
RANK_WORDS: tuple[str, ...] = ("lora rank", "lora r", "rank", "ранг*", "ранк*", "lora_r")
# «на какой самой дешёвой карте это пойдёт», "cheapest card for this": the planner's cheapest
# live offer that holds the run, named first in the answer.
CHEAPEST_PHRASES: tuple[str, ...] = (
    "сам* дешёв* карт*",
    "сам* дешев* карт*",
    "сам* дешёв* видеокарт*",
    "сам* дешев* видеокарт*",
    "сам* дешёв* gpu",
    "сам* дешев* gpu",
    "сам* дешёв* вариант*",
    "сам* дешев* вариант*",
    "дешевле есть",
    "есть дешевле",
    "есть подешевле",
    "подешевле",
    "что-нибудь дешевле",
    "что нибудь дешевле",
    "anything cheaper",
    "something cheaper",
    "cheaper option*",
    "cheaper card*",
    "cheaper gpu*",
    "cheapest card*",
    "cheapest gpu*",
    "cheapest option*",
    "cheapest",
)
# A Mac named as the machine to train on: «на маке m2 с 32 гб», "my macbook m3 max 64gb".
# Its memory (with the chip and the size after it) is the Mac's, not a card's or a floor on
# the offers (estimator.parsing.text, `_read_apple`).
APPLE_PHRASES: tuple[str, ...] = (
    "мак", "маке", "маку", "маком", "макбук*", "mac", "macbook*", "mac mini", "mac studio",
    "мак мини", "мак студио", "apple silicon", "эппл", "apple",
)  # fmt: skip
# A reverse question asks for the largest value of a lever that fits the card: «какой
# максимальный контекст влезет», «какой batch поставить», "max context", "what batch size
# fits". These words stand before the lever's word (CTX/BATCH/RANK_WORDS) with no number
# after it: "max context 8k" sets ctx (text.py).
SOLVE_WORDS: tuple[str, ...] = (
    "максимальн*",
    "максимум",
    "макс",
    "наибольш*",
    "самый большой",
    "самую большую",
    "самая большая",
    "самый длинный",
    "какой",
    "какая",
    "какую",
    "каким",
    "сколько",
    # «сколько влезет батч», «какой поместится контекст»: a fit verb between the question
    # word and the lever (with a number after the lever it is a value, as always)
    "влезет",
    "поместится",
    "уместится",
    "влезает",
    "помещается",
    "max",
    "maximum",
    "maximal",
    "largest",
    "biggest",
    "longest",
    "highest",
    "what",
    "which",
    "how much",
    "how long",
    "how large",
    "how big",
)
# Little words between a keyword and its number: "контекст в 8k", "batch of 8", "датасет из
# 10k", "dataset of about 20k", "контекстом примерно 4096".
FILLER_WORDS: tuple[str, ...] = (
    "of",
    "is",
    "about",
    "around",
    "approx",
    "в",
    "на",
    "до",
    "из",
    "размером",
    "size",
    "length",
    "около",
    "примерно",
    "порядка",
)

OPTIMIZER_PHRASES: dict[Optimizer, tuple[str, ...]] = {
    Optimizer.PAGED_ADAMW_8BIT: ("paged adam*", "paged_adam*", "paged optim*", "пейджд adam*"),
    Optimizer.ADAMW_4BIT: (
        "4 bit adam*",
        "4bit adam*",
        "adam* 4 bit",
        "adam* 4bit",
        "adamw4bit",
        "adamw_torch_4bit",
        "4 бит* adam*",
        "4 бит* адам*",
        "адам* 4 бит*",
    ),
    Optimizer.ADAMW_8BIT: (
        "8 bit adam*",
        "8bit adam*",
        "adam* 8 bit",
        "adam* 8bit",
        "adamw8bit",
        "adam8bit",
        "8 бит* adam*",
        "adam* 8 бит*",
        "восьмибитн* adam*",
        "8 битн* адам*",
        "8 бит* адам*",
        "восьмибитн* адам*",
        "адам* 8 бит*",
        "bnb adam*",
        "8 bit optim*",
        "8 битн* оптимизатор*",
        "восьмибитн* оптимизатор*",
        # the word first: «оптимизатор 8 бит», "optimizer in 8-bit"
        "оптимизатор* 8 бит*",
        "оптимизатор* в 8 бит*",
        "optim* 8 bit",
        "optim* in 8 bit",
    ),
    Optimizer.ADAFACTOR: ("adafactor", "адафактор*"),
    Optimizer.SGD: ("sgd",),
    Optimizer.ADAMW: ("adamw", "adam", "адам*"),
}

# Unsloth names both a stack and its offloaded checkpointing; "unsloth" sets both.
CHECKPOINTING_PHRASES: dict[Checkpointing, tuple[str, ...]] = {
    Checkpointing.SELECTIVE_OP: (
        "op-level selective checkpointing",
        "selective op checkpointing",
        "selective op ac",
        "op sac",
    ),
    Checkpointing.SUBMODULE: (
        "per-module checkpointing",
        "per-module activation checkpointing",
        "submodule checkpointing",
        "sub-module checkpointing",
    ),
    Checkpointing.SELECTIVE: (
        "selective activation checkpointing",
        "selective checkpointing",
        "selective gradient checkpointing",
        "selective ac",
        "выборочн* чекпоинтинг*",
        "выборочн* checkpointing",
        "выборочн* пересчёт*",
        "выборочн* пересчет*",
    ),
    Checkpointing.OFF: (
        "без gradient checkpointing*",
        "без checkpointing*",
        "без чекпоинтинг*",
        "без чекпойнтинг*",
        "без пересчёт* активаций",
        "без пересчет* активаций",
        "без gc",
        "without gradient checkpointing",
        "without activation checkpointing",
        "without checkpointing",
        "no gradient checkpointing",
        "no activation checkpointing",
        "no checkpointing",
        "gradient checkpointing off",
        "checkpointing off",
        "gc off",
        "gc выкл*",
        "отключ* gradient checkpointing",
        "отключ* чекпоинтинг*",
        "выключ* чекпоинтинг*",
        "выключ* gradient checkpointing",
        # "gc" alone names nothing to turn off; a pasted config's key is no phrase of ON
        "gc отключ*",
        "gc disabled",
        "gradient_checkpointing false",
        "gradient_checkpointing: false",
    ),
    Checkpointing.UNSLOTH: (
        "unsloth",
        "анслот*",
        "offloaded checkpointing",
        "offload* activations",
    ),
    Checkpointing.ON: (
        "with gradient checkpointing",
        "with activation checkpointing",
        "with checkpointing",
        "gradient checkpointing",
        "activation checkpointing",
        "checkpointing",
        "gc on",
        "с gradient checkpointing",
        "с чекпоинтинг*",
        "с чекпойнтинг*",
        "чекпоинтинг*",
        "чекпойнтинг*",
        "пересчёт* активаций",
        "пересчет* активаций",
    ),
}

PRECISION_PHRASES: dict[Precision, tuple[str, ...]] = {
    Precision.MIXED: ("mixed precision", "mixed-precision", "amp", "смешанн* точност*"),
    Precision.BF16: ("bf16", "bfloat16", "bfloat 16"),
    Precision.FP16: ("fp16", "float16", "half precision", "половинн* точност*"),
    Precision.FP32: ("fp32", "float32", "tf32", "одинарн* точност*"),
}

SHARDING_PHRASES: dict[Sharding, tuple[str, ...]] = {
    Sharding.ZERO3: ("zero 3", "zero3", "zero stage 3", "zero-3", "deepspeed zero 3", "z3"),
    Sharding.ZERO2: ("zero 2", "zero2", "zero stage 2", "zero-2", "deepspeed zero 2", "z2"),
    Sharding.FSDP: ("fsdp",),
    # «без deepspeed», "without sharding": every card holds the whole model («deepspeed» alone
    # names no stage, so it sets nothing).
    Sharding.DDP: (
        "ddp",
        "без deepspeed",
        "without deepspeed",
        "no deepspeed",
        "без шардирования",
        "without sharding",
        "no sharding",
    ),
}

TARGETS_PHRASES: dict[Targets, tuple[str, ...]] = {
    Targets.ALL: (
        "all linear*",
        "all layers",
        "all modules",
        "all projections",
        "все слои",
        "всех слоях",
        "всех слоёв",
        "всех слоев",
        "все линейн*",
        "все модули",
        "всех модулях",
    ),
    Targets.ATTN: (
        "attention only",
        "only attention",
        "q k v o",
        "qkvo",
        "только attention",
        "только внимани*",
        "attention layers",
    ),
    Targets.QV: ("q v", "q и v", "q and v", "q_proj v_proj", "qv", "q/v"),
    Targets.MLP: ("mlp only", "only mlp", "только mlp", "gate up down", "mlp layers"),
}

STACK_PHRASES: dict[Stack, tuple[str, ...]] = {
    Stack.UNSLOTH: ("unsloth", "анслот*"),
    Stack.TORCHTUNE: ("torchtune", "торчтюн*"),
    Stack.LITGPT: ("litgpt", "lit gpt"),
    Stack.AXOLOTL: ("axolotl", "аксолотл*"),
    Stack.SWIFT: ("ms swift", "ms-swift", "modelscope swift"),
    Stack.LLAMAFACTORY: ("llama factory", "llamafactory", "llama-factory", "лама фактори"),
    Stack.HF: (
        "transformers",
        "peft",
        "trl",
        "hf trainer",
        "huggingface trainer",
        "hugging face trainer",
        "sfttrainer",
    ),
}

# ZeRO/FSDP offload in free text: the optimizer alone first (its phrases are longer).
OFFLOAD_PHRASES: dict[Offload, tuple[str, ...]] = {
    # Bare «offload» names no kind, so no phrase below: said off, it is none. "without cpu
    # offload" and «cpu offload выключен» are read as off by the reader's negation.
    Offload.NONE: (
        "без offload*",
        "без оффлоад*",
        "без выгрузк*",
        "without offload*",
        "no offload*",
        "offload off",
        "offload disabled",
        "with offload disabled",
        "offload выключ*",
        "offload отключ*",
        "оффлоад* выключ*",
        "оффлоад* отключ*",
    ),
    Offload.OPTIMIZER: (
        "offload optimizer",
        "optimizer offload",
        "offload_optimizer",
        "offload the optimizer",
        "offload оптимизатора",
        "оффлоад* оптимизатора",
        "выгрузк* оптимизатора",
        "оптимизатор на cpu",
        "optimizer on cpu",
    ),
    Offload.PARAMS: (
        "cpu offload",
        "cpu offloading",
        "offload params",
        "offload parameters",
        "param offload",
        "offload_param",
        "parameter offload",
        "оффлоад* параметров",
        "offload параметров",
        "выгрузк* весов",
        "выгрузк* параметров",
        "offload на cpu",
        "оффлоад* на cpu",
    ),
}
# The loss kind in free text: fused kernels (Liger, Apple's Cut Cross-Entropy), chunked CE.
LOSS_PHRASES: dict[Loss, tuple[str, ...]] = {
    Loss.FUSED: (
        "liger",
        "liger kernel*",
        "cut cross entropy",
        "cut_cross_entropy",
        "cce",
        "fused cross entropy",
        "fused loss",
        "fused linear cross entropy",
    ),
    Loss.CHUNKED: ("chunked cross entropy", "chunked ce", "chunked loss", "чанкованн* лосс*"),
}
# Examples packed into full rows (TRL's packing=True), or packed with each token attending
# only within its example (padding-free, flash-attention's varlen); «без упаковки» says none.
PACKING_PHRASES: dict[Packing, tuple[str, ...]] = {
    Packing.NONE: (
        "без packing*",
        "без пакинг*",
        "без упаковк*",
        "without packing",
        "no packing",
        "packing off",
        # a pasted config's key, no phrase of PACKED («packing выключен» is read as off by the
        # reader's negation, estimator.parsing.text._negated)
        "sample_packing: false",
        "sample_packing false",
    ),
    Packing.VARLEN: ("padding-free", "padding free", "padding_free", "varlen", "без паддинга"),
    Packing.PACKED: (
        "packing",
        "sample packing",
        "with packing",
        "packed",
        "пакинг*",
        "с упаковкой",
        "упаковк* примеров",
        "упаковк* последовательностей",
    ),
}

# A dataset given as text size: "2 гб текста", "500 MB of text", dataset=2gb.
TEXT_SIZE_UNITS: dict[str, float] = {
    "kb": 1e3,
    "кб": 1e3,
    "mb": 1e6,
    "мб": 1e6,
    "gb": 1e9,
    "гб": 1e9,
    "tb": 1e12,
    "тб": 1e12,
}
TEXT_WORDS: tuple[str, ...] = (
    "русск* текст*",
    "английск* текст*",
    "of russian text",
    "of english text",
    "russian text",
    "english text",
    "текст*",
    "of text",
    "text",
    "данных",
    "of data",
    "сырого текста",
    "raw text",
)


# --- what the offers must be (the planner applies these) -----------------------------------
# Memory per card: «карта с 48 гигами», «48gb+», «не меньше 48 ГБ», "at least 48 GB".
VRAM_UNITS: tuple[str, ...] = (
    "гб",
    "gb",
    "гиг*",
    "гигабайт*",
    "gib",
    "гиб",
    "gigabyte*",
    "g",
)
VRAM_WORDS: tuple[str, ...] = (
    "vram",
    "видеопамят*",
    "памят*",
    "memory",
    "of memory",
    "of vram",
    "на борту",
)
VRAM_AT_LEAST_BEFORE: tuple[str, ...] = (
    "не меньше",
    "не менее",
    "минимум",
    "как минимум",
    "хотя бы",
    "от",
    "с",
    "со",
    "at least",
    "minimum",
    "min",
    "with",
    ">=",
    "≥",
    ">",
)
VRAM_AT_LEAST_AFTER: tuple[str, ...] = (
    "+",
    "и больше",
    "и более",
    "или больше",
    "или более",
    "and more",
    "or more",
    "and up",
    "and above",
    "plus",
    "минимум",
    "min",
)
# Usage per month: «60 часов в месяц», "60 h/month".
HOUR_WORDS: tuple[str, ...] = ("час*", "ч", "h", "hr", "hrs", "hour*")
PER_MONTH_WORDS: tuple[str, ...] = (
    "в месяц",
    "в мес",
    "за месяц",
    "ежемесячно",
    "/мес*",
    "/month",
    "/mo",
    "a month",
    "per month",
    "monthly",
    "each month",
    "every month",
)
# A price asked for a month of rent: «сколько стоит h100 в месяц?», «помесячно», "monthly".
# Read after the usage hours are taken, so «60 часов в месяц» is usage, not this.
MONTH_PRICE_WORDS: tuple[str, ...] = (
    *PER_MONTH_WORDS,
    "помесячн*",
    "месяц аренды",
    "месяц работы",
    "на месяц",
    "за мес",
    "per mo",
    "monthly price",
)
# Only Russian providers: «только РФ», «в России», "russia only".
RUSSIA_ONLY_PHRASES: tuple[str, ...] = (
    "только рф",
    "только в рф",
    "в рф",
    "по рф",
    "рф only",
    "только россия",
    "только в россии",
    "в россии",
    "по россии",
    "российск* провайдер*",
    "российск* облак*",
    "российск* хостинг*",
    "только российск*",
    "внутри рф",
    "внутри россии",
    "серверы в рф",
    "russia only",
    "only russia",
    "only in russia",
    "in russia",
    "russian providers",
    "russian provider",
    "russian cloud*",
    "inside russia",
)
RATE_CAP_WORDS: tuple[str, ...] = (
    "до",
    "не дороже",
    "не больше",
    "не более",
    "дешевле",
    "максимум",
    "макс",
    "в пределах",
    "under",
    "below",
    "up to",
    "at most",
    "max",
    "no more than",
    "cheaper than",
    "within",
    "<=",
    "≤",
    "<",
)

# --- the command grammar -------------------------------------------------------------------
# key=value: the canonical key and the spellings accepted for it.
COMMAND_KEYS: dict[str, tuple[str, ...]] = {
    # The training configs' own names, pasted as key=value: HF TrainingArguments and TRL's
    # SFTConfig (max_seq_length, max_length, per_device_train_batch_size, num_train_epochs),
    # axolotl (sequence_len, micro_batch_size, num_epochs), LLaMA-Factory (cutoff_len).
    "ctx": (
        "ctx",
        "context",
        "seq",
        "seq_len",
        "max_seq_len",
        "len",
        "cutoff",
        "контекст",
        "max_seq_length",
        "max_length",
        "sequence_len",
        "cutoff_len",
        "model_max_length",
    ),
    "bs": (
        "bs",
        "batch",
        "batch_size",
        "micro_batch",
        "mbs",
        "батч",
        "per_device_train_batch_size",
        "micro_batch_size",
        "train_micro_batch_size_per_gpu",
    ),
    "rank": ("rank", "r", "lora_r", "lora_rank", "ранг"),
    "targets": ("targets", "target", "target_modules", "modules"),
    "optim": ("optim", "optimizer", "opt", "оптимизатор"),
    "precision": ("precision", "dtype", "prec", "точность"),
    "gc": ("gc", "checkpointing", "grad_checkpointing", "gradient_checkpointing"),
    "gpus": ("gpus", "n_gpus", "ngpus", "ngpu", "gpu_count", "карт"),
    "shard": ("shard", "sharding", "strategy"),
    "dataset": ("dataset", "examples", "ds", "n_examples", "датасет", "примеров"),
    "tokens": ("tokens", "tok", "tokens_per_example", "avg_tokens", "токенов"),
    "longest": ("longest", "max_tokens", "longest_tokens", "max_tok", "максимум"),
    "epochs": ("epochs", "epoch", "ep", "эпох", "эпохи", "num_train_epochs", "num_epochs"),
    "gpu": ("gpu", "card", "карта", "видеокарта"),
    "stack": ("stack", "framework", "стек"),
    "offload": ("offload", "cpu_offload", "оффлоад"),
    "budget": ("budget", "бюджет", "max_rub"),
    "loss": ("loss", "лосс"),
    "method": ("method", "метод"),
    "model": ("model", "модель"),
    "vram": ("vram", "min_vram", "mem", "память"),
    "hpm": ("hpm", "hours_per_month", "hours", "часов"),
    "loc": ("loc", "location", "region", "country", "где"),
    "rate": ("rate", "max_rate", "rub_per_hour", "ставка"),
    "gpurate": ("gpurate", "gpu_rate", "rub_per_gpu_hour", "rate_per_gpu"),
    "mrate": ("mrate", "month_rate", "rub_per_month", "monthly_rate"),
    "billing": ("billing", "оплата", "тариф"),
    "packing": ("packing", "pack", "упаковка"),
    "ga": (
        "ga",
        "grad_accum",
        "gradient_accumulation",
        "gradient_accumulation_steps",
        "accum",
        "аккумуляция",
    ),
    # HF max_steps: the run's length in optimizer steps
    "steps": ("steps", "max_steps", "step", "шаги", "шагов"),
    # the time the run may take at most
    "hours": ("hours", "time", "часов", "часы"),
    # a card's memory (as sold) asked about with no card named
    "cardgb": ("cardgb", "card_gb"),
}

# Training settings people paste beside the ones we read that change neither the memory nor
# the time of a step (LoRA's scale, dropout, the learning-rate schedule, logging): read, said
# back as not counted, never an error.
NO_EFFECT_KEYS: frozenset[str] = frozenset(
    {
        "alpha", "lora_alpha", "dropout", "lora_dropout", "lr", "learning_rate", "warmup",
        "warmup_steps", "warmup_ratio", "weight_decay", "wd", "seed", "scheduler",
        "lr_scheduler", "lr_scheduler_type", "max_grad_norm", "logging_steps", "save_steps",
        "eval_steps", "save_total_limit",
    }
)  # fmt: skip

# key=value: extra spellings of a value, mapped to the enum value.
VALUE_ALIASES: dict[str, dict[str, str]] = {
    "targets": {
        "q,v": "qv",
        "q_proj,v_proj": "qv",
        "q/v": "qv",
        "qkvo": "attn",
        "q,k,v,o": "attn",
        "attention": "attn",
        "all-linear": "all",
        "all_linear": "all",
        "linear": "all",
        "gate,up,down": "mlp",
        "ffn": "mlp",
    },
    # Every name transformers, torch, bitsandbytes and torchao accept, as the library means
    # it (estimator.optimizers), and a few short words people write.
    "optim": {
        **{name: optimizer.value for name, optimizer in OPTIMIZER_NAMES.items()},
        "8bit": "adamw8bit",
        "adamw-8bit": "adamw8bit",
        "bnb": "adamw8bit",
        "paged": "paged_adamw",  # the QLoRA paper's paged optimizer: AdamW, 32-bit
    },
    "precision": {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32", "amp": "mixed"},
    "shard": {
        "zero-3": "zero3",
        "zero_3": "zero3",
        "z3": "zero3",
        "zero-2": "zero2",
        "zero_2": "zero2",
        "z2": "zero2",
        "fsdp2": "fsdp",
    },
    "method": {
        "4bit": "qlora",
        "qlora4": "qlora",
        "fft": "full",
        "лора": "lora",
        "кулора": "qlora",
        "полное": "full",
    },
    "stack": {
        "transformers": "hf",
        "peft": "hf",
        "trl": "hf",
        "huggingface": "hf",
        "llama-factory": "llamafactory",
        "llama_factory": "llamafactory",
        "lf": "llamafactory",
        "ms-swift": "swift",
        "ms_swift": "swift",
        "lit-gpt": "litgpt",
        "tt": "torchtune",
    },
    "loss": {
        "liger": "fused",
        "cce": "fused",
        "cut": "fused",
        "hf": "naive",
        "plain": "naive",
        "chunk": "chunked",
    },
    "billing": {
        "hourly": "hour",
        "h": "hour",
        "почасовая": "hour",
        "час": "hour",
        "monthly": "month",
        "помесячная": "month",
        "месяц": "month",
        "mo": "month",
    },
    "offload": {
        "optim": "optimizer",
        "opt": "optimizer",
        "cpu": "params",
        "param": "params",
        "all": "params",
        "full": "params",
        "off": "none",
        "no": "none",
        "нет": "none",
    },
    # TRL's packing=True concatenates examples; padding_free / flash-attention's varlen keeps
    # each token's attention within its own example.
    "packing": {
        "on": "packed",
        "yes": "packed",
        "true": "packed",
        "да": "packed",
        "pack": "packed",
        "off": "none",
        "no": "none",
        "false": "none",
        "нет": "none",
        "padding_free": "varlen",
        "padding-free": "varlen",
    },
}

# loc=: where the offers may be. Anywhere is the default.
RUSSIA_WORDS: frozenset[str] = frozenset({"ru", "rf", "russia", "рф", "россия", "ру"})
ANYWHERE_WORDS: frozenset[str] = frozenset({"any", "all", "world", "любая", "везде", "все"})

# Booleans for on/off keys (gc).
TRUE_WORDS: frozenset[str] = frozenset({"on", "yes", "true", "1", "да", "вкл", "включено", "y"})
FALSE_WORDS: frozenset[str] = frozenset(
    {"off", "no", "false", "0", "нет", "выкл", "выключено", "n"}
)

# --- numbers and units, by lemma (estimator.parsing.numbers) -------------------------------
# Numerals by their dictionary form: pymorphy3 gives «два» for «двух» and «двумя», «пять»
# for «пяти», «полтора» for «полутора».
NUMBER_LEMMAS: dict[str, float] = {
    "ноль": 0, "один": 1, "два": 2, "три": 3, "четыре": 4, "пять": 5, "шесть": 6, "семь": 7,
    "восемь": 8, "девять": 9, "десять": 10, "одиннадцать": 11, "двенадцать": 12,
    "тринадцать": 13, "четырнадцать": 14, "пятнадцать": 15, "шестнадцать": 16,
    "семнадцать": 17, "восемнадцать": 18, "девятнадцать": 19, "двадцать": 20, "тридцать": 30,
    "сорок": 40, "пятьдесят": 50, "шестьдесят": 60, "семьдесят": 70, "восемьдесят": 80,
    "девяносто": 90, "сто": 100, "двести": 200, "триста": 300, "четыреста": 400,
    "пятьсот": 500, "шестьсот": 600, "семьсот": 700, "восемьсот": 800, "девятьсот": 900,
    "полтора": 1.5, "полторы": 1.5, "двое": 2, "трое": 3, "четверо": 4, "пятеро": 5,
    "шестеро": 6, "восьмеро": 8,
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "half": 0.5,
}  # fmt: skip
# «пара» counts only in these forms: after a number «пар» is a unit («10к пар вопрос-ответ»).
PAIR_FORMS: frozenset[str] = frozenset({"пара", "пару", "паре", "парой", "couple"})
HUNDRED_WORDS: frozenset[str] = frozenset({"hundred"})
THOUSAND_WORDS: frozenset[str] = frozenset({"k", "к", "тыс", "тысяча", "тыща", "thousand"})
MILLION_WORDS: frozenset[str] = frozenset({"m", "м", "млн", "миллион", "million", "mln", "mio"})
BILLION_WORDS: frozenset[str] = frozenset({"млрд", "миллиард", "billion", "bn", "b", "б"})
# «в два раза больше», «вдвое», "twice": a ratio.
RATIO_WORDS: dict[str, float] = {
    "вдвое": 2, "втрое": 3, "вчетверо": 4, "впятеро": 5, "вдесятеро": 10, "twice": 2,
    "double": 2, "triple": 3,
}  # fmt: skip
# What a number counts, by the lemma of the word after it.
UNIT_LEMMAS: dict[str, frozenset[str]] = {
    "rub": frozenset({"руб", "рубль", "р", "rub", "ruble", "rouble", "rur", "рублей"}),
    "foreign_money": frozenset(
        {"usd", "dollar", "доллар", "бакс", "eur", "euro", "евро", "gbp", "pound", "фунт"}
    ),
    "tokens": frozenset({"токен", "token", "tok", "ток"}),
    "chars": frozenset({"символ", "знак", "character", "char", "chars", "characters"}),
    "examples": frozenset(
        {
            "пример", "сэмпл", "семпл", "сэмплов", "запись", "строка", "диалог", "пара",
            "документ", "текст", "вопрос", "инструкция", "example", "sample", "row", "record",
            "pair", "dialog", "dialogue", "conversation", "document", "instruction", "text",
            "line",
        }
    ),
    "epochs": frozenset({"эпоха", "эпох", "epoch", "эп"}),
    "steps": frozenset({"шаг", "step", "итерация", "iteration"}),
    "hours": frozenset({"час", "ч", "h", "hr", "hour"}),
    "days": frozenset({"сутки", "день", "day"}),
    "gpus": frozenset({"карта", "видеокарта", "карточка", "гпу", "gpu", "card", "видюха"}),
    "params": frozenset({"параметр", "param", "parameter", "парам"}),
    "percent": frozenset({"процент", "percent", "pct"}),
    "times": frozenset({"раз", "times"}),
}  # fmt: skip
UNIT_SYMBOLS: dict[str, str] = {
    "₽": "rub",
    "%": "percent",
    "$": "foreign_money",
    "€": "foreign_money",
    "£": "foreign_money",
}
# Bytes per unit of a size: a dataset's text («2 гб текста») or a card's memory («48 гб»).
BYTE_UNITS: dict[str, float] = {
    "kb": 1e3, "кб": 1e3, "mb": 1e6, "мб": 1e6, "gb": 1e9, "гб": 1e9, "gib": 1e9, "гиб": 1e9,
    "гиг": 1e9, "гига": 1e9, "гигов": 1e9, "гигабайт": 1e9, "гигабайта": 1e9,
    "гигабайтов": 1e9, "gigabyte": 1e9, "gigabytes": 1e9, "tb": 1e12, "тб": 1e12,
    "терабайт": 1e12, "g": 1e9,
}  # fmt: skip

# Words that ask whether a card's memory holds the run: «хватит ли 24 гб», "is 48GB enough",
# «влезет ли в 24 гига», "will it fit in 80GB"; by lemma.
ENOUGH_WORDS: frozenset[str] = frozenset(
    {
        "хватить", "хватит", "хватать", "достаточно", "достаточный", "влезть", "влезет",
        "поместиться", "поместится", "уместиться", "уместится", "enough", "suffice",
        "sufficient", "fit", "fits",
    }
)  # fmt: skip

# A card named by its kind, not its model: «карта на 24 гб», "a 24GB card" say what it holds.
CARD_WORDS: frozenset[str] = frozenset(
    {"карта", "видеокарта", "видюха", "видеокарточка", "гпу", "gpu", "card", "graphics"}
)

# --- which slot a number fills, by the words around it (estimator.parsing.slots) -----------
# Lemmas, as estimator.parsing.lemmas gives them. Little words between a cue and its number
# («бюджет у меня тысяч 5», «контекстом примерно в 8k», "batch size of 8") are skipped.
CUE_FILLERS: frozenset[str] = frozenset(
    {
        "=", ":", "~", "≈", "-", "—", "–", "(", "of", "is", "are", "about", "around", "approx",
        "approximately", "roughly", "some", "like", "at", "to", "the", "a", "my", "our",
        "size", "в", "на", "из", "у", "я", "мы", "мой", "наш", "есть", "около", "примерно",
        "порядка", "где", "то", "-то", "где-то", "размер", "размером", "при", "с", "со",
        "всего", "будет", "было", "был", "быть", "это", "it", "be", "и", "and", "бы",
    }
)  # fmt: skip
CTX_CUES: frozenset[str] = frozenset(
    {
        "контекст", "ctx", "context", "длина", "length", "seq", "sequence", "seqlen", "cutoff",
        "len",
        "window", "окно", "max_seq_len", "max_seq_length", "max_length", "cutoff_len",
        "sequence_len", "seq_len", "последовательность",
    }
)  # fmt: skip
AVERAGE_CUES: frozenset[str] = frozenset(
    {
        "средний",
        "среднее",
        "average",
        "averaging",
        "avg",
        "mean",
        "typical",
        "typically",
        "обычно",
    }
)
# Words that cap a setting's number without naming the setting («батч максимум 4», «контекст не
# больше 4096», "batch at most 4"): the setting's cue may stand before them.
CAP_WORDS: frozenset[str] = frozenset(
    {
        "не", "больше", "более", "большой", "максимум", "максимально", "макс", "max", "maximum",
        "at", "most", "up", "до", "не более", "upto", "limit", "лимит",
    }
)  # fmt: skip
LONGEST_CUES: frozenset[str] = frozenset(
    {
        "максимум", "максимально", "макс", "max", "maximum", "longest", "длинный",
        "длиннейший", "бывать", "иногда", "sometimes", "peak", "up",
    }
)  # fmt: skip
DATASET_CUES: frozenset[str] = frozenset(
    {
        "датасет",
        "dataset",
        "выборка",
        "набор",
        "корпус",
        "corpus",
        "data",
        "данные",
        "ds",
    }
)
# The nouns a count of examples is said in (the unit's own words).
EXAMPLE_NOUNS: frozenset[str] = UNIT_LEMMAS["examples"]
# A count of examples with the unit said first, as a rough count is: «примеров тысяч 20».
EXAMPLES_FIRST_CUES: frozenset[str] = frozenset(
    {"пример", "сэмпл", "семпл", "строка", "диалог", "запись"}
)
BUDGET_CUES: frozenset[str] = frozenset(
    {
        "бюджет", "budget", "уложиться", "уложусь", "уложимся", "within", "за", "потратить",
        "spend", "afford", "pay", "заплатить", "for",
    }
)  # fmt: skip
BATCH_CUES: frozenset[str] = frozenset(
    {
        "батч", "batch", "bs", "mbs", "микробатч", "microbatch", "micro_batch", "бс", "батча",
        # the training configs' own keys, pasted with a space or a colon (HF TrainingArguments,
        # axolotl, LLaMA-Factory, torchtune)
        "per_device_train_batch_size", "micro_batch_size", "batch_size", "train_batch_size",
    }
)  # fmt: skip
# Before a number: «grad accum 8», "gradient accumulation 16", «накопление градиентов 4».
GRAD_ACCUM_CUES: frozenset[str] = frozenset(
    {
        "accumulation", "accum", "grad_accum", "ga", "аккумуляция", "накопление", "градиент",
        "gradient_accumulation_steps", "gradient_accumulation",
    }
)  # fmt: skip
RANK_CUES: frozenset[str] = frozenset({"ранг", "ранк", "rank", "r", "lora_r", "lora_rank"})
# Words before «N шагов» / "N steps" that make them something other than the run's length.
NOT_RUN_STEPS: frozenset[str] = frozenset(
    {
        "warmup", "warm", "прогрев", "разогрев", "save", "eval", "logging", "log", "every",
        "каждые", "каждый", "сохранение", "сохранять", "оценка", "лог",
    }
)  # fmt: skip
# Before a number: "max_steps 60", «шагов: 1000».
STEPS_CUES: frozenset[str] = frozenset({"max_steps", "steps", "шагов", "шаги"})
EPOCH_CUES: frozenset[str] = frozenset(
    {"эпоха", "эпох", "epoch", "ep", "num_train_epochs", "epochs", "num_epochs"}
)
GPUS_CUES: frozenset[str] = frozenset({"gpus", "gpu", "карта", "n_gpus", "ngpus", "gpu_count"})
# After a number: «8k context», «4к контексте», "500 tokens per example", «по 500 на пример».
PER_EXAMPLE_AFTER_CUES: tuple[tuple[str, ...], ...] = (
    ("per", "example"), ("per", "sample"), ("each",), ("на", "пример"), ("в", "пример"),
    ("на", "каждый"), ("в", "каждый"), ("в", "средний"), ("на", "сэмпл"), ("на", "запись"),
    ("per", "row"), ("per", "record"), ("on", "average"),
)  # fmt: skip
# «2 гб текста», "500 MB of text": a size of text is a dataset.
TEXT_CUES: frozenset[str] = frozenset({"текст", "text", "данные", "data", "корпус", "corpus"})
# The language of a text size: Russian text takes more bytes a token.
RUSSIAN_TEXT_CUES: frozenset[str] = frozenset({"русский", "russian"})
ENGLISH_TEXT_CUES: frozenset[str] = frozenset({"английский", "english"})
# Between the two ends of a range: «от 1 500 до 3 500», "1500-3500", "between 1k and 3k".
RANGE_SEPARATORS: frozenset[str] = frozenset({"-", "–", "—", "до", "to", "and", "…", "..", "по"})
RANGE_OPENERS: frozenset[str] = frozenset({"от", "from", "between", "с"})
# A count said next to «на»: «а на двух?», «на восьми» (the card count, the card unnamed).
ON_WORDS: frozenset[str] = frozenset({"на", "on"})
# In a reply, a bare count after these is the card count too: "what if I use 2?", «а если
# взять две?»; and before "of them" ("2 of them").
USE_WORDS: frozenset[str] = frozenset(
    {"use", "using", "take", "взять", "возьму", "возьмём", "возьмем", "беру", "брать"}
)

# The billing asked for: «а помесячно?», «почасовая», "monthly".
BILLING_PHRASES: dict[str, tuple[str, ...]] = {
    "month": (
        "помесячн*", "по месяцам", "месячн* аренд*", "аренд* на месяц", "в месяц", "monthly",
        "per month", "by the month", "a month",
    ),
    "hour": ("почасов*", "по часам", "hourly", "by the hour"),
}  # fmt: skip

# --- a question is not an instruction (estimator.parsing.questions) ---------------------
# A lever named without a value («нужен ли offload?», "do we need DeepSpeed?"), by the
# FitQuery field it is: asked about, never set.
LEVER_NAMES: dict[str, tuple[str, ...]] = {
    "offload": (
        "cpu offload*", "offload*", "оффлоад*", "офлоад*", "оффлод*", "офлод*", "выгрузк* на cpu",
        "выгрузк* в озу", "выгрузк* в ram", "выгрузк*",
    ),
    "shard": ("deepspeed", "deep speed", "дипспид*", "zero", "fsdp", "шардинг*", "sharding"),
    "optimizer": (
        "8 bit optim*", "8 бит* оптимизатор*", "8 битн* оптимизатор*", "восьмибитн* оптимизатор*",
        "8 bit adam*", "8bit adam*", "paged adam*", "adafactor", "адафактор*",
    ),
    "grad_checkpointing": (
        "gradient checkpointing", "activation checkpointing", "checkpointing",
        "чекпоинтинг*", "чекпойнтинг*", "пересчёт* активаций", "пересчет* активаций",
    ),
    "attention": (
        "flash attention*", "flash attn", "flash-attn", "flashattention*", "флеш атеншн*",
    ),
}  # fmt: skip
# Words that make a lever next to them a question: «нужен ли», «стоит ли», «имеет смысл»,
# "do we need", "is it worth", «поможет ли»; by lemma.
NEED_WORDS: frozenset[str] = frozenset(
    {
        "нужный", "нужно", "надо", "необходимый", "необходимо", "стоить", "смысл", "помочь",
        "требоваться", "обязательный", "обязательно", "понадобиться", "need", "needed",
        "necessary", "worth", "should", "help", "required", "require", "recommend",
        "recommended", "mandatory",
    }
)  # fmt: skip
# Words that may stand between the question word and the lever: «нужен ли мне», "do we need
# to enable", «стоит ли включать» (Russian infinitives are skipped by their grammar).
QUESTION_SKIPS: frozenset[str] = frozenset(
    {
        "ли", "мне", "нам", "вам", "тебе", "я", "мы", "бы", "вообще", "тут", "здесь", "ещё",
        "еще", "же", "с", "со", "тогда", "реально", "really", "actually", "we", "i", "you",
        "us", "me", "to", "the", "a", "an", "any", "some", "use", "using", "enable",
        "enabling", "turn", "on", "add", "adding", "try", "apply", "with", "switch", "go",
        "it", "is", "then", "here", "also", "still", "-", "—", "–",
    }
)  # fmt: skip
# A clause opening with these asks about a change, not about a lever: «а если с X?».
HYPOTHETICAL_OPENERS: tuple[tuple[str, ...], ...] = (
    ("а", "если"), ("если",), ("what", "if"), ("what", "about"), ("how", "about"),
)  # fmt: skip
# English auxiliaries that open a question: "do we need", "should I use".
QUESTION_OPENERS: frozenset[str] = frozenset(
    {"do", "does", "did", "should", "would", "will", "is", "are", "can", "could", "must"}
)
# «с offload или без?», "with or without offload", «offload или нет?».
EITHER_WAY_AFTER: tuple[tuple[str, ...], ...] = (
    ("или", "без"), ("или", "нет"), ("or", "not"), ("or", "without"),
)  # fmt: skip
EITHER_WAY_BEFORE: tuple[tuple[str, ...], ...] = (
    ("with", "or", "without"), ("с", "или", "без"),
)  # fmt: skip
# Typos of a method («клорой», "qlroa") are matched against these spellings (rapidfuzz).
METHOD_SPELLINGS: dict[str, Method] = {
    "qlora": Method.QLORA, "кулора": Method.QLORA, "кьюлора": Method.QLORA,
    "lora": Method.LORA, "лора": Method.LORA,
}  # fmt: skip

# A reply that asks how long the run takes: «а по времени?», "how long?".
# «сколько эпох успею за 10 часов?», "how many epochs can I do in 10 hours?": the epochs a
# time limit holds, per card.
ASK_EPOCHS_PHRASES: tuple[str, ...] = ("сколько эпох", "how many epochs")
ASK_TIME_PHRASES: tuple[str, ...] = (
    "сколько по времени",
    "по времени",
    "сколько времени",
    "how long",
    "how much time",
    "time wise",
    "timewise",
    # «а на 8 картах быстрее?», "would 8 gpus be faster?": how the time changes
    "быстрее",
    "медленнее",
    "дольше",
    "faster",
    "slower",
)

# «а если данных в два раза больше?», "twice the batch": a reply that scales a setting. The
# comparative says which way (a factor or its inverse); the noun says which setting.
MORE_WORDS: frozenset[str] = frozenset(
    {"больше", "больший", "много", "длиннее", "длинный", "more", "larger", "bigger", "longer"}
)
LESS_WORDS: frozenset[str] = frozenset(
    {"меньше", "маленький", "мало", "короче", "короткий", "less", "fewer", "smaller", "shorter"}
)
# The noun of a scaled setting, by lemma -> the FitQuery field it scales.
SCALED_NOUNS: dict[str, str] = {
    "данные": "dataset",
    "датасет": "dataset",
    "выборка": "dataset",
    "пример": "dataset",
    "data": "dataset",
    "dataset": "dataset",
    "example": "dataset",
    "sample": "dataset",
    "контекст": "ctx",
    "context": "ctx",
    "ctx": "ctx",
    "батч": "micro_batch",
    "batch": "micro_batch",
    "карта": "gpus",
    "видеокарта": "gpus",
    "gpu": "gpus",
    "эпоха": "epochs",
    "epoch": "epochs",
}
