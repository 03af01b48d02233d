// anchors.js: anchors for named refs: how to find an element again after the page has
// re-rendered it (a new Element in its place), so a name the agent gave it keeps working.
// Relies on: prelude, TEST_ID_ATTRS (tables), fail (helpers), isVisibleElement
// (visibility), roleOf (roles), accessibleName (names), resolveOrThrow (refs),
// describeBrief (walks), describe (reading), hintContext (hints).

  // ---------------------------------------------------------------------------------
  // Anchors. A ref names one Element object; a framework that re-renders replaces the
  // object and the ref goes stale. An anchor names what survives the re-render, best
  // first: a unique test id, a unique id, a unique role and accessible name, or the
  // path from the nearest ancestor that has one of those (tag and position among its
  // siblings of that tag), which survives as long as the structure does.
  // ---------------------------------------------------------------------------------
  const ANCHOR_NAME_MAX = 200;

  function withAttr(attr, value) {
    const out = [];
    for (const el of docQSA(doc, '[' + attr + ']')) if (getAttr(el, attr) === value) out.push(el);
    return out;
  }

  function withId(id) {
    try { return Array.from(docQSA(doc, '#' + cssEscape(id))); } catch (err) { return []; }
  }

  function withRoleAndName(role, name) {
    return hintContext().sameRoleAndName(role, name);
  }

  /** The anchor that points at `el` alone, without a path: test id, id, role + name. */
  function ownAnchor(el) {
    for (const attr of TEST_ID_ATTRS) {
      const value = getAttr(el, attr);
      if (value && withAttr(attr, value).length === 1) return { by: 'testid', attr, value };
    }
    const id = el.id;
    if (id && withId(id).length === 1) return { by: 'id', value: id };
    return null;
  }

  /** Tag and 1-based position among the element's siblings of the same tag. */
  function pathStep(el) {
    let index = 1;
    for (let sib = el.previousElementSibling; sib; sib = sib.previousElementSibling) {
      if (sib.localName === el.localName) index++;
    }
    return [el.localName, index];
  }

  function anchorFor(target) {
    const el = target && target.nodeType === 1 ? target : resolveOrThrow(target);
    const own = ownAnchor(el);
    if (own) return own;
    const role = roleOf(el);
    const name = role ? accessibleName(el, role) : '';
    if (role && name && name.length <= ANCHOR_NAME_MAX && isVisibleElement(el) &&
        withRoleAndName(role, name).length === 1) {
      return { by: 'role', role, name };
    }
    // A path up to the nearest ancestor that anchors alone (or the document's root),
    // crossing open shadow roots as '::shadow' steps.
    const steps = [];
    let node = el;
    let base = null;
    while (node && node !== doc.documentElement) {
      const parent = node.parentNode;
      if (!parent) break;
      steps.unshift(pathStep(node));
      if (parent.nodeType === 11) { steps.unshift(['::shadow', 0]); node = parent.host; }
      else node = parent;
      if (node && node.nodeType === 1 && node !== doc.documentElement) {
        base = ownAnchor(node);
        if (base) break;
      }
    }
    return { by: 'path', base, steps };
  }

  function childByStep(parent, step) {
    const [tag, index] = step;
    if (tag === '::shadow') return parent.shadowRoot || null;
    let seen = 0;
    for (let child = parent.firstElementChild; child; child = child.nextElementSibling) {
      if (child.localName === tag && ++seen === index) return child;
    }
    return null;
  }

  /** Every element the anchor points at now, in document order. */
  function anchored(anchor) {
    if (!anchor || typeof anchor !== 'object') throw fail('bad-arg', 'an anchor is an object');
    switch (anchor.by) {
      case 'testid': return withAttr(anchor.attr, anchor.value);
      case 'id': return withId(anchor.value);
      case 'role': return withRoleAndName(anchor.role, anchor.name);
      case 'path': {
        let node = doc.documentElement;
        if (anchor.base) {
          const bases = anchored(anchor.base);
          if (!bases.length) return [];
          node = bases[0];
        }
        for (const step of anchor.steps || []) {
          node = node && childByStep(node, step);
          if (!node) return [];
        }
        return node && node.nodeType === 1 ? [node] : [];
      }
      default: throw fail('bad-arg', 'unknown anchor kind ' + toJSON(anchor.by));
    }
  }

  /** spec: {ref} -> {anchor, target}; the anchor is checked to find the element back. */
  function anchorOf(spec) {
    const el = resolveOrThrow(spec.ref);
    const anchor = anchorFor(el);
    const found = anchored(anchor);
    return { anchor, target: describe(el), found: found.length, same: found[0] === el };
  }

  /** anchors: [anchor] -> [{ref, role, name, count}] (ref null when nothing matches). */
  function findAnchored(anchors) {
    return anchors.map((anchor) => {
      const found = anchored(anchor);
      if (!found.length) return { ref: null, count: 0 };
      return { ...describeBrief(found[0]), count: found.length };
    });
  }
