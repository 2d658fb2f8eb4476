// The analysis page: asks /analysis/TOKEN/status until the analysis is done, then shows
// it for a player: the seat's own costly cards first, then deal by deal (numbered as at
// the table) its four hands drawn, the tricks and points lost side by side, and the
// thrown-in deals folded away. Every text goes in through textContent; the one picture
// is the library's own SVG of the deal, made by the server from the match.
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

  function wide(table) {
    // A table scrolls inside its box on a narrow screen: the page never does.
    const box = el("div", undefined, "table-box");
    box.append(table);
    return box;
  }

  function plural(n, word) { return `${n} ${word}${n === 1 ? "" : "s"}`; }

  function cardOf(c) { return c.card_symbol || c.card; }
  function bestOf(c) { return (c.best_symbols || c.best).join(", "); }
  function pointsOf(c) { return c.points === null || c.points === undefined ? "–" : String(c.points); }

  function who(seat, mine) { return seat === mine ? `${SEATS[seat]} (you)` : SEATS[seat] || seat; }

  function costlyTable(list, mine, withDeal) {
    const table = el("table", undefined, "analysis-costly");
    table.append(row([...(withDeal ? ["Deal"] : []), "Trick", "Player", "Card", "Tricks lost", "Points lost", "Better"], true));
    for (const c of list) {
      const tr = row([...(withDeal ? [c.deal_label] : []), c.trick, who(c.seat, mine), cardOf(c), c.lost, pointsOf(c), bestOf(c)]);
      if (c.seat === mine) tr.className = "mine";
      table.append(tr);
    }
    return wide(table);
  }

  function drawDeal(deal, mine) {
    const section = el("details", undefined, "analysis-deal");
    section.open = true;
    const summary = el("summary");
    summary.append(el("span", deal.label, "deal-label"));
    section.append(summary);
    if (!deal.analysed) {
      summary.append(el("span", " · not analysed in time", "analysis-late"));
      return section;
    }
    const lost = deal.costly.reduce((sum, c) => sum + (c.seat === mine ? c.lost : 0), 0);
    summary.append(el("span", ` · taken ${deal.taken.NS}–${deal.taken.EW}, with every card seen ${deal.double_dummy.NS}–${deal.double_dummy.EW}`
      + (lost ? ` · your cards cost ${plural(lost, "trick")}` : ""), "deal-brief"));
    const table = el("table", undefined, "analysis-tricks");
    table.append(row(["", "North-South", "East-West"], true));
    table.append(row(["Tricks taken", deal.taken.NS, deal.taken.EW]));
    table.append(row(["With every card seen", deal.double_dummy.NS, deal.double_dummy.EW]));
    section.append(wide(table));
    if (deal.costly.length === 0) section.append(el("p", "No card cost a trick: every card was as good as the best."));
    else {
      // The seat's own cards first, then the others', each in the order played.
      const ordered = [...deal.costly].sort((a, b) => (b.seat === mine) - (a.seat === mine) || a.trick - b.trick);
      section.append(costlyTable(ordered, mine, false));
    }
    if (deal.svg) {
      const picture = el("div", undefined, "deal-picture");
      picture.innerHTML = deal.svg;  // the library's SVG of the deal (server-made, no input)
      section.append(picture);
    }
    return section;
  }

  function drawMine(deals, mine) {
    const box = $("analysis-mine");
    const list = [];
    for (const deal of deals) {
      if (!deal.analysed || !deal.played) continue;
      for (const c of deal.costly) if (c.seat === mine) list.push({ ...c, deal_label: deal.label });
    }
    const tricks = list.reduce((sum, c) => sum + c.lost, 0);
    const heading = el("h2", `Your cards (${SEATS[mine]})`);
    if (!list.length) {
      box.replaceChildren(heading, el("p", "None of your cards cost a trick against the best play: well played."));
      return;
    }
    box.replaceChildren(heading,
      el("p", `${plural(list.length, "card")} of yours cost ${plural(tricks, "trick")} in all; the better card is beside each.`),
      costlyTable(list, mine, true));
  }

  function drawSeats(seats, mine) {
    const table = el("table", undefined, "analysis-summary");
    table.append(row(["Player", "Cards played", "Cards that cost tricks", "Tricks lost"], true));
    for (const [letter, s] of Object.entries(seats)) {
      const tr = row([who(letter, mine), s.cards, s.costly, s.lost]);
      if (letter === mine) tr.className = "mine";
      table.append(tr);
    }
    $("analysis-seats").replaceChildren(el("h2", "Over the match"), wide(table));
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
    const deals = answer.analysis.deals;
    const played = deals.filter((d) => d.played !== false);
    const thrown = deals.filter((d) => d.played === false);
    let words = `Analysed: ${played.length} deals played`;
    if (thrown.length) words += ` (and ${plural(thrown.length, "deal")} thrown in)`;
    words += ".";
    if (answer.timed_out) words += ` The rest were not analysed in time (${answer.budget} s a match).`;
    if (answer.failed) words += " The analysis stopped with an error.";
    $("analysis-status").textContent = words;
    const mine = answer.seat || "S";
    drawMine(deals, mine);
    const parts = played.map((deal) => drawDeal(deal, mine));
    if (thrown.length) {
      // Thrown-in deals (all four passed): no card played, nothing to analyse: folded.
      const fold = el("details", undefined, "analysis-thrown");
      fold.append(el("summary", `${plural(thrown.length, "deal")} thrown in: all four passed, no card played`));
      const list = el("ul");
      thrown.forEach((d) => list.append(el("li", d.label)));
      fold.append(list);
      parts.push(fold);
    }
    $("analysis-deals").replaceChildren(...parts);
    drawSeats(answer.analysis.seats, mine);
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
