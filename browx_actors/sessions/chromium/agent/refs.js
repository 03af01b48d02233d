// refs.js: the ref registry (Element -> 'eN', 'eN' -> WeakRef), minting and lookup, and
// the `scope` argument (a ref or a CSS selector).
// Relies on: prelude, fail / parseRef (helpers). mint() reads `tracker` (changes, a
// later `let`) at call time, so nothing may mint while the closure is installing.

  // ---------------------------------------------------------------------------------
  // Refs
  // ---------------------------------------------------------------------------------
  const refOf = new WeakMapC();   // Element -> 'eN'
  const byRef = new MapC();       // 'eN' -> {w: WeakRef<Element>, role, name}
  let refCounter = 0;
  // Drop the map entry once its element is garbage collected, so a long-lived page
  // that churns nodes does not grow the map without bound.
  const reaper = new FinalizationRegistryC((ref) => {
    const info = byRef.get(ref);
    if (info && !info.w.deref()) byRef.delete(ref);
  });

  /** The element's ref, minted on first sight; role/name remembered for changes(). */
  function mint(el, role, name) {
    let ref = refOf.get(el);
    if (ref) {
      const info = byRef.get(ref);
      if (info) { info.role = role; info.name = name; }
      return ref;
    }
    ref = 'e' + (++refCounter);
    const info = { w: new WeakRefC(el), role, name };
    refOf.set(el, ref);
    byRef.set(ref, info);
    reaper.register(el, ref);
    if (tracker) tracker.refs.set(ref, info);
    return ref;
  }

  function lookup(ref) {
    const info = byRef.get(ref);
    if (!info) return null;
    const el = info.w.deref();
    return el && el.isConnected ? el : null;
  }

  /** Was this ref ever minted in this document? (Refs count up from e1.) */
  function wasIssued(ref) {
    const n = Number(ref.slice(1));
    return n >= 1 && n <= refCounter;
  }

  function resolveOrThrow(value) {
    const ref = parseRef(value);
    if (ref && !wasIssued(ref)) {
      throw fail('unknown-ref', 'ref ' + ref + ' was never issued on this page; take a snapshot first ' +
        '(refs come from snapshot, find and action results)');
    }
    const el = ref && lookup(ref);
    if (!el) {
      throw fail('stale-element',
        'ref ' + (ref || String(value)) + ' is unknown or no longer attached; take a new snapshot');
    }
    return el;
  }

  /** A scope argument: a ref or a CSS selector; null/undefined means the document. */
  function scopeElement(scope) {
    if (scope === null || scope === undefined || scope === '') return null;
    if (typeof scope !== 'string') throw fail('bad-arg', 'scope must be a ref or a CSS selector');
    if (parseRef(scope)) return resolveOrThrow(scope);
    const el = querySelectorSafe(scope);
    if (!el) throw fail('not-found', 'no element matches selector ' + toJSON(scope));
    return el;
  }

  function querySelectorSafe(selector) {
    try {
      return docQS(doc, selector);
    } catch (err) {
      throw fail('bad-selector', 'invalid CSS selector ' + toJSON(selector));
    }
  }
