// changes.js: change tracking: mark() starts a MutationObserver, changes() reports what
// became visible or hidden since (insertions, removals, and visibility flipped by a
// class, style, hidden, aria-hidden or open change) and where the page is leaving to
// (Navigation API listeners, added at install); quiet() waits for the update the page
// itself still has under way (CSS animations and transitions, short timers and
// animation frames requested since the mark, and fades set up to begin). Holds
// `tracker`, which mint() (refs) reads, and noteShown(), which snapshot and describe call.
// Relies on: prelude, helpers, visibility, roles, names, byRef / mint (refs),
// walkVisible (walks), pendingFades (fades).

  // ---------------------------------------------------------------------------------
  // Change tracking. The observer callback only remembers elements (cheap); the work
  // of deciding what is visible and ref-worthy happens once, in changes(). What was
  // visible before is what the agent was last told: a ref printed by a snapshot, an
  // element describe() saw, or one an earlier changes() listed (`info.shown`). Asking
  // the page about every element at mark time would cost each action milliseconds.
  // ---------------------------------------------------------------------------------
  let tracker = null;
  // Attributes whose change can show or hide an element or its subtree.
  const TOGGLES = ['hidden', 'style', 'class', 'aria-hidden', 'open'];

  // Set once a whole-page snapshot was printed in this document: from then on every
  // visible ref-worthy element has a ref the agent knows, so anything visible without
  // one is news, wherever it is.
  let seenWhole = false;
  function noteWholeSnapshot() { seenWhole = true; }

  /** What the agent last told about a ref's visibility (snapshot, describe, changes). */
  function noteShown(ref, shown) {
    const info = byRef.get(ref);
    if (info) info.shown = shown;
  }

  function observeRoot(root) {
    if (!tracker || tracker.roots.has(root)) return;
    tracker.roots.add(root);
    tracker.observer.observe(root, {
      childList: true,
      subtree: true,
      characterData: true,
      attributes: true,
      attributeFilter: TOGGLES,
    });
  }

  function remember(set, el) {
    if (set.size >= TRACK_MAX) { tracker.overflow = true; return; }
    set.add(el);
  }

  function onRecords(records) {
    if (!tracker) return;
    tracker.mutations += records.length;
    for (const record of records) {
      if (record.type === 'childList') {
        for (const node of record.addedNodes) {
          if (node.nodeType !== 1) continue;
          remember(tracker.added, node);
          if (node.shadowRoot) { noteShadow(node.shadowRoot); observeRoot(node.shadowRoot); }
        }
      } else if (record.type === 'attributes') {
        remember(tracker.toggled, record.target);
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
      added: new SetC(),     // elements inserted since the mark
      toggled: new SetC(),   // elements whose TOGGLES attributes changed since the mark
      refs: new MapC(),      // refs connected at mark time or minted since: ref -> info
      mutations: 0,          // records seen: quiet() reads it as "the page is still busy"
      animated: new SetC(),  // elements quiet() saw animate since the mark (fades.js)
      timelineAt: timeline ? timeline.currentTime : null,   // animations older are not ours
      overflow: false,
      leaving: null,         // the navigate event of a departure started since the mark
      url: location.href,    // where the document was at the mark (same-document navigations move it)
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

  /** Is `el` inside (or one of) the elements of `set`? */
  function underAny(el, set) {
    for (let n = el; n; n = parentOf(n)) if (set.has(n)) return true;
    return false;
  }

  /**
   * The roots whose subtree may have become visible: inserted elements and toggled
   * ones. Before any whole snapshot, a toggled root that held something the agent knew
   * as visible is left out (`body` gaining a class holds the very button clicked, and
   * every element in it would look new).
   */
  function revealRoots() {
    const roots = [...tracker.added];
    if (!tracker.toggled.size) return roots;
    if (seenWhole) return roots.concat([...tracker.toggled]);
    const holdsShown = new SetC();
    for (const info of tracker.refs.values()) {
      if (info.shown !== true) continue;
      const el = info.w.deref();
      if (!el || !el.isConnected) continue;
      for (let n = el; n && !holdsShown.has(n); n = parentOf(n)) holdsShown.add(n);
    }
    for (const el of tracker.toggled) if (!holdsShown.has(el)) roots.push(el);
    return roots;
  }

  // Where the document was when it was marked: the "from" of a same-document navigation
  // (the server's own view of the URL may lag behind a pushState just made).
  function markedUrl() {
    return tracker ? tracker.url : null;
  }

  function changes(opts) {
    if (!tracker) throw fail('not-marked', 'call mark() before changes()');
    opts = opts || {};
    const limit = opts.limit === undefined || opts.limit === null ? 20 : Number(opts.limit);
    onRecords(tracker.observer.takeRecords());
    let truncated = tracker.overflow;
    const memo = new MapC();

    const appeared = [];
    const seen = new SetC();
    for (const root of revealRoots()) {
      if (!root.isConnected || seen.has(root)) continue;
      if (elClosest(root, '[aria-hidden="true"]')) continue;
      walkVisible(root, false, (el) => {
        if (seen.has(el) || el.localName === 'option') return;
        seen.add(el);
        const known = refOf.get(el);
        if (known && byRef.get(known) && byRef.get(known).shown === true) return;
        const role = roleOf(el);
        const interactive = isInteractive(el, role);
        if (!isRefWorthy(role, interactive)) return;
        const name = accessibleName(el, role);
        if ((role === 'img') && !name && !interactive) return;
        if (!isShown(el, memo)) return;
        if (appeared.length >= limit) { truncated = true; return; }
        const shown = lineRoleOf(role, interactive);
        const ref = mint(el, shown, name);
        noteShown(ref, true);
        appeared.push({ ref, role: shown, name });
      }, null);
    }

    const removed = [];
    const toggled = tracker.toggled;
    for (const [ref, info] of tracker.refs) {
      if (info.shown === false) continue;
      const el = info.w.deref();
      const gone = !el || !el.isConnected;
      // aria-hidden takes a subtree out of what the agent is shown, as display does.
      if (!gone && !(toggled.size && underAny(el, toggled) &&
                     (!isShown(el, memo) || elClosest(el, '[aria-hidden="true"]')))) continue;
      if (!gone) info.shown = false;
      if (removed.length >= limit) { truncated = true; break; }
      removed.push({ ref, role: info.role, name: info.name });
    }
    return { appeared, removed, truncated, leaving: leavingUrl() };
  }

  // ---------------------------------------------------------------------------------
  // The page's own update. A click may start work that lands later than one task
  // turn: a CSS transition (a modal's fade, a collapse's height), a chain of
  // animation frames, a short timer behind a microtask. quiet() waits for what the
  // page started since the mark, and only for that: with nothing pending it answers
  // in the same microtask, so an action on a still page pays nothing. Timers and
  // frames are counted by thin wrappers installed with the agent (they call the
  // browser's own functions and only count while a mark is active); timers longer
  // than SHORT_TIMER_MS are the page's business (polls, debounces, toasts).
  // ---------------------------------------------------------------------------------
  const SHORT_TIMER_MS = 50;
  const QUIET_BUDGET_MS = 2000;
  // Two waits in a row that changed nothing end the wait: a render loop that draws a
  // canvas, or a poller, is not an update the snapshot waits for.
  const IDLE_WAITS = 2;
  const FRAME_SLACK_MS = 100;
  const applyFn = Reflect.apply;
  const promiseAll = PromiseC.all.bind(PromiseC);
  const promiseRace = PromiseC.race.bind(PromiseC);
  const timeline = doc.timeline;
  const finite = Number.isFinite;
  const now = performance.now.bind(performance);
  const nativeSetTimeout = window.setTimeout;
  const nativeClearTimeout = window.clearTimeout;
  const nativeRaf = window.requestAnimationFrame;
  const nativeCancelRaf = window.cancelAnimationFrame;
  const pendingTimers = new MapC();   // timer id -> when it is due
  const pendingFrames = new SetC();   // frame request ids

  function defineWrapper(name, fn) {
    defineProperty(fn, 'name', { value: name });
    defineProperty(window, name, { value: fn, writable: true, configurable: true, enumerable: true });
  }

  defineWrapper('setTimeout', function setTimeout(handler, delay, ...rest) {
    const ms = Number(delay) || 0;
    if (!tracker || typeof handler !== 'function' || ms > SHORT_TIMER_MS) {
      return applyFn(nativeSetTimeout, window, [handler, delay, ...rest]);
    }
    let id = 0;
    const run = function () {
      pendingTimers.delete(id);
      return applyFn(handler, this, rest);
    };
    id = applyFn(nativeSetTimeout, window, [run, delay]);
    pendingTimers.set(id, now() + ms);
    return id;
  });
  defineWrapper('clearTimeout', function clearTimeout(id) {
    pendingTimers.delete(id);
    return applyFn(nativeClearTimeout, window, [id]);
  });
  if (typeof nativeRaf === 'function') {
    defineWrapper('requestAnimationFrame', function requestAnimationFrame(callback) {
      if (!tracker || typeof callback !== 'function') return applyFn(nativeRaf, window, [callback]);
      let id = 0;
      const run = function (time) {
        pendingFrames.delete(id);
        return applyFn(callback, this, [time]);
      };
      id = applyFn(nativeRaf, window, [run]);
      pendingFrames.add(id);
      return id;
    });
    defineWrapper('cancelAnimationFrame', function cancelAnimationFrame(id) {
      pendingFrames.delete(id);
      return applyFn(nativeCancelRaf, window, [id]);
    });
  }

  /** Finite CSS animations and transitions running now that started since the mark
   *  (a pending one has no start time yet); a carousel's long slide is not ours. */
  function runningAnimations() {
    if (!docAnimations) return [];
    const out = [];
    for (const animation of docAnimations(doc)) {
      if (animation.playState !== 'running' || !animation.effect) continue;
      const start = animation.startTime;
      // Start times are frame times, which trail the clock the mark read: a frame's slack.
      if (start !== null && tracker.timelineAt !== null && start < tracker.timelineAt - FRAME_SLACK_MS) continue;
      const end = animation.effect.getComputedTiming().endTime;
      if (!finite(end)) continue;
      out.push(animation);
      if (animation.effect.target) tracker.animated.add(animation.effect.target);
    }
    return out;
  }

  const sleep = (ms) => new PromiseC((resolve) => applyFn(nativeSetTimeout, window, [resolve, ms]));
  const nextFrame = () => new PromiseC((resolve) => applyFn(nativeRaf, window, [resolve]));

  /**
   * quiet({budgetMs?}) -> Promise<{waited: [...], ms, timedOut}>: resolves once no
   * animation, short timer or frame the page started since the mark is pending, nor a
   * fade it set up that is due to begin (fades.js), each wait followed by a task turn,
   * so what their callbacks set off has run too; or after the budget. `waited` names
   * what was waited for: animation (a fade about to begin is one), timer, frame.
   */
  function quiet(opts) {
    const budget = opts && opts.budgetMs !== undefined ? Number(opts.budgetMs) : QUIET_BUDGET_MS;
    const started = now();
    const waited = new SetC();
    const fades = new MapC();
    let idle = 0;
    const answer = (timedOut) => ({ waited: [...waited], ms: Math.round(now() - started), timedOut });
    const step = () => {
      if (!tracker) return answer(false);
      const left = budget - (now() - started);
      const animations = runningAnimations();
      let reason = null, wait = null;
      if (animations.length) {
        reason = 'animation';
        const ends = animations.map((a) => a.finished.then(null, () => null));
        wait = promiseRace([promiseAll(ends), sleep(Math.max(0, left))]);
      } else if (pendingTimers.size) {
        reason = 'timer';
        let due = Infinity;
        for (const at of pendingTimers.values()) due = Math.min(due, at);
        wait = sleep(Math.max(0, Math.min(left, due - now())) + 1);
      } else if (pendingFrames.size) {
        reason = 'frame';
        wait = nextFrame();
      } else if (pendingFades(fades)) {
        reason = 'animation';  // bounded by each fade's own time (pendingFades)
        wait = sleep(Math.max(0, Math.min(left, FADE_POLL_MS)));
      }
      if (!reason) return answer(false);
      if (left <= 0) return answer(true);
      waited.add(reason);
      onRecords(tracker.observer.takeRecords());
      const before = tracker.mutations;
      return wait.then(() => sleep(0)).then(() => {
        if (!tracker) return answer(false);
        onRecords(tracker.observer.takeRecords());
        idle = tracker.mutations === before && reason !== 'animation' ? idle + 1 : 0;
        return idle >= IDLE_WAITS ? answer(false) : step();
      });
    };
    return PromiseC.resolve().then(step);
  }
