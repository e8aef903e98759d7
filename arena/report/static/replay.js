// The replay page's script (arena/report/replay.py puts it inline). It reads the match from the
// JSON block and builds the table with DOM calls only: every text from the record is set with
// textContent, never parsed as markup (names, fault lines and protocol lines come from bots).
// In a seat's view only that seat's data ("seen": what the referee sent it, and what its bot
// wrote to stderr) is rendered, so the other hands are absent from the DOM, not hidden by style.
"use strict";
(function () {
  const M = JSON.parse(document.getElementById("match-data").textContent);
  const SUITS = {C: "♣", S: "♠", H: "♥", D: "♦"};
  const RANKS = {T: "10"};
  const state = {d: 0, f: 0, seat: null};

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  // A citation of the rules ("RULES.md §5.4", in a referee's reason) links to its section of the
  // report's rules page, when the page says there is one (meta sixtysix-rules); the text around
  // it stays text (it may come from a bot).
  const RULES = (document.querySelector('meta[name="sixtysix-rules"]') || {}).content || null;
  function cited(node, text) {
    const parts = String(text).split(/(RULES\.md §\d+(?:\.\d+)*)/);
    parts.forEach((part, i) => {
      if (i % 2 && RULES) {
        const a = el("a", "", part);
        a.href = RULES + "#s" + part.slice("RULES.md §".length);
        node.appendChild(a);
      } else if (part) node.appendChild(document.createTextNode(part));
    });
    return node;
  }
  function cards(text) { return text ? text.split(" ").filter(Boolean) : []; }
  function card(code, extra) {
    const suit = code.slice(-1), rank = code.slice(0, -1);
    const node = el("span", "card " + suit + (extra ? " " + extra : ""));
    node.appendChild(el("span", "r", RANKS[rank] || rank));
    node.appendChild(el("span", "s", SUITS[suit] || suit));
    node.title = code;
    return node;
  }
  function back(extra) { return el("span", "card back" + (extra ? " " + extra : "")); }
  function mini(code) {
    const suit = code.slice(-1), rank = code.slice(0, -1);
    return el("span", "mini " + suit, (RANKS[rank] || rank) + (SUITS[suit] || suit));
  }
  function figures(values) { return (values || []).join("–"); }

  // Seats around the table, clockwise from the bottom; the viewing seat sits at the bottom.
  const PLACES = {2: ["bottom", "top"], 3: ["bottom", "top-left", "top-right"],
                  4: ["bottom", "left", "top", "right"]};
  function place(seat) {
    const n = M.players, first = state.seat === null ? 0 : state.seat;
    return (PLACES[n] || PLACES[4])[(seat - first + n) % n];
  }

  function deal() { return M.deals[state.d]; }
  function frame() { return deal().frames[state.f]; }

  function frameName(d, f) {
    const fr = d.frames[f];
    if (fr.k === "start") return "the deal";
    if (fr.k === "end") return "end of the deal";
    return "trick " + (fr.n + 1);
  }

  function go(d, f) {
    if (!M.deals.length) return;
    d = Math.max(0, Math.min(M.deals.length - 1, d));
    f = Math.max(0, Math.min(M.deals[d].frames.length - 1, f));
    state.d = d; state.f = f;
    render();
  }
  function step(delta) {
    const last = deal().frames.length - 1;
    if (delta > 0 && state.f === last) go(state.d + 1, 0);
    else if (delta < 0 && state.f === 0 && state.d > 0) go(state.d - 1, M.deals[state.d - 1].frames.length - 1);
    else go(state.d, state.f + delta);
  }
  function dealStep(delta) {
    if (delta < 0 && state.f > 0) go(state.d, 0); else go(state.d + delta, 0);
  }
  function view(seat) {
    state.seat = seat === null || seat < 0 || seat >= M.players ? null : seat;
    render();
  }

  function renderSeat(table, seat, fr, seen) {
    const d = deal();
    const box = el("div", "seat " + place(seat));
    box.dataset.seat = seat;
    const label = el("div", "name" + (fr.won === seat ? " won" : ""), M.names[seat]);
    label.title = "seat " + seat + ": " + M.names[seat];
    if (d.dealer === seat) label.appendChild(el("span", "badge", "dealer"));
    if (fr.lead === seat && fr.k !== "start") label.appendChild(el("span", "badge", "leads"));
    if (M.players === 4) label.appendChild(el("span", "badge", seat % 2 ? "B+D" : "A+C"));
    box.appendChild(label);
    const hand = el("div", "hand");
    const playedHere = new Set((fr.plays || []).filter(p => p[0] === seat).map(p => p[1]));
    if (state.seat === null) {
      for (const c of cards(fr.hands[seat])) hand.appendChild(card(c, (c.slice(-1) === d.trump ? "trump" : "") + (playedHere.has(c) ? " played" : "")));
    } else if (seat === state.seat) {
      for (const c of cards(seen.hand)) hand.appendChild(card(c, (c.slice(-1) === d.trump ? "trump" : "") + (playedHere.has(c) ? " played" : "")));
    } else {
      const count = seen.sizes ? seen.sizes[seat] : 0;
      for (let i = 0; i < count; i++) hand.appendChild(back("small"));
    }
    box.appendChild(hand);
    table.appendChild(box);
  }

  function renderTable(fr, seen) {
    const d = deal(), table = document.getElementById("table");
    table.replaceChildren();
    for (let seat = 0; seat < M.players; seat++) renderSeat(table, seat, fr, seen);
    const center = el("div", "");
    center.id = "center";
    for (const [seat, c] of fr.plays || []) {
      const p = el("div", "play" + (fr.won === seat ? " winner" : ""));
      p.appendChild(card(c, c.slice(-1) === d.trump ? "trump" : ""));
      p.appendChild(el("span", "who", M.names[seat]));
      center.appendChild(p);
    }
    if (fr.k === "end" && state.seat === null && !(fr.plays || []).length) {
      center.appendChild(el("div", "banner", d.settle || "the match stopped here"));
    }
    table.appendChild(center);
    const stock = el("div", "");
    stock.id = "stock";
    stock.appendChild(el("div", "trump", SUITS[d.trump]));
    stock.appendChild(el("div", "", "trump"));
    const up = state.seat === null ? fr.up : seen.up;
    if (up) stock.appendChild(card(up, "small trump"));
    const size = state.seat === null ? fr.stock : seen.stock;
    stock.appendChild(el("div", "", "stock " + (size || 0) + (state.seat === null && fr.ss && fr.ss !== "open" ? " (" + fr.ss + ")" : "")));
    table.appendChild(stock);
    if (state.seat === null && d.dead) {
      const dead = el("div", "");
      dead.id = "dead";
      dead.appendChild(el("div", "", "dealt to nobody"));
      const row = el("div", "hand");
      for (const c of cards(d.dead)) row.appendChild(card(c, "small"));
      dead.appendChild(row);
      table.appendChild(dead);
    }
  }

  function renderHistory(side) {
    const d = deal();
    side.appendChild(el("h2", "", "Tricks of deal " + d.no));
    const list = el("ol", "");
    list.id = "history";
    d.frames.forEach((fr, f) => {
      // A seat has been sent the tricks played so far, not those to come.
      if (fr.k === "start" || (state.seat !== null && f > state.f)) return;
      const li = el("li", f === state.f ? "here" : "");
      if ((fr.notes || []).some(n => /wrong|fault|missed/.test(n[0])) && state.seat === null) li.className += " flag";
      if (fr.k === "end") li.textContent = state.seat === null ? "end: " + (d.settle || "the match stopped here") : "end of the deal";
      else {
        li.appendChild(el("span", "", (fr.n + 1) + ". "));
        (fr.plays || []).forEach(([seat, c], i) => {
          if (i) li.appendChild(document.createTextNode(", "));
          li.appendChild(document.createTextNode(M.names[seat] + " "));
          li.appendChild(mini(c));
        });
        if (fr.won !== undefined) li.appendChild(document.createTextNode(" → " + M.names[fr.won]));
      }
      li.addEventListener("click", () => go(state.d, f));
      list.appendChild(li);
    });
    side.appendChild(list);
  }

  // What a seat's bot wrote to its stderr for its decisions shown at this step (the record's
  // debug lines, for the bot's author): text from a bot, so set as text like everything else.
  function renderDebug(parent, seat, entries) {
    if (!entries || !entries.length) return;
    const box = el("div", "debug");
    box.dataset.seat = seat;
    box.appendChild(el("p", "facts", "What " + M.names[seat] + " (seat " + seat + ") wrote to its stderr:"));
    for (const entry of entries) {
      box.appendChild(el("p", "debug-at", entry.at));
      box.appendChild(el("pre", "lines debug-lines", (entry.lines || []).join("\n")));
      if (entry.dropped) {
        box.appendChild(el("p", "note debug-dropped", "and " + entry.dropped + " more bytes, not kept (a record keeps " +
          M.debug_caps[0] + " bytes a decision and " + M.debug_caps[1] + " a match)"));
      }
    }
    parent.appendChild(box);
  }

  function renderSide(fr, seen) {
    const d = deal(), side = document.getElementById("side");
    side.replaceChildren();
    side.appendChild(el("h2", "", "Deal " + d.no + " · " + frameName(d, state.f)));
    const facts = el("p", "facts", M.names[d.dealer] + " deals; trump " + SUITS[d.trump]);
    side.appendChild(facts);
    if (state.seat === null) {
      for (const [cls, text] of fr.notes || []) side.appendChild(cited(el("p", "note " + cls), text));
      if (fr.totals) {
        const t = el("p", "totals", "True totals " + figures(fr.totals) + ", tricks " + figures(fr.tricks) +
          (M.players > 2 ? " (" + M.sides.join(" – ") + ")" : " (" + M.names.join(" – ") + ")"));
        t.title = "card points + credited marriages + last-trick bonus (RULES.md §7.1); no bot is told these during a deal";
        side.appendChild(t);
      }
      for (let seat = 0; seat < M.players; seat++) renderDebug(side, seat, deal().seen[seat][state.f].debug);
    } else {
      side.appendChild(el("p", "facts", "What the referee sent " + M.names[state.seat] + " (seat " + state.seat + ")" +
        (state.f === 0 ? " up to the deal" : " during this step") + ":"));
      const pre = el("pre", "lines", (seen.lines || []).map(l => "> " + l).join("\n") || "(nothing)");
      side.appendChild(pre);
      renderDebug(side, state.seat, seen.debug);
    }
    renderHistory(side);
  }

  function renderControls() {
    const list = document.getElementById("deal-list");
    list.replaceChildren();
    M.deals.forEach((d, i) => {
      const b = el("button", i === state.d ? "on" : "", String(d.no));
      // How a deal ended (its totals) is no seat's knowledge before its settle line.
      if (state.seat === null) {
        b.title = d.settle || "deal " + d.no;
        if (/wrong|failed|forfeit/.test(d.settle || "") || !d.settle) b.className += " wrong";
      }
      b.addEventListener("click", () => go(i, 0));
      list.appendChild(b);
    });
    const d = deal();
    document.getElementById("where").textContent = "deal " + d.no + " of " + M.deals.length + " · " +
      frameName(d, state.f);
    const views = document.getElementById("views");
    views.replaceChildren();
    const all = el("button", state.seat === null ? "on" : "", "everything");
    all.addEventListener("click", () => view(null));
    views.appendChild(all);
    M.names.forEach((name, seat) => {
      const b = el("button", state.seat === seat ? "on" : "", "as " + name + " (seat " + seat + ") saw it");
      b.title = "the match as seat " + seat + " (" + name + ") saw it: only what the referee sent it";
      b.dataset.seat = seat;
      b.addEventListener("click", () => view(seat));
      views.appendChild(b);
    });
  }

  function render() {
    if (!M.deals.length) return;
    const fr = frame();
    const seen = state.seat === null ? null : deal().seen[state.seat][state.f];
    renderControls();
    renderTable(fr, seen);
    renderSide(fr, seen);
    const hash = "deal=" + deal().no + "&step=" + state.f + (state.seat === null ? "" : "&seat=" + state.seat);
    try { history.replaceState(null, "", "#" + hash); } catch (e) { /* file:// in some browsers */ }
  }

  function fromHash() {
    const args = new URLSearchParams(location.hash.slice(1));
    const d = M.deals.findIndex(x => String(x.no) === args.get("deal"));
    const seat = args.get("seat");
    state.seat = seat === null || seat === "" || isNaN(+seat) || +seat < 0 || +seat >= M.players ? null : +seat;
    go(d < 0 ? 0 : d, +(args.get("step") || 0) || 0);
  }

  document.getElementById("title").textContent = M.sides.join(" vs ");
  document.getElementById("facts").textContent = "match " + M.match + " · profile " + M.profile + " · " +
    M.players + " players · claim at " + M.target + " · match to " + M.match_target + " game points · " +
    M.deals.length + " deal" + (M.deals.length === 1 ? "" : "s");
  cited(document.getElementById("outcome"), M.outcome);
  document.getElementById("prev").addEventListener("click", () => step(-1));
  document.getElementById("next").addEventListener("click", () => step(1));
  document.getElementById("prev-deal").addEventListener("click", () => dealStep(-1));
  document.getElementById("next-deal").addEventListener("click", () => dealStep(1));
  if (!M.deals.length) {
    document.getElementById("board").hidden = true;
    document.getElementById("controls").hidden = true;
    const empty = document.getElementById("empty");
    empty.hidden = false;
    cited(empty, "No deal was played. " + M.declines.map(x => M.names[x.seat] + " declined: " + x.text).join("; ") +
      " " + M.faults.map(x => "fault by " + M.names[x.seat] + ": " + x.fault + " (" + x.detail + ")").join("; "));
    const early = el("div", "");
    empty.after(early);
    for (const entry of M.debug || []) renderDebug(early, entry.seat, [entry]);
  }
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const k = e.key;
    if (k === "ArrowRight" || k === " ") step(1);
    else if (k === "ArrowLeft") step(-1);
    else if (k === "ArrowDown" || k === "PageDown") dealStep(1);
    else if (k === "ArrowUp" || k === "PageUp") dealStep(-1);
    else if (k === "Home") go(state.d, 0);
    else if (k === "End") go(state.d, deal().frames.length - 1);
    else if (k === "a" || k === "Escape") view(null);
    else if (/^[0-9]$/.test(k) && +k < M.players) view(+k);
    else return;
    e.preventDefault();
  });
  fromHash();
})();
