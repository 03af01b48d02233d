// aim.js: aim(), the one round trip before an action: it finds the target and, for
// click / hover / fill, checks and readies it for the server's direct input.
// Relies on: prelude, helpers, visibility, isDisabled (states), wasIssued (refs),
// resolve / describe / hit / elementAt (reading), readyToPoint / throughLabel (reach).
// Calls mark() (changes, the next module) and markFeedback() (feedback) at run time.

  // ---------------------------------------------------------------------------------
  // Aiming an action. aim() is the one round trip before every action: it marks the
  // page for change tracking, finds the target and, for the input the server sends
  // itself (click, hover, fill), checks what Playwright's actionability checks check
  // and readies the element. Short of ready, the answer says why (`why`, reach.js): the
  // server refuses what no wait mends after a short grace and leaves the rest
  // (disabled, animating) to Playwright's wait. A checkbox or radio that does not take
  // the click itself is clicked through its label (`via`).
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

  /** Visible, enabled, editable, focused and its content selected: typing replaces it.
   *  An editor (editors.js) answers `editor`, its kind: the server selects its whole
   *  text with the editor's own select-all and pastes, and then reads what it shows. */
  function readyToType(el) {
    if (!el.isConnected || (checkVis && !checkVis(el, VIS_OPTS))) return { wait: 'not visible', why: 'hidden' };
    const editor = editorKind(el);
    if (editor !== 'proxy' && !isVisibleElement(el)) return { wait: 'not visible: it has no area', why: 'zero-size' };
    if (isDisabled(el)) return { wait: 'not enabled', why: 'disabled' };
    const tag = el.localName;
    if (tag === 'input' ? !TYPE_INTO.has(el.type) || el.readOnly
        : tag === 'textarea' ? el.readOnly : !el.isContentEditable && !hasEditContext(el)) {
      return { wait: 'not a text field that typing fills' };
    }
    if (getAttr(el, 'aria-readonly') === 'true') return { wait: 'read-only' };
    focusElement(el);
    if (deepActiveElement() !== el) return { wait: 'did not take focus' };
    if (tag === 'input') selectInput(el);
    else if (tag === 'textarea') selectTextarea(el);
    else if (el.isContentEditable) {
      const range = createRange(doc);
      selectNodeContents(range, el);
      const selection = getSelection(window);
      removeAllRanges(selection);
      addRange(selection, range);
    }
    return editor ? { ready: true, editor } : { ready: true };
  }

  /** Why an action on a rendered element can never succeed (no area, or clipped away
   *  by an ancestor with no room), as [code, sentence], or null. An element that is not
   *  rendered, or moving, may still come: that is left to the wait. */
  function cannotReach(el) {
    if (!el.isConnected || (checkVis && !checkVis(el, VIS_OPTS)) || isAnimating(el)) return null;
    const why = unreachable(el, null);
    if (why === 'zero-size') return [why, 'it has no area (0 wide or 0 high), so nothing can point at it'];
    if (why === 'clipped') return [why, 'it is clipped away: an ancestor with overflow hidden has no room for it'];
    if (why === 'off-screen') return [why, 'it is off-screen, parked outside the page where no scrolling reaches it'];
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
   * {count, target, ready?: [x, y] | true, via?: the ref of the label the click goes
   * through, wait?: what is wrong, why?: its code (reach.js), coveredBy?}. Without a ref or a
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
    const mode = spec.mode;
    const scroll = spec.scroll !== false;
    if (spec.acting) {
      // A code editor's input is typed into, never pointed at: only a pointer needs to reach it.
      const pointing = mode === 'click' || mode === 'hover';
      const cannot = !pointing && isTypingProxy(el) ? null : cannotReach(el);
      const label = cannot && mode === 'click' ? throughLabel(el, scroll) : null;
      if (label) return Object.assign(out, label);
      if (cannot) { out.cannot = cannot[1]; out.why = cannot[0]; return out; }
    }
    let state = mode === 'fill' ? readyToType(el)
      : mode === 'click' || mode === 'hover' ? readyToPoint(el, mode === 'click', scroll, !!spec.reveal) : null;
    if (state && !state.ready && mode === 'click' && state.why !== 'disabled' && state.why !== 'animating') {
      state = throughLabel(el, scroll) || state;
    }
    if (state) Object.assign(out, state);
    return out;
  }
