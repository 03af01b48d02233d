// visibility.js: how visible an element is to a walk (visibilityOf: GONE, VISIBLE or
// SELF_HIDDEN) and to an action (isVisibleElement).
// Relies on: checkVis, getRect, styleOf (prelude).

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
