// The web table's client: set up a table, play it by clicking, watch bots, replay a record.
"use strict";

const $ = id => document.getElementById(id);
const S = {mode: "play", games: null, table: null, seat: null, token: null, view: null, log: [],
  paused: false, timer: null, busy: false, replay: null, rstep: 0, hint: null, hintFor: -1};

async function api(method, url, body) {
  const init = {method: method, headers: {}};
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const r = await fetch(url, init);
  const data = await r.json().catch(() => ({error: `HTTP ${r.status}`}));
  if (!r.ok) throw new Error(data.error || `HTTP ${r.status}`);
  return data;
}

function say(text, kind) {
  const m = $("message");
  m.textContent = text || "";
  m.className = kind || "";
}

// ------------------------------------------------------------------ setup
function currentPlayers() {
  const g = S.games.envs[$("game").value];
  let n = g.players[+$("optset").value] || g.players[0];
  try {
    const o = JSON.parse($("options").value || "{}");
    if (o.num_players) n = o.num_players;
  } catch (e) { /* the server says what is wrong */ }
  return n;
}

function fillOptionSets() {
  const g = S.games.envs[$("game").value];
  const sel = $("optset");
  sel.innerHTML = "";
  g.option_sets.forEach((o, i) => {
    const op = document.createElement("option");
    op.value = i;
    op.textContent = i === 0 ? "default rules" : JSON.stringify(o);
    sel.appendChild(op);
  });
  $("options").value = "{}";
  fillSeats();
}

function fillSeats() {
  const n = currentPlayers();
  const box = $("seats");
  box.innerHTML = "";
  const you = $("you"), wv = $("watch-viewer");
  const keepYou = +you.value || 0;
  you.innerHTML = ""; wv.innerHTML = "";
  const spec = document.createElement("option");
  spec.value = ""; spec.textContent = "spectator (all hands)";
  wv.appendChild(spec);
  for (let q = 0; q < n; q++) {
    const lab = document.createElement("label");
    lab.textContent = `player_${q} `;
    const sel = document.createElement("select");
    sel.className = "seat-choice";
    sel.dataset.seat = q;
    for (const b of S.games.bots.concat(["checkpoint"])) {
      const op = document.createElement("option");
      op.value = b; op.textContent = b === "rl" ? "rl (shipped network)" : b;
      sel.appendChild(op);
    }
    sel.value = "normal";
    const path = document.createElement("input");
    path.className = "ckpt"; path.placeholder = "path/to/policy.npz"; path.size = 18; path.hidden = true;
    sel.addEventListener("change", () => { path.hidden = sel.value !== "checkpoint"; });
    lab.appendChild(sel); lab.appendChild(path);
    box.appendChild(lab);
    for (const target of [you, wv]) {
      const op = document.createElement("option");
      op.value = q; op.textContent = `player_${q}`;
      target.appendChild(op);
    }
  }
  you.value = Math.min(keepYou, n - 1);
  markHuman();
}

function markHuman() {
  for (const sel of document.querySelectorAll(".seat-choice")) {
    const human = S.mode === "play" && +sel.dataset.seat === +$("you").value;
    sel.disabled = human;
    sel.parentElement.classList.toggle("human", human);
  }
}

function setMode(mode) {
  S.mode = mode;
  for (const b of document.querySelectorAll(".tab")) b.classList.toggle("active", b.dataset.tab === mode);
  document.body.dataset.mode = mode;
  $("setup").hidden = mode === "replay";
  $("replay-setup").hidden = mode !== "replay";
  markHuman();
}

async function start() {
  stopTimer();
  let options;
  try {
    options = Object.assign({}, S.games.envs[$("game").value].option_sets[+$("optset").value],
      JSON.parse($("options").value || "{}"));
  } catch (e) { say(`options: ${e.message}`, "error"); return; }
  const seats = [];
  for (const sel of document.querySelectorAll(".seat-choice")) {
    const q = +sel.dataset.seat;
    if (S.mode === "play" && q === +$("you").value) seats.push("human");
    else if (sel.value === "checkpoint") seats.push("checkpoint:" + sel.parentElement.querySelector(".ckpt").value);
    else seats.push(sel.value);
  }
  const body = {env: $("game").value, options: options, seats: seats, episode: $("episode").value};
  if ($("seed").value.trim()) body.seed = +$("seed").value;
  say("dealing ...");
  try {
    const t = await api("POST", "/api/tables", body);
    S.table = t.table;
    if (S.mode === "play") {
      S.seat = +$("you").value;
      S.token = t.tokens[String(S.seat)];
    } else {
      S.seat = $("watch-viewer").value === "" ? null : +$("watch-viewer").value;
      S.token = null;
    }
    S.log = []; S.view = null; S.paused = false; S.hint = null; S.replay = null;
    $("pause").textContent = "Pause";
    $("board").hidden = false;
    document.querySelector(".replay-controls").hidden = true;
    $("download").hidden = false;
    say("");
    await refresh();
    schedule();
  } catch (e) { say(e.message, "error"); }
}

function query() {
  const p = new URLSearchParams();
  if (S.seat !== null) p.set("seat", S.seat);
  if (S.token) p.set("token", S.token);
  return p;
}

async function refresh() {
  const p = query();
  p.set("since", S.log.length);
  show(await api("GET", `/api/tables/${S.table}?${p}`));
}

function accept(v) {
  if (v.since === S.log.length) S.log = S.log.concat(v.log);
  else S.log = S.log.slice(0, v.since).concat(v.log);
  S.view = v;
}

// ------------------------------------------------------------------ the loop: bots at the chosen pace
function busy(on) {
  S.busy = on;
  document.body.dataset.busy = on ? "1" : "0";
}

function stopTimer() { if (S.timer) clearTimeout(S.timer); S.timer = null; }

function schedule() {
  stopTimer();
  const v = S.view;
  if (!v || v.terminal || S.paused || !v.bot_to_move) return;
  S.timer = setTimeout(tick, +$("pace").value);
}

async function tick(force) {
  S.timer = null;
  const v = S.view;
  if (!v || v.terminal || S.busy || (!force && S.paused) || !v.bot_to_move) return;
  busy(true);
  try {
    const body = {n: 1, since: S.log.length, seat: S.seat};
    if (S.token) body.token = S.token;
    show(await api("POST", `/api/tables/${S.table}/advance`, body));
  } catch (e) { say(e.message, "error"); }
  busy(false);
  if (!force) schedule();
}

async function play(move) {
  if (S.busy) return;
  busy(true);
  $("choose").hidden = true;
  try {
    const v = await api("POST", `/api/tables/${S.table}/move`,
      {seat: S.seat, token: S.token, move: move, expect: S.view.steps, since: S.log.length});
    say("");
    show(v);
  } catch (e) { say(e.message, "error"); }
  busy(false);
  schedule();
}

// ------------------------------------------------------------------ drawing the view
function seatName(v, q) {
  const who = v.seats ? v.seats[q] : "";
  return `player_${q}` + (q === v.viewer ? " (you)" : "") + (who && q !== v.viewer ? ` · ${who}` : "");
}

function movesFor(v, token) {
  return v.legal.filter(m => m.move === token || (v.family === "dominoes" && m.move.slice(0, 2) === token));
}

function show(v) {
  if (v.log !== undefined && v.since !== undefined) accept(v); else S.view = v;
  const fam = v.family;
  document.body.dataset.family = fam;
  $("text").innerHTML = fam === "cards" ? suitText(v.text) : escapeHtml(v.text);
  $("status").textContent = statusLine(v);
  // the others
  const others = $("others");
  others.innerHTML = "";
  const n = v.counts.length;
  const me = v.viewer === null ? null : v.viewer;
  for (let k = 0; k < n; k++) {
    const q = me === null ? k : (me + 1 + k) % n;
    if (q === me) continue;
    const box = document.createElement("div");
    box.className = "seat" + (q === v.to_move ? " to-move" : "");
    box.dataset.seat = q;
    const name = document.createElement("div");
    name.className = "name";
    name.textContent = `${seatName(v, q)} — ${v.counts[q]} in hand`;
    box.appendChild(name);
    const row = document.createElement("div");
    row.className = "pieces";
    const hand = v.hands[String(q)];
    if (hand) for (const t of hand) row.appendChild(pieceSvg(fam, t, true));
    else for (let i = 0; i < v.counts[q]; i++) row.appendChild(backSvg(fam, true));
    box.appendChild(row);
    others.appendChild(box);
  }
  // the line
  const line = $("line");
  line.innerHTML = "";
  if (fam === "dominoes") line.appendChild(lineEl(v.line, v.ends));
  // my hand and moves
  const hand = $("hand"), moves = $("moves");
  hand.innerHTML = ""; moves.innerHTML = "";
  $("mine").classList.toggle("to-move", me !== null && v.to_move === me);
  if (me !== null) {
    const used = new Set();
    for (const t of v.hands[String(me)] || []) {
      const mv = movesFor(v, t);
      mv.forEach(m => used.add(m.move));
      const el = document.createElement("button");
      el.className = "piece" + (mv.length ? " legal" : "");
      el.dataset.token = t;
      el.dataset.legal = mv.length ? "1" : "0";
      el.title = mv.length ? `play ${mv.map(m => m.move).join(" or ")}` : `${t}: not a legal move now`;
      el.appendChild(pieceSvg(fam, t, false));
      el.addEventListener("click", () => clickPiece(t));
      hand.appendChild(el);
    }
    for (const m of v.legal) {
      if (used.has(m.move)) continue;
      const b = document.createElement("button");
      b.className = "move legal";
      b.dataset.move = m.move;
      b.textContent = m.move;
      b.addEventListener("click", () => play(m.move));
      moves.appendChild(b);
    }
  }
  drawSheet(v);
  drawLog();
  drawHint(v);
  $("download").href = `/api/tables/${S.table}/record?${query()}`;
  $("download").classList.toggle("disabled", v.seats && v.seats.includes("human") && !v.terminal);
}

function escapeHtml(t) {
  return t.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

// The engine's text table with each card written as its rank and a coloured suit sign (7H -> 7♥).
function suitText(t) {
  return escapeHtml(t).replace(/\b([6-9TJQKA])([CDHS])\b/g, (all, r, su) =>
    `<span class="c ${su === "H" || su === "D" ? "red" : "black"}" title="${all}">${RANKS[r] || r}${SUITS[su]}</span>`);
}

function statusLine(v) {
  if (v.terminal) return "over";
  const whose = v.to_move === v.viewer ? "your turn" : `player_${v.to_move} to move`;
  return `deal ${v.deal} · ${whose}` + (S.paused ? " · paused" : "");
}

function clickPiece(token) {
  const v = S.view;
  const mv = movesFor(v, token);
  if (mv.length === 0) { play(token); return; }  // the server says why it is not legal
  if (mv.length === 1) { play(mv[0].move); return; }
  const box = $("choose");
  box.innerHTML = "";
  const q = document.createElement("span");
  q.textContent = `${token} fits more than one end — which? `;
  box.appendChild(q);
  for (const m of mv) {
    const b = document.createElement("button");
    b.className = "end-choice";
    b.dataset.move = m.move;
    const end = m.move.slice(2).replace(/x$/, ""), closed = m.move.endsWith("x");
    b.textContent = m.move.includes("+") ? `${m.move} (both doubles)`
      : (end ? `end ${end}` : "lead") + (closed ? " (closed)" : "");
    b.addEventListener("click", () => play(m.move));
    box.appendChild(b);
  }
  box.hidden = false;
}

function sideName(v, s) {
  const seats = v.sides.map((x, q) => x === s ? `player_${q}` : null).filter(x => x);
  return seats.join("+");
}

function cell(row, text, tag) {
  const c = document.createElement(tag || "td");
  c.textContent = text;
  row.appendChild(c);
}

function drawSheet(v) {
  const sheet = $("sheet");
  sheet.innerHTML = "";
  sheet.dataset.deals = v.results.length;
  sheet.dataset.over = v.terminal ? "1" : "0";
  if (!v.results.length && !v.match) return;
  const nsides = Math.max(...v.sides) + 1;
  const tbl = document.createElement("table");
  tbl.className = "results";
  const head = document.createElement("tr");
  cell(head, "deal", "th"); cell(head, "ended by", "th"); cell(head, "eggs", "th");
  for (let s = 0; s < nsides; s++) cell(head, `${sideName(v, s)} wrote / score`, "th");
  cell(head, "winners", "th"); cell(head, "seat points", "th"); cell(head, "more", "th");
  tbl.appendChild(head);
  const common = new Set(["deal", "ended_by", "eggs", "winners", "losers", "written", "scores", "seat_points"]);
  for (const r of v.results) {
    const tr = document.createElement("tr");
    cell(tr, r.deal); cell(tr, r.ended_by); cell(tr, r.eggs ? "eggs" : "");
    for (let s = 0; s < nsides; s++) cell(tr, `${r.written[s]} / ${r.scores[s]}`);
    cell(tr, r.winners.map(s => sideName(v, s)).join(", ") || "—");
    cell(tr, r.seat_points.join(" "));
    const more = Object.entries(r).filter(([k]) => !common.has(k))
      .map(([k, x]) => `${k}: ${typeof x === "object" ? JSON.stringify(x) : x}`).join("; ");
    cell(tr, more);
    tbl.appendChild(tr);
  }
  const h = document.createElement("h3");
  h.textContent = "Result sheet";
  sheet.appendChild(h);
  sheet.appendChild(tbl);
  if (v.match) {
    const m = v.match;
    const p = document.createElement("div");
    p.className = "match-end";
    const names = xs => xs.map(s => sideName(v, s)).join(", ") || "nobody";
    p.textContent = `Over (${m.ended_by}) — winners: ${names(m.winners)}; goats: ${names(m.goats)}` +
      (m.titles.length ? `; titles: ${m.titles.join(", ")}` : "") + `; scores ${m.scores.join(" : ")}`;
    sheet.appendChild(p);
  }
}

function describe(e) {
  const who = e.seat === undefined ? "" : `player_${e.seat} `;
  const parts = [];
  if (e.move !== undefined) parts.push(`${who}plays ${e.move}`);
  else if (e.seat !== undefined) parts.push(`${who}moves`);
  for (const ev of e.events || []) {
    if (ev.type === "deal_end") { parts.push(`deal ${ev.deal} over (${ev.result.ended_by})`); continue; }
    if (ev.type === "deal") {
      parts.push("new deal" + (ev.private && ev.private.hand ? `: your hand ${ev.private.hand}` : ""));
      continue;
    }
    const s = ev.seat === undefined ? "" : `player_${ev.seat} `;
    let t = `${s}${ev.type}`;
    if (ev.public !== undefined && ev.public !== null) t += ` ${JSON.stringify(ev.public)}`;
    if (ev.private !== undefined) t += ` (${JSON.stringify(ev.private)})`;
    parts.push(t);
  }
  return parts.join("; ");
}

function drawLog() {
  const ol = $("log");
  ol.innerHTML = "";
  for (const e of S.log.slice(-200)) {
    const text = describe(e);
    if (!text) continue;
    const li = document.createElement("li");
    li.textContent = text;
    ol.appendChild(li);
  }
  const last = S.log.length ? describe(S.log[S.log.length - 1]) : "";
  if (last && !$("message").classList.contains("error")) say(last);
}

// ------------------------------------------------------------------ hints
async function drawHint(v) {
  const box = $("hintbox");
  if (!$("hints").checked || !v.legal.length || S.mode !== "play") { box.hidden = true; return; }
  box.hidden = false;
  if (S.hintFor !== v.steps) {
    S.hintFor = v.steps;
    box.textContent = "thinking ...";
    try {
      S.hint = await api("GET", `/api/tables/${S.table}/hint?${query()}`);
    } catch (e) { box.textContent = e.message; return; }
  }
  const h = S.hint;
  box.innerHTML = "";
  const t = document.createElement("div");
  t.textContent = h.policy ? "network: " + h.policy.map(d => `${d.move} ${d.p >= 0.001 ? (100 * d.p).toFixed(1) + "%" : "<0.1%"}`).join(", ")
    : `network: ${h.policy_note}`;
  box.appendChild(t);
  const x = document.createElement("div");
  x.textContent = h.expert ? `expert would play ${h.expert}` : `expert: ${h.expert_note}`;
  box.appendChild(x);
}

// ------------------------------------------------------------------ replay
async function uploadRecord(file) {
  stopTimer();
  const text = await file.text();
  try {
    const r = await api("POST", "/api/replays", text);
    await openReplay(r.replay);
  } catch (e) { say(e.message, "error"); }
}

async function openReplay(rid) {
  S.replay = rid; S.table = null; S.rstep = 0;
  $("board").hidden = false;
  document.querySelector(".replay-controls").hidden = false;
  $("download").hidden = true;
  await replayShow(0);
}

async function replayShow(step) {
  const sel = $("replay-viewer");
  const viewer = sel.value;
  const p = new URLSearchParams({step: step});
  if (viewer !== "") p.set("seat", viewer);
  try {
    const v = await api("GET", `/api/replays/${S.replay}?${p}`);
    S.rstep = v.step;
    if (sel.options.length !== v.counts.length + 1) {
      sel.innerHTML = "<option value=''>spectator</option>" +
        v.counts.map((_, q) => `<option value="${q}">player_${q}</option>`).join("");
      sel.value = viewer;
    }
    $("replay-step").max = v.steps;
    $("replay-step").value = v.step;
    $("replay-pos").textContent = `move ${v.step} of ${v.steps}`;
    $("replay-pos").dataset.step = v.step;
    v.legal = [];
    v.seats = null;
    S.log = v.moves.map(m => ({seat: m.seat, move: m.move}));
    show(v);
    say(v.step ? describe(S.log[v.step - 1]) : "start of the record");
  } catch (e) { say(e.message, "error"); }
}

// ------------------------------------------------------------------ wiring
async function init() {
  S.games = await api("GET", "/api/games");
  const g = $("game");
  for (const name of Object.keys(S.games.envs)) {
    const op = document.createElement("option");
    op.value = name; op.textContent = name;
    g.appendChild(op);
  }
  g.addEventListener("change", fillOptionSets);
  $("optset").addEventListener("change", fillSeats);
  $("options").addEventListener("change", fillSeats);
  $("you").addEventListener("change", markHuman);
  fillOptionSets();
  for (const b of document.querySelectorAll(".tab")) b.addEventListener("click", () => setMode(b.dataset.tab));
  $("start").addEventListener("click", start);
  $("pace").addEventListener("input", () => { $("pace-ms").textContent = `${$("pace").value} ms`; });
  $("pause").addEventListener("click", () => {
    S.paused = !S.paused;
    $("pause").textContent = S.paused ? "Resume" : "Pause";
    if (S.view) $("status").textContent = statusLine(S.view);
    schedule();
  });
  $("step").addEventListener("click", () => tick(true));
  $("hints").addEventListener("change", () => S.view && drawHint(S.view));
  $("replay-file").addEventListener("change", e => e.target.files[0] && uploadRecord(e.target.files[0]));
  $("replay-prev").addEventListener("click", () => replayShow(Math.max(0, S.rstep - 1)));
  $("replay-next").addEventListener("click", () => replayShow(S.rstep + 1 > +$("replay-step").max ? S.rstep : S.rstep + 1));
  $("replay-start").addEventListener("click", () => replayShow(0));
  $("replay-end").addEventListener("click", () => replayShow(+$("replay-step").max));
  $("replay-step").addEventListener("change", () => replayShow(+$("replay-step").value));
  $("replay-viewer").addEventListener("change", () => replayShow(S.rstep));
  setMode("play");
  const m = location.hash.match(/replay=([\w-]+)/);
  if (m) { setMode("replay"); await openReplay(m[1]); }
}

init().catch(e => say(e.message, "error"));
