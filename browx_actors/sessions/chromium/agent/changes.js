// changes.js: change tracking: mark() starts a MutationObserver, changes() reports what
// appeared or disappeared since and where the page is leaving to (Navigation API
// listeners, added at install). Holds `tracker`, which mint() (refs) reads.
// Relies on: prelude, helpers, roles, names, byRef / mint (refs), walkVisible (walks).

  // ---------------------------------------------------------------------------------
  // Change tracking. The observer callback only remembers elements (cheap); the work
  // of deciding what is visible and ref-worthy happens once, in changes().
  // ---------------------------------------------------------------------------------
  let tracker = null;
  const HIDDEN_STYLE = /display\s*:\s*none|visibility\s*:\s*hidden/i;

  /** Did this attribute's old value hide the element? (class changes are not judged.) */
  function wasHidden(name, oldValue) {
    switch (name) {
      case 'hidden': return oldValue !== null;
      case 'aria-hidden': return oldValue === 'true';
      case 'open': return oldValue === null;
      case 'style': return !!oldValue && HIDDEN_STYLE.test(oldValue);
      default: return false;
    }
  }

  function observeRoot(root) {
    if (!tracker || tracker.roots.has(root)) return;
    tracker.roots.add(root);
    tracker.observer.observe(root, {
      childList: true,
      subtree: true,
      attributes: true,
      attributeOldValue: true,
      attributeFilter: ['hidden', 'style', 'aria-hidden', 'open'],
    });
  }

  function remember(el) {
    if (tracker.added.size >= TRACK_MAX) { tracker.overflow = true; return; }
    tracker.added.add(el);
  }

  function onRecords(records) {
    if (!tracker) return;
    for (const record of records) {
      if (record.type === 'childList') {
        for (const node of record.addedNodes) {
          if (node.nodeType !== 1) continue;
          remember(node);
          if (node.shadowRoot) { noteShadow(node.shadowRoot); observeRoot(node.shadowRoot); }
        }
      } else if (record.type === 'attributes' && wasHidden(record.attributeName, record.oldValue)) {
        remember(record.target);
      }
    }
  }

  // A cross-document navigation this document starts (a link, a form, location.assign)
  // fires the Navigation API's navigate event here as it begins, before the browser
  // has reported its request to anyone: changes() says where the page is going, so the
  // server waits for it. Same-document navigations, cancelled ones and ones a router
  // intercepted (navigation.transition is set, or navigatesuccess / navigateerror has
  // fired) are not departures.
  if (navigationApi) {
    addListener(navigationApi, 'navigate', (event) => {
      if (tracker && !event.destination.sameDocument) tracker.leaving = event;
    });
    const settled = () => { if (tracker) tracker.leaving = null; };
    addListener(navigationApi, 'navigatesuccess', settled);
    addListener(navigationApi, 'navigateerror', settled);
  }

  function leavingUrl() {
    const event = tracker.leaving;
    if (!event || event.defaultPrevented || navigationApi.transition) return null;
    return event.destination.url;
  }

  function mark() {
    if (tracker) tracker.observer.disconnect();
    tracker = {
      observer: new MutationObserverC(onRecords),
      roots: new SetC(),
      added: new SetC(),
      refs: new MapC(),   // refs connected at mark time or minted since: ref -> info
      overflow: false,
      leaving: null,      // the navigate event of a departure started since the mark
    };
    for (const [ref, info] of byRef) {
      const el = info.w.deref();
      if (el && el.isConnected) tracker.refs.set(ref, info);
    }
    observeRoot(doc);
    // Shadow roots are separate trees for a MutationObserver: watch the open ones that
    // walks have met (a full scan per action would cost more than it finds).
    for (let i = shadowRoots.length - 1; i >= 0; i--) {
      const shadow = shadowRoots[i].deref();
      if (shadow) observeRoot(shadow);
      else shadowRoots.splice(i, 1);
    }
    return { marked: true };
  }

  function changes(opts) {
    if (!tracker) throw fail('not-marked', 'call mark() before changes()');
    opts = opts || {};
    const limit = opts.limit === undefined || opts.limit === null ? 20 : Number(opts.limit);
    onRecords(tracker.observer.takeRecords());
    let truncated = tracker.overflow;

    const appeared = [];
    const seen = new SetC();
    for (const root of tracker.added) {
      if (!root.isConnected) continue;
      if (elClosest(root, '[aria-hidden="true"]')) continue;
      walkVisible(root, false, (el) => {
        if (seen.has(el) || el.localName === 'option') return;
        seen.add(el);
        const role = roleOf(el);
        const interactive = isInteractive(el, role);
        if (!isRefWorthy(role, interactive)) return;
        const name = accessibleName(el, role);
        if ((role === 'img') && !name && !interactive) return;
        if (appeared.length >= limit) { truncated = true; return; }
        const shown = lineRoleOf(role, interactive);
        appeared.push({ ref: mint(el, shown, name), role: shown, name });
      }, null);
    }

    const removed = [];
    for (const [ref, info] of tracker.refs) {
      const el = info.w.deref();
      if (el && el.isConnected) continue;
      if (removed.length >= limit) { truncated = true; break; }
      removed.push({ ref, role: info.role, name: info.name });
    }
    return { appeared, removed, truncated, leaving: leavingUrl() };
  }
