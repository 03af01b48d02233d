// helpers.js: small helpers the later modules share: whitespace collapsing (which also
// drops invisible characters) and clipping,
// `code:` errors (fail), ref syntax (parseRef), the open shadow roots walks meet
// (noteShadow, shadowRoots), and tree navigation across shadow boundaries.
// Relies on: ErrorC, WeakRefC, WeakSetC, doc (prelude).

  // ---------------------------------------------------------------------------------
  // Small helpers
  // ---------------------------------------------------------------------------------
  const WS = /\s+/g;
  // Characters that render as nothing (zero-width spaces and joiners, word joiner and
  // invisible operators, BOM, soft hyphen, bidi controls): a name or a text shows as a
  // person reads it, and find / textSearch match what the snapshot shows, because the
  // needle goes through the same collapse.
  const INVISIBLE = /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/g;
  const collapse = (s) => s.replace(INVISIBLE, '').replace(WS, ' ').trim();

  /** Cut to `max` characters with an ellipsis, never splitting a surrogate pair. */
  function clip(s, max) {
    if (s.length <= max) return s;
    let end = max - 1;
    const code = s.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff) end -= 1;
    return s.slice(0, end) + '\u2026';
  }

  function fail(code, message) {
    return new ErrorC(code + ': ' + message);
  }

  /** `e5`, `ref=e5` and `[ref=e5]` all name ref e5; anything else is not a ref. */
  const REF_RE = /^\s*\[?\s*(?:ref\s*=\s*)?(e\d+)\s*\]?\s*$/;
  function parseRef(value) {
    if (typeof value !== 'string') return null;
    const m = REF_RE.exec(value);
    return m ? m[1] : null;
  }

  // Open shadow roots met by any walk, so mark() can observe them without a full
  // document scan. WeakRefs: a remembered root never outlives its host.
  const shadowSeen = new WeakSetC();
  const shadowRoots = [];
  function noteShadow(shadow) {
    if (shadowSeen.has(shadow)) return;
    shadowSeen.add(shadow);
    shadowRoots.push(new WeakRefC(shadow));
  }

  /** Children in rendering order: open shadow roots and slot assignments honoured. */
  function childNodesOf(node) {
    if (node.nodeType === 1) {
      const shadow = node.shadowRoot;
      if (shadow) { noteShadow(shadow); return shadow.childNodes; }
      if (node.localName === 'slot' && typeof node.assignedNodes === 'function') {
        const assigned = node.assignedNodes();
        if (assigned.length) return assigned;
      }
    }
    return node.childNodes;
  }

  /** Parent across shadow boundaries (a shadow root's parent is its host). */
  function parentOf(el) {
    if (el.assignedSlot) return el.assignedSlot;
    const parent = el.parentNode;
    if (!parent) return null;
    if (parent.nodeType === 11) return parent.host || null;
    return parent.nodeType === 1 ? parent : null;
  }

  /** The focused element, descending into open shadow roots. */
  function deepActiveElement() {
    let active = doc.activeElement;
    while (active && active.shadowRoot && active.shadowRoot.activeElement) {
      active = active.shadowRoot.activeElement;
    }
    return active;
  }
