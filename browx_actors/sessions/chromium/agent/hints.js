// hints.js: selector hints for find() matches, in Playwright selector syntax, best first.
// Relies on: prelude, tables, childNodesOf (helpers), roleOf (roles), accessibleName /
// gatherText (names), quote (snapshot), walkVisible (walks).

  // ---------------------------------------------------------------------------------
  // Selector hints (Playwright selector syntax), best first.
  // ---------------------------------------------------------------------------------
  function hintContext() {
    let roots = null;
    let byRole = null;
    const names = new MapC();
    const allRoots = () => {
      if (roots) return roots;
      roots = [doc];
      // Playwright's CSS engine pierces open shadow roots; count matches in them too.
      walkVisible(doc.documentElement, true, (el) => { if (el.shadowRoot) roots.push(el.shadowRoot); });
      return roots;
    };
    const countCss = (selector) => {
      let n = 0;
      for (const root of allRoots()) {
        try {
          n += root === doc ? docQSA(doc, selector).length : fragQSA(root, selector).length;
        } catch (err) {
          return 0;
        }
      }
      return n;
    };
    const nameOf = (el, role) => {
      if (!names.has(el)) names.set(el, accessibleName(el, role));
      return names.get(el);
    };
    const sameRoleAndName = (role, name) => {
      if (!byRole) {
        byRole = new MapC();
        walkVisible(doc.documentElement, false, (el) => {
          const r = roleOf(el);
          if (!r) return;
          if (!byRole.has(r)) byRole.set(r, []);
          byRole.get(r).push(el);
        });
      }
      return (byRole.get(role) || []).filter((el) => nameOf(el, role) === name);
    };
    return { countCss, sameRoleAndName };
  }

  function selectorHint(el, role, name, hints) {
    for (const attr of TEST_ID_ATTRS) {
      const value = getAttr(el, attr);
      if (value) {
        const selector = '[' + attr + '=' + quote(value) + ']';
        if (hints.countCss(selector) === 1) return selector;
      }
    }
    const id = el.id;
    if (id) {
      const selector = '#' + cssEscape(id);
      if (hints.countCss(selector) === 1) return selector;
    }
    // Playwright has no role for <summary> and none of ours that are not ARIA roles.
    if (name && ARIA_ROLES.has(role) && !FLATTEN_ROLES.has(role) && el.localName !== 'summary') {
      // `s` makes the name match exact and case-sensitive.
      const selector = 'role=' + role + '[name=' + quote(name) + 's]';
      const same = hints.sameRoleAndName(role, name);
      const index = same.indexOf(el);
      if (same.length <= 1 || index < 0) return selector;
      return selector + ' >> nth=' + index;
    }
    const text = gatherText(el, null, false);
    if (text && text.length <= 80) {
      // Playwright's quoted text= matches one text node's content; text spread over
      // several nodes ("Hello <b>world</b>") needs its full-text engine instead.
      return textNodeCount(el, 2) === 1 ? 'text=' + quote(text) : 'internal:text=' + quote(text) + 's';
    }
    return cssPath(el);
  }

  /** Non-blank text nodes under `el`, counting no further than `stop`. */
  function textNodeCount(el, stop) {
    let n = 0;
    const visit = (node) => {
      const kids = childNodesOf(node);
      for (let i = 0; i < kids.length && n < stop; i++) {
        const child = kids[i];
        if (child.nodeType === 3) { if (child.data.trim()) n++; } else if (child.nodeType === 1) visit(child);
      }
    };
    visit(el);
    return n;
  }

  /** A structural CSS path within the element's tree scope (last resort). */
  function cssPath(el) {
    const parts = [];
    for (let node = el; node && node.nodeType === 1; node = node.parentNode) {
      if (node.id && node !== el) { parts.unshift('#' + cssEscape(node.id)); break; }
      const tag = node.localName;
      let index = 1;
      for (let sib = node.previousElementSibling; sib; sib = sib.previousElementSibling) {
        if (sib.localName === tag) index++;
      }
      parts.unshift(index > 1 ? tag + ':nth-of-type(' + index + ')' : tag);
      if (tag === 'html') break;
    }
    return 'css=' + parts.join(' > ');
  }
