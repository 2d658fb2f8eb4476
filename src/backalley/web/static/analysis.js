// The analysis page: asks /analysis/TOKEN/status until the analysis is done, then shows
// it deal by deal. Every text goes in through textContent: nothing is read as HTML.
(() => {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const token = location.pathname.split("/").filter(Boolean)[1] || "";
  const statusUrl = `/analysis/${encodeURIComponent(token)}/status`;
  const SEATS = { N: "North", E: "East", S: "South", W: "West" };
  // A bound on the polling: the server's budget bounds the analysis itself.
  const MAX_POLLS = 7200;
  let polls = 0;

  $("analysis-back").href = `/seat/${encodeURIComponent(token)}`;

  function el(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  }

  function row(cells, header) {
    const tr = el("tr");
    for (const cell of cells) tr.append(el(header ? "th" : "td", cell));
    return tr;
  }

  function drawDeal(deal) {
    const section = el("section", undefined, "analysis-deal");
    section.append(el("h2", deal.label));
    if (!deal.analysed) {
      section.append(el("p", "Not analysed in time.", "analysis-late"));
      return section;
    }
    if (!deal.played) {
      section.append(el("p", "Thrown in: no card played."));
      return section;
    }
    const table = el("table", undefined, "analysis-tricks");
    table.append(row(["", "North-South", "East-West"], true));
    table.append(row(["Double dummy", deal.double_dummy.NS, deal.double_dummy.EW]));
    table.append(row(["Taken", deal.taken.NS, deal.taken.EW]));
    section.append(table);
    if (deal.costly.length === 0) {
      section.append(el("p", "No card cost a trick."));
      return section;
    }
    const costly = el("table", undefined, "analysis-costly");
    costly.append(row(["Trick", "Seat", "Card", "Tricks lost", "Best instead"], true));
    for (const c of deal.costly) {
      costly.append(row([c.trick, SEATS[c.seat] || c.seat, c.card, c.lost, c.best.join(" ")]));
    }
    section.append(costly);
    return section;
  }

  function drawSeats(seats) {
    const table = el("table", undefined, "analysis-summary");
    table.append(row(["Seat", "Cards analysed", "Cards that cost tricks", "Tricks lost"], true));
    for (const [letter, s] of Object.entries(seats)) {
      table.append(row([SEATS[letter] || letter, s.cards, s.costly, s.lost]));
    }
    $("analysis-seats").replaceChildren(el("h2", "Over the match"), table);
  }

  function draw(answer) {
    const progress = $("analysis-progress");
    progress.max = Math.max(answer.total, 1);
    progress.value = answer.done;
    if (answer.status !== "done") {
      $("analysis-status").textContent = answer.status === "queued"
        ? `Waiting for a worker (${answer.done} of ${answer.total} deals done)…`
        : `Analysing: ${answer.done} of ${answer.total} deals done…`;
      return false;
    }
    progress.hidden = true;
    let words = `Analysed: ${answer.done} of ${answer.total} deals.`;
    if (answer.timed_out) words += ` The rest were not analysed in time (${answer.budget} s a match).`;
    if (answer.failed) words += " The analysis stopped with an error.";
    $("analysis-status").textContent = words;
    $("analysis-deals").replaceChildren(...answer.analysis.deals.map(drawDeal));
    drawSeats(answer.analysis.seats);
    return true;
  }

  async function poll() {
    polls += 1;
    let answer;
    try {
      const response = await fetch(statusUrl, { cache: "no-store" });
      answer = await response.json();
      if (!response.ok) {
        $("analysis-status").textContent = answer.message || "No analysis.";
        $("analysis-progress").hidden = true;
        return;
      }
    } catch (error) {
      $("analysis-status").textContent = "The table did not answer; trying again…";
      if (polls < MAX_POLLS) setTimeout(poll, 2000);
      return;
    }
    if (!draw(answer) && polls < MAX_POLLS) setTimeout(poll, 500);
  }

  poll();
})();
