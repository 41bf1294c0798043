// Drawing cards and dominoes tiles as SVG (no library). Tokens are the game's notation: "7C", "TD", "AS"
// for cards (T = ten), "35" for a tile.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const SUITS = {C: "♣", D: "♦", H: "♥", S: "♠"};
const RANKS = {T: "10"};

function svgEl(name, attrs, parent) {
  const el = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  if (parent) parent.appendChild(el);
  return el;
}

function cardSvg(token, small) {
  const w = small ? 34 : 52, h = small ? 48 : 74;
  const svg = svgEl("svg", {width: w, height: h, viewBox: "0 0 52 74", class: "card"});
  svgEl("rect", {x: 1, y: 1, width: 50, height: 72, rx: 5, class: "face"}, svg);
  const rank = token.slice(0, -1), suit = token.slice(-1);
  const red = suit === "H" || suit === "D";
  const color = red ? "#c0182a" : "#111";
  const t = svgEl("text", {x: 5, y: 19, fill: color, "font-size": 17, "font-weight": "bold"}, svg);
  t.textContent = RANKS[rank] || rank;
  const s = svgEl("text", {x: 26, y: 55, fill: color, "font-size": 30, "text-anchor": "middle"}, svg);
  s.textContent = SUITS[suit] || suit;
  svg.setAttribute("aria-label", token);
  return svg;
}

const SPOTS = {0: [], 1: [[1, 1]], 2: [[0, 0], [2, 2]], 3: [[0, 0], [1, 1], [2, 2]],
  4: [[0, 0], [2, 0], [0, 2], [2, 2]], 5: [[0, 0], [2, 0], [1, 1], [0, 2], [2, 2]],
  6: [[0, 0], [0, 1], [0, 2], [2, 0], [2, 1], [2, 2]]};

function pips(svg, x0, y0, size, value) {
  const at = [0.24, 0.5, 0.76].map(f => f * size);
  for (const [c, r] of SPOTS[value] || []) {
    svgEl("circle", {cx: x0 + at[c], cy: y0 + at[r], r: size / 10, class: "pip"}, svg);
  }
}

// A tile [a, b]: upright (a on top) or lying (a on the left).
function tileSvg(a, b, opts) {
  const o = opts || {};
  const u = o.small ? 22 : 30;
  const lying = !!o.lying;
  const w = lying ? 2 * u + 1 : u, h = lying ? u : 2 * u + 1;
  const svg = svgEl("svg", {width: w + 2, height: h + 2, viewBox: `-1 -1 ${w + 2} ${h + 2}`, class: "tile"});
  svgEl("rect", {x: 0, y: 0, width: w, height: h, rx: 4, class: "face"}, svg);
  if (lying) {
    svgEl("line", {x1: u + 0.5, y1: 3, x2: u + 0.5, y2: u - 3, class: "bar"}, svg);
    pips(svg, 0, 0, u, a); pips(svg, u + 1, 0, u, b);
  } else {
    svgEl("line", {x1: 3, y1: u + 0.5, x2: u - 3, y2: u + 0.5, class: "bar"}, svg);
    pips(svg, 0, 0, u, a); pips(svg, 0, u + 1, u, b);
  }
  svg.setAttribute("aria-label", `${a}${b}`);
  return svg;
}

function backSvg(family, small) {
  const w = family === "dominoes" ? (small ? 14 : 20) : (small ? 24 : 34);
  const h = family === "dominoes" ? 2 * w + 1 : Math.round(w * 1.42);
  const svg = svgEl("svg", {width: w, height: h, class: "back"});
  svgEl("rect", {x: 0.5, y: 0.5, width: w - 1, height: h - 1, rx: 3, class: "backface"}, svg);
  return svg;
}

function pieceSvg(family, token, small) {
  if (family === "dominoes") return tileSvg(+token[0], +token[1], {small: small});
  return cardSvg(token, small);
}

// An end of the line: a half tile with its number (dead: a cross, empty: a frame).
function endSvg(slot, value) {
  const s = 30;
  const svg = svgEl("svg", {width: s + 2, height: s + 16, viewBox: `-1 -1 ${s + 2} ${s + 16}`, class: "end"});
  if (value === "dead") {
    svgEl("rect", {x: 0, y: 0, width: s, height: s, rx: 4, class: "backface"}, svg);
    svgEl("line", {x1: 5, y1: 5, x2: s - 5, y2: s - 5, class: "cross"}, svg);
    svgEl("line", {x1: s - 5, y1: 5, x2: 5, y2: s - 5, class: "cross"}, svg);
  } else if (value === "") {
    svgEl("rect", {x: 0, y: 0, width: s, height: s, rx: 4, class: "empty"}, svg);
  } else {
    svgEl("rect", {x: 0, y: 0, width: s, height: s, rx: 4, class: "face"}, svg);
    pips(svg, 0, 0, s, +value);
  }
  const t = svgEl("text", {x: s / 2, y: s + 12, "text-anchor": "middle", class: "slotname"}, svg);
  t.textContent = `${slot}=${value === "" ? "-" : value}`;
  return svg;
}

// The line: the arms of each end, outward from the opening tile. Two ends: one row, L arm reversed on the
// left. Four (Donkey): a cross, U above and D below.
function lineEl(line, ends) {
  const box = document.createElement("div");
  box.className = "line";
  if (!line || !line.center) {
    box.textContent = "no tile on the line yet";
    return box;
  }
  const row = document.createElement("div");
  row.className = "line-row";
  const add = (parent, t, lying) => parent.appendChild(tileSvg(t[0], t[1], {small: true, lying: lying}));
  const left = (line.arms.L || []).slice().reverse();
  for (const t of left) add(row, [t[1], t[0]], t[0] !== t[1]);
  const c = line.center;
  add(row, c, c[0] !== c[1]);
  for (const t of line.arms.R || []) add(row, t, t[0] !== t[1]);
  if (line.arms.U !== undefined) {
    const up = document.createElement("div"); up.className = "line-col";
    for (const t of (line.arms.U || []).slice().reverse()) add(up, [t[1], t[0]], t[0] === t[1]);
    const down = document.createElement("div"); down.className = "line-col";
    for (const t of line.arms.D || []) add(down, t, t[0] === t[1]);
    box.appendChild(up);
    box.appendChild(row);
    box.appendChild(down);
  } else {
    box.appendChild(row);
  }
  const endsRow = document.createElement("div");
  endsRow.className = "ends";
  for (const e of ends || []) endsRow.appendChild(endSvg(e.slot, e.value));
  box.appendChild(endsRow);
  return box;
}
