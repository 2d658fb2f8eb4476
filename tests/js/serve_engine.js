// The `engine` of the adapter example in docs/protocol.md, for its test: each call is
// answered by `backalley serve` (the command in BACKALLEY_SERVE), one request at a time,
// through two named pipes read and written synchronously, as a real engine would answer
// at once. tests/test_protocol_js.py runs the example with it under the fuzzer.
"use strict";
const childProcess = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "backalley-js-"));
const requests = path.join(dir, "requests");
const replies = path.join(dir, "replies");
childProcess.execFileSync("mkfifo", [requests, replies]);
const command = process.env.BACKALLEY_SERVE || "backalley serve";
const child = childProcess.spawn("sh", ["-c", `exec ${command} < "$0" > "$1"`, requests, replies], {
  stdio: ["ignore", "ignore", "inherit"],
});
// Opening a pipe waits for its other end: the shell opens the requests first, then the replies.
const toServe = fs.openSync(requests, "w");
const fromServe = fs.openSync(replies, "r");
fs.rmSync(dir, { recursive: true });
// Node exits when the adapter is done; closing our end then ends `backalley serve` too.
child.unref();

let pending = "";
function ask(request) {
  fs.writeSync(toServe, JSON.stringify(request) + "\n");
  const chunk = Buffer.alloc(1 << 16);
  for (;;) {
    const end = pending.indexOf("\n");
    if (end >= 0) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      const reply = JSON.parse(line);
      if (reply.type === "error") throw new Error(reply.message);
      return reply;
    }
    const count = fs.readSync(fromServe, chunk, 0, chunk.length, null);
    if (count === 0) throw new Error("backalley serve ended");
    pending += chunk.toString("utf8", 0, count);
  }
}

ask({ type: "hello", protocol: "backalley-protocol", versions: [1] });

module.exports = {
  newMatch: (rules, seed) => {
    ask(seed === undefined ? { type: "new_match", rules } : { type: "new_match", rules, seed });
  },
  apply: (action) => {
    const reply = ask({ type: "apply", action });
    return reply.type === "refused" ? { reason: reply.reason, message: reply.message } : null;
  },
  legal: () => ask({ type: "legal" }).actions,
  facts: () => ask({ type: "facts" }).facts,
};
