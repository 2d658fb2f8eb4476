// The table page: draws what the server sends for this seat, and sends its bids and cards.
// The server decides everything; this page only shows the seat's own frame and forwards
// what the person presses, with the version of the table they saw. No data is written
// into the page as HTML (textContent only), apart from the library's own SVG trick.
"use strict";

(function () {
  const token = decodeURIComponent(location.pathname.split("/").pop() || "");
  const SEATS = ["N", "E", "S", "W"];
  const NAMES = { N: "North", E: "East", S: "South", W: "West" };
  // The seat's secret, given once to the browser that claimed the seat: kept in this
  // browser's storage for this link only, and sent as the first message of each socket.
  const KEY = "backalley-seat:" + token;
  // Close codes (backalley.web.limits): these end the seat here; the others reconnect.
  const FINAL = { 4404: true, 4403: true, 4410: true };
  let frame = null;
  let socket = null;
  let retry = 0;
  let gone = false;
  let memory = null;

  function stored() {
    try { return localStorage.getItem(KEY); } catch (e) { return null; }
  }

  function keep(secret) {
    try { localStorage.setItem(KEY, secret); } catch (e) { /* private mode: this tab only */ }
    memory = secret;
  }

  const $ = (id) => document.getElementById(id);

  function el(tag, props, children) {
    const node = document.createElement(tag);
    Object.entries(props || {}).forEach(([key, value]) => {
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key.startsWith("data-")) node.setAttribute(key, value);
      else if (key.startsWith("aria-")) node.setAttribute(key, value);
      else node[key] = value;
    });
    (children || []).forEach((child) => node.append(child));
    return node;
  }

  function notice(text, kind) {
    const box = $("notice");
    box.textContent = text || "";
    box.className = "notice" + (kind ? " " + kind : "");
  }

  // --- the socket -------------------------------------------------------------------

  function connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    socket = new WebSocket(`${scheme}//${location.host}/ws/${encodeURIComponent(token)}`);
    socket.onopen = () => {
      socket.send(JSON.stringify({ type: "hello", secret: memory || stored() || null }));
    };
    socket.onmessage = (event) => receive(JSON.parse(event.data));
    socket.onclose = (event) => {
      if (gone || FINAL[event.code]) {
        gone = true;
        document.body.dataset.closed = String(event.code);
        return;
      }
      // A dropped connection, a slow or idle one cut by the server, a reloaded or reopened
      // tab: the seat is still ours; the server sends the current table again.
      $("status").textContent = "Connection lost: reconnecting to your seat…";
      document.body.dataset.reconnects = String(Number(document.body.dataset.reconnects || 0) + 1);
      retry = Math.min(retry + 1, 6);
      setTimeout(connect, 250 * retry);
    };
  }

  function send(message) {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  }

  function receive(message) {
    if (message.type === "state") {
      retry = 0;
      frame = message;
      draw();
    } else if (message.type === "seat") {
      if (message.secret) keep(message.secret);
    } else if (message.type === "notice") {
      notice(message.message, "warning");
    } else if (message.type === "refused") {
      if (["unknown_token", "seat_taken", "reinvited"].includes(message.reason)) {
        gone = true;
        $("status").textContent = message.message;
        $("hand").replaceChildren();
        $("bids").replaceChildren();
      }
      notice(message.message, "refusal");
      document.body.dataset.refused = message.reason;
    } else if (message.type === "ack") {
      document.body.dataset.acked = String(message.version);
    }
  }

  function act(field, value) {
    if (!frame) return;
    notice("");
    send({ type: "act", version: frame.version, [field]: value });
  }

  // --- drawing ------------------------------------------------------------------------

  function cardFace(card, extraClass) {
    const classes = ["card", card.joker ? "joker" : "suit-" + card.suit];
    if (card.trump) classes.push("trump");
    if (extraClass) classes.push(extraClass);
    const face = el("span", { class: "face", "aria-hidden": "true" });
    if (card.joker) {
      face.append(el("span", { class: "rank", text: card.code }),
        el("span", { class: "pip", text: "★" }), el("span", { class: "jname", text: "joker" }));
    } else {
      face.append(el("span", { class: "rank", text: card.symbol.slice(0, -1) }),
        el("span", { class: "pip", text: card.symbol.slice(-1) }));
    }
    if (card.trump) face.append(el("span", { class: "tag", text: "trump" }));
    return { classes: classes.join(" "), face };
  }

  function cardView(card) {
    const { classes, face } = cardFace(card);
    const node = el("span", { class: classes, title: card.words, role: "img",
      "aria-label": card.words });
    node.append(face);
    return node;
  }

  function seatLabel(seat) {
    const info = frame.seats.find((s) => s.seat === seat);
    const who = info.who === "you" ? "You" : info.who === "partner" ? "Partner" : "Opponent";
    let text = `${NAMES[seat]} · ${who}`;
    if (info.role) text += ` (${info.role})`;
    if (info.occupant === "computer") text += ` · computer (${info.player === "montecarlo" ? "Monte Carlo" : "heuristic"})`;
    else if (info.occupant === "empty") text += " · seat empty";
    else if (info.who !== "you") text += info.connected ? " · here" : " · away";
    return text;
  }

  function drawSeats() {
    const me = SEATS.indexOf(frame.seat);
    const places = { bottom: 0, left: 1, top: 2, right: 3 };
    const toMove = frame.view.to_move;
    Object.entries(places).forEach(([place, step]) => {
      const seat = SEATS[(me + step) % 4];
      const box = $("pos-" + place);
      box.replaceChildren();
      box.dataset.seat = seat;
      box.classList.toggle("to-move", toMove === seat && frame.started && !frame.over);
      box.append(el("p", { class: "who", text: seatLabel(seat) }));
      const said = frame.said.find((b) => b.seat === seat);
      if (said) box.append(el("p", { class: "said", text: said.call === "pass" ? "passes" : said.call === "board" ? "bids Board" : `bids ${said.call}` }));
      if (toMove === seat && frame.started && !frame.over) box.append(el("p", { class: "turn", text: seat === frame.seat ? "your turn" : "to move" }));
    });
    const trick = $("trick");
    trick.replaceChildren();
    frame.trick.forEach((card) => {
      const step = (SEATS.indexOf(card.seat) - me + 4) % 4;
      const place = Object.keys(places).find((p) => places[p] === step);
      const slot = el("div", { class: "played " + place, "data-seat": card.seat });
      slot.append(cardView(card), el("span", { class: "by", text: NAMES[card.seat] }));
      trick.append(slot);
    });
  }

  function drawHand() {
    const hand = $("hand");
    const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.code : null;
    hand.replaceChildren();
    const playing = frame.your_turn && frame.phase === "play";
    frame.hand.forEach((card) => {
      const state = playing ? (card.legal ? "legal" : "dimmed") : "waiting";
      const { classes, face } = cardFace(card, state);
      const why = playing ? (card.legal ? ", you may play it" : ", you may not play it now: press to hear why") : "";
      const button = el("button", { type: "button", class: classes, title: card.words,
        "data-code": card.code, "aria-label": card.words + why });
      button.append(face);
      button.addEventListener("click", () => act("play", card.code));
      hand.append(button);
    });
    if (frame.hand.length === 0) hand.append(el("p", { text: "No cards in hand." }));
    if (focused) {
      const again = hand.querySelector(`[data-code="${focused}"]`);
      if (again) again.focus();
    }
  }

  function drawBids() {
    const box = $("bids");
    box.replaceChildren();
    $("bidding").hidden = frame.bids.length === 0;
    frame.bids.forEach((bid) => {
      const button = el("button", { type: "button", class: "bid" + (bid.warning ? " overbid" : ""),
        "data-call": bid.call, text: bid.label + (bid.warning ? " ⚠" : "") });
      if (bid.warning) {
        button.title = "Warning: " + bid.warning + " You may still bid it.";
        button.setAttribute("aria-label", `${bid.label}. Warning: ${bid.warning} You may still bid it.`);
      }
      button.addEventListener("click", () => {
        if (bid.warning) notice("Warning: " + bid.warning + " (the bid stands; play goes on)", "warning");
        act("bid", bid.call);
      });
      box.append(button);
    });
  }

  function drawSides() {
    frame.sides.forEach((side) => {
      const box = $("side-" + side.pair);
      box.replaceChildren(
        el("h2", { text: side.name + (side.yours ? " (your side)" : "") }),
        el("p", { class: "target", text: side.target ? side.target.replace(/^t/, "T") : "No target yet" }),
        el("p", { class: "tricks", text: `Tricks: ${side.tricks}` }),
        el("p", { class: "total", text: `Total: ${side.total}` }),
      );
      box.classList.toggle("yours", side.yours);
    });
  }

  function drawLast() {
    const last = frame.last_trick;
    const box = $("last-trick");
    if (!last) {
      $("last-sentence").textContent = "No trick played yet.";
      box.replaceChildren();
      return;
    }
    $("last-sentence").textContent = `Deal ${last.deal}: ${last.sentence}`;
    // The library's own SVG picture of the trick (cards named in words in its title).
    box.innerHTML = last.svg;
    const list = el("ul", { class: "said-cards" });
    last.cards.forEach((card) => list.append(el("li", { text: `${NAMES[card.seat]}: ${card.words}` + (card.seat === last.winner ? " (won)" : "") })));
    box.append(list);
  }

  function drawSheet() {
    const body = $("sheet").querySelector("tbody");
    body.replaceChildren();
    frame.sheet.forEach((row) => {
      const cells = [row.deal, row.cards, row.dealer, row.trump, `${row.tricks[0]}–${row.tricks[1]}`];
      if (row.kind === "scored") cells.push(signed(row.scores[0]), signed(row.scores[1]), row.totals[0], row.totals[1]);
      else cells.push(row.kind, "", row.totals[0], row.totals[1]);
      body.append(el("tr", {}, cells.map((cell) => el("td", { text: String(cell) }))));
    });
    if (frame.sheet.length === 0) body.append(el("tr", {}, [el("td", { colSpan: 9, text: "No deal finished yet." })]));
  }

  function signed(n) { return n > 0 ? "+" + n : String(n); }

  function drawHost() {
    const panel = $("host-panel");
    const links = frame.links || {};
    const hosting = frame.host && frame.mode === "friends";
    panel.hidden = !hosting;
    if (!hosting) return;
    $("fill").hidden = frame.started;
    // A new link for a guest's seat: the old link, and whoever opened it, are cut off.
    const renew = $("reinvite");
    renew.replaceChildren();
    frame.seats.filter((s) => s.role && s.role !== "host" && s.occupant !== "computer").forEach((s) => {
      const button = el("button", { type: "button", "data-seat": s.seat,
        text: `New link for ${s.role} (${NAMES[s.seat]})` });
      button.addEventListener("click", () => send({ type: "reinvite", seat: s.seat }));
      renew.append(button);
    });
    const list = $("links");
    list.replaceChildren();
    Object.entries(links).forEach(([seat, path]) => {
      const info = frame.seats.find((s) => s.seat === seat);
      const url = location.origin + path;
      const field = el("input", { type: "text", readOnly: true, value: url, class: "link", "aria-label": `Link for ${info.role}, ${NAMES[seat]}` });
      field.addEventListener("focus", () => field.select());
      list.append(el("li", { "data-seat": seat }, [el("span", { text: `${info.role[0].toUpperCase()}${info.role.slice(1)} (${NAMES[seat]}, ${info.who === "partner" ? "your partner" : "an opponent"}): ` }), field]));
    });
  }

  function draw() {
    document.body.dataset.version = String(frame.version);
    document.body.dataset.phase = frame.phase;
    document.body.classList.toggle("my-turn", frame.your_turn);
    $("status").textContent = frame.status;
    if (frame.deal_number !== null) {
      const kind = frame.tiebreak ? "Tiebreak deal (no bidding: more tricks wins)" : `Deal ${Math.min(frame.counted_deals + 1, frame.deals)} of ${frame.deals}`;
      $("deal-line").textContent = `${kind} · ${frame.hand_size} cards each · ${frame.dealer} deals · turned ${frame.turned.words.replace(", a trump", "")}`;
      $("trump").textContent = frame.trump_words + ".";
    } else {
      $("deal-line").textContent = frame.started ? "" : "The cards are dealt when all four seats are filled.";
      $("trump").textContent = "";
    }
    drawHost();
    drawSides();
    drawSeats();
    drawBids();
    drawHand();
    drawLast();
    drawSheet();
    const warnings = $("warnings");
    warnings.replaceChildren(...frame.warnings.map((w) => el("li", { text: "Warning: " + w + " (the bids stand; play goes on)" })));
    $("swap").textContent = frame.swap || "";
    $("result").hidden = !frame.over;
    if (frame.over) {
      $("result-text").textContent = frame.status;
      if (frame.record) $("record").href = frame.record;
    }
  }

  // --- the keyboard -------------------------------------------------------------------

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "SELECT")) return;
    const cards = Array.from($("hand").querySelectorAll("button"));
    const at = cards.indexOf(document.activeElement);
    const key = event.key.toLowerCase();
    if ((key === "arrowright" || key === "arrowleft") && cards.length) {
      const step = key === "arrowright" ? 1 : -1;
      cards[at < 0 ? 0 : (at + step + cards.length) % cards.length].focus();
      event.preventDefault();
    } else if (key === "h" && cards.length) {
      (cards.find((c) => c.classList.contains("legal")) || cards[0]).focus();
    } else if (key === "p" || key === "b" || /^[0-9]$/.test(key)) {
      const call = key === "p" ? "pass" : key === "b" ? "board" : key;
      const button = $("bids").querySelector(`[data-call="${call}"]`);
      if (button) button.focus();
    } else if (key === "l") {
      $("last-heading").scrollIntoView();
      notice($("last-sentence").textContent);
    } else if (key === "s") {
      document.querySelector("details.sheet").open = true;
      document.querySelector("details.sheet").scrollIntoView();
    }
  });

  $("fill-heuristic").addEventListener("click", () => send({ type: "fill", player: "heuristic" }));
  $("fill-montecarlo").addEventListener("click", () => send({ type: "fill", player: "montecarlo" }));

  connect();
})();
