"""Our Guandan bots against an external rule-based AI that speaks the competition wire format.

::

    python -m engine.arena_ruleai --ruleai-dir /tmp/ruleai-src/wintest/ai1 --ours heuristic \\
        --matches 40 [--budget-ms 200] [--seed 1] [--jobs 2] [--max-deals 500] \\
        [--ruleai-python python3] [--back-list competition|engine] [--progress]

The public rule-based AIs of the Huai'an / China Guandan AI competition (the baselines of the
DanZero and DanZero+ papers) are websocket clients: the server sends JSON messages (``notify``
and ``act``), a client answers ``{"actIndex": i}`` into the ``actionList`` it was sent. **No
code of any AI is in the project** (their repository has no licence): give the folder of one
(``wintest/aiN`` of ``submit-paper/Danzero_plus``, exported outside the project, see
``docs/benchmarks.md``) and each of its seats runs in its own process (this module with
``--host``), which loads that folder's client file for the seat with a stand-in for
``ws4py`` (no socket) and hands it the messages one by one.

Our engine hosts the match (``engine.match.Match``, variant ``guandan``) and its rules decide
everything; our bot plays from its own observation as in :mod:`engine.arena`. The messages are
built from our engine's state (:class:`WireTable`); the ``actionList`` of an ``act`` is our
engine's legal actions translated one to one, so the index answered maps back to our action.
Each deal set (match seed) is played twice, our bot on seats 0/2 and then on 1/3.

Wire format (the competition's, as documented by the competition and DanKS's open table):
cards ``S H C D`` + ``2..9 T J Q K A`` and ``SB`` / ``HR``; a move is ``[type, rank, cards]``
with types ``Single Pair Trips ThreeWithTwo Straight ThreePair TwoTrips StraightFlush Bomb``;
``['PASS', 'PASS', 'PASS']``; a sequence's rank is its lowest rank (``A`` for A2345, ``T`` for
TJQKA); the four jokers are ``['Bomb', 'JOKER', ...]``; joker pairs rank ``B`` / ``R``.

Prints one JSON line per match (with ``--progress``) and a summary: our W / D / L, score with a
95 % Wilson interval, the mean level margin, deals, each deal's worth to us in levels
(``deal_mean`` and ``deal_steps``: +3 a double win 双上 … −3 a double loss, see
:func:`deal_steps`), ms per decision, and the checks
``crashes`` (an exception escaped the AI or its process died) and ``illegal`` (an answer that
is not an index of the list), which must be 0.
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import json
import os
import random
import re
import resource
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
import types
from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from engine.arena import wilson
from engine.cards import RANKS, card_str

__all__ = ["WireTable", "deal_steps", "wire_move", "play_list", "play_one", "main"]

PASS = ["PASS", "PASS", "PASS"]
NONE3 = [None, None, None]
_NAMES = {
    "single": "Single",
    "pair": "Pair",
    "triple": "Trips",
    "full_house": "ThreeWithTwo",
    "straight": "Straight",
    "pair_chain": "ThreePair",
    "triple_chain": "TwoTrips",
    "bomb": "Bomb",
    "straight_flush": "StraightFlush",
    "joker_bomb": "Bomb",
}
#: Sequence types: (ranks long, cards per rank).
_SHAPE = {
    "straight": (5, 1),
    "straight_flush": (5, 1),
    "pair_chain": (3, 2),
    "triple_chain": (2, 3),
}
_SUITS = "SHCD"
_VALUE = {r: i + 2 for i, r in enumerate(RANKS)}  # 2..14 (A)
_VALUE.update({"B": 16, "R": 17})
REPLY_TIMEOUT_S = 120.0


# ---------------------------------------------------------------- wire translation
def _rank_of_pos(pos: int) -> int:
    """Rank index of a sequence position (0 = the low A, 1..12 = 2..K, 13 = the high A)."""
    return 12 if pos in (0, 13) else pos - 1


def _card_order(label: str, level: str) -> int:
    """A card's order on the wire: 2..14, the level rank 15, SB 16, HR 17."""
    if label == "SB":
        return 16
    if label == "HR":
        return 17
    return 15 if label[1] == level else _VALUE[label[1]]


def sorted_hand(cards: Iterable[int], level: str) -> list[str]:
    """A hand's labels as the server lists them: by card order, then suit ``S H C D``."""
    return sorted(
        (card_str(c) for c in cards), key=lambda s: (_card_order(s, level), _SUITS.find(s[0]))
    )


def wire_move(type_: str, key: str | None, cards: Sequence[int], level: str) -> list[Any]:
    """``[type, rank, cards]`` of one of our combos (``key``: our top rank / joker name)."""
    name = _NAMES[type_]
    if type_ == "joker_bomb":
        return [name, "JOKER", [card_str(c) for c in sorted(cards)]]
    assert key is not None
    wild = 13 + RANKS.index(level)
    nat = sorted(c for c in cards if c != wild)
    wilds = [c for c in cards if c == wild]
    if type_ in _SHAPE:
        length, per = _SHAPE[type_]
        top = 13 if key == "A" else RANKS.index(key) + 1
        low = top - length + 1
        rank = RANKS[_rank_of_pos(low)]
        out: list[int] = []
        for pos in range(low, top + 1):
            r = _rank_of_pos(pos)
            mine = [c for c in nat if c % 13 == r][:per]
            for c in mine:
                nat.remove(c)
            out += mine + [wilds.pop() for _ in range(per - len(mine))]
        return [name, rank, [card_str(c) for c in out]]
    rank = {"SB": "B", "HR": "R"}.get(key, key)
    if type_ == "single":
        return [name, rank, [card_str(c) for c in cards]]
    if type_ == "full_house":
        kr = RANKS.index(key)
        three = [c for c in nat if c < 52 and c % 13 == kr][:3]
        rest = list(nat)
        for c in three:
            rest.remove(c)
        need = 3 - len(three)
        ordered = three + wilds[:need] + rest + wilds[need:]
        return [name, rank, [card_str(c) for c in ordered]]
    return [name, rank, [card_str(c) for c in nat + wilds]]


def _low_pos(move: list[Any]) -> int:
    return 0 if move[1] == "A" else RANKS.index(move[1]) + 1


def _list_key(move: list[Any], level: str, following: bool) -> tuple[Any, ...]:
    """Order of ``actionList`` (the server's): a lead by kind and rank; a follow PASS first,
    then the joker bomb, straight flushes, bombs, joker pairs, then plays of the type led."""
    t, rank, cards = move
    if t == "PASS":
        return (-1,)
    if t == "Bomb" and rank == "JOKER":
        return (0,) if following else (3,)
    suit = _SUITS.find(cards[0][0])
    if following:
        if t == "StraightFlush":
            return (1, _low_pos(move), suit)
        if t == "Bomb":
            return (2, _card_order("S" + rank, level), len(cards))
        if t == "Pair" and rank in ("B", "R"):
            return (3, _VALUE[rank])
        return (4, *_list_key(move, level, False))
    if t == "Single":
        return (0, _card_order(cards[0], level), suit)
    if t in ("Pair", "Trips", "Bomb") and rank not in ("B", "R"):
        kind = ("Pair", "Trips", "Bomb").index(t)
        return (1, _card_order("S" + rank, level), kind, len(cards))
    if t == "Pair":
        return (2, _VALUE[rank])
    if t == "ThreeWithTwo":
        return (4, _card_order("S" + rank, level), _card_order(cards[-1], level))
    if t == "TwoTrips":
        return (5, _low_pos(move))
    if t == "ThreePair":
        return (6, _low_pos(move))
    return (7, _low_pos(move), t == "StraightFlush", suit)


def _combo(deal: Any, action: Any) -> Any:
    combo = deal.combos.read_as(action.cards, action.type)
    assert combo is not None, action
    return combo


def play_list(deal: Any, actions: Sequence[Any]) -> tuple[list[list[Any]], list[Any]]:
    """Our legal plays and pass as an ``actionList`` in the server's order, with the actions
    in the same order (entry i is action i)."""
    level = deal.level
    following = any(a.kind == "pass" for a in actions)
    rows = []
    for a in actions:
        if a.kind == "pass":
            rows.append((PASS, a))
        else:
            c = _combo(deal, a)
            rows.append((wire_move(c.type, c.key, c.cards, level), a))
    rows.sort(key=lambda row: (_list_key(row[0], level, following), row[0][2]))
    return [r[0] for r in rows], [r[1] for r in rows]


def _card_list(kind: str, actions: Sequence[Any], hand: list[str]) -> tuple[list[Any], list[Any]]:
    """Tribute or return actions, one entry per distinct card in hand order."""
    by_label = {card_str(a.card): a for a in actions}
    labels = list(dict.fromkeys(s for s in hand if s in by_label))
    return [[kind, kind, [s]] for s in labels], [by_label[s] for s in labels]


def _back_allowed(label: str, level: str) -> bool:
    """A card the competition lets a receiver give back: natural 2..T, not the level rank."""
    return label not in ("SB", "HR") and _VALUE[label[1]] <= 10 and label[1] != level


class WireTable:
    """The server's messages to the rule AI's seats of a Guandan match hosted by our engine.

    ``act(seat)`` gives the ``act`` message and our actions index for index; ``before`` /
    ``after`` around each applied action queue the ``notify`` messages; ``take(seat)`` empties
    the seat's queue. ``back_list="competition"`` offers a receiver only the cards the
    competition allows back (a subset of our rules' choice), ``"engine"`` every legal card."""

    def __init__(self, match: Any, seats: list[int], back_list: str = "competition") -> None:
        self.match = match
        self.seats = list(seats)
        self.back_list = back_list
        self.queue: dict[int, list[dict[str, Any]]] = {s: [] for s in self.seats}
        self._new_deal()

    def _notify(self, body: dict[str, Any]) -> None:
        for s in self.seats:
            self.queue[s].append(body)

    def take(self, seat: int) -> list[dict[str, Any]]:
        """The seat's pending messages, emptied."""
        out, self.queue[seat] = self.queue[seat], []
        return out

    def _new_deal(self) -> None:
        match = self.match
        deal = self.deal = match.deal
        self.play_area: list[Any] = [None] * 4
        self.cur: tuple[int, Any] = (-1, NONE3)
        self.greater: tuple[int, Any] = (-1, NONE3)
        for s in self.seats:
            self.queue[s].append({
                "type": "notify", "stage": "beginning", "myPos": s,
                "handCards": sorted_hand(deal.hand(s), deal.level),
                "curRank": RANKS.index(deal.level) + 2,
                "selfRank": match.levels[s % 2] + 2, "oppoRank": match.levels[1 - s % 2] + 2,
            })  # fmt: skip
        trib = deal.tribute
        if trib is not None and trib["anti"]:
            self._notify({"type": "notify", "stage": "anti-tribute",
                          "antiNum": len(trib["givers"]), "antiPos": list(trib["givers"])})  # fmt: skip

    def act(self, seat: int) -> tuple[dict[str, Any], list[Any]]:
        """The ``act`` message for ``seat`` (to move) and our actions in its list's order."""
        match = self.match
        deal = match.deal
        level = deal.level
        legal = match.legal_actions(seat)
        hand = sorted_hand(deal.hand(seat), level)
        cur_pos, cur_act, g_pos, g_act = -1, None, -1, NONE3
        if deal.phase == "tribute":
            stage = "tribute"
            rows, acts = _card_list("tribute", legal, hand)
        elif deal.phase == "return":
            stage = "back"
            offer = legal
            if self.back_list == "competition":
                offer = [a for a in legal if _back_allowed(card_str(a.card), level)] or legal
            rows, acts = _card_list("back", offer, hand)
        elif deal.phase == "play":
            stage = "play"
            rows, acts = play_list(deal, legal)
            if deal.leading:
                cur_act = NONE3
            else:
                (cur_pos, cur_act), (g_pos, g_act) = self.cur, self.greater
        else:
            raise ValueError(f"no act in phase {deal.phase!r}")
        msg = {
            "type": "act", "stage": stage, "handCards": hand,
            "publicInfo": [{"rest": deal.sizes[s], "playArea": self.play_area[s]} for s in range(4)],
            "selfRank": RANKS[match.levels[seat % 2]], "oppoRank": RANKS[match.levels[1 - seat % 2]],
            "curRank": level, "curPos": cur_pos, "curAction": cur_act,
            "greaterPos": g_pos, "greaterAction": g_act,
            "actionList": rows, "indexRange": len(rows) - 1,
        }  # fmt: skip
        return msg, acts

    def before(self, action: Any) -> dict[str, Any]:
        """What :meth:`after` needs, read before ``action`` is applied."""
        deal = self.match.deal
        pre: dict[str, Any] = {"deal": deal}
        if action.kind == "play":
            c = _combo(deal, action)
            pre["move"] = wire_move(c.type, c.key, c.cards, deal.level)
        return pre

    def after(self, action: Any, pre: dict[str, Any]) -> None:
        """Queue the notifications of ``action``, just applied."""
        match, old, seat = self.match, pre["deal"], action.seat
        if action.kind in ("play", "pass"):
            move = pre["move"] if action.kind == "play" else PASS
            self.cur = (seat, move)
            if action.kind == "play":
                self.greater = (seat, move)
            self.play_area[seat] = move
            self._notify({"type": "notify", "stage": "play", "curPos": seat, "curAction": move,
                          "greaterPos": self.greater[0], "greaterAction": self.greater[1]})  # fmt: skip
        elif action.kind == "tribute" and old.phase != "tribute":
            t = old.tribute
            result = [
                [g, r, card_str(c)]
                for g, r, c in zip(t["givers"], t["receivers"], t["paid"], strict=True)
            ]
            self._notify({"type": "notify", "stage": "tribute", "result": result})
        elif action.kind == "return" and old.phase != "return":
            t = old.tribute
            result = [
                [r, g, card_str(c)]
                for g, r, c in zip(t["givers"], t["receivers"], t["returned"], strict=True)
            ]
            self._notify({"type": "notify", "stage": "back", "result": result})
        if match.deal is not old or match.over:
            if old.phase == "over" and old.result is not None:
                self._notify({
                    "type": "notify", "stage": "episodeOver", "curRank": old.level,
                    "order": list(old.result["finish"]),
                    "restCards": [[s, sorted_hand(old.hand(s), old.level)]
                                  for s in range(4) if old.sizes[s]],
                })  # fmt: skip
            if not match.over:
                self._new_deal()


# ---------------------------------------------------------------- one rule-AI seat (host side)
class _Socket:
    """Stand-in for ws4py's ``WebSocketClient``: no network, what is sent is kept."""

    def __init__(self, url: Any = None, *args: Any, **kwargs: Any) -> None:
        self.url = url
        self._sent: list[str] = []

    def send(self, payload: Any, binary: bool = False) -> None:
        self._sent.append(payload if isinstance(payload, str) else payload.decode())

    def connect(self) -> None:
        pass

    def run_forever(self) -> None:
        pass

    def close(self, code: int = 1000, reason: str = "") -> None:
        pass


def _client_file(folder: str, seat: int) -> str:
    """The client file of ``folder`` that plays ``seat`` (its URL ends in ``game/client{seat}``)."""
    pattern = re.compile(
        r"^[^#]*ExampleClient\(\s*['\"]ws://[^'\"]*/game/client" + str(seat) + r"['\"]", re.M
    )
    for path in sorted(glob.glob(os.path.join(folder, "client*.py"))):
        with open(path, encoding="utf-8", errors="replace") as f:
            if pattern.search(f.read()):
                return path
    raise SystemExit(f"no client file for seat {seat} in {folder}")


def host(folder: str, seat: int, seed: int) -> int:
    """Run one rule-AI seat: read ``{"msgs": [...]}`` lines on stdin, hand each message to the
    AI's client, answer ``{"sent": [index...], "ms": ..., "errors": [...]}`` on stdout. The AI's
    own printing goes to /dev/null; it runs in the current (private) directory."""
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = open(os.devnull, "w")  # noqa: SIM115 - for the life of the process
    os.dup2(devnull.fileno(), 1)
    sys.stdout = devnull
    import logging

    logging.disable(logging.CRITICAL)
    random.seed(seed)
    ws4py = types.ModuleType("ws4py")
    client_mod = types.ModuleType("ws4py.client")
    threaded = types.ModuleType("ws4py.client.threadedclient")
    threaded.WebSocketClient = _Socket  # type: ignore[attr-defined]
    ws4py.client = client_mod  # type: ignore[attr-defined]
    client_mod.threadedclient = threaded  # type: ignore[attr-defined]
    sys.modules.update(
        {"ws4py": ws4py, "ws4py.client": client_mod, "ws4py.client.threadedclient": threaded}
    )
    for data in glob.glob(os.path.join(folder, "*.txt")):  # some AIs read data files from cwd
        if not os.path.exists(os.path.basename(data)):
            shutil.copy(data, ".")
    sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location("ruleai_client", _client_file(folder, seat))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["ruleai_client"] = module
    spec.loader.exec_module(module)
    client = module.ExampleClient(f"ws://127.0.0.1:23456/game/client{seat}")
    proto.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        reply: dict[str, Any] = {"sent": [], "ms": None, "errors": []}
        for msg in json.loads(line)["msgs"]:
            client._sent.clear()
            t0 = time.process_time()
            try:
                client.received_message(json.dumps(msg))
            except BaseException:  # noqa: BLE001 - every crash is reported, none ends the host
                reply["errors"].append(traceback.format_exc(limit=4)[-1200:])
            if msg.get("type") == "act":
                reply["ms"] = round((time.process_time() - t0) * 1000, 3)
                for payload in client._sent:
                    try:
                        reply["sent"].append(json.loads(payload)["actIndex"])
                    except Exception:  # noqa: BLE001
                        reply["sent"].append(repr(payload)[:80])
        proto.write(json.dumps(reply, default=str) + "\n")
    return 0


class _Seat:
    """The arena's handle on a rule-AI seat's process."""

    def __init__(
        self, python: str, folder: str, seat: int, seed: int, workdir: str, timeout: float
    ) -> None:
        self.timeout = timeout
        self.errfile = os.path.join(workdir, "stderr.txt")
        self.err = open(self.errfile, "w")  # noqa: SIM115 - closed in close()
        env = dict(
            os.environ, PYTHONPATH=os.pathsep.join([_ROOT, os.environ.get("PYTHONPATH", "")])
        )
        self.proc = subprocess.Popen(
            [python, "-m", "engine.arena_ruleai", "--host", folder, "--seat", str(seat),
             "--seed", str(seed)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err, cwd=workdir,
            text=True, bufsize=1, env=env,
        )  # fmt: skip
        self.dead = False
        ready = self._read()
        if not ready or not ready.get("ready"):
            raise RuntimeError(f"rule AI seat {seat} did not start: {self.stderr()}")

    def stderr(self) -> str:
        self.err.flush()
        with open(self.errfile) as f:
            return f.read()[-1500:]

    def _read(self) -> dict[str, Any] | None:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], self.timeout)
        line = self.proc.stdout.readline() if ready else ""
        return json.loads(line) if line else None

    def call(self, msgs: list[dict[str, Any]]) -> dict[str, Any] | None:
        if self.dead:
            return None
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(json.dumps({"msgs": msgs}) + "\n")
            self.proc.stdin.flush()
            reply = self._read()
        except (BrokenPipeError, OSError, ValueError):
            reply = None
        self.dead = reply is None
        return reply

    def close(self) -> None:
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except Exception:  # noqa: BLE001
            self.proc.kill()
        self.err.close()


_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ---------------------------------------------------------------- the arena
def play_one(
    seed: int,
    ours_team: int,
    ours: str,
    folder: str,
    python: str = sys.executable,
    budget_ms: float | None = None,
    max_deals: int = 500,
    back_list: str = "competition",
    reply_timeout: float = REPLY_TIMEOUT_S,
) -> dict[str, Any]:
    """One full Guandan match: our bot kind ``ours`` on the seats of ``ours_team``, the rule AI
    of ``folder`` on the others. Our outcome (1 / 0.5 / 0), level margin, deals, checks, times."""
    from engine.bots import make_bot
    from engine.match import Match

    match = Match.new("guandan", seed)
    bots = {s: make_bot(ours, f"{seed}/{s}", budget_ms) for s in range(4) if s % 2 == ours_team}
    rule_seats = [s for s in range(4) if s not in bots]
    table = WireTable(match, rule_seats, back_list)
    checks: Counter[str] = Counter()
    notes: list[str] = []
    times: dict[str, list[float]] = {"ours": [], "theirs": []}
    with tempfile.TemporaryDirectory(prefix="ruleai-") as tmp:
        seats: dict[int, _Seat] = {}
        try:
            for s in rule_seats:
                wd = os.path.join(tmp, f"seat{s}")
                os.mkdir(wd)
                seats[s] = _Seat(python, folder, s, seed * 10 + s, wd, reply_timeout)
            while not match.over and match.deal_no < max_deals:
                seat = match.to_move()
                assert seat is not None
                if seat in bots:
                    t0 = time.process_time()
                    action = bots[seat].choose(
                        match.observation(seat), lambda s=seat: match.legal_actions(s)
                    )
                    times["ours"].append((time.process_time() - t0) * 1000)
                else:
                    msg, acts = table.act(seat)
                    reply = seats[seat].call(table.take(seat) + [msg])
                    index = None
                    if reply is None:
                        checks["crashes"] += 1
                        alive = seats[seat].proc.poll() is None
                        why = f"no reply in {reply_timeout:g} s" if alive else "process died"
                        notes.append(f"{why}: " + seats[seat].stderr())
                    else:
                        checks["crashes"] += len(reply["errors"])
                        notes.extend(reply["errors"])
                        if reply["ms"] is not None:
                            times["theirs"].append(reply["ms"])
                        index = reply["sent"][0] if reply["sent"] else None
                    if isinstance(index, int) and 0 <= index < len(acts):
                        action = acts[index]
                    else:
                        if reply is not None and not reply["errors"]:
                            checks["illegal"] += 1
                            notes.append(f"index {index!r} of {len(acts)}")
                        action = match.timeout_action(seat)  # the rules' default
                pre = table.before(action)
                match.apply(action)
                table.after(action, pre)
            for s, h in seats.items():  # episodeOver must not crash either
                pending = table.take(s)
                if pending:
                    reply = h.call(pending)
                    if reply is None or reply["errors"]:
                        checks["crashes"] += 1
        finally:
            for h in seats.values():
                h.close()
    levels = list(match.levels)
    margin = levels[ours_team] - levels[1 - ours_team]
    winner = match.winner if match.over else (None if margin == 0 else int(levels[1] > levels[0]))
    outcome = 0.5 if winner is None else float(winner == ours_team)
    return {
        "seed": seed, "ours_team": ours_team, "outcome": outcome, "margin": margin,
        "levels": levels, "deals": len(match.deals), "over": match.over,
        "deal_steps": [deal_steps(d["finish"], ours_team) for d in match.deals if d.get("finish")],
        "checks": dict(checks), "notes": notes[:3], "times": times,
    }  # fmt: skip


def deal_steps(finish: Sequence[int], team: int) -> int:
    """A finished Guandan deal from ``team``'s side, in the levels it is worth: +3 when our two
    seats finished first and second (双上), +2 first and third, +1 first and fourth; the same
    negative when the other team's seat finished first. Finer than a match's outcome (one
    match is about ten deals), so trials of a few matches say more with it."""
    first = finish[0] % 2
    steps = 1
    if len(finish) > 1 and finish[1] % 2 == first:
        steps = 3
    elif len(finish) > 2 and finish[2] % 2 == first:
        steps = 2
    return steps if first == team else -steps


def _play(args: tuple[Any, ...]) -> dict[str, Any]:
    return play_one(*args)


def _ms(values: list[float]) -> dict[str, float] | None:
    if not values:
        return None
    return {
        "n": len(values),
        "median": round(statistics.median(values), 2),
        "mean": round(statistics.fmean(values), 2),
        "max": round(max(values), 2),
    }


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module docstring); ``--host DIR`` runs one rule-AI seat."""
    from engine.bots import ARENA_KINDS

    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--ruleai-dir", help="a rule AI's folder (wintest/aiN, exported)")
    p.add_argument("--ours", default="heuristic", choices=ARENA_KINDS)
    p.add_argument("--matches", type=int, default=10)
    p.add_argument("--budget-ms", type=float, default=None)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--max-deals", type=int, default=500)
    p.add_argument("--ruleai-python", default=sys.executable, help="the AI's interpreter")
    p.add_argument("--back-list", default="competition", choices=("competition", "engine"))
    p.add_argument("--progress", action="store_true", help="each match on stderr as it ends")
    p.add_argument(
        "--reply-timeout",
        type=float,
        default=REPLY_TIMEOUT_S,
        help="seconds an AI may take to answer before its seat counts as crashed",
    )
    p.add_argument("--host", help=argparse.SUPPRESS)
    p.add_argument("--seat", type=int, default=0, help=argparse.SUPPRESS)
    ns = p.parse_args(sys.argv[1:] if argv is None else argv)
    if ns.host:
        return host(os.path.abspath(ns.host), ns.seat, ns.seed)
    if not ns.ruleai_dir:
        p.error("--ruleai-dir is required")
    folder = os.path.abspath(ns.ruleai_dir)
    if not glob.glob(os.path.join(folder, "client*.py")):
        p.error(f"--ruleai-dir: no client*.py in {folder}")
    pairs = (ns.matches + 1) // 2
    work = [
        (ns.seed * 100_000 + i, team, ns.ours, folder, ns.ruleai_python, ns.budget_ms,
         ns.max_deals, ns.back_list, ns.reply_timeout)
        for i in range(pairs) for team in (0, 1)
    ]  # fmt: skip
    cpu0, wall0 = time.process_time(), time.perf_counter()
    pool = ProcessPoolExecutor(ns.jobs) if ns.jobs > 1 else None
    results = []
    for i, r in enumerate(pool.map(_play, work) if pool else map(_play, work)):
        results.append(r)
        if ns.progress:
            line = {k: v for k, v in r.items() if k not in ("times", "deal_steps")}
            print(json.dumps({"match": i, **line}), file=sys.stderr, flush=True)
    if pool:
        pool.shutdown()
    n = len(results)
    wins = sum(r["outcome"] == 1 for r in results)
    draws = sum(r["outcome"] == 0.5 for r in results)
    score = (wins + draws / 2) / n if n else 0.0
    checks: Counter[str] = Counter()
    for r in results:
        checks.update(r["checks"])
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    margins = [r["margin"] for r in results]
    steps = [v for r in results for v in r["deal_steps"]]
    out = {
        "ruleai": os.path.basename(folder.rstrip("/")), "ours": ns.ours,
        "budget_ms": ns.budget_ms, "seed": ns.seed, "matches": n,
        "ours_wins": wins, "draws": draws, "ours_losses": n - wins - draws,
        "score": round(score, 3), "ci95": list(wilson(score, n)) if n else None,
        "mean_margin": round(statistics.fmean(margins), 2) if margins else 0.0,
        "deal_mean": round(statistics.fmean(steps), 3) if steps else 0.0,
        "deal_steps": {str(k): steps.count(k) for k in (3, 2, 1, -1, -2, -3)},
        "deals": sum(r["deals"] for r in results),
        "unfinished": sum(not r["over"] for r in results),
        "crashes": checks["crashes"], "illegal": checks["illegal"],
        "ms_ours": _ms([t for r in results for t in r["times"]["ours"]]),
        "ms_theirs": _ms([t for r in results for t in r["times"]["theirs"]]),
        "cpu_s": round(time.process_time() - cpu0 + children.ru_utime + children.ru_stime, 1),
        "wall_s": round(time.perf_counter() - wall0, 1),
        "pairs": [[results[i]["outcome"], results[i + 1]["outcome"]] for i in range(0, n - 1, 2)],
    }  # fmt: skip
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
