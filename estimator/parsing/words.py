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
# Words that may follow a size and mean "parameters".
PARAMS_WORDS: tuple[str, ...] = ("параметр*", "params", "parameters", "parameter")

# --- numbers -----------------------------------------------------------------------------
THOUSAND_UNITS: tuple[str, ...] = ("k", "к", "тыс", "тысяч*", "тысяча", "тысячи", "thousand*")
MILLION_UNITS: tuple[str, ...] = ("m", "м", "млн", "миллион*", "million*", "mln")

# Counts spelled out: "на двух 4090", "четыре A100", "two H100".
NUMBER_WORDS: dict[str, int] = {
    "один": 1,
    "одна": 1,
    "одну": 1,
    "одной": 1,
    "одном": 1,
    "одного": 1,
    "one": 1,
    "single": 1,
    "a single": 1,
    "два": 2,
    "две": 2,
    "двух": 2,
    "двумя": 2,
    "пара": 2,
    "паре": 2,
    "паре из": 2,
    "two": 2,
    "a pair of": 2,
    "pair of": 2,
    "dual": 2,
    "три": 3,
    "трёх": 3,
    "трех": 3,
    "тремя": 3,
    "three": 3,
    "четыре": 4,
    "четырёх": 4,
    "четырех": 4,
    "четырьмя": 4,
    "four": 4,
    "quad": 4,
    "пять": 5,
    "пяти": 5,
    "five": 5,
    "шесть": 6,
    "шести": 6,
    "six": 6,
    "восемь": 8,
    "восьми": 8,
    "восьмью": 8,
    "eight": 8,
    "шестнадцать": 16,
    "шестнадцати": 16,
    "sixteen": 16,
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
)
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
# The longest example, a fact about the data rather than a setting: «средняя 700, максимум
# 2к». Memory follows the longest batch, so an unset ctx is raised to hold it (build.py).
LONGEST_WORDS: tuple[str, ...] = (
    "максимум",
    "максимально",
    "самый длинный пример",
    "самые длинные примеры",
    "самый длинный",
    "самые длинные",
    "самого длинного",
    "длиннейш*",
    "longest sample*",
    "longest example*",
    "longest",
    "max",
    "maximum",
)
# Between two numbers of a range: «от 1 500 до 3 500 токенов», "1500-3500 tokens".
RANGE_WORDS: tuple[str, ...] = ("до", "to")
TOKEN_WORDS: tuple[str, ...] = ("токен*", "tokens", "token", "tok")
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
    "cheapest card*",
    "cheapest gpu*",
    "cheapest option*",
    "cheapest",
)
# A reverse question asks for the largest value of a lever that fits the card: «какой
# максимальный контекст влезет», «какой batch поставить», "max context", "what batch size
# fits". These words stand before the lever's word (CTX/BATCH/RANK_WORDS) with no number
# after it: "max context 8k" sets ctx (text.py).
SOLVE_WORDS: tuple[str, ...] = (
    "максимальн*",
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
EPOCH_WORDS: tuple[str, ...] = ("epochs", "epoch", "эпох*", "эпоха")
DATASET_WORDS: tuple[str, ...] = (
    "dataset",
    "датасет*",
    "дата сет*",
    "набор* данных",
    "выборк*",
)
EXAMPLE_WORDS: tuple[str, ...] = (
    "examples",
    "example",
    "samples",
    "sample",
    "rows",
    "пример*",
    "сэмпл*",
    "семпл*",
    "запис*",
    "диалог*",
    "строк*",
    "пар",
    "пары",
    "парами",
    "pairs",
    "пар вопрос ответ",
    "пар вопрос-ответ",
    "qa pairs",
    "question answer pairs",
)
# "по 500 токенов" / "500 tokens per example" / "в среднем 500 токенов": tokens per example.
PER_EXAMPLE_BEFORE: tuple[str, ...] = (
    "по",
    "в среднем",
    "средн* длин*",
    "средн*",
    "average length",
    "average",
    "avg length",
    "avg",
    "mean length",
    "on average",
)
PER_EXAMPLE_AFTER: tuple[str, ...] = (
    "per example",
    "per sample",
    "each",
    "на пример",
    "на каждый пример",
    "в примере",
    "в каждом примере",
    "на сэмпл",
    "на запись",
    "в среднем",
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
GPU_COUNT_WORDS: tuple[str, ...] = ("gpus", "gpu", "cards", "карт*", "видеокарт*", "гпу", "гпу-шк*")

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
    Sharding.DDP: ("ddp",),
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

# Money: a sum with a rouble sign or word is a budget («уложусь в 5000 ₽?», "within 5k rub").
RUBLE_WORDS: tuple[str, ...] = ("₽", "руб*", "р", "rub", "rubles", "roubles")
BUDGET_WORDS: tuple[str, ...] = (
    "уложусь в",
    "уложиться в",
    "уложимся в",
    "бюджет*",
    "budget",
    "within",
    "не дороже",
    "не больше",
    "до",
    "за",
    "under",
    "for",
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
# A price per server-hour: «до 300 ₽/ч», "under 300 rub/h". (A sum with no hour is a budget.)
PER_HOUR_WORDS: tuple[str, ...] = (
    "/ч",
    "/час",
    "в час",
    "за час",
    "в ч",
    "/h",
    "/hr",
    "/hour",
    "per hour",
    "an hour",
    "a hour",
    "per hr",
    "hourly",
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
    "ctx": ("ctx", "context", "seq", "seq_len", "max_seq_len", "len", "cutoff", "контекст"),
    "bs": ("bs", "batch", "batch_size", "micro_batch", "mbs", "батч"),
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
    "epochs": ("epochs", "epoch", "ep", "эпох", "эпохи"),
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
}

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
}

# loc=: where the offers may be. Anywhere is the default.
RUSSIA_WORDS: frozenset[str] = frozenset({"ru", "rf", "russia", "рф", "россия", "ру"})
ANYWHERE_WORDS: frozenset[str] = frozenset({"any", "all", "world", "любая", "везде", "все"})

# Booleans for on/off keys (gc).
TRUE_WORDS: frozenset[str] = frozenset({"on", "yes", "true", "1", "да", "вкл", "включено", "y"})
FALSE_WORDS: frozenset[str] = frozenset(
    {"off", "no", "false", "0", "нет", "выкл", "выключено", "n"}
)
