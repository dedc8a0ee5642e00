"""Each chat's last sizing answer, which a reply to it can adjust, and how long it counts."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from monitor.users import Language

# How long a reply still refers to the last answer. A follow-up comes within minutes; a day
# covers one coming back the next morning to the same run, and after that a bare «а с
# qlora?» is more likely a new conversation, which the normal routers answer.
REMEMBER_FOR = timedelta(hours=24)


@dataclass(frozen=True)
class RememberedSizing:
    # What the user stated (estimator.stated_codec); a row from before: a /fit command.
    command: str
    language: Language  # the language the answer was given in
    at: datetime
    # A model from the user's config.json, which `command` names by a stand-in size: its
    # shapes as JSON (estimator.model_config.spec_json). None for a catalog model.
    model: str | None = None
