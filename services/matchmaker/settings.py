"""The runner's settings: its loops' pace, leases, retries, thread pools and the people-first
policy's slots (each with the environment variable that sets it in server.py)."""

from __future__ import annotations

from dataclasses import dataclass

#: How long past its next step's due time a written table stays leased to its writer, who
#: takes that step (ms): short, so a step whose writer died or whose loop stopped (an
#: outage) is taken up again soon.
HOLD_MS = 1000


@dataclass(frozen=True)
class RunnerSettings:
    #: The loops (deadlines, seating, outbox) look for due work at most this often
    #: (seconds): work due at scattered times is taken in batches.
    tick_s: float = 0.05
    #: ...and at least this often: they sleep until the work they know of falls due, but
    #: no longer than this, the bound on how late they see work no pass or write of theirs
    #: told them of (a dead instance's lapsed leases, another's rows written meanwhile).
    idle_s: float = 1.0
    #: A pool whose tickets' skill windows still widen (seating.Window) is seated again
    #: this often (seconds), and when the last of them reaches anyone: how late a table
    #: forms that a wider window allows.
    widen_s: float = 1.0
    #: A claimed deadline is this instance's for this long (the takeover bound).
    lease_ms: int = 5000
    #: A queued ticket lives this long unless watched or polled.
    ticket_ttl_ms: int = 600_000
    #: Outbox retry backoff: first delay and cap.
    backoff_ms: int = 200
    backoff_cap_ms: int = 30_000
    #: A game's outbox rows wait this long before they are delivered, so that its next
    #: actions join them in one append: replay re-executes and commits a few actions a call
    #: instead of one (a bot table makes several a second; replay's CPU per action fell
    #: from 0.62 to 0.39 ms in the bench's bot tables).  Replay, and so GetPlayer's totals,
    #: lag the tables by about this much more; a player's streams and snapshots come from
    #: the matchmaker's own log and never wait for it.
    outbox_gather_ms: int = 200
    #: Tables advanced at once by this instance.
    concurrency: int = 64
    poll_interval_s: float = 0.25
    threads: int = 8
    #: Database threads for the calls of people (RPCs), beside ``threads`` for the runner's
    #: own tasks; as many again for people's moves (priority.ThreadsByPriority).
    call_threads: int = 4
    #: Database threads for the reads of the seat streams (Subscribe), so that a person's
    #: Act never queues behind hundreds of streams' reads.
    stream_threads: int = 4
    #: Steps of the runner's own work (bot moves, timeouts, game starts) in flight at once:
    #: a person's call, which skips this queue, then waits behind at most these in the
    #: engine's queue and the database's, however many bot tables run.
    background_steps: int = 16
    #: Moves at a table written together when each is due at once after the last (bots
    #: with no think time, seats on auto-play): one conditional write, one wake of its
    #: streams and one outbox row for the run, instead of one each a move.  16: the bench's
    #: bot tables (alternated runs, same tree) cost the matchmaker 0.26-0.33 ms of CPU an
    #: action against 0.33-0.39 at 8, and 32 saved little more; a run is one engine call,
    #: and a person's Apply may wait behind a batch of them (at 16, ~1-2 ms of the engine's
    #: worker a run).
    run_moves: int = 16
    #: The engine plays a run's bots (not the searching levels) and auto-play seats itself,
    #: in one Apply (ApplyRequest.run): one call, one token and no seat view a run instead of
    #: a GetSeatView, a choice here and an Apply a move.  Off: each move chosen here, as an
    #: engine older than runs needs.
    engine_runs: bool = True
    #: A run is written after this long (ms) even if more moves are due: its streams see
    #: the moves soon, and the table's lease (HOLD_MS) never lapses under a run.
    run_ms: int = 100
    #: Engine calls of those steps in flight at once while people act.  The engine answers
    #: in turn on one worker, so a person's call waits behind every call in flight: kept to
    #: a few, and none start while a person's call is in flight (:class:`EngineGate`).
    background_engine_calls: int = 4
    #: People act while one of their engine calls is in flight or ended less than this ago
    #: (seconds); else the steps' engine calls are not capped below ``background_steps``.
    people_quiet_s: float = 0.05
    #: The longest a step's engine call waits for people's calls in flight (seconds).
    people_first_wait_s: float = 0.03
    #: An open Subscribe stream's row lives this long unless its instance renews it (every
    #: third of it): the time a dead instance's seats still look connected.
    stream_lease_ms: int = 15_000
    #: Worker processes choosing the searching bots' moves (bots.choose_bot_move), off the
    #: event loop; 0: on it.
    bot_processes: int = 1

    @property
    def hold_ms(self) -> int:
        """The lease a write gives its table past its next step's due time (HOLD_MS, at most
        a claimed deadline's lease)."""
        return min(self.lease_ms, HOLD_MS)
