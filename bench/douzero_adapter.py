"""DouZero's move generator, loaded without torch or numpy, and its card encoding.

``douzero/__init__.py`` imports ``douzero.env``, whose ``env.py`` imports numpy (and the
training code imports torch).  The three modules the benchmark needs —
``douzero.env.move_generator``, ``move_detector`` and ``move_selector`` (with ``utils``, which
they import as ``douzero.env.utils``) — need neither.  So :func:`load` registers empty
package modules for ``douzero`` and ``douzero.env`` (a ``__path__`` only, their
``__init__.py`` is never run) and loads those four files by path with
``importlib.util.spec_from_file_location``.  Nothing of DouZero's code is changed.

DouZero encodes a card by its rank only: 3..14 for 3..A, 17 for 2, 20 for the black joker
and 30 for the red one.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from services.rules.cards import RANK_OF

#: DouZero's value of each of our rank indices (3..A, 2, BJ, RJ).
DOUZERO_RANK = (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 20, 30)
#: Card id (0..53) → DouZero's value.
DOUZERO_OF_CARD = tuple(DOUZERO_RANK[RANK_OF[c]] for c in range(54))

_MODULES = ("utils", "move_detector", "move_generator", "move_selector")


def encode(cards: Sequence[int]) -> list[int]:
    """Our cards as DouZero's sorted list of rank values."""
    return sorted(DOUZERO_OF_CARD[c] for c in cards)


class DouZeroMissing(RuntimeError):
    pass


@dataclass(frozen=True)
class DouZero:
    version: str
    path: Path
    move_generator: Any  # the modules (untyped third-party code)
    move_detector: Any
    move_selector: Any
    type_names: dict[int, str]  # TYPE_1_SINGLE → "single", …
    legal_actions: Callable[[list[int], list[int]], list[list[int]]]

    @property
    def get_move_type(self) -> Callable[[list[int]], dict[str, int]]:
        fn: Callable[[list[int]], dict[str, int]] = self.move_detector.get_move_type
        return fn


def _package_dir() -> Path:
    spec = importlib.util.find_spec("douzero")  # finds the package without running it
    if spec is None or not spec.submodule_search_locations:
        raise DouZeroMissing("douzero is not installed (pip install --no-deps douzero==1.1.0)")
    return Path(next(iter(spec.submodule_search_locations)))


def _load_modules(root: Path) -> dict[str, types.ModuleType]:
    env_dir = root / "env"
    for name, path in (("douzero", root), ("douzero.env", env_dir)):
        if name not in sys.modules:
            package = types.ModuleType(name)
            package.__path__ = [str(path)]
            sys.modules[name] = package
    loaded: dict[str, types.ModuleType] = {}
    for short in _MODULES:
        name = f"douzero.env.{short}"
        module = sys.modules.get(name)
        if module is None:
            spec = importlib.util.spec_from_file_location(name, env_dir / f"{short}.py")
            if spec is None or spec.loader is None:
                raise DouZeroMissing(f"cannot load {env_dir / short}.py")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
        loaded[short] = module
    return loaded


def _legal_actions_of(
    md: Any, ms: Any, moves_gener: Any
) -> Callable[[list[int], list[int]], list[list[int]]]:
    """A faithful copy of DouZero 1.1.0's ``GameEnv.get_legal_card_play_actions``
    (douzero/env/game.py), calling DouZero's own MovesGener, get_move_type and filter_type_*
    functions.  What is replicated: the rival-move type dispatch, each branch's generator call
    and filter, adding the bombs and the rocket after any non-bomb rival move, adding the pass
    ``[]`` when there is a rival move, and sorting every move.  What is left out is only the
    game-state plumbing: the hand and the rival move are arguments instead of being read from
    ``self.info_sets[...]`` and ``self.card_play_action_seq`` (where the rival move is the last
    non-pass action).  The module references are closure locals, no slower than game.py's
    module globals ``md`` and ``ms``."""

    def get_legal_card_play_actions(hand: list[int], rival_move: list[int]) -> list[list[int]]:
        mg = moves_gener(hand)

        rival_type = md.get_move_type(rival_move)
        rival_move_type = rival_type["type"]
        rival_move_len = rival_type.get("len", 1)
        moves: list[list[int]] = []

        if rival_move_type == md.TYPE_0_PASS:
            moves = mg.gen_moves()

        elif rival_move_type == md.TYPE_1_SINGLE:
            all_moves = mg.gen_type_1_single()
            moves = ms.filter_type_1_single(all_moves, rival_move)

        elif rival_move_type == md.TYPE_2_PAIR:
            all_moves = mg.gen_type_2_pair()
            moves = ms.filter_type_2_pair(all_moves, rival_move)

        elif rival_move_type == md.TYPE_3_TRIPLE:
            all_moves = mg.gen_type_3_triple()
            moves = ms.filter_type_3_triple(all_moves, rival_move)

        elif rival_move_type == md.TYPE_4_BOMB:
            all_moves = mg.gen_type_4_bomb() + mg.gen_type_5_king_bomb()
            moves = ms.filter_type_4_bomb(all_moves, rival_move)

        elif rival_move_type == md.TYPE_5_KING_BOMB:
            moves = []

        elif rival_move_type == md.TYPE_6_3_1:
            all_moves = mg.gen_type_6_3_1()
            moves = ms.filter_type_6_3_1(all_moves, rival_move)

        elif rival_move_type == md.TYPE_7_3_2:
            all_moves = mg.gen_type_7_3_2()
            moves = ms.filter_type_7_3_2(all_moves, rival_move)

        elif rival_move_type == md.TYPE_8_SERIAL_SINGLE:
            all_moves = mg.gen_type_8_serial_single(repeat_num=rival_move_len)
            moves = ms.filter_type_8_serial_single(all_moves, rival_move)

        elif rival_move_type == md.TYPE_9_SERIAL_PAIR:
            all_moves = mg.gen_type_9_serial_pair(repeat_num=rival_move_len)
            moves = ms.filter_type_9_serial_pair(all_moves, rival_move)

        elif rival_move_type == md.TYPE_10_SERIAL_TRIPLE:
            all_moves = mg.gen_type_10_serial_triple(repeat_num=rival_move_len)
            moves = ms.filter_type_10_serial_triple(all_moves, rival_move)

        elif rival_move_type == md.TYPE_11_SERIAL_3_1:
            all_moves = mg.gen_type_11_serial_3_1(repeat_num=rival_move_len)
            moves = ms.filter_type_11_serial_3_1(all_moves, rival_move)

        elif rival_move_type == md.TYPE_12_SERIAL_3_2:
            all_moves = mg.gen_type_12_serial_3_2(repeat_num=rival_move_len)
            moves = ms.filter_type_12_serial_3_2(all_moves, rival_move)

        elif rival_move_type == md.TYPE_13_4_2:
            all_moves = mg.gen_type_13_4_2()
            moves = ms.filter_type_13_4_2(all_moves, rival_move)

        elif rival_move_type == md.TYPE_14_4_22:
            all_moves = mg.gen_type_14_4_22()
            moves = ms.filter_type_14_4_22(all_moves, rival_move)

        if rival_move_type not in [md.TYPE_0_PASS, md.TYPE_4_BOMB, md.TYPE_5_KING_BOMB]:
            moves = moves + mg.gen_type_4_bomb() + mg.gen_type_5_king_bomb()

        if len(rival_move) != 0:  # rival_move is not 'pass'
            moves = moves + [[]]  # noqa: RUF005 (DouZero's code, verbatim)

        for m in moves:
            m.sort()

        return moves

    return get_legal_card_play_actions


def load() -> DouZero:
    """DouZero's move modules; raises :class:`DouZeroMissing` when it is not installed."""
    root = _package_dir()
    mods = _load_modules(root)
    utils = mods["utils"]
    type_names = {
        value: name.split("_", 2)[2].lower()
        for name, value in vars(utils).items()
        if name.startswith("TYPE_") and isinstance(value, int)
    }
    try:
        dist_version = version("douzero")
    except PackageNotFoundError:  # pragma: no cover - found by path but not by metadata
        dist_version = "?"
    md, ms = mods["move_detector"], mods["move_selector"]
    mg = mods["move_generator"]
    return DouZero(
        version=dist_version,
        path=root,
        move_generator=mg,
        move_detector=md,
        move_selector=ms,
        type_names=type_names,
        legal_actions=_legal_actions_of(md, ms, mg.MovesGener),
    )
