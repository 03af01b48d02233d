// visibility.js: how visible an element is to a walk (visibilityOf: GONE, VISIBLE or
// SELF_HIDDEN) and to an action (isVisibleElement); whether it can be reached at all
// (unreachable: zero-size, clipped away or parked off the page) and is shown to a person (isShown).
// Relies on: checkVis, getRect, styleOf, doc (prelude), parentOf (helpers).

  // ---------------------------------------------------------------------------------
  // Visibility. checkVisibility() answers from the style tree without forcing layout,
  // so it is one cheap call per element; getComputedStyle is only consulted when it
  // says "not visible", to tell apart the three reasons that walk differently.
  // ---------------------------------------------------------------------------------
  const GONE = 0;         // display:none or not rendered: skip the whole subtree
  const VISIBLE = 1;
  const SELF_HIDDEN = 2;  // visibility:hidden: children may override it, walk them
  const VIS_OPTS = { visibilityProperty: true };

  function visibilityOf(el) {
    if (checkVis && checkVis(el, VIS_OPTS)) return VISIBLE;
    const style = styleOf(el);
    if (style.display === 'none') return GONE;
    // display:contents has no box of its own, but its children render normally.
    if (style.display === 'contents') return VISIBLE;
    if (style.visibility === 'hidden' || style.visibility === 'collapse') return SELF_HIDDEN;
    // With checkVisibility present, "not visible" with an ordinary style means an
    // ancestor hides it (closed <details>, content-visibility:hidden): skip it.
    return checkVis ? GONE : VISIBLE;
  }

  /** Visible in the Playwright sense: rendered, not visibility:hidden, non-empty box. */
  function isVisibleElement(el) {
    if (!el.isConnected) return false;
    if (checkVis && !checkVis(el, VIS_OPTS)) return false;
    const r = getRect(el);
    return r.width > 0 && r.height > 0;
  }

  // ---------------------------------------------------------------------------------
  // Reachability: rendered is not enough to be acted on. An element whose box has no
  // area, or that sits inside an overflow container with no room on an axis (a
  // collapsed accordion at height 0, a max-height:0 drawer), can never receive a click:
  // the snapshot lists it without a ref and an action refuses it at once, where
  // Playwright would wait out its timeout for nothing. Scrolling cannot fix either.
  // ---------------------------------------------------------------------------------
  const SHOWN_OPTS = { visibilityProperty: true, opacityProperty: true };

  /** The element's box has no area, as Playwright's visibility judges it (its
   *  bounding box); display:contents has no box of its own and is judged by its kids. */
  function hasNoArea(el) {
    const r = getRect(el);
    if (r.width > 0 && r.height > 0) return false;
    return styleOf(el).display !== 'contents';
  }

  /**
   * An ancestor that clips `el` away entirely: overflow other than visible on an axis
   * where the ancestor has no room. Containing blocks are honoured roughly: a fixed
   * element escapes every ancestor, an absolute one the static ancestors between it
   * and its positioned one. `memo` (a Map, per walk) keeps each ancestor's verdict;
   * `fade` (optional) learns whether an opacity of 0 on the way hides it.
   */
  function clippedBy(el, memo, fade) {
    const ownStyle = styleOf(el);
    if (fade && ownStyle.opacity === '0') fade.faded = true;
    const own = ownStyle.position;
    if (own === 'fixed') return null;
    let escapeStatic = own === 'absolute';
    // The root and body pass their overflow to the viewport, which scrolls: not a clip.
    for (let up = parentOf(el); up && up !== doc.body && up !== doc.documentElement; up = parentOf(up)) {
      let verdict = memo ? memo.get(up) : undefined;
      if (verdict === undefined) {
        // Each computed-style read costs: the shorthand first, the axes only when it
        // says something clips.
        const style = styleOf(up);
        verdict = { position: style.position, clips: false, faded: style.opacity === '0' };
        // Overflow applies to boxes that contain blocks: not to inline boxes, nor to
        // display:contents, which has no box at all.
        if (style.overflow !== 'visible' && style.display !== 'inline' && style.display !== 'contents') {
          const box = getRect(up);
          verdict.clips = (style.overflowX !== 'visible' && box.width < 1) ||
            (style.overflowY !== 'visible' && box.height < 1);
        }
        if (memo) memo.set(up, verdict);
      }
      if (fade && verdict.faded) fade.faded = true;
      const positioned = verdict.position !== 'static';
      if (!(escapeStatic && !positioned) && verdict.clips) return up;
      if (verdict.position === 'fixed') return null;
      if (positioned) escapeStatic = verdict.position === 'absolute';
    }
    return null;
  }

  /**
   * Why an element that renders cannot be acted on: 'zero-size', 'clipped', or null
   * when it can. For interactive elements only: it reads layout. With `fade` (an
   * object), the same walk sets `fade.faded` when the element or an ancestor is at
   * opacity 0: reachable (a file input laid over its label), but not shown yet.
   */
  function unreachable(el, memo, fade) {
    if (hasNoArea(el)) return 'zero-size';
    if (clippedBy(el, memo, fade)) return 'clipped';
    if (offPage(el)) return 'off-screen';
    return null;
  }

  /**
   * Parked where no scroll reaches: the box lies wholly left of or above the page's
   * start (scrolling never goes below 0), or it is fixed and wholly outside the
   * viewport (a fixed box does not scroll): a drawer at left: -300px or translated out
   * until a button slides it in. Only when no ancestor below the root scrolls or clips
   * (then its own origin decides, which this does not work out): rare, so the walk runs
   * only for a box the viewport does not hold.
   */
  function offPage(el) {
    const r = getRect(el);
    const w = window.innerWidth, h = window.innerHeight;
    if (r.right > 0 && r.bottom > 0 && r.left < w && r.top < h) return false;  // in view
    const leftOf = r.right + window.scrollX <= 0, above = r.bottom + window.scrollY <= 0;
    if (!leftOf && !above && styleOf(el).position !== 'fixed') return false;
    // Right to left, the page starts at its right: what is left of it may be scrolled to.
    if (leftOf && !above && styleOf(doc.documentElement).direction === 'rtl') return false;
    for (let up = parentOf(el); up && up !== doc.body && up !== doc.documentElement; up = parentOf(up)) {
      if (styleOf(up).overflow !== 'visible') return false;
    }
    return true;
  }

  /**
   * Shown to a person: rendered, not visibility:hidden, not faded to opacity 0 (on the
   * element or an ancestor), with an area, not clipped away. What structure.appeared /
   * removed count.
   */
  function isShown(el, memo) {
    if (!el.isConnected) return false;
    // A code editor's input has no area of its own: it is shown when its view is (else
    // any class the editor toggles near it listed it as removed).
    if (isTypingProxy(el)) el = editorView(el, 'proxy');
    if (checkVis ? !checkVis(el, SHOWN_OPTS) : visibilityOf(el) !== VISIBLE) return false;
    return unreachable(el, memo) === null;
  }
