"""Reason codes live in one catalogue (services/common/reasons.py), and the protos, which
document every RPC's refusals for client authors, name exactly those."""

from __future__ import annotations

import re
from pathlib import Path

import grpc

from services.common.reasons import ALL_REASONS, RulesReason, ServiceReason

PROTOS = sorted((Path(__file__).parents[2] / "proto" / "cardroom" / "v1").glob("*.proto"))
#: Upper-case words the proto comments use that are not reasons.
NOT_REASONS = {"DESIGN", "JSON", "KIND", "LISTEN", "NOTIFY", "RANK", "RULES", "RUNNING", "UUID"}
#: Base-class defaults no refusal is meant to carry (every raise names its own reason).
DEFAULTS = {RulesReason.RULES_ERROR, ServiceReason.STORE_ERROR, ServiceReason.BAD_APPEND}


def _comment_words(*, status_codes: bool = False) -> set[str]:
    """The reason-like words of the proto comments (with the gRPC status code names too
    when asked: UNAUTHENTICATED and PERMISSION_DENIED are both a code and a reason)."""
    words: set[str] = set()
    for path in PROTOS:
        for line in path.read_text().splitlines():
            if "//" in line:
                words |= set(re.findall(r"\b[A-Z][A-Z0-9_]{3,}\b", line.split("//", 1)[1]))
    enum_values = {w for w in words if w.startswith(("VISIBILITY_", "CAUSE_", "PHASE_"))}
    settings = {w for w in words if w.startswith("CARDROOM_")}  # environment variables
    words -= NOT_REASONS | enum_values | settings
    return words if status_codes else words - {c.name for c in grpc.StatusCode}


def test_every_reason_the_protos_name_is_one_the_code_knows() -> None:
    unknown = _comment_words() - ALL_REASONS
    assert not unknown, f"proto comments name reasons no enum holds: {sorted(unknown)}"


def test_every_reason_the_code_gives_is_documented_in_a_proto() -> None:
    undocumented = ALL_REASONS - DEFAULTS - _comment_words(status_codes=True)
    assert not undocumented, f"reasons no proto comment documents: {sorted(undocumented)}"


def test_reasons_are_strings_on_the_wire() -> None:
    assert RulesReason.MUST_BID == "MUST_BID" and ServiceReason.SEQ_CONFLICT == "SEQ_CONFLICT"
    assert not set(RulesReason) & set(ServiceReason)
