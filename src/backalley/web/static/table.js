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
  const AGAIN = 4412;  // the room plays again: reconnect to the new match at once
  let frame = null;
  let socket = null;
  let retry = 0;
  let gone = false;
  let memory = null;
  let publicOrigin = null;  // the table's public origin (--public-url), for the host's links

  function stored() {
    try { return localStorage.getItem(KEY); } catch (e) { return null; }
  }

  function keep(secret) {
    try { localStorage.setItem(KEY, secret); } catch (e) { /* private mode: this tab only */ }
    memory = secret;
  }

  function newSecret() {
    const bytes = crypto.getRandomValues(new Uint8Array(24));
    return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_");
  }

  const $ = (id) => document.getElementById(id);

  // The name this browser's player gave themselves: asked once (in a room of friends),
  // kept by the browser for every table, sent with each hello. Shown as text only.
  const NAME_KEY = "backalley-name";
  const MAX_NAME = 24;
  let nameMemory = null;

  function myName() {
    if (nameMemory !== null) return nameMemory;
    try { return localStorage.getItem(NAME_KEY) || ""; } catch (e) { return ""; }
  }

  function keepName(name) {
    nameMemory = name;
    try { localStorage.setItem(NAME_KEY, name); } catch (e) { /* this page only */ }
  }

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

  // --- sounds: off unless the person turns them on; made by WebAudio, no files -------

  const SOUND_KEY = "backalley-sound";
  const sound = { on: false, context: null };
  try { sound.on = localStorage.getItem(SOUND_KEY) === "on"; } catch (e) { /* off */ }

  function drawSound() {
    const button = $("sound");
    button.textContent = sound.on ? "Sound on" : "Sound off";
    button.setAttribute("aria-pressed", String(sound.on));
  }

  function tone(at, frequency, length, kind, level) {
    const ctx = sound.context;
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = kind;
    osc.frequency.setValueAtTime(frequency, at);
    gain.gain.setValueAtTime(level, at);
    gain.gain.exponentialRampToValueAtTime(0.0001, at + length);
    osc.connect(gain).connect(ctx.destination);
    osc.start(at);
    osc.stop(at + length);
  }

  function snap(at, length, level) {
    // A card on the cloth: a short burst of filtered noise.
    const ctx = sound.context;
    const buffer = ctx.createBuffer(1, Math.ceil(ctx.sampleRate * length), ctx.sampleRate);
    const data = buffer.getChannelData(0);
    for (let i = 0; i < data.length; i += 1) data[i] = (Math.random() * 2 - 1) * (1 - i / data.length) ** 3;
    const source = ctx.createBufferSource();
    const filter = ctx.createBiquadFilter();
    const gain = ctx.createGain();
    source.buffer = buffer;
    filter.type = "bandpass";
    filter.frequency.value = 2200;
    gain.gain.value = level;
    source.connect(filter).connect(gain).connect(ctx.destination);
    source.start(at);
  }

  function chime(kind) {
    document.body.dataset.lastSound = kind;
    if (!sound.on || !sound.context) return;
    const now = sound.context.currentTime;
    if (kind === "card") snap(now, 0.07, 0.9);
    else if (kind === "trick") { snap(now, 0.12, 0.6); snap(now + 0.06, 0.12, 0.5); }
    else if (kind === "deal") for (let i = 0; i < 6; i += 1) snap(now + i * 0.07, 0.05, 0.6);
    else if (kind === "turn") { tone(now, 660, 0.18, "sine", 0.12); tone(now + 0.12, 880, 0.25, "sine", 0.1); }
  }

  $("sound").addEventListener("click", () => {
    sound.on = !sound.on;
    try { localStorage.setItem(SOUND_KEY, sound.on ? "on" : "off"); } catch (e) { /* this page only */ }
    if (sound.on && !sound.context && window.AudioContext) sound.context = new AudioContext();
    if (sound.context && sound.context.state === "suspended") sound.context.resume();
    drawSound();
    chime("turn");
  });
  // A browser starts audio only after a press on the page: a remembered "on" waits for one.
  document.addEventListener("pointerdown", () => {
    if (sound.on && !sound.context && window.AudioContext) sound.context = new AudioContext();
  }, { once: true });
  drawSound();

  // --- the socket -------------------------------------------------------------------

  function connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    socket = new WebSocket(`${scheme}//${location.host}/ws/${encodeURIComponent(token)}`);
    socket.onopen = () => {
      // A seat not yet held is claimed with a secret made and kept here first: if the
      // server stops before its answer, the page comes back with the same secret.
      if (!memory && !stored()) keep(newSecret());
      const hello = { type: "hello", secret: memory || stored() };
      if (myName()) hello.name = myName();
      socket.send(JSON.stringify(hello));
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
      if (event.code === AGAIN) {
        // The room plays again: the same link and secret open the same seat in the new
        // match. What this page kept of the old one goes.
        $("status").textContent = "A new match, same seats: dealing…";
        restart();
        retry = 0;
        setTimeout(connect, 50);
        return;
      }
      unlock();
      document.body.dataset.reconnects = String(Number(document.body.dataset.reconnects || 0) + 1);
      retry = Math.min(retry + 1, 6);
      setTimeout(connect, 250 * retry);
    };
  }

  function send(message) {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  }

  // The seat's frame comes whole once ("state"), then as what changed ("change", applied
  // by changes.js); a change that does not follow the frame held (one missed) or does not
  // apply makes the page ask for the whole frame again, once, and wait for it.
  let awaitingWhole = false;

  function show(next) {
    retry = 0;
    if (sent !== null && next.version > sent) unlock();
    frame = next;
    draw();
  }

  function change(message) {
    if (awaitingWhole) return;
    let next = null;
    if (frame && !frame.howto && message.base === frame.frame) {
      try {
        next = window.BackAlleyChanges.applyChange(frame, message.ops);
        next.frame = message.frame;
      } catch (e) {
        next = null;
      }
    }
    if (next === null) {
      awaitingWhole = true;
      document.body.dataset.resyncs = String(Number(document.body.dataset.resyncs || 0) + 1);
      send({ type: "resync", frame: frame && !frame.howto ? frame.frame : null });
      return;
    }
    show(next);
  }

  function receive(message) {
    if (message.type === "state") {
      awaitingWhole = false;
      show(message);
    } else if (message.type === "change") {
      // The acknowledgement of this page's action comes in the change it made.
      if (message.ack !== undefined) document.body.dataset.acked = String(message.ack);
      change(message);
    } else if (message.type === "seat") {
      if (message.secret) keep(message.secret);
      if (message.origin) publicOrigin = message.origin;
      voiceAgain();
    } else if (message.type === "chat") {
      chat(message);
    } else if (message.type === "voice") {
      roster(message);
    } else if (message.type === "signal") {
      signal(message).catch(() => voiceSays("Voice could not connect to " + NAMES[message.from] + "."));
    } else if (message.type === "notice") {
      notice(message.message, "warning");
    } else if (message.type === "refused") {
      if (["unknown_token", "seat_taken", "reinvited"].includes(message.reason)) {
        gone = true;
        leave(message);
        return;
      }
      unlock();
      notice(message.message, "refusal");
      document.body.dataset.refused = message.reason;
    } else if (message.type === "ack") {
      document.body.dataset.acked = String(message.version);
    }
  }

  // From a bid or card sent to the server's answer (the next table, or a refusal), the
  // hand and the bids are locked: a second press of the same move (a double click) is
  // never sent, so it can never come back as "the table has moved on".
  let sent = null;
  let lockTimer = null;

  function lock(version) {
    sent = version;
    document.body.dataset.busy = "1";
    $("hand").classList.add("busy");
    $("bids").classList.add("busy");
    $("hand").setAttribute("aria-busy", "true");
    $("bids").setAttribute("aria-busy", "true");
    clearTimeout(lockTimer);
    // A socket that dies before the answer: the page reconnects and gets the table again;
    // this only keeps a lost answer from locking the hand for good.
    lockTimer = setTimeout(unlock, 10000);
  }

  function unlock() {
    sent = null;
    clearTimeout(lockTimer);
    delete document.body.dataset.busy;
    $("hand").classList.remove("busy");
    $("bids").classList.remove("busy");
    $("hand").removeAttribute("aria-busy");
    $("bids").removeAttribute("aria-busy");
  }

  function leave(message) {
    // This browser holds no seat here: a plain page that says why, once, and where to go.
    // No table is drawn (there is nothing of it this browser may see).
    const title = message.reason === "unknown_token" ? "No table at this link"
      : message.reason === "reinvited" ? "This seat has a new link" : "This seat is taken";
    const page = el("main", { id: "gone" }, [
      el("h1", { text: title }),
      el("p", { id: "gone-text", text: message.message }),
      el("p", {}, [el("a", { href: "/", text: "Go to the lobby: play the computer or make your own room" })]),
    ]);
    document.title = "Back Alley: " + title.toLowerCase();
    document.body.className = "message";
    document.body.dataset.refused = message.reason;
    document.body.replaceChildren(page);
  }

  function act(field, value) {
    if (!frame || frame.howto || sent !== null) return;
    if (!socket || socket.readyState !== WebSocket.OPEN) return;
    notice("");
    lock(frame.version);
    send({ type: "act", version: frame.version, [field]: value });
  }

  // --- drawing ------------------------------------------------------------------------

  const PLACES = { bottom: 0, left: 1, top: 2, right: 3 };
  const HOLD_MS = 1500;  // a finished trick stays on the table at least this long
  let shownTrick = null;  // the trick last finished: {key, since, trick}
  let lastKey;  // the last trick of the frame drawn before (undefined: no frame yet)
  let heldTimer = null;
  let showLast = false;

  function placeOf(seat) {
    const me = SEATS.indexOf(frame.seat);
    const step = (SEATS.indexOf(seat) - me + 4) % 4;
    return Object.keys(PLACES).find((p) => PLACES[p] === step);
  }

  // The card faces are the project's own SVG pictures (backalley.pictures.faces), one
  // symbol a card in one sprite: crisp at every size, fetched once.
  const SVG = "http://www.w3.org/2000/svg";
  const SPRITE = "/static/cards.svg";

  function picture(code) {
    const svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("class", "face");
    svg.setAttribute("viewBox", "0 0 100 140");
    svg.setAttribute("aria-hidden", "true");
    const use = document.createElementNS(SVG, "use");
    use.setAttribute("href", `${SPRITE}#${code}`);
    svg.append(use);
    return svg;
  }

  function cardFace(card, extraClass) {
    const classes = ["card", card.joker ? "joker" : "suit-" + card.suit];
    if (card.trump) classes.push("trump");
    if (extraClass) classes.push(extraClass);
    const face = document.createDocumentFragment();
    face.append(picture(card.code));
    // "Trump" in words on every trump that is not a blooper (the bloopers' faces name them):
    // colour is never the only clue.
    if (card.trump && !card.joker) face.append(el("span", { class: "band", "aria-hidden": "true", text: "trump" }));
    return { classes: classes.join(" "), face };
  }

  function cardView(card, extraClass) {
    const { classes, face } = cardFace(card, extraClass);
    const node = el("span", { class: classes, title: card.words, role: "img",
      "aria-label": card.words });
    node.append(face);
    return node;
  }

  function backs(count) {
    // The other hands as card backs, with the count in words beside them.
    const fan = el("span", { class: "backs", role: "img", "aria-label": count === 1 ? "1 card" : `${count} cards` });
    for (let i = 0; i < count; i += 1) fan.append(el("span", { class: "back", "aria-hidden": "true" }));
    return fan;
  }

  function seatName(seat) {
    const info = frame && frame.seats ? frame.seats.find((s) => s.seat === seat) : null;
    return info && info.name ? info.name : NAMES[seat];
  }

  function seatLabel(seat) {
    // The player's name first (their own, or the computer's level), then the seat in words.
    const info = frame.seats.find((s) => s.seat === seat);
    const who = info.who === "you" ? "you" : info.who === "partner" ? "partner" : "opponent";
    let name = info.player_name || "";
    if (info.occupant === "computer") name = `Computer · ${info.level || "computer"}`;
    else if (!name) name = info.who === "you" ? "You" : NAMES[seat];
    let about = info.who === "you" ? NAMES[seat] : name === NAMES[seat] ? who : `${NAMES[seat]} · ${who}`;
    if (info.occupant === "empty") about += " · seat empty";
    else if (info.occupant !== "computer" && info.who !== "you" && !frame.howto) about += info.connected ? "" : " · away";
    return [el("span", { class: "name", text: name }), " ", el("span", { class: "about", text: about })];
  }

  function saidText(call) {
    return call === "pass" ? "passes" : call === "board" ? "bids Board" : `bids ${call}`;
  }

  function drawSeats() {
    const toMove = frame.view.to_move;
    Object.keys(PLACES).forEach((place) => {
      const seat = SEATS[(SEATS.indexOf(frame.seat) + PLACES[place]) % 4];
      const box = $("pos-" + place);
      box.replaceChildren();
      box.dataset.seat = seat;
      const moving = toMove === seat && frame.started && !frame.over;
      box.classList.toggle("to-move", moving);
      box.append(el("p", { class: "who" }, seatLabel(seat)));
      const said = frame.said.find((b) => b.seat === seat);
      const line = el("p", { class: "seat-line" });
      if (said) line.append(el("span", { class: "said", "data-call": said.call, text: saidText(said.call) }));
      if (moving) line.append(el("span", { class: "turn", text: seat === frame.seat ? "your turn" : "to move" }));
      if (line.childNodes.length) box.append(line);
      const held = frame.held ? frame.held[seat] : undefined;
      if (place !== "bottom" && held !== undefined) {
        box.append(backs(held), el("p", { class: "count", text: held === 1 ? "1 card" : `${held} cards` }));
      }
    });
  }

  function trickKey(last) { return last ? `${last.deal}.${last.number}` : null; }

  function drawTrick() {
    // The trick in the middle, each card at its seat's side. A finished trick stays until
    // the next lead, and at least HOLD_MS; the last trick may be shown in place at any time.
    const trick = $("trick");
    const caption = $("trick-caption");
    const last = frame.last_trick;
    const now = Date.now();
    const key = trickKey(last);
    // A trick finished since the last frame drawn (the frame that showed it complete may
    // have been replaced by a newer one on the way): hold it from now on.
    if (key !== lastKey) {
      if (lastKey !== undefined && last) shownTrick = { key, since: now, trick: last };
      lastKey = key;
    }
    let cards = frame.trick;
    let finished = null;
    const held = shownTrick && !frame.howto ? HOLD_MS - (now - shownTrick.since) : 0;
    if (showLast && last) finished = last;
    else if (held > 0 && (frame.trick.length > 0 || !last || !last.current || shownTrick.key !== key)) {
      finished = shownTrick.trick;
      clearTimeout(heldTimer);
      heldTimer = setTimeout(() => { if (frame) drawTrick(); }, held + 10);
    } else if (frame.trick.length === 0 && last && last.current) finished = last;
    const previous = new Set(Array.from(trick.querySelectorAll(".played")).map((n) => n.dataset.key));
    trick.replaceChildren();
    trick.classList.toggle("complete", !!finished);
    trick.classList.toggle("replay", !!(finished && showLast));
    if (finished) {
      cards = finished.cards;
      trick.dataset.winner = finished.winner;
      trick.style.setProperty("--to", placeOf(finished.winner));
    } else {
      delete trick.dataset.winner;
    }
    const slots = cards.map((card) => {
      const place = placeOf(card.seat);
      const slot = el("div", { class: "played " + place, "data-seat": card.seat, "data-key": card.seat + card.code });
      if (!previous.has(card.seat + card.code) && !finished) {
        slot.classList.add("fresh");
        if (!frame.howto || previous.size) chime("card");
      }
      if (finished && card.seat === finished.winner) slot.classList.add("winner");
      slot.append(cardView(card), el("span", { class: "by", text: seatName(card.seat) }));
      trick.append(slot);
      return slot;
    });
    if (finished && !showLast) sweep(slots, finished, previous);
    if (finished) caption.textContent = (showLast ? `Last trick (${finished.deal_label}, trick ${finished.number}): ` : "") + finished.sentence;
    else caption.textContent = "";
    const button = $("show-last");
    button.hidden = !last;
    button.setAttribute("aria-pressed", String(showLast));
    button.textContent = showLast ? "Back to the trick" : "Last trick";
  }

  function sweep(slots, finished, previous) {
    // A trick taken sweeps into a pile on its winner's side: each card moves from where it
    // lies to the pile (measured here, before the move); drawn again, it is already there.
    const winner = slots.find((slot) => slot.dataset.seat === finished.winner);
    if (!winner) return;
    const away = { top: [0, -1], bottom: [0, 1], left: [-1, 0], right: [1, 0] }[placeOf(finished.winner)];
    const w = winner.getBoundingClientRect();
    const x = w.left + w.width / 2 + away[0] * w.width * 0.35;
    const y = w.top + w.height / 2 + away[1] * w.height * 0.25;
    let fresh = false;
    slots.forEach((slot, index) => {
      const r = slot.getBoundingClientRect();
      slot.style.setProperty("--dx", `${Math.round(x - r.left - r.width / 2 + (index - 1.5) * 3)}px`);
      slot.style.setProperty("--dy", `${Math.round(y - r.top - r.height / 2)}px`);
      const moved = previous.has(slot.dataset.key) ? "gathered" : "taken";
      if (moved === "taken") fresh = true;
      slot.classList.add(moved);
    });
    if (fresh) chime("trick");
  }

  function drawTurned() {
    const box = $("turned");
    box.replaceChildren();
    if (!frame.turned) return;
    box.append(el("span", { class: "turned-label", text: "Turned" }), cardView(frame.turned, "small"),
      el("span", { class: "turned-words", text: frame.trump_words }));
  }

  let dealtFor;  // the deal whose cards were last dealt on screen

  function drawHand() {
    const hand = $("hand");
    // A new deal: the cards fly in one after another (not on the how-to's steps, nor when
    // a page opens in the middle of a deal).
    const deal = frame.deal_number;
    const dealing = !frame.howto && frame.phase === "bidding" && deal !== dealtFor
      && (dealtFor !== undefined || frame.said.length === 0);
    if (deal !== null && deal !== undefined) dealtFor = deal;
    if (dealing) chime("deal");
    const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.code : null;
    hand.replaceChildren();
    const playing = frame.your_turn && frame.phase === "play";
    frame.hand.forEach((card) => {
      const state = playing ? (card.legal ? "legal" : "dimmed") : "waiting";
      const { classes, face } = cardFace(card, state);
      const why = playing ? (card.legal ? ", you may play it" : ", you may not play it now: press to hear why") : "";
      const button = el("button", { type: "button", class: classes, title: card.words,
        "data-code": card.code, "aria-label": card.words + why });
      if (frame.refused && frame.refused.code === card.code) button.classList.add("refused");
      button.append(face);
      if (dealing) {
        button.classList.add("dealt");
        button.style.animationDelay = `${hand.children.length * 70}ms`;
      }
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
    // Said on the page, not only in a tooltip: touch screens never show one.
    const note = $("overbid-note");
    const warned = frame.bids.filter((bid) => bid.warning);
    note.hidden = warned.length === 0;
    note.replaceChildren(...(warned.length ? [el("span", { text: "⚠ marks a bid that asks for more tricks than there are. You may still bid it: the table warns and play goes on." })] : []),
      ...warned.map((bid) => el("span", { class: "overbid-line", text: `${bid.label} ⚠: ${bid.warning}` })));
  }

  function drawSides() {
    frame.sides.forEach((side) => {
      const box = $("side-" + side.pair);
      const lines = [
        el("h2", { text: side.name + (side.yours ? " (your side)" : "") }),
        el("p", { class: "target", text: side.target_text }),
        el("p", { class: "tricks", text: `Tricks: ${side.tricks}` + (side.score === null || side.score === undefined ? "" : ` · scored ${signed(side.score)}`) }),
        el("p", { class: "total", text: `Total: ${side.total}` }),
      ];
      box.replaceChildren(...lines);
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
    $("last-sentence").textContent = `${last.deal_label}, trick ${last.number}: ${last.sentence}`;
    // The trick's cards drawn as the live trick's are (the cards' own pictures, in the
    // order played, the winner's ringed), not a picture sent whole with every trick.
    const row = el("div", { class: "last-cards" });
    last.cards.forEach((card) => {
      const item = el("span", { class: "last-card" + (card.seat === last.winner ? " winner" : ""), "data-seat": card.seat });
      item.append(cardView(card, "small"), el("span", { class: "by", text: NAMES[card.seat] }));
      row.append(item);
    });
    box.replaceChildren(row);
    const list = el("ul", { class: "said-cards" });
    last.cards.forEach((card) => list.append(el("li", { text: `${NAMES[card.seat]}: ${card.words}` + (card.seat === last.winner ? " (won)" : "") })));
    box.append(list);
  }

  function drawSheet() {
    const body = $("sheet").querySelector("tbody");
    body.replaceChildren();
    frame.sheet.forEach((row) => {
      const cells = [[row.deal], [row.cards, "opt"], [row.dealer, "opt"], [row.trump, "opt"], [`${row.tricks[0]}–${row.tricks[1]}`, "opt"]];
      if (row.kind === "scored") cells.push([signed(row.scores[0])], [signed(row.scores[1])], [row.totals[0]], [row.totals[1]]);
      else cells.push([row.kind, "kind"], [""], [row.totals[0]], [row.totals[1]]);
      body.append(el("tr", { class: row.kind === "scored" ? "" : "unscored" }, cells.map(([cell, cls]) => el("td", { class: cls || "", text: String(cell) }))));
    });
    if (frame.sheet.length === 0) body.append(el("tr", {}, [el("td", { colSpan: 9, text: "No deal finished yet." })]));
  }

  function signed(n) { return n > 0 ? "+" + n : String(n); }

  let hostStarted = null;  // whether play had begun when the host panel was last drawn

  function linkItem(seat, path) {
    const info = frame.seats.find((s) => s.seat === seat);
    const url = new URL(path, publicOrigin || location.origin).href;
    const token = path.split("/").pop();
    const role = `${info.role[0].toUpperCase()}${info.role.slice(1)}`;
    const field = el("input", { type: "text", readOnly: true, value: url, class: "link", "aria-label": `Link for ${info.role}, ${NAMES[seat]}` });
    field.addEventListener("focus", () => field.select());
    const said = el("span", { class: "copied", "aria-live": "polite" });
    const copy = el("button", { type: "button", class: "copy", text: "Copy" });
    copy.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(url);
      } catch (error) {
        field.focus();
        field.select();
        document.execCommand("copy");
      }
      said.textContent = "Copied";
      setTimeout(() => { said.textContent = ""; }, 2000);
    });
    const buttons = [copy];
    if (navigator.share) {
      const share = el("button", { type: "button", class: "share", text: "Share" });
      share.addEventListener("click", () => {
        navigator.share({ title: "Back Alley", text: `Your seat at my Back Alley table (${NAMES[seat]})`, url }).catch(() => {});
      });
      buttons.push(share);
    }
    const qr = el("img", { class: "qr", src: `/qr/${encodeURIComponent(token)}.svg`, width: 132, height: 132,
      alt: `QR code of the link for ${info.role} (${NAMES[seat]})` });
    const words = `${role}: ${NAMES[seat]}, ${info.who === "partner" ? "your partner, across from you" : info.seat === "W" ? "an opponent, on your left" : "an opponent, on your right"}`;
    return el("li", { "data-seat": seat }, [
      el("div", { class: "link-text" }, [el("p", { class: "link-who", text: words }), field,
        el("p", { class: "link-buttons" }, [...buttons, said])]),
      qr,
    ]);
  }

  function drawHost() {
    const panel = $("host-panel");
    const links = frame.links || {};
    const hosting = frame.host && frame.mode === "friends";
    panel.hidden = !hosting;
    if (!hosting) return;
    // Once every seat is taken the links fold away into one "Room links" line, so that
    // the table is in sight; the host may open it again at any time.
    if (hostStarted !== frame.started) panel.open = !frame.started;
    hostStarted = frame.started;
    document.body.dataset.links = String(Object.keys(links).length);
    $("fill").hidden = frame.started;
    $("host-lead").hidden = Object.keys(links).length === 0;
    const fill = $("fill-buttons");
    if (!fill.childNodes.length) {
      (frame.levels || []).forEach((level) => {
        const button = el("button", { type: "button", id: `fill-${level.player}`, "data-player": level.player, text: `${level.name} computers` });
        button.addEventListener("click", () => send({ type: "fill", player: level.player }));
        fill.append(button, " ");
      });
    }
    // A new link for a guest's seat: the old link, and whoever opened it, are cut off.
    const renew = $("reinvite");
    renew.replaceChildren();
    // Only a seat someone holds can lose its holder: the others' links are above.
    const guests = frame.seats.filter((s) => s.role && s.role !== "host" && s.occupant !== "computer" && s.claimed);
    guests.sort((a, b) => a.role.localeCompare(b.role));
    guests.forEach((s) => {
      const button = el("button", { type: "button", "data-seat": s.seat,
        text: `New link for ${s.player_name || s.role} (${NAMES[s.seat]})` });
      button.addEventListener("click", () => send({ type: "reinvite", seat: s.seat }));
      renew.append(button, " ");
    });
    $("reinvite-line").hidden = renew.childNodes.length === 0;
    const list = $("links");
    // Made from the table's public origin when it has one (--public-url): the host may
    // have opened the table at another address, such as the serving machine's own.
    const origin = publicOrigin || location.origin;
    const shown = Array.from(list.children).map((li) => li.dataset.seat + li.querySelector("input").value).join();
    const wanted = Object.entries(links).map(([seat, path]) => seat + new URL(path, origin).href).join();
    if (shown !== wanted) list.replaceChildren(...Object.entries(links).map(([seat, path]) => linkItem(seat, path)));
  }

  function draw() {
    document.body.dataset.version = String(frame.version);
    document.body.dataset.phase = frame.phase;
    document.body.dataset.trick = String(frame.trick.length);
    const myTurn = !!(frame.your_turn && !frame.howto);
    if (myTurn && !document.body.classList.contains("my-turn")) chime("turn");
    document.body.classList.toggle("my-turn", myTurn);
    $("status").textContent = frame.status;
    if (frame.deal_number !== null) {
      const kind = frame.tiebreak ? "Tiebreak deal (no bidding: more tricks wins)" : frame.deal_label;
      $("deal-line").textContent = `${kind} · ${frame.cards_each} · ${frame.dealer} deals · turned ${frame.turned.words.replace(", a trump", "")}`;
      $("trump").textContent = frame.trump_words + ".";
    } else {
      $("deal-line").textContent = frame.started ? "" : "The cards are dealt when all four seats are filled.";
      $("trump").textContent = "";
    }
    drawName();
    drawHost();
    drawSides();
    drawSeats();
    drawTurned();
    drawTrick();
    drawBids();
    drawHand();
    drawLast();
    drawSheet();
    const warnings = $("warnings");
    warnings.replaceChildren(...frame.warnings.map((w) => el("li", { text: "Warning: " + w + " (the bids stand; play goes on)" })));
    $("swap").textContent = frame.swap || "";
    $("throw-in").hidden = !frame.throw_in;
    $("throw-in").textContent = frame.throw_in || "";
    $("result").hidden = !frame.over;
    // The how-to's match has no record and no analysis to go to, and nothing to play
    // again: its end leads to a real game instead.
    $("again-line").hidden = !!frame.howto;
    $("result-links").hidden = !!frame.howto || !frame.record;
    if (frame.over) {
      $("result-text").textContent = frame.status;
      if (frame.record) {
        $("record").href = frame.record;
        $("analysis").href = frame.record.replace(/^\/record\//, "/analysis/");
      }
    }
    if (frame.refused) notice(frame.refused.message, "refusal");
  }

  function restart() {
    seen.clear();
    $("chat-lines").replaceChildren();
    shownTrick = null;
    lastKey = undefined;
    dealtFor = undefined;
    showLast = false;
    $("again").disabled = false;
    document.body.dataset.again = String(Number(document.body.dataset.again || 0) + 1);
  }

  $("again").addEventListener("click", () => {
    $("again").disabled = true;
    send({ type: "again" });
  });

  $("show-last").addEventListener("click", () => {
    showLast = !showLast;
    if (frame) drawTrick();
  });

  // --- chat and voice (rooms of friends) ---------------------------------------------
  // Chat lines are text (textContent): nothing anyone types becomes part of the page.

  const seen = new Set();

  function chat(message) {
    $("talk").hidden = !message.open;
    if (message.open && !window.isSecureContext) voiceProblem("insecure", INSECURE);
    const list = $("chat-lines");
    message.lines.forEach((line) => {
      if (seen.has(line.seq)) return;  // a page opened again is sent the last lines anew
      seen.add(line.seq);
      list.append(el("li", { "data-seat": line.seat, "data-seq": String(line.seq) },
        [el("span", { class: "speaker", text: line.name + ": " }), el("span", { class: "said-text", text: line.text })]));
    });
    list.scrollTop = list.scrollHeight;
  }

  $("chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const field = $("chat-text");
    const text = field.value.trim();
    if (!text) return;
    send({ type: "chat", text });
    field.value = "";
  });

  // Voice: off until the person turns it on (only then does the browser ask for the
  // microphone). Audio goes browser to browser over WebRTC; the server carries each
  // offer and answer, whole with their candidates, over this socket. No STUN server
  // unless the table was started with one.
  const voice = { on: false, stream: null, peers: {}, ice: [], seats: [], muted: false, problem: "" };

  function voiceSays(text) { $("voice-who").textContent = text; }

  function voiceProblem(kind, text) {
    voice.problem = text;
    document.body.dataset.voiceProblem = kind;
    voiceSays(text);
  }

  // Browsers offer the microphone only to secure pages: HTTPS, or this machine itself.
  const INSECURE = "Voice needs a secure page: this one came over plain HTTP, so the " +
    "browser offers no microphone. Ask the host for the table's HTTPS address.";

  function voiceAgain() {
    // A new socket (a reconnect, the server started again): the server forgot this seat's
    // voice with its last socket, and the other seats closed their calls to it. Say it is
    // on again; the calls are made anew from the roster that answers.
    if (!voice.on) return;
    Object.keys(voice.peers).forEach(closePeer);
    send({ type: "voice", on: true });
  }

  function drawVoice() {
    const on = $("voice-on");
    on.textContent = voice.on ? "Turn voice off" : "Turn voice on";
    on.setAttribute("aria-pressed", String(voice.on));
    $("voice-mute").hidden = !voice.on;
    $("voice-mute").textContent = voice.muted ? "Unmute" : "Mute";
    $("voice-mute").setAttribute("aria-pressed", String(voice.muted));
    const others = voice.seats.filter((s) => frame && s !== frame.seat).map((s) => NAMES[s]);
    const who = others.length ? `Voice on: ${others.join(", ")}` : voice.on ? "Voice on: nobody else yet" : "";
    // Why this page's voice could not start stays said until it starts.
    voiceSays(!voice.on && voice.problem ? (who ? `${who}. ${voice.problem}` : voice.problem) : who);
  }

  function closePeer(seat) {
    const pc = voice.peers[seat];
    if (pc) pc.close();
    delete voice.peers[seat];
    const audio = $("voice-audio").querySelector(`[data-seat="${seat}"]`);
    if (audio) audio.remove();
  }

  function peer(seat) {
    closePeer(seat);
    // data-voice-policy="relay" (set by tests) sends the audio only through the TURN relay.
    const policy = document.body.dataset.voicePolicy === "relay" ? "relay" : "all";
    const pc = new RTCPeerConnection({ iceServers: voice.ice, iceTransportPolicy: policy });
    voice.stream.getTracks().forEach((track) => pc.addTrack(track, voice.stream));
    pc.ontrack = (event) => {
      const audio = el("audio", { autoplay: true, "data-seat": seat });
      audio.srcObject = event.streams[0];
      $("voice-audio").append(audio);
    };
    voice.peers[seat] = pc;
    // How many connections this page has made, for the tests and the curious.
    document.body.dataset.voicePeers = String(Number(document.body.dataset.voicePeers || 0) + 1);
    return pc;
  }

  function gathered(pc) {
    // The candidates go inside the description, sent once: no trickle of small messages.
    if (pc.iceGatheringState === "complete") return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, 5000);
      pc.addEventListener("icegatheringstatechange", () => {
        if (pc.iceGatheringState === "complete") { clearTimeout(timer); resolve(); }
      });
    });
  }

  function allowed(sdp) {
    // data-voice-only (set by tests) keeps only the candidates on that address.
    const only = document.body.dataset.voiceOnly;
    if (!only) return sdp;
    return sdp.split("\r\n").filter((line) => !line.startsWith("a=candidate") || line.includes(` ${only} `)).join("\r\n");
  }

  async function describe(pc, to, kind) {
    await gathered(pc);
    send({ type: "signal", to, kind, sdp: allowed(pc.localDescription.sdp) });
  }

  async function call(seat) {
    const pc = peer(seat);
    await pc.setLocalDescription(await pc.createOffer());
    await describe(pc, seat, "offer");
  }

  async function signal(message) {
    if (!voice.on) return;
    if (message.kind === "offer") {
      const pc = peer(message.from);
      await pc.setRemoteDescription({ type: "offer", sdp: message.sdp });
      await pc.setLocalDescription(await pc.createAnswer());
      await describe(pc, message.from, "answer");
    } else if (voice.peers[message.from]) {
      await voice.peers[message.from].setRemoteDescription({ type: "answer", sdp: message.sdp });
    }
  }

  function roster(message) {
    voice.seats = message.seats;
    voice.ice = message.ice;
    if (voice.on && frame) {
      const me = SEATS.indexOf(frame.seat);
      Object.keys(voice.peers).filter((s) => !voice.seats.includes(s)).forEach(closePeer);
      // Of two seats with voice on, the one earlier round the table calls the other.
      voice.seats.filter((s) => SEATS.indexOf(s) > me && !voice.peers[s]).forEach((s) => {
        call(s).catch(() => voiceSays("Voice could not connect to " + NAMES[s] + "."));
      });
    }
    drawVoice();
  }

  $("voice-on").addEventListener("click", async () => {
    if (voice.on) {
      Object.keys(voice.peers).forEach(closePeer);
      voice.stream.getTracks().forEach((track) => track.stop());
      voice.on = false;
      voice.stream = null;
      send({ type: "voice", on: false });
      drawVoice();
      return;
    }
    if (!window.isSecureContext || !navigator.mediaDevices) {
      voiceProblem("insecure", INSECURE);
      return;
    }
    try {
      voice.stream = await navigator.mediaDevices.getUserMedia({ audio: true, video: false });
    } catch (error) {
      // Only a NotAllowedError says a person (or the browser's settings) refused: a page
      // with no microphone, or one in use, is told so instead.
      const name = (error && error.name) || "Error";
      if (name === "NotAllowedError" || name === "SecurityError") {
        voiceProblem(name, "The microphone permission was refused for this page: allow it " +
          "in the browser's site settings (the icon left of the address), then turn voice on again.");
      } else if (name === "NotFoundError" || name === "OverconstrainedError") {
        voiceProblem(name, "Voice needs a microphone, and the browser found none.");
      } else if (name === "NotReadableError" || name === "AbortError") {
        voiceProblem(name, "The microphone is in use by another program, or could not be started.");
      } else {
        voiceProblem(name, `Voice could not start the microphone (${name}).`);
      }
      return;
    }
    voice.problem = "";
    delete document.body.dataset.voiceProblem;
    voice.on = true;
    voice.muted = false;
    send({ type: "voice", on: true });
    drawVoice();
  });

  $("voice-mute").addEventListener("click", () => {
    voice.muted = !voice.muted;
    if (voice.stream) voice.stream.getAudioTracks().forEach((track) => { track.enabled = !voice.muted; });
    drawVoice();
  });

  // What the voice connections carry, for the tests and the curious: per seat, the
  // connection's state, the audio packets received and the addresses of the pair in use.
  window.backalleyVoice = async () => {
    const out = {};
    for (const [seat, pc] of Object.entries(voice.peers)) {
      const stats = await pc.getStats();
      const entry = { state: pc.connectionState, packets: 0, local: null, remote: null, localType: null, remoteType: null };
      const byId = {};
      stats.forEach((report) => { byId[report.id] = report; });
      stats.forEach((report) => {
        if (report.type === "inbound-rtp" && report.kind === "audio") entry.packets += report.packetsReceived || 0;
        if (report.type === "candidate-pair" && report.nominated && report.state === "succeeded") {
          const local = byId[report.localCandidateId] || {};
          const remote = byId[report.remoteCandidateId] || {};
          entry.local = local.address || null;
          entry.remote = remote.address || null;
          entry.remoteType = remote.candidateType || null;
          entry.localType = local.candidateType || null;
        }
      });
      out[seat] = entry;
    }
    return out;
  };

  // --- the how-to page: the same table, walking a deal the engine played --------------

  function howto() {
    const panel = $("howto");
    panel.hidden = false;
    document.body.classList.add("howto-page");
    document.title = "Back Alley: how to play";
    let steps = [];
    let at = 0;
    let timer = null;
    const show = (index) => {
      at = Math.max(0, Math.min(index, steps.length - 1));
      const step = steps[at];
      frame = { ...step.frame, howto: true };
      notice("");
      showLast = false;
      draw();
      $("howto-count").textContent = `Step ${at + 1} of ${steps.length}: ${step.title}`;
      $("howto-text").replaceChildren(...step.sentences.map((text) => el("p", { text })));
      document.body.dataset.step = String(at);
      document.body.dataset.kinds = step.kinds.join(" ");
      $("howto-back").disabled = at === 0;
      $("howto-next").disabled = at === steps.length - 1;
      $("howto-end").hidden = at !== steps.length - 1;
      if (at === steps.length - 1) stop();
    };
    const stop = () => {
      clearInterval(timer);
      timer = null;
      $("howto-auto").setAttribute("aria-pressed", "false");
      $("howto-auto").textContent = "Autoplay";
    };
    $("howto-next").addEventListener("click", () => { stop(); show(at + 1); });
    $("howto-back").addEventListener("click", () => { stop(); show(at - 1); });
    $("howto-auto").addEventListener("click", () => {
      if (timer) { stop(); return; }
      $("howto-auto").setAttribute("aria-pressed", "true");
      $("howto-auto").textContent = "Pause";
      if (at === steps.length - 1) show(0);
      timer = setInterval(() => show(at + 1), Number(document.body.dataset.pace || 2500));
    });
    fetch("/how-to/steps.json").then((answer) => answer.json()).then((loaded) => {
      steps = loaded;
      show(0);
    }).catch(() => { $("status").textContent = "The how-to deal could not be loaded: reload the page."; });
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

  // The name form: asked once, in a room of friends, of a browser that has no name yet.
  let nameAsked = false;

  function drawName() {
    const form = $("name-form");
    if (nameAsked || frame.howto || frame.mode !== "friends") { form.hidden = true; return; }
    nameAsked = true;
    form.hidden = !!myName();
    if (!form.hidden) $("name-text").focus();
  }

  $("name-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const name = $("name-text").value.replace(/\s+/g, " ").trim().slice(0, MAX_NAME);
    $("name-form").hidden = true;
    if (!name) return;
    keepName(name);
    send({ type: "name", name });
  });
  $("name-skip").addEventListener("click", () => { $("name-form").hidden = true; });

  if (location.pathname === "/how-to") howto();
  else connect();
})();
