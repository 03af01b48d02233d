// aim.js: aim(), the one round trip before an action: it finds the target and, for
// click / hover / fill, checks and readies it for the server's direct input.
// Relies on: prelude, helpers, visibility, isDisabled (states), wasIssued (refs),
// resolve / describe / hit / elementAt (reading). Calls mark() (changes, the next
// module) and markFeedback() (feedback) at run time.

  // ---------------------------------------------------------------------------------
  // Aiming an action. aim() is the one round trip before every action: it marks the
  // page for change tracking, finds the target and, for the input the server sends
  // itself (click, hover, fill), checks what Playwright's actionability checks check
  // and readies the element. Anything short of ready is left to Playwright, which
  // waits for the element and says what is wrong with it.
  // ---------------------------------------------------------------------------------
  const TYPE_INTO = new SetC(['text', 'email', 'password', 'search', 'tel', 'url']);

  /** Is `node` `el` or inside it, across shadow boundaries and slots? */
  function within(el, node) {
    for (let n = node; n; n = parentOf(n)) if (n === el) return true;
    return false;
  }

  /** A running animation or transition on the element or an ancestor moves it. */
  function isAnimating(el) {
    if (!docAnimations) return false;
    for (const animation of docAnimations(doc)) {
      if (animation.playState !== 'running') continue;
      const target = animation.effect && animation.effect.target;
      if (target && within(target, el)) return true;
    }
    return false;
  }

  /** The layout viewport less its scrollbars (in quirks mode the root element's
   *  client size is the whole document's, so the window's is used there). */
  function viewportSize() {
    const root = doc.documentElement;
    if (doc.compatMode === 'CSS1Compat' && root) return [root.clientWidth, root.clientHeight];
    return [window.innerWidth, window.innerHeight];
  }

  /** The centre of the element's first box part inside the viewport, or null. */
  function pointIn(el) {
    const [vw, vh] = viewportSize();
    for (const r of getClientRects(el)) {
      const left = Math.max(r.left, 0), right = Math.min(r.right, vw);
      const top = Math.max(r.top, 0), bottom = Math.min(r.bottom, vh);
      if (right - left >= 1 && bottom - top >= 1) return [(left + right) / 2, (top + bottom) / 2];
    }
    return null;
  }

  /** Visible, enabled (for a click), still, in view and on top at its point. With
   *  `scroll` false, an element partly out of view is aimed at in its visible part;
   *  with `reveal` it is scrolled to even when this document's viewport shows it (the
   *  frame that holds this document clips it: the browser scrolls the frames above). */
  function readyToPoint(el, needsEnabled, scroll, reveal) {
    if (!isVisibleElement(el)) return { wait: 'not visible' };
    if (needsEnabled && isDisabled(el)) return { wait: 'not enabled' };
    if (isAnimating(el)) return { wait: 'animating' };
    const [vw, vh] = viewportSize();
    const box = getRect(el);
    if (scroll && (reveal || box.top < 0 || box.left < 0 || box.bottom > vh || box.right > vw)) {
      // Centred when not wholly in view, as the browser's scrollIntoViewIfNeeded does;
      // 'instant' overrides a page's smooth scroll-behavior, so the point is final.
      scrollIntoView(el, { block: 'center', inline: 'center', behavior: 'instant' });
    }
    const point = pointIn(el);
    if (!point) return { wait: 'outside the viewport' };
    const top = elementAt(point[0], point[1]);
    if (!top || !within(el, top)) {
      return { wait: (top ? '<' + top.localName + '>' : 'nothing') + ' is on top at its point' };
    }
    return { ready: point };
  }

  /** Visible, enabled, editable, focused and its content selected: typing replaces it. */
  function readyToType(el) {
    if (!isVisibleElement(el)) return { wait: 'not visible' };
    if (isDisabled(el)) return { wait: 'not enabled' };
    const tag = el.localName;
    if (tag === 'input' ? !TYPE_INTO.has(el.type) || el.readOnly
        : tag === 'textarea' ? el.readOnly : !el.isContentEditable) {
      return { wait: 'not a text field that typing fills' };
    }
    if (getAttr(el, 'aria-readonly') === 'true') return { wait: 'read-only' };
    focusElement(el);
    if (deepActiveElement() !== el) return { wait: 'did not take focus' };
    if (tag === 'input') selectInput(el);
    else if (tag === 'textarea') selectTextarea(el);
    else {
      const range = createRange(doc);
      selectNodeContents(range, el);
      const selection = getSelection(window);
      removeAllRanges(selection);
      addRange(selection, range);
    }
    return { ready: true };
  }

  /** Why an action on a rendered element can never succeed (no area, or clipped away
   *  by an ancestor with no room), or null. An element that is not rendered, or moving,
   *  may still come: that is left to Playwright's wait. */
  function cannotReach(el) {
    if (!el.isConnected || (checkVis && !checkVis(el, VIS_OPTS)) || isAnimating(el)) return null;
    const why = unreachable(el, null);
    if (why === 'zero-size') return 'it has no area (0 wide or 0 high), so nothing can point at it';
    if (why === 'clipped') return 'it is clipped away: an ancestor with overflow hidden has no room for it';
    if (why === 'off-screen') return 'it is off-screen, parked outside the page where no scrolling reaches it';
    return null;
  }

  /**
   * spec: {ref?, selector?, point?: [x, y], mode?: 'click' | 'hover' | 'fill', acting?,
   * mark?: false (keep the mark an earlier aim of the same call set), scroll?: false
   * (aim at what is in view), reveal?: true (scroll to it even if in view here)}. With
   * `acting` (an action will follow) a target that can never be acted on answers
   * {count, target, cannot: reason} at once.
   * Returns {stale: true} | {notCss: true} (left to Playwright's selector engines: a
   * selector that is not CSS, or one the light DOM has no match for) |
   * {count, target, ready?: [x, y] | true, wait?: reason}. Without a ref or a
   * selector the target is what is under `point` (count 0).
   */
  function aim(spec) {
    if (spec.mark !== false) {
      mark();
      markFeedback();
    }
    let el = null;
    let count = 1;
    if (spec.ref !== null && spec.ref !== undefined) {
      el = resolve(spec.ref);
      if (!el) {
        const ref = parseRef(spec.ref);
        return ref && wasIssued(ref) ? { stale: true } : { unknownRef: true };
      }
    } else if (spec.selector !== null && spec.selector !== undefined) {
      let found;
      try { found = docQSA(doc, spec.selector); } catch (err) { return { notCss: true }; }
      count = found.length;
      // Nothing in the light DOM: Playwright's CSS engine also looks inside open shadow
      // roots, so it decides (a miss costs one more hop; a control in a web component
      // is found as verify_* and wait_for find it).
      if (!count) return { notCss: true };
      el = found[0];
    } else {
      const p = spec.point;
      return { count: 0, target: p ? hit(p[0], p[1]) : null };
    }
    const out = { count, target: describe(el) };
    if (spec.acting) {
      const cannot = cannotReach(el);
      if (cannot) { out.cannot = cannot; return out; }
    }
    const mode = spec.mode;
    const state = mode === 'fill' ? readyToType(el)
      : mode === 'click' || mode === 'hover' ? readyToPoint(el, mode === 'click', spec.scroll !== false, !!spec.reveal) : null;
    if (state && state.ready) out.ready = state.ready;
    else if (state) out.wait = state.wait;
    return out;
  }
