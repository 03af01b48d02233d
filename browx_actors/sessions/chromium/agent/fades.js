// fades.js: fades the page has set up but not begun: an element shown since the mark
// (inserted, or its class, style or hidden toggled) that sits at opacity 0 and declares
// an opacity transition. quiet() (changes) waits for such a fade to begin, so that what
// it reveals is in the action's result; pendingFades() says whether one is still due.
// Relies on: checkVis, styleOf, getRect (prelude), VIS_OPTS, SHOWN_OPTS (visibility); tracker,
// now, finite, FRAME_SLACK_MS (changes).

  // ---------------------------------------------------------------------------------
  // A fade that starts late. Bootstrap shows a tab pane or a modal by setting its
  // display at once, at opacity 0, and adds the class that moves the opacity later:
  // from a timer as long as the transition itself (a tab pane's 150 ms, plus 5), or
  // from the end of another transition (the backdrop's). For that while nothing runs,
  // so quiet() would answer with the element rendered but transparent, which changes()
  // does not count as shown, and its appearance would be in no action's result. The
  // element's own transition time bounds the wait for its fade to begin (the page set
  // it up to take that long), capped at FADE_START_MAX_MS; once the transition runs,
  // quiet() waits for it as for any other. An element whose opacity already moved since
  // the mark (a fade-out that ended at 0) is not waited for again, nor one outside the
  // viewport (fade-on-scroll libraries keep those transparent until they are scrolled to).
  // ---------------------------------------------------------------------------------
  const FADE_START_MAX_MS = 500;
  // How often a fade that has not begun is looked at again: about a frame.
  const FADE_POLL_MS = 16;

  /** A CSS time list ("0.15s, 300ms") as milliseconds. */
  function cssTimesMs(list) {
    return String(list || '0s').split(',').map((item) => {
      const text = item.trim();
      const value = parseFloat(text);
      if (!finite(value)) return 0;
      return text.endsWith('ms') ? value : value * 1000;
    });
  }

  /** The longest delay plus duration of the transitions `style` declares on opacity
   *  (directly or through `all`); 0 when it declares none that takes time. The lists
   *  repeat to the length of transition-property, as CSS says. */
  function declaredFadeMs(style) {
    const properties = String(style.transitionProperty || '').split(',').map((p) => p.trim());
    const durations = cssTimesMs(style.transitionDuration);
    const delays = cssTimesMs(style.transitionDelay);
    let longest = 0;
    properties.forEach((property, i) => {
      if (property !== 'opacity' && property !== 'all') return;
      const duration = durations[i % durations.length];
      if (duration > 0) longest = Math.max(longest, duration + Math.max(0, delays[i % delays.length]));
    });
    return longest;
  }

  /** Does the element's box meet the viewport? */
  function inViewport(el) {
    const r = getRect(el);
    return r.bottom > 0 && r.right > 0 && r.top < window.innerHeight && r.left < window.innerWidth;
  }

  /**
   * Is a fade that the action set up still due to begin? `due` (a Map, one per quiet())
   * keeps each element's verdict: when its fade must have begun by, or 0 when it is no
   * fade of ours. Only the elements the mark saw inserted or toggled are looked at, and
   * only while they are rendered yet transparent, so a still page pays nothing.
   */
  function pendingFades(due) {
    if (!tracker || !checkVis) return false;
    const at = now();
    let pending = false;
    const consider = (el) => {
      let until = due.get(el);
      if (until === 0) return;
      if (!el.isConnected || tracker.animated.has(el) || checkVis(el, SHOWN_OPTS) || !checkVis(el, VIS_OPTS)) {
        // Its fade began, or it went away: done with it. Not yet rendered and transparent
        // (a modal displayed once its backdrop has faded in): looked at again later.
        if (until !== undefined) due.set(el, 0);
        return;
      }
      if (until === undefined) {
        // Transparent through an ancestor: that ancestor, if it fades, is the one to wait for.
        const style = styleOf(el);
        const ms = style.opacity === '0' && inViewport(el) ? declaredFadeMs(style) : 0;
        until = ms > 0 ? at + Math.min(ms, FADE_START_MAX_MS) + FRAME_SLACK_MS : 0;
        due.set(el, until);
      }
      if (until > at) pending = true;
    };
    for (const el of tracker.added) consider(el);
    for (const el of tracker.toggled) consider(el);
    return pending;
  }
