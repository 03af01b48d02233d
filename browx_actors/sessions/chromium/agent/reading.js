// reading.js: the read methods: find, textSearch, describe, refFor, resolve, count, hit.
// Relies on: prelude, tables, helpers, visibility, roles, names, states, refs, walks,
// hints.

  // ---------------------------------------------------------------------------------
  // find / textSearch
  // ---------------------------------------------------------------------------------
  function makeMatcher(needle, exact, caseSensitive) {
    if (needle === undefined || needle === null) return null;
    const want = collapse(String(needle));
    if (exact) return (value) => value === want;
    const lowered = caseSensitive ? want : want.toLowerCase();
    return (value) => (caseSensitive ? value : value.toLowerCase()).includes(lowered);
  }

  function testIdOf(el) {
    for (const attr of TEST_ID_ATTRS) {
      const value = getAttr(el, attr);
      if (value !== null) return value;
    }
    return null;
  }

  function find(query) {
    query = query || {};
    const { role, name, text, testId } = query;
    if (!role && (name === undefined || name === null) && (text === undefined || text === null) &&
        (testId === undefined || testId === null)) {
      throw fail('bad-arg', 'give at least one of role, name, text, testId');
    }
    const exact = !!query.exact;
    const limit = query.limit === undefined || query.limit === null ? 50 : Number(query.limit);
    const scope = scopeElement(query.scope) || doc.body || doc.documentElement;
    const includeHidden = !!query.includeHidden;
    const nameMatch = makeMatcher(name, exact, false);
    const textMatch = makeMatcher(text, exact, false);

    const accepted = [];
    const seen = new SetC();
    const consider = (el) => {
      if (seen.has(el)) return;
      seen.add(el);
      if (testId !== undefined && testId !== null) {
        const value = testIdOf(el);
        if (value === null || value !== String(testId)) return;
      }
      const elRole = roleOf(el);
      const interactive = isInteractive(el, elRole);
      const shown = lineRoleOf(elRole, interactive) || elRole || 'generic';
      if (role && role !== shown && role !== elRole) return;
      let elName = null;
      if (nameMatch) {
        elName = accessibleName(el, elRole);
        if (!elName || !nameMatch(elName)) return;
      }
      accepted.push({ el, role: shown, ariaRole: elRole, name: elName });
    };

    if (textMatch) {
      for (const segment of textSegments(scope)) {
        if (textMatch(segment.text)) consider(segment.anchor);
      }
    } else {
      walkVisible(scope, includeHidden, consider, null);
    }

    const hints = hintContext();
    const matches = [];
    for (const match of accepted.slice(0, Math.max(0, limit))) {
      const elName = match.name === null ? accessibleName(match.el, match.ariaRole) : match.name;
      matches.push({
        ref: mint(match.el, match.role, elName),
        role: match.role,
        name: elName,
        selectorHint: selectorHint(match.el, match.ariaRole, elName, hints),
      });
    }
    return { matches, count: accepted.length };
  }

  function textSearch(opts) {
    opts = opts || {};
    const query = opts.query;
    if (typeof query !== 'string' || !collapse(query)) throw fail('bad-arg', 'query must be a non-empty string');
    const limit = opts.limit === undefined || opts.limit === null ? 20 : Number(opts.limit);
    const caseSensitive = !!opts.caseSensitive;
    const needle = collapse(query);
    const folded = caseSensitive ? needle : needle.toLowerCase();
    const matches = [];
    let count = 0;
    for (const segment of textSegments(doc.body || doc.documentElement)) {
      const haystack = caseSensitive ? segment.text : segment.text.toLowerCase();
      let at = haystack.indexOf(folded);
      while (at >= 0) {
        count++;
        if (matches.length < limit) {
          const brief = describeBrief(segment.anchor);
          const start = Math.max(0, at - SNIPPET_RADIUS);
          const end = Math.min(segment.text.length, at + needle.length + SNIPPET_RADIUS);
          const snippet = (start > 0 ? '\u2026' : '') + segment.text.slice(start, end) +
            (end < segment.text.length ? '\u2026' : '');
          matches.push({ ref: brief.ref, role: brief.role, snippet });
        }
        at = haystack.indexOf(folded, at + Math.max(1, folded.length));
      }
    }
    return { matches, count };
  }

  // ---------------------------------------------------------------------------------
  // describe / refFor / resolve / count / hit
  // ---------------------------------------------------------------------------------
  function describe(target) {
    const el = target && target.nodeType === 1 ? target : resolveOrThrow(target);
    const role = roleOf(el);
    const interactive = isInteractive(el, role);
    const shown = lineRoleOf(role, interactive) || role || 'generic';
    const name = accessibleName(el, role);
    const out = {
      ref: mint(el, shown, name),
      role: shown,
      name,
      tag: el.localName,
      // A code editor's input has no area of its own: it is as visible as its view.
      visible: isVisibleElement(isTypingProxy(el) ? editorView(el, 'proxy') : el),
      enabled: !isDisabled(el),
      focused: el === deepActiveElement(),
    };
    // What the agent was told: shown only if a person sees it, so a control described
    // while parked, clipped or faded out is listed as appeared once it comes.
    noteShown(out.ref, out.visible && isShown(el, null));
    const checked = checkedState(el, role);
    if (checked !== undefined) out.checked = checked;
    const tag = el.localName;
    if (VALUE_ROLES.has(role) || tag === 'input' || tag === 'textarea' || tag === 'select') {
      const type = (getAttr(el, 'type') || '').toLowerCase();
      if (type !== 'checkbox' && type !== 'radio') out.value = valueOf(el, role);
    }
    const expanded = expandedState(el);
    if (expanded === 'true' || expanded === 'false') out.expanded = expanded === 'true';
    if (isSelected(el)) out.selected = true;
    const pressed = getAttr(el, 'aria-pressed');
    if (pressed === 'true' || pressed === 'mixed') out.pressed = pressed === 'true' ? true : 'mixed';
    else if (pressed === 'false') out.pressed = false;
    for (const [key, value] of ariaStates(el)) out[key] = value;
    if (isRequired(el)) out.required = true;
    if (isReadOnly(el)) out.readonly = true;
    if (role === 'heading') out.level = headingLevel(el);
    if (role === 'link') out.url = getAttr(el, 'href');
    const text = gatherText(el, null, false);
    if (text) out.text = text;
    return out;
  }

  function refFor(el) {
    if (!el || el.nodeType !== 1) throw fail('bad-arg', 'refFor needs an Element');
    return describeBrief(el).ref;
  }

  function resolve(ref) {
    const parsed = parseRef(ref);
    return parsed ? lookup(parsed) : null;
  }

  function count(selector) {
    if (typeof selector !== 'string') throw fail('bad-arg', 'selector must be a string');
    try {
      return docQSA(doc, selector).length;
    } catch (err) {
      throw fail('bad-selector', 'invalid CSS selector ' + toJSON(selector));
    }
  }

  /** The innermost element under a viewport point, through open shadow roots. */
  function elementAt(x, y) {
    let el = docFromPoint(doc, x, y);
    while (el && el.shadowRoot) {
      const inner = rootFromPoint(el.shadowRoot, x, y);
      if (!inner || inner === el) break;
      el = inner;
    }
    return el;
  }

  function hit(x, y) {
    const el = elementAt(Number(x), Number(y));
    if (!el) return null;
    return describeBrief(makeAnchorFinder()(el));
  }
