"""Reading tests/fixtures/estimator/vram_calibration.csv: each published measurement as a FitQuery.

The file is free text written by people, so this module interprets it with general rules
(what the framework keeps in which precision, what the unit of the figure is) and never with
per-row exceptions: new rows in the same style are read the same way. Which quantity a figure
measured is not inferred: the `metric` column states it, from the row's source.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path

from estimator.memory import Metric  # the CSV's `metric` column: what a figure measured
from estimator.query import (
    Attention,
    Checkpointing,
    FitQuery,
    Loss,
    Method,
    Offload,
    Optimizer,
    Precision,
    Quant,
    Sharding,
    Stack,
    Targets,
)
from estimator.stacks import unsloth_loss

# The published measurements, every row with its source (provenance in the README beside the
# file); --csv reads any file in the same format.
DEFAULT_CSV = (
    Path(__file__).resolve().parents[1]
    / "tests"
    / "fixtures"
    / "estimator"
    / "vram_calibration.csv"
)

# The longest Alpaca sample in Llama-2 tokens (litgpt's resource tables); memory follows the
# longest batch, so an unpacked Alpaca run peaks there whatever its cap above it.
ALPACA_LONGEST_TOKENS = 1304
UNKNOWN_SEQ_LEN = 256
UNKNOWN_MICRO_BATCH = 4
GB_PER_GIB = 2**30 / 1e9


class Bound(StrEnum):
    EXACT = "exact"
    LOWER = "lower"  # ran out of memory at this size: the need is larger
    UPPER = "upper"  # fitted within this budget: the need is at most this


@dataclass(frozen=True)
class CalibrationRow:
    index: int
    source: str  # the repository or site the figure was published in (leave-one-out group)
    document: str  # the file, issue or paper within it
    model_name: str
    query: FitQuery
    measured_gib: float
    metric: Metric
    bound: Bound
    framework: str
    gpu_text: str
    excluded: str | None = None
    notes: list[str] = field(default_factory=list)


def read_rows(path: Path = DEFAULT_CSV) -> list[CalibrationRow]:
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    interpreted: list[CalibrationRow] = []
    for index, row in enumerate(rows):
        previous = interpreted[-1] if interpreted and _same_source(rows[index - 1], row) else None
        interpreted.append(interpret(index, row, previous))
    return interpreted


def _same_source(before: dict[str, str], row: dict[str, str]) -> bool:
    return before["source"].split(" ")[0] == row["source"].split(" ")[0]


def interpret(
    index: int, row: dict[str, str], previous: CalibrationRow | None = None
) -> CalibrationRow:
    # The free text the rules read; the metric column is read on its own, never as prose.
    text = " ".join(value for key, value in row.items() if key != "metric").lower()
    # Tables that "add one lever to the previous row" describe only the new lever.
    inherits = previous is not None and any(
        word in row["other_notes"].lower() for word in ("previous", "same levers")
    )
    framework = _framework(text)
    method = Method(row["method"].strip().lower())
    notes: list[str] = []
    autocast = _autocast(row["precision"], text)
    query = FitQuery(
        model=row["model"],
        method=method,
        ctx=_seq_len(row["seq_len"], text, notes),
        micro_batch=_first_int(row["micro_batch"])
        or _batch_in_notes(row["other_notes"])
        or _note(notes, UNKNOWN_MICRO_BATCH, "bs"),
        lora_rank=_first_int(row["lora_rank"]) or 8,
        targets=_targets(row["lora_rank"]),
        optimizer=_optimizer(row["optimizer"]),
        precision=_precision(row["precision"], method, framework),
        grad_checkpointing=_checkpointing(row["grad_checkpointing"]),
        loss=_loss(framework, text, row, autocast)
        or (previous.query.loss if inherits and previous else None),
        # NeMo Automodel's train_ft holds `out = model(**batch)` through `.backward()`
        # (nemo_automodel/recipes/llm/train_ft.py _forward_backward_step @b4733bdc18).
        holds_logits=framework == "nemo",
        compiled=("compile" in text and "no compile" not in text and "baseline" not in text)
        or bool(inherits and previous and previous.query.compiled),
        # PEFT modules_to_save trains whole copies of the embedding and the head; otherwise a
        # "head" among the targets is a LoRA on lm_head.
        train_embeddings="modules_to_save" in row["lora_rank"].lower(),
        head_adapter="head" in row["lora_rank"].lower()
        and "modules_to_save" not in row["lora_rank"].lower(),
        optimizer_in_backward="backward" in text or "optimizer_in_bwd" in text,
        # Without accumulation each step's gradients are freed before the next forward.
        holds_gradients=not re.search(r"no grad-accum|gradient_accumulation_steps:? 1\b", text),
        double_quant=method is not Method.QLORA or "double quant" in text or framework != "litgpt",
        old_bitsandbytes=_old_bitsandbytes(text),
        autocast=autocast,
        reduce_bucket=_reduce_bucket(text),
        quant=Quant.GPTQ if "gptq" in row["precision"].lower() else Quant.NF4,
        stack=_STACKS.get(framework, Stack.HF),
        attention=_attention(text),
    )
    query = _parallelism(query, row, text)
    measured, bound = _measured(row["peak_gb"], text)
    return CalibrationRow(
        index=index,
        source=source_of(row["source"]),
        document=document_of(row["source"]),
        model_name=row["model"],
        query=query,
        measured_gib=measured * _gib_per_unit(text, framework),
        metric=_metric(row, index),
        bound=bound,
        framework=framework,
        gpu_text=row["gpu"],
        excluded="suspect" if "suspect" in text else None,
        notes=notes,
    )


_STACKS = {
    "torchtune": Stack.TORCHTUNE,
    "litgpt": Stack.LITGPT,
    "unsloth": Stack.UNSLOTH,
    "llamafactory": Stack.LLAMAFACTORY,
    "swift": Stack.SWIFT,
    # Answer.AI's fsdp_qlora: transformers models with bitsandbytes and PEFT adapters, loaded
    # by its own code without PEFT's k-bit preparation: what the axolotl profile describes.
    "fsdp_qlora": Stack.AXOLOTL,
    "axolotl": Stack.AXOLOTL,
}


def source_of(text: str) -> str:
    """The publisher of a row: "github.com/owner/repo" or the site, for leave-one-repository-out.
    Rows from one repository (a README, its docs and notebooks) are one source."""
    first = text.split(" ")[0].strip()
    parts = first.split("/")
    if parts[0] == "github.com" and len(parts) >= 3:
        return "/".join(parts[:3])
    return parts[0]


def document_of(text: str) -> str:
    """The document a row was published in: the repository's file ("github.com/pytorch/
    torchtune README.md"), an issue's or a paper's address."""
    words = text.split(" ")
    if len(words) > 1 and not words[1].startswith(("@", "(", "+")) and words[1] != "":
        return f"{words[0]} {words[1]}"
    return words[0]


def _note(notes: list[str], value: int, what: str) -> int:
    notes.append(f"{what} assumed {value}")
    return value


def _batch_in_notes(text: str) -> int | None:
    """A micro-batch the notes state where the column does not ("bsz2 ga4", "bs 4")."""
    match = re.search(r"\bbsz?\s*=?\s*(\d+)\b", text.lower())
    return int(match.group(1)) if match else None


def _first_int(text: str) -> int | None:
    match = re.search(r"\d+", text)
    return int(match.group()) if match else None


def _framework(text: str) -> str:
    for marker, name in (
        ("hf baseline", "hf"),
        ("hugging face", "hf"),
        ("hf + flashattention", "hf"),
        ("torchtune", "torchtune"),
        ("litgpt", "litgpt"),
        ("fsdp_qlora", "fsdp_qlora"),
        ("unsloth", "unsloth"),
        ("axolotl", "axolotl"),
        ("nemo automodel", "nemo"),
        ("llamafactory", "llamafactory"),
        ("llama-factory", "llamafactory"),
        ("ms-swift", "swift"),  # ModelScope's trainer; it drives PEFT itself, so it precedes "peft"
        ("peft", "hf"),
    ):
        if marker in text:
            return name
    return "hf"


def _seq_len(raw: str, text: str, notes: list[str]) -> int:
    value = raw.strip().lower()
    if value.isdigit():
        return int(value)
    cap_match = re.search(r"<=?\s*(\d+)", value)
    cap = int(cap_match.group(1)) if cap_match else None
    dataset_text = value + " " + text
    if _stanford_alpaca(dataset_text):
        # Unpacked Alpaca: each batch is padded to its own longest sample, and the logged
        # peak is the run's longest batch, the one holding the dataset's longest sample.
        return min(cap, ALPACA_LONGEST_TOKENS) if cap else ALPACA_LONGEST_TOKENS
    if cap:
        return cap
    if "short" in value:
        return _note(notes, 128, "seq")
    return _note(notes, UNKNOWN_SEQ_LEN, "seq")


# Datasets named after Alpaca that are not Stanford's: GPT-4's answers to its prompts
# (alpaca-gpt4, longer than the originals) and LongAlpaca's long documents. Their longest
# sample is not ALPACA_LONGEST_TOKENS, so a row over them is read at its cap.
_OTHER_ALPACAS = re.compile(r"alpaca[-_]gpt4|longalpaca")


def _stanford_alpaca(text: str) -> bool:
    """Whether the row's data is Stanford Alpaca (or a subset of it), unpacked."""
    return "finetome" not in text and "alpaca" in _OTHER_ALPACAS.sub("", text)


def _targets(raw: str) -> Targets:
    value = raw.lower()
    attention = re.search(r"\b(q|k|v|o|qkv|query|attention|w_pack)\b", value)
    if not attention and any(word in value for word in ("gate", "down", "mlp")):
        return Targets.MLP  # "gate,up,down": the MLP alone
    if any(word in value for word in ("all linear", "all-linear", "mlp", "gate", "down")):
        return Targets.ALL
    if re.search(r"q,\s*k,\s*v,\s*o", value):
        return Targets.ATTN
    return Targets.QV


def _optimizer(raw: str) -> Optimizer:
    value = raw.lower().replace("-", "").replace("_", "").replace(" ", "")
    if "paged" in value:
        # bitsandbytes' PagedAdamW is 32-bit unless the name says 8-bit (transformers'
        # paged_adamw_32bit, the QLoRA paper's "paged AdamW 32-bit").
        return Optimizer.PAGED_ADAMW_8BIT if "8bit" in value else Optimizer.PAGED_ADAMW
    if "8bit" in value:
        return Optimizer.ADAMW_8BIT
    if "4bit" in value:
        return Optimizer.ADAMW_4BIT
    if "adafactor" in value:
        return Optimizer.ADAFACTOR
    if "sgd" in value:
        return Optimizer.SGD
    return Optimizer.ADAMW


def _precision(raw: str, method: Method, framework: str) -> Precision:
    value = raw.lower()
    if "fp32" in value or "bf16-mixed" in value:
        return Precision.FP32  # litgpt's bf16-mixed stores the frozen weights in fp32 too
    if "pure" in value:
        return Precision.BF16
    if "mixed" in value:
        return Precision.MIXED
    if framework in ("torchtune", "litgpt", "fsdp_qlora"):
        return Precision.BF16
    # HF Trainer + PEFT: 16-bit base, fp32 adapters (autocast_adapter_dtype) and fp32 masters.
    return Precision.MIXED if method is not Method.FULL else Precision.BF16


def _autocast(precision: str, text: str) -> bool | None:
    """Whether the trainer ran its forward under torch autocast: not when the row says the
    16-bit model was trained without the flag that turns it on ("torch_dtype bfloat16 without
    --bf16"), nor under DeepSpeed, whose engine casts the whole model to its 16-bit dtype
    instead (deepspeed runtime/engine.py `self.module.half()` / `.bfloat16()`; accelerate
    turns native AMP on only when the distributed type is not DeepSpeed, and the HF Trainer
    leaves "half precision" to DeepSpeed)."""
    stated = precision.lower()
    if re.search(r"without --?(bf16|fp16)\b", stated):
        return False
    if "deepspeed" in text and re.search(r"\bzero-?[123]\b|ds_config", text):
        return False
    if re.search(r"--bf16|--fp16|\bamp\b|autocast|mixed", stated):
        return True
    return None  # what the precision implies


# bitsandbytes 0.43.2 stopped keeping MatMul4Bit's input in the graph (`FitQuery.old_bitsandbytes`).
BITSANDBYTES_INPUTS_FREED = (0, 43, 2)


def _old_bitsandbytes(text: str) -> bool:
    """Whether the row names a bitsandbytes release before 0.43.2 ("bitsandbytes 0.42.0")."""
    match = re.search(r"bitsandbytes\s*=?=?\s*(\d+)\.(\d+)(?:\.(\d+))?", text)
    if match is None:
        return False
    version = (int(match[1]), int(match[2]), int(match[3] or 0))
    return version < BITSANDBYTES_INPUTS_FREED


def _reduce_bucket(text: str) -> int | None:
    """A DeepSpeed config's reduce_bucket_size where the row gives it ("reduce_bucket_size
    2e8"); None: HF's "auto"."""
    match = re.search(r"reduce_bucket_size:? (\d+(?:\.\d+)?e\d+|\d+)", text)
    return int(float(match.group(1))) if match else None


def _checkpointing(raw: str) -> Checkpointing:
    value = raw.lower()
    if "unsloth" in value or "offload" in value:
        return Checkpointing.UNSLOTH
    if re.search(r"per sub-?module", value):
        return Checkpointing.SUBMODULE
    if "selective" in value and re.search(r"\bop\b", value):
        return Checkpointing.SELECTIVE_OP
    if value.startswith("yes"):
        return Checkpointing.ON
    if value.startswith("no"):
        return Checkpointing.OFF
    # "unknown": most recipes turn it on, and a config's stated default is often overridden.
    return Checkpointing.ON


def _attention(text: str) -> Attention | None:
    """The attention kernel where the row names it; otherwise the stack's and model's default
    (`estimator.memory._attention`). Eager attention keeps the ctx² score matrices; SDPA and
    FlashAttention do not, so both read as flash."""
    if re.search(r"\beager (?:attention|attn)\b|attn_implementation\W*eager", text):
        return Attention.EAGER
    if re.search(r"use_flash_attn\s*(false|0)\b", text):
        return None
    if re.search(r"flash.?att|\bsdpa\b", text):
        return Attention.FLASH
    return None


def _loss(framework: str, text: str, row: dict[str, str], autocast: bool | None) -> Loss | None:
    """The loss only where the row says; otherwise the stack's own default."""
    # "cce" as a word of its own (`use_cce`, "CCE loss"), not inside "accelerate".
    if re.search(r"(?<![a-z])cce(?![a-z])", text) or "fused linear cross-entropy" in text:
        # Cut cross-entropy, and Liger-Kernel's LigerFusedLinearCrossEntropy (lm_head and
        # the loss chunk by chunk, the gradient computed in the forward): no full logits.
        return Loss.FUSED
    if "chunked" in row["other_notes"].lower():
        return Loss.CHUNKED
    if "no fp32 upcast" in text:
        return Loss.DIRECT  # cross-entropy straight on the model's logits
    if autocast is False and "crossentropyloss" in text and "upcast" not in text:
        # The model's own code runs nn.CrossEntropyLoss on its logits and nothing casts them:
        # without autocast (which would run cross_entropy in fp32), the loss keeps their dtype.
        return Loss.DIRECT
    if framework == "torchtune" and ("baseline" in text or "no chunk" in text):
        return Loss.NAIVE  # the levers table's rows before "+chunked cross-entropy"
    release = re.search(r"\bunsloth (20\d\d)\.(\d{1,2})(?:\.(\d+))?\b", text)
    if framework == "unsloth" and release:
        # The loss path of the Unsloth release the run used (its saved output names it).
        version = (int(release[1]), int(release[2]), int(release[3] or 0))
        return unsloth_loss(version)
    dated = re.search(r"\b(20\d\d)-(\d\d)", row["source"])
    if framework == "torchtune" and dated and (int(dated[1]), int(dated[2])) < (2024, 9):
        return Loss.NAIVE  # CEWithChunkedOutputLoss reached the recipes in torchtune 0.3
    return None


def _parallelism(query: FitQuery, row: dict[str, str], text: str) -> FitQuery:
    gpu_count = re.match(r"\s*(\d+)\s*(?:x|×|gpus?\b)", row["gpu"].lower())
    gpus = int(gpu_count.group(1)) if gpu_count and "per gpu" in text else 1
    shard = Sharding.DDP
    if "ddp" in text:
        shard = Sharding.DDP
    elif "fsdp" in text:
        shard = Sharding.FSDP
    elif "zero-3" in text or "zero3" in text:
        # DeepSpeed's own sharding: its partitions keep the parameters' dtype, where
        # accelerate's FSDP path upcasts a LoRA layer's flat parameters to fp32.
        shard = Sharding.ZERO3
    elif "zero-2" in text or "zero2" in text:
        shard = Sharding.ZERO2
    offload = bool(re.search(r"(?<!without )cpu (param )?offload|offload of params", text))
    return replace(
        query, gpus=gpus, shard=shard, offload=Offload.PARAMS if offload else Offload.NONE
    )


def _measured(raw: str, text: str) -> tuple[float, Bound]:
    number = float(re.search(r"[\d.]+", raw).group())  # type: ignore[union-attr]
    if "oom" in raw.lower():
        return number, Bound.LOWER
    if "upper bound" in text and "budget" not in text:
        return number, Bound.UPPER
    return number, Bound.EXACT


def _metric(row: dict[str, str], index: int) -> Metric:
    raw = (row.get("metric") or "").strip().lower()
    try:
        return Metric(raw)
    except ValueError:
        choices = ", ".join(m.value for m in Metric)
        raise ValueError(f"row {index}: metric {raw!r} is not one of {choices}") from None


def _gib_per_unit(text: str, framework: str) -> float:
    """GiB in one unit of the published figure: 1 for GiB, 0.93 for decimal GB."""
    if "gib" in text or "1024^3" in text or framework == "unsloth":
        return 1.0
    if "1e9" in text or "decimal gb" in text or "in gb" in text or framework == "litgpt":
        return 1 / GB_PER_GIB
    if "user report" in text or "nvidia-smi" in text:
        return 1.0  # nvidia-smi counts MiB; people divide by 1024
    return 1 / GB_PER_GIB
