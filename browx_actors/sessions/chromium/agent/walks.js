// walks.js: the flat walks find(), textSearch(), hit(), refFor(), changes() and the
// selector hints share: visible elements in rendering order, the nearest anchor an
// agent can act on, text segments, and a {ref, role, name} brief.
// Relies on: prelude, tables, helpers, visibility, roles, names, mint (refs).

  // ---------------------------------------------------------------------------------
  // Flat walks for find / textSearch / changes
  // ---------------------------------------------------------------------------------

  /**
   * Visit visible elements under `root` (itself included) in rendering order.
   * `onElement(el)` and `onText(textNode, parentEl)` are optional.
   */
  function walkVisible(root, includeHidden, onElement, onText) {
    const visit = (el, textVisible) => {
      const tag = el.localName;
      if (SKIP_TAGS.has(tag) || tag === 'svg') return;
      let selfVisible = true;
      if (!includeHidden) {
        if (getAttr(el, 'aria-hidden') === 'true') return;
        const vis = visibilityOf(el);
        if (vis === GONE) return;
        selfVisible = vis === VISIBLE;
      }
      if (selfVisible && onElement) onElement(el);
      if (tag === 'select') {
        // Options have no box of their own; they are as visible as their select.
        if (selfVisible && onElement) {
          for (const option of el.options) {
            if (includeHidden || !option.hidden) onElement(option);
          }
        }
        return;
      }
      const kids = childNodesOf(el);
      for (let i = 0; i < kids.length; i++) {
        const child = kids[i];
        if (child.nodeType === 1) visit(child, selfVisible);
        else if (child.nodeType === 3 && selfVisible && onText) onText(child, el);
      }
    };
    visit(root, true);
  }

  /** Nearest element an agent can act on or point at for a node inside it. */
  function makeAnchorFinder() {
    const memo = new MapC();
    return (start) => {
      if (memo.has(start)) return memo.get(start);
      let fallback = null;
      let found = null;
      for (let el = start; el; el = parentOf(el)) {
        if (el.localName === 'label' && el.control) { found = el.control; break; }
        const role = roleOf(el);
        const interactive = isInteractive(el, role);
        if (interactive) { found = el; break; }
        if (!fallback && (isRefWorthy(role, false) || role === 'paragraph' || role === 'blockquote' ||
                          !INLINE_TAGS.has(el.localName))) {
          fallback = el;
        }
        if (el === doc.body) break;
      }
      const anchor = found || fallback || start;
      memo.set(start, anchor);
      return anchor;
    };
  }

  /**
   * Visible text grouped into segments: consecutive text nodes that share an anchor
   * form one segment, so "Hello <b>world</b>" is searchable as "Hello world".
   */
  function textSegments(root) {
    const anchorOf = makeAnchorFinder();
    const segments = [];
    let current = null;
    walkVisible(root, false, null, (textNode, parent) => {
      const data = textNode.data;
      if (!data) return;
      const anchor = anchorOf(parent);
      if (current && current.anchor === anchor) {
        current.text += data;
      } else {
        current = { anchor, text: data };
        segments.push(current);
      }
    });
    for (const segment of segments) segment.text = collapse(segment.text);
    return segments.filter((segment) => segment.text);
  }

  function describeBrief(el) {
    const role = roleOf(el);
    const interactive = isInteractive(el, role);
    const shown = lineRoleOf(role, interactive) || role || 'generic';
    const name = accessibleName(el, role);
    return { ref: mint(el, shown, name), role: shown, name };
  }
