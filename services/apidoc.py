"""The reference tables of ``docs/api.md``, generated from the proto comments (``make apidoc``).

Each RPC's leading comment in ``proto/`` says what it does (its first sentence goes in the
table), who may call it (``Access:``, else its service's) and the reasons it refuses with
(``Errors:``); a service's own comment names the reasons every one of its RPCs may give.  Each
file's header comment maps reasons to status codes (``INVALID_ARGUMENT   MISSING_FIELD, …``).
This module reads those comments and rewrites the blocks of ``docs/api.md`` between
``<!-- generated: NAME -->`` and ``<!-- end generated -->``; ``tests/common/test_api_doc.py``
fails when the committed guide differs, so the tables cannot drift from the protos.

    python -m services.apidoc           # rewrite docs/api.md
    python -m services.apidoc --check   # exit 1 when it is stale
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from services.common.reasons import ALL_REASONS, RulesReason

ROOT = Path(__file__).resolve().parent.parent
PROTO_DIR = ROOT / "proto" / "cardroom" / "v1"
GUIDE = ROOT / "docs" / "api.md"
#: The gRPC status codes, as the proto headers name them (two are also reasons).
STATUS_CODES = (
    "INVALID_ARGUMENT", "NOT_FOUND", "ALREADY_EXISTS", "FAILED_PRECONDITION", "ABORTED",
    "UNAVAILABLE", "UNAUTHENTICATED", "PERMISSION_DENIED",
)  # fmt: skip

_SERVICE = re.compile(r"((?:^//[^\n]*\n)*)^service (\w+) \{\n(.*?)^\}", re.M | re.S)
_RPC = re.compile(
    r"((?:^ *//[^\n]*\n)*) *rpc (\w+)\((stream )?([\w.]+)\) returns \((stream )?([\w.]+)\);",
    re.M,
)
_WORD = re.compile(r"\b[A-Z][A-Z0-9_]{3,}\b")
#: Errors sections that refer to another RPC's reasons: "as GetTable", "as in Apply", and
#: "the engine's reasons" / "the rules' reasons" (those of an illegal action: Apply's).
_AS_RPC = re.compile(r"\bas ([A-Z][a-z]\w*)\b")
_ACTION_REASONS = re.compile(r"\bthe (?:engine's|rules') reasons\b|\bas in Apply\b")
_CODE_LINE = re.compile(r"^ {2,}([A-Z_]+(?: / [A-Z_]+)?) {2,}(.*)$")


@dataclass
class Rpc:
    service: str
    name: str
    request: str
    response: str
    summary: str
    access: str
    reasons: list[str]


@dataclass
class Api:
    rpcs: list[Rpc] = field(default_factory=list)
    #: The status codes each reason is given with (from the file headers).
    codes: dict[str, set[str]] = field(default_factory=dict)


def _text(comment: str) -> str:
    """A comment block as one line of prose."""
    lines = [re.sub(r"^\s*// ?", "", line) for line in comment.strip("\n").splitlines()]
    return " ".join(" ".join(lines).split())


def _section(text: str, label: str) -> str:
    """The part of ``text`` after ``label:`` up to the next label (or the end)."""
    m = re.search(rf"\b{label}:(.*?)(?=\b(?:Errors|Access):|$)", text)
    return m.group(1).strip() if m else ""


def _reasons(text: str) -> list[str]:
    return sorted({w for w in _WORD.findall(text) if w in ALL_REASONS})


def _summary(text: str) -> str:
    prose = re.split(r"\b(?:Errors|Access):", text)[0].strip()
    first = re.split(r"(?<=\.)\s+", prose)[0]
    return first.rstrip(":.") + "."


def _header(source: str) -> str:
    return source.split("\nsyntax", 1)[0]


def _header_codes(header: str, codes: dict[str, set[str]]) -> None:
    """Reason → status codes, from a header's "CODE   REASON, REASON" lines and their
    continuation lines."""
    current: list[str] = []
    for line in header.splitlines():
        text = re.sub(r"^// ?", "", line)
        m = _CODE_LINE.match(text)
        if m and all(c in STATUS_CODES for c in m.group(1).split(" / ")):
            current = m.group(1).split(" / ")
            text = m.group(2)
        elif not text.startswith("     ") or not text.strip():
            current = []
        for reason in _reasons(text):
            for code in current:
                codes.setdefault(reason, set()).add(code)


def read_api(proto_dir: Path = PROTO_DIR) -> Api:
    api = Api()
    references: dict[tuple[str, str], set[tuple[str, bool]]] = {}
    for path in sorted(proto_dir.glob("*.proto")):
        source = path.read_text()
        _header_codes(_header(source), api.codes)
        for service_comment, service, body in _SERVICE.findall(source):
            everywhere = _text(service_comment)
            common_reasons = _reasons(everywhere)
            common_access = _section(everywhere, "Access")
            for comment, name, _s1, request, stream, response in _RPC.findall(body):
                text = _text(comment)
                errors = _section(text, "Errors")
                refers = {(n, False) for n in _AS_RPC.findall(errors)}
                if _ACTION_REASONS.search(errors):
                    refers.add(("Apply", True))
                api.rpcs.append(
                    Rpc(
                        service=service,
                        name=name,
                        request=request.removeprefix("cardroom.v1."),
                        response=("stream " if stream else "")
                        + response.removeprefix("cardroom.v1."),
                        summary=_summary(text),
                        access=_section(text, "Access") or common_access,
                        reasons=sorted(set(_reasons(errors)) | set(common_reasons)),
                    )
                )
                references[(service, name)] = refers
    # Resolve "as GetTable" (the same service's RPC first, else any service's) once all are
    # read; an illegal action's reasons are the rules' reasons Apply lists.
    own = {(r.service, r.name): set(r.reasons) for r in api.rpcs}
    for r in api.rpcs:
        for name, actions_only in sorted(references[(r.service, r.name)]):
            target = (
                (r.service, name)
                if (r.service, name) in own
                else next((k for k in own if k[1] == name), None)
            )
            if target is None:
                raise ValueError(f"{r.service}.{r.name}: its Errors refer to unknown RPC {name}")
            given = own[target] & set(RulesReason) if actions_only else own[target]
            r.reasons = sorted(set(r.reasons) | given)
    for reason in ("UNAUTHENTICATED", "PERMISSION_DENIED"):
        api.codes.setdefault(reason, set()).add(reason)
    return api


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def rpc_table(api: Api) -> str:
    rows = [
        "| RPC | request → response | what it does | who may call it |",
        "|---|---|---|---|",
    ]
    for r in api.rpcs:
        rows.append(
            f"| `{r.service}.{r.name}` | `{r.request}` → `{r.response}` | {_cell(r.summary)} "
            f"| {_cell(r.access)} |"
        )
    return "\n".join(rows)


def error_table(api: Api) -> str:
    by_reason: dict[str, list[str]] = {}
    for r in api.rpcs:
        for reason in r.reasons:
            by_reason.setdefault(reason, []).append(f"{r.service.removesuffix('Service')}.{r.name}")
    rows = ["| reason | status code | RPCs that give it |", "|---|---|---|"]
    for reason in sorted(by_reason):
        codes = ", ".join(sorted(api.codes.get(reason, ()))) or "(as the RPC says)"
        rpcs = _rpc_list(by_reason[reason], api)
        rows.append(f"| `{reason}` | {codes} | {rpcs} |")
    return "\n".join(rows)


def _rpc_list(names: Iterable[str], api: Api) -> str:
    """The RPCs, or "every RPC of S" when a reason is given by every RPC of a service."""
    names = list(names)
    out: list[str] = []
    for service in dict.fromkeys(r.service for r in api.rpcs):
        short = service.removesuffix("Service")
        mine = [n for n in names if n.split(".")[0] == short]
        every = sum(1 for r in api.rpcs if r.service == service)
        if mine and len(mine) == every:
            out.append(f"every {short} RPC")
        else:
            out.extend(mine)
    return ", ".join(out)


def answer_reasons(api: Api, proto_dir: Path = PROTO_DIR) -> list[str]:
    """Reasons the protos name that no RPC refuses with: those a VerifyGame answer or an
    EVENT_MISMATCH's metadata "why" carries."""
    named = {
        w
        for path in proto_dir.glob("*.proto")
        for line in path.read_text().splitlines()
        if "//" in line
        for w in _reasons(line.split("//", 1)[1])
    }
    given = {reason for r in api.rpcs for reason in r.reasons}
    return sorted(named - given)


def blocks(api: Api) -> dict[str, str]:
    answers = ", ".join(f"`{r}`" for r in answer_reasons(api))
    return {"rpcs": rpc_table(api), "errors": error_table(api), "answers": answers}


def render(guide: str, api: Api) -> str:
    """``guide`` with every generated block rewritten."""
    for name, body in blocks(api).items():
        start, end = f"<!-- generated: {name} -->\n", "<!-- end generated -->"
        head, found, rest = guide.partition(start)
        if not found or end not in rest:
            raise ValueError(f"docs/api.md has no block {start.strip()} … {end}")
        guide = f"{head}{start}{body}\n{end}{rest.split(end, 1)[1]}"
    return guide


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    current = GUIDE.read_text()
    fresh = render(current, read_api())
    if "--check" in args:
        if fresh != current:
            print("docs/api.md is stale: run make apidoc", file=sys.stderr)
            return 1
        return 0
    GUIDE.write_text(fresh)
    print("docs/api.md", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
