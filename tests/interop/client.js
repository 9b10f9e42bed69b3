#!/usr/bin/env node
// A game-client back end in another language than the services: it knows cardroom only from
// proto/ (loaded at run time with @grpc/proto-loader, no generated code) and plays one whole
// game of each variant it is given, as a human seat with bots filling the others:
//
//   Enqueue → WatchTicket → Ready → Subscribe → (deadline for its seat) GetHint → Act …
//   → game_over → LeaveTable, then replay's VerifyGame.
//
// It reads the typed bodies only (Event.body, TableEvent.body; never a *_json field), sends
// every Act with a request id and the table seq it last saw (on STALE_SEQ it reads the table
// and tries again), and drops its stream once in mid-game to resume it with after_seq.
//
//   node client.js --matchmaker HOST:PORT --replay HOST:PORT [--token T] VARIANT …
//
// Prints a few lines per game and, last, one "RESULT {json}" line per game (the test reads
// those).  Exits non-zero when a game fails.
"use strict";

const path = require("node:path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

const PROTO_DIR = path.resolve(__dirname, "..", "..", "proto");

function parseArgs(argv) {
  const opts = { matchmaker: "127.0.0.1:50052", replay: "127.0.0.1:50053", token: "", variants: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--matchmaker" || a === "--replay" || a === "--token") opts[a.slice(2)] = argv[++i];
    else opts.variants.push(a);
  }
  if (opts.variants.length === 0) opts.variants = ["doudizhu3"];
  return opts;
}

function load() {
  const definition = protoLoader.loadSync(
    ["cardroom/v1/matchmaker.proto", "cardroom/v1/replay.proto"],
    {
      includeDirs: [PROTO_DIR],
      keepCase: true, // field names as in the .proto files: table_id, after_seq
      longs: Number, // seqs and scores fit in a double
      enums: String, // "TICKET_STATE_SEATED"
      defaults: true, // seat 0 reads as 0, not undefined
      oneofs: true, // ev.body names the member that is set: "play", "deadline", …
    },
  );
  return grpc.loadPackageDefinition(definition).cardroom.v1;
}

function metadata(token) {
  const md = new grpc.Metadata();
  if (token) md.add("authorization", `Bearer ${token}`);
  return md;
}

// A unary call as a promise; the error keeps grpc's code and the ErrorInfo reason.
function call(stub, method, request, md) {
  return new Promise((resolve, reject) => {
    stub[method](request, md, { deadline: Date.now() + 20000 }, (err, response) => {
      if (err) {
        err.reason = reasonOf(err);
        reject(err);
      } else resolve(response);
    });
  });
}

// The google.rpc.ErrorInfo reason of a refusal, read from grpc-status-details-bin without
// decoding the Status message: the reason is a plain string field we can find by name.
function reasonOf(err) {
  const known = ["STALE_SEQ", "CONFLICT", "NOT_READY", "NOT_YOUR_TURN", "TABLE_CLOSED"];
  const raw = err.metadata && err.metadata.get("grpc-status-details-bin")[0];
  if (!raw) return "";
  const text = Buffer.from(raw).toString("latin1");
  return known.find((r) => text.includes(r)) || "";
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function seatedTicket(mm, ticket, md) {
  if (ticket.state === "TICKET_STATE_SEATED") return ticket;
  const stream = mm.WatchTicket({ ticket_id: ticket.ticket_id }, md);
  try {
    for await (const t of stream) {
      if (t.state === "TICKET_STATE_SEATED") return t;
      if (t.state !== "TICKET_STATE_QUEUED") throw new Error(`ticket ${t.state}`);
    }
  } finally {
    stream.cancel();
  }
  throw new Error("WatchTicket ended before the ticket was seated");
}

// One whole game; resolves to its summary.
async function playGame(mm, replay, variant, md) {
  const player = `node-${variant}-${process.pid}-${Date.now() % 100000}`;
  const timers = { bid_ms: 30000, turn_ms: 30000, start_ms: 30000, grace_ms: 30000, bot_think_ms: 0 };
  const enqueued = await call(mm, "Enqueue", {
    player_id: player,
    variant,
    bot_fill_after_ms: 0,
    bot_level: "easy",
    timers,
    request_id: `enqueue-${player}`,
  }, md);
  const ticket = await seatedTicket(mm, enqueued, md);
  const tableId = ticket.table_id;
  const seat = ticket.seats[0];
  const ids = { table_id: tableId, player_id: player };
  await call(mm, "Ready", ids, md);

  const game = {
    variant, table_id: tableId, seat, game_id: "", hand: "", landlord: null, events: 0,
    my_actions: 0, plays: 0, stale_retries: 0, resumed_after: 0, seqs: [], settlement: null,
  };
  let lastSeq = 0;
  let finished = false;
  while (!finished) {
    const stream = mm.Subscribe({ ...ids, after_seq: lastSeq }, md);
    let dropped = false;
    try {
      for await (const ev of stream) {
        if (ev.seq <= lastSeq) throw new Error(`seq ${ev.seq} after ${lastSeq}: resumed twice?`);
        lastSeq = ev.seq;
        game.seqs.push(ev.seq);
        game.events++;
        if (ev.type === "game") {
          readGameEvent(game, ev.game_event);
        } else {
          if (ev.body !== ev.type) throw new Error(`table event ${ev.type} has body ${ev.body}`);
          const body = ev[ev.body];
          if (ev.type === "game_started") game.game_id = body.game_id;
          if (ev.type === "deadline" && body.seat === seat) {
            await myTurn(mm, ids, game, lastSeq, md);
          }
          if (ev.type === "game_over") {
            game.settlement = body.settlement;
            game.scores = body.scores;
            finished = true;
            break;
          }
        }
        // Once, in mid-game: drop the stream and resume it after the last seq seen.
        if (!game.resumed_after && game.plays >= 3) {
          game.resumed_after = lastSeq;
          dropped = true;
          break;
        }
      }
    } finally {
      stream.cancel();
    }
    if (!finished && !dropped) throw new Error("the stream ended before the game did");
  }
  await call(mm, "LeaveTable", ids, md);
  game.verification = await verified(replay, game.game_id, md);
  return game;
}

function readGameEvent(game, ev) {
  if (ev.body !== ev.type) throw new Error(`event ${ev.type} has body ${ev.body}`);
  const body = ev[ev.body];
  switch (ev.type) {
    case "deal":
      if (body.hand) game.hand = body.hand; // our private deal event
      break;
    case "landlord":
      game.landlord = body.seat;
      break;
    case "play":
      game.plays++;
      break;
    case "game_over":
      game.seed_revealed = body.seed !== "";
      break;
    default:
      break;
  }
}

// Our seat is to move: take the engine's hint and act on it, naming the table seq we saw.
async function myTurn(mm, ids, game, seenSeq, md) {
  let expected = seenSeq;
  for (let attempt = 0; attempt < 5; attempt++) {
    const { hint } = await call(mm, "GetHint", ids, md);
    if (!hint || !hint.kind) return; // not to move after all (a timer moved the table)
    const action = { [hint.kind]: hint[hint.kind] };
    try {
      await call(mm, "Act", {
        ...ids,
        action,
        request_id: `${ids.table_id}:${expected}`,
        expected_seq: expected,
      }, md);
      game.my_actions++;
      return;
    } catch (err) {
      // STALE_SEQ: something we have not read yet happened (our own reconnect, say): read
      // the table's seq and try again if it is still our turn.
      if (err.reason !== "STALE_SEQ") throw err;
      game.stale_retries++;
      const snap = await call(mm, "GetTable", ids, md);
      const view = snap.view;
      if (!view || view._turn !== "turn" || view.turn !== snap.seat) return; // not ours now
      expected = snap.seq;
    }
  }
  throw new Error("could not act after five tries");
}

// Replay's verdict, once the outbox has delivered the whole game.
async function verified(replay, gameId, md) {
  const end = Date.now() + 30000;
  for (;;) {
    try {
      const v = await call(replay, "VerifyGame", { game_id: gameId }, md);
      if (v.ok || Date.now() > end) return v;
    } catch (err) {
      if (err.code !== grpc.status.NOT_FOUND || Date.now() > end) throw err;
    }
    await sleep(200);
  }
}

function summary(game) {
  const s = game.settlement || {};
  const who = game.landlord === null ? "" : ` landlord seat ${game.landlord},`;
  return [
    `${game.variant}: table ${game.table_id}, seat ${game.seat}, game ${game.game_id}`,
    `  dealt: ${game.hand}`,
    `  ${game.events} stream items,${who} ${game.plays} plays (${game.my_actions} ours),` +
      ` stream resumed after seq ${game.resumed_after}`,
    `  ${s.status}: scores ${JSON.stringify(game.scores)}, multiplier ${s.multiplier},` +
      ` steps ${(s.steps || []).map((t) => `${t.name}=${t.value}`).join(" ")}`,
    `  VerifyGame: ok=${game.verification.ok} chain_ok=${game.verification.chain_ok}` +
      ` replay_ok=${game.verification.replay_ok} events=${game.verification.events}` +
      ` head ${Buffer.from(game.verification.head_hash).toString("hex").slice(0, 16)}…`,
  ].join("\n");
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const v1 = load();
  const creds = grpc.credentials.createInsecure();
  const mm = new v1.MatchmakerService(opts.matchmaker, creds);
  const replay = new v1.ReplayService(opts.replay, creds);
  const md = metadata(opts.token);
  const results = [];
  for (const variant of opts.variants) {
    const game = await playGame(mm, replay, variant, md);
    console.log(summary(game));
    results.push(game);
  }
  for (const game of results) {
    const { seqs, ...rest } = game;
    rest.verification = { ok: game.verification.ok, events: game.verification.events };
    rest.increasing = seqs.every((s, i) => i === 0 || s > seqs[i - 1]);
    console.log(`RESULT ${JSON.stringify(rest)}`);
  }
  mm.close();
  replay.close();
  if (!results.every((g) => g.verification.ok)) process.exit(1);
}

main().catch((err) => {
  console.error(`interop client failed: ${err.stack || err}`);
  process.exit(2);
});
