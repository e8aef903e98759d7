// The leaderboard, kept live: every few seconds (data-every) the table is read again from the
// JSON API (data-poll) and its rows rebuilt. Everything from the server is set as text, never as
// markup: a bot's name is the author's to choose. No library: the site works offline.
"use strict";
(function () {
  const table = document.querySelector("table[data-poll]");
  if (!table) return;
  const url = table.dataset.poll;
  const every = Math.max(2, Number(table.dataset.every) || 10) * 1000;
  const state = document.getElementById("live-state");
  const fmt = (v, digits) => (v === null || v === undefined) ? "–" : v.toFixed(digits);

  function cell(row, text, numeric) {
    const td = document.createElement("td");
    if (numeric) td.className = "n";
    if (text instanceof Node) td.appendChild(text); else td.textContent = text;
    row.appendChild(td);
    return td;
  }

  function render(board) {
    const body = document.createElement("tbody");
    board.rows.forEach((r, i) => {
      const tr = document.createElement("tr");
      if (!r.active) tr.className = "retired";
      cell(tr, String(i + 1), true);
      const name = document.createElement("span");
      const link = document.createElement("a");
      link.href = "/bots/" + encodeURIComponent(r.bot);
      link.textContent = r.bot;
      name.appendChild(link);
      if (!r.active) name.appendChild(document.createTextNode(" (retired)"));
      cell(tr, name);
      const version = document.createElement("code");
      version.textContent = r.version || "–";
      cell(tr, version);
      cell(tr, fmt(r.rating, 2), true);
      cell(tr, fmt(r.mu, 2), true);
      cell(tr, fmt(r.sigma, 2), true);
      cell(tr, String(r.matches), true);
      cell(tr, r.wins + "–" + r.draws + "–" + r.losses, true);
      cell(tr, r.score === null ? "–" :
        fmt(r.score, 1) + " [" + fmt(r.score_low, 1) + ", " + fmt(r.score_high, 1) + "]", true);
      cell(tr, r.joined || "");
      body.appendChild(tr);
    });
    if (!board.rows.length) {
      const tr = document.createElement("tr");
      tr.className = "empty";
      cell(tr, "No bot has played yet.").colSpan = 10;
      body.appendChild(tr);
    }
    table.replaceChild(body, table.tBodies[0]);
    const played = document.getElementById("matches-played");
    if (played) played.textContent = String(board.matches);
    const pairs = document.getElementById("pairs-played");
    if (pairs) pairs.textContent = String(board.pairs);
  }

  async function refresh() {
    if (document.hidden) return;  // nobody is looking: no load on the server
    try {
      const answer = await fetch(url, {cache: "no-store", headers: {"Accept": "application/json"}});
      if (!answer.ok) throw new Error("status " + answer.status);
      render(await answer.json());
      if (state) state.textContent = "read again every " + every / 1000 + " s; last at " +
        new Date().toLocaleTimeString();
    } catch (err) {
      // The server restarting, or the network gone: said on the page, tried again next time.
      if (state) state.textContent = "the last reading failed; trying again in " + every / 1000 + " s";
    }
  }

  setInterval(refresh, every);
  document.addEventListener("visibilitychange", refresh);
})();
