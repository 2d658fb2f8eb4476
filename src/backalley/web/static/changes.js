// What changed between two of a seat's frames, applied (backalley.web.changes): the
// server sends a page its seat's whole frame once, then each later frame as operations
// on the one before. This applies them the way backalley.web.changes.apply_ops does,
// without changing the frame it is given (the page may still hold parts of it): the
// objects on each operation's path are copied once, the others shared. It throws on
// operations that do not fit the frame (the page then asks for the whole frame again).
// Loaded by table.html before table.js; under Node.js (the tests) it is a module.
"use strict";

(function (root) {
  const MAX_DEPTH = 8;  // backalley.web.changes.MAX_DEPTH

  function fail(why) {
    throw new Error("This change does not apply to the frame held: " + why + ".");
  }

  function isKey(node, key) {
    // A list's items by index, an object's own keys by name (never its prototype's).
    if (Array.isArray(node)) return Number.isInteger(key) && key >= 0;
    return typeof key === "string" && key !== "__proto__";
  }

  function has(node, key) {
    if (!isKey(node, key)) return false;
    if (Array.isArray(node)) return key < node.length;
    return Object.prototype.hasOwnProperty.call(node, key);
  }

  function isPlace(value) {
    return value !== null && typeof value === "object";
  }

  function applyChange(frame, ops) {
    if (!isPlace(frame) || !Array.isArray(ops)) fail("a change's operations are a list");
    const copies = new Set();
    const copy = (value) => {
      const made = Array.isArray(value) ? value.slice() : Object.assign({}, value);
      copies.add(made);
      return made;
    };
    // The child of `node` at `key`, copied unless it was copied already by this change.
    const own = (node, key) => {
      let child = node[key];
      if (!copies.has(child)) {
        child = copy(child);
        node[key] = child;
      }
      return child;
    };
    const top = copy(frame);
    for (const op of ops) {
      if (!Array.isArray(op) || op.length < 2 || !Array.isArray(op[1])) fail("not an operation");
      const kind = op[0];
      const path = op[1];
      if (path.length === 0 || path.length > MAX_DEPTH) fail("a path of " + path.length + " steps");
      let node = top;
      for (const step of path.slice(0, -1)) {
        if (!has(node, step) || !isPlace(node[step])) fail("a path not in the frame");
        node = own(node, step);
      }
      const last = path[path.length - 1];
      if (!isKey(node, last)) fail("a path not in the frame");
      if (kind === "s" && op.length === 3) {
        if (Array.isArray(node) && last >= node.length) fail("no such item");
        node[last] = op[2];
      } else if (kind === "d" && op.length === 2) {
        if (!has(node, last)) fail("no such key or item");
        if (Array.isArray(node)) node.splice(last, 1);
        else delete node[last];
      } else if ((kind === "a" || kind === "t") && op.length === 3) {
        if (!has(node, last) || !Array.isArray(node[last])) fail("appending or cutting what is not a list");
        const list = own(node, last);
        if (kind === "a" && Array.isArray(op[2])) list.push(...op[2]);
        else if (kind === "t" && Number.isInteger(op[2]) && op[2] >= 0 && op[2] <= list.length) list.length = op[2];
        else fail("not an operation");
      } else {
        fail("not an operation");
      }
    }
    return top;
  }

  const api = { applyChange, MAX_DEPTH };
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.BackAlleyChanges = api;
})(typeof window === "object" ? window : globalThis);
