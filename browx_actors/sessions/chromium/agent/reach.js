// reach.js: where a pointer lands on an element and, when it cannot, why, said at once:
// readyToPoint (visible, enabled, still, in view inside every clipping ancestor, on top,
// taking pointer events), what covers it (coverName), and the label a person clicks for
// a checkbox or radio whose input is hidden or passive (throughLabel).
// Relies on: prelude, helpers (parentOf), visibility (isVisibleElement), isDisabled
// (states), roleOf (roles), accessibleName (names), elementAt (reading), and aim's
// within / isAnimating / viewportSize, resolved at run time.

  // ---------------------------------------------------------------------------------
  // Reach. Playwright's actionability wait retries an element that is hidden, covered
  // or passive until its timeout and then says only that it timed out; what is wrong
  // is knowable in one look. readyToPoint answers the wait with a reason code (`why`)
  // the server refuses with, after a short grace for a page still changing, and names
  // the cover. Disabled and animating are what may still pass: those are left to wait.
  // ---------------------------------------------------------------------------------
  const CHECKABLE_INPUT = new SetC(['checkbox', 'radio']);
  // Inside a label, a click on one of these is theirs, not the label's.
  const OWN_CLICK = 'a[href], button, input, select, textarea, [contenteditable], [role=link], [role=button]';
  const COVER_CLASSES = 2;

  /** CSS `clip` that shows nothing (a visually-hidden input: clip: rect(0 0 0 0)). */
  function clippedToNothing(el) {
    const shape = styleOf(el).clip;
    return !!shape && shape !== 'auto' && /^rect\(0(px)?,? 0(px)?,? 0(px)?,? 0(px)?\)$/.test(shape);
  }

  /** The boxes `el` is drawn inside: the viewport's and the padding box of each
   *  ancestor that clips its overflow on an axis, containing blocks honoured as in
   *  clippedBy (a fixed element escapes them all, an absolute one the static ones). */
  function clipBoxes(el) {
    const [vw, vh] = viewportSize();
    const boxes = [{ left: 0, top: 0, right: vw, bottom: vh }];
    const own = styleOf(el).position;
    if (own === 'fixed') return boxes;
    let escapeStatic = own === 'absolute';
    for (let up = parentOf(el); up && up !== doc.body && up !== doc.documentElement; up = parentOf(up)) {
      if (up.nodeType !== 1) continue;
      const style = styleOf(up);
      const positioned = style.position !== 'static';
      if (!(escapeStatic && !positioned) && style.overflow !== 'visible' && style.display !== 'inline' &&
          style.display !== 'contents') {
        const r = getRect(up);
        const left = r.left + up.clientLeft, top = r.top + up.clientTop;
        boxes.push({
          left: style.overflowX !== 'visible' ? left : -Infinity,
          right: style.overflowX !== 'visible' ? left + up.clientWidth : Infinity,
          top: style.overflowY !== 'visible' ? top : -Infinity,
          bottom: style.overflowY !== 'visible' ? top + up.clientHeight : Infinity,
        });
      }
      if (style.position === 'fixed') break;
      if (positioned) escapeStatic = style.position === 'absolute';
    }
    return boxes;
  }

  /** The centre of the element's first box part that shows inside every clipping box
   *  (the viewport's first; `inViewport` false leaves it out), or null. */
  function shownPoint(el, inViewport) {
    const boxes = clipBoxes(el);
    if (inViewport === false) boxes.shift();
    for (const r of getClientRects(el)) {
      let left = r.left, top = r.top, right = r.right, bottom = r.bottom;
      for (const b of boxes) {
        left = Math.max(left, b.left); right = Math.min(right, b.right);
        top = Math.max(top, b.top); bottom = Math.min(bottom, b.bottom);
      }
      if (right - left >= 1 && bottom - top >= 1) return [(left + right) / 2, (top + bottom) / 2];
    }
    return null;
  }

  /** A short, stable name for what covers a target: its role and name when it has
   *  both (dialog "Cookie consent"), else a short selector (div#overlay, div.backdrop).
   *  Looked for from the element on top up to the outermost ancestor that does not
   *  hold the target: the cover as a whole, not the text node's paragraph in it. */
  function coverName(top, target) {
    const chain = [];
    for (let n = top; n && n.nodeType === 1 && !within(n, target); n = parentOf(n)) chain.push(n);
    for (const n of chain) {
      const role = roleOf(n);
      if (!role || role === 'generic' || role === 'none' || role === 'presentation') continue;
      const name = accessibleName(n, role);
      if (name) return role + ' ' + toJSON(clip(name, 60));
    }
    const root = chain.length ? chain[chain.length - 1] : top;
    return shortSelector(root);
  }

  function shortSelector(el) {
    if (!el || el.nodeType !== 1) return 'nothing';
    if (el.id) return el.localName + '#' + cssEscape(el.id);
    const classes = (getAttr(el, 'class') || '').trim().split(/\s+/).filter(Boolean).slice(0, COVER_CLASSES);
    return el.localName + classes.map((c) => '.' + cssEscape(c)).join('');
  }

  /** A point on `el` where a click lands on it (not on a link or button inside it), or null. */
  function landingPoint(el) {
    const point = shownPoint(el);
    if (!point) return null;
    const r = getRect(el);
    const xs = [point[0], r.left + r.width * 0.1, r.left + r.width * 0.9, r.left + r.width * 0.3, r.left + r.width * 0.7];
    for (const x of xs) {
      const top = elementAt(x, point[1]);
      if (!top || !within(el, top)) continue;
      const own = elClosest(top, OWN_CLICK);
      if (own && own !== el && within(el, own)) continue;
      return [x, point[1]];
    }
    return null;
  }

  /**
   * The label a person clicks for a checkbox or radio that does not take the click
   * itself (hidden, clipped to nothing, passive, covered by its own styling): the
   * first of its labels that shows and takes a click, as {ready: point, via: its ref}.
   * Clicking a label toggles its control, as a person's click does. Null when there
   * is none, or the control is disabled (its label's click does nothing then).
   */
  function throughLabel(el, scroll) {
    if (el.localName !== 'input' || !CHECKABLE_INPUT.has(el.type) || isDisabled(el)) return null;
    const labels = [];
    for (const label of el.labels || []) labels.push(label);
    const around = elClosest(el, 'label');
    if (around && !labels.includes(around)) labels.push(around);
    for (const label of labels) {
      if (!isVisibleElement(label) || styleOf(label).pointerEvents === 'none') continue;
      if (scroll) scrollIntoView(label, { block: 'center', inline: 'center', behavior: 'instant' });
      const point = landingPoint(label);
      if (point) return { ready: point, via: describeBrief(label).ref };
    }
    return null;
  }

  /** Visible, enabled (for a click), still, in view and on top at its point, taking
   *  pointer events. With `scroll` false, an element partly out of view is aimed at in
   *  its visible part; with `reveal` it is scrolled to even when this document's
   *  viewport shows it (the frame that holds this document clips it: the browser
   *  scrolls the frames above). Not ready: {wait: what is wrong, why: its code,
   *  coveredBy?}; a code in KNOWN_NOW is refused after a short grace. */
  function readyToPoint(el, needsEnabled, scroll, reveal) {
    if (!el.isConnected || (checkVis && !checkVis(el, VIS_OPTS))) return { wait: 'not visible', why: 'hidden' };
    if (!isVisibleElement(el)) return { wait: 'not visible: it has no area', why: 'zero-size' };
    if (needsEnabled && isDisabled(el)) return { wait: 'not enabled', why: 'disabled' };
    if (isAnimating(el)) return { wait: 'animating', why: 'animating' };
    if (clippedToNothing(el)) return { wait: 'not visible: clipped to nothing (clip: rect(0 0 0 0))', why: 'hidden' };
    const [vw, vh] = viewportSize();
    const box = getRect(el);
    let point = shownPoint(el);
    // Not wholly in the viewport, or not shown in a scroll container that holds it.
    if (scroll && (reveal || !point || box.top < 0 || box.left < 0 || box.bottom > vh || box.right > vw)) {
      // Centred, as the browser's scrollIntoViewIfNeeded does; 'instant' overrides a
      // page's smooth scroll-behavior, so the point is final.
      scrollIntoView(el, { block: 'center', inline: 'center', behavior: 'instant' });
      point = shownPoint(el);
    }
    if (!point) {
      if (shownPoint(el, false)) return { wait: 'outside the viewport', why: 'outside-viewport' };
      return { wait: 'outside its scroll container: scrolling does not bring it into view',
               why: 'outside-scroll-container' };
    }
    if (styleOf(el).pointerEvents === 'none') {
      return { wait: 'it takes no pointer events (pointer-events: none)', why: 'pointer-events-none' };
    }
    const top = elementAt(point[0], point[1]);
    if (!top || !within(el, top)) {
      const cover = top ? coverName(top, el) : 'nothing';
      return { wait: cover + ' is on top at its point', why: 'covered', coveredBy: cover };
    }
    return { ready: point };
  }
