// snapshot.js: snapshot(): a walk builds a light tree, a second pass prints the compact
// indented text and mints refs only for the lines it emits, and only for elements that
// can be acted on (an interactive element with no area or clipped away is `[hidden]`; a
// checkbox or radio whose input is hidden is listed where its label is, reached through it).
// Text is shown in full up to TEXT_SHOWN_MAX; a grid's rows follow aria-rowindex.
// Relies on: prelude (limits), tables, helpers, visibility, roles, names, states, refs,
// CHECKABLE_INPUT (reach), isRichText / isTypingProxy (editors).

  // ---------------------------------------------------------------------------------
  // Snapshot: a walk builds a light tree (no refs yet), a second pass prints it and
  // mints refs only for the lines it actually emits.
  // ---------------------------------------------------------------------------------
  const BREAK = { brk: true };   // block boundary marker between text runs

  // A text is shown whole up to this many characters (a response body, a code block),
  // then cut with a marker that says how much is left and how to read it.
  const TEXT_SHOWN_MAX = 6000;
  function clipText(s) {
    if (s.length <= TEXT_SHOWN_MAX) return s;
    let end = TEXT_SHOWN_MAX;
    const code = s.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff) end -= 1;
    return s.slice(0, end) + '\u2026 (' + (s.length - end) + ' more chars; use text_search or scope)';
  }

  const ROW_ORDERED = new SetC(['grid', 'treegrid', 'table']);

  /** Rows that carry aria-rowindex in their displayed order (virtualised grids render
   *  them in any DOM order); other items keep their places. */
  function inRowOrder(kids) {
    const slots = [];
    const rows = [];
    for (let i = 0; i < kids.length; i++) {
      const kid = kids[i];
      if (typeof kid === 'string' || kid.role !== 'row') continue;
      const index = parseInt(getAttr(kid.el, 'aria-rowindex') || '', 10);
      if (!(index >= 1)) return kids;   // one row without an index: the DOM order stands
      slots.push(i);
      rows.push({ kid, index, i });
    }
    if (rows.length < 2) return kids;
    rows.sort((a, b) => a.index - b.index || a.i - b.i);
    const out = kids.slice();
    for (let k = 0; k < slots.length; k++) out[slots[k]] = rows[k].kid;
    return out;
  }

  function makeNode(el, role, interactive) {
    return { el, role, interactive, name: '', kids: null, hasInteractive: interactive };
  }

  /** Merge text runs, split at block breaks, collapse whitespace, drop empties. */
  function normalizeItems(items) {
    const out = [];
    let buffer = '';
    for (const item of items) {
      if (typeof item === 'string') { buffer += item; continue; }
      if (buffer) {
        const text = collapse(buffer);
        if (text) out.push(text);
        buffer = '';
      }
      if (item !== BREAK) out.push(item);
    }
    if (buffer) {
      const text = collapse(buffer);
      if (text) out.push(text);
    }
    return out;
  }

  function walkChildren(parent, out, ctx, textVisible) {
    const kids = childNodesOf(parent);
    for (let i = 0; i < kids.length; i++) {
      if (ctx.stopped) return;
      const child = kids[i];
      if (child.nodeType === 3) {
        if (textVisible && !ctx.muted) out.push(child.data);
      } else if (child.nodeType === 1) {
        walkElement(child, out, ctx);
      }
    }
  }

  function walkSelect(select, node, ctx) {
    const kids = [];
    let listed = 0;
    let hidden = 0;
    const addOption = (option, into) => {
      if (!ctx.includeHidden && option.hidden) return;
      if (listed >= SELECT_OPTIONS_MAX) { hidden++; return; }
      listed++;
      const child = makeNode(option, 'option', true);
      child.name = accessibleName(option, 'option');
      child.kids = [];
      into.push(child);
    };
    for (const child of select.children) {
      if (child.localName === 'option') addOption(child, kids);
      else if (child.localName === 'optgroup' && (ctx.includeHidden || !child.hidden)) {
        const group = makeNode(child, 'group', false);
        group.name = accessibleName(child, 'group');
        group.kids = [];
        for (const option of child.children) {
          if (option.localName === 'option') addOption(option, group.kids);
        }
        kids.push(group);
      }
    }
    if (hidden) kids.push('(+' + hidden + ' more options)');
    node.kids = kids;
    ctx.items += listed;
  }

  function walkElement(el, out, ctx) {
    const tag = el.localName;
    if (SKIP_TAGS.has(tag)) return;
    if (tag === 'br') { out.push(BREAK); return; }
    let selfVisible = true;
    if (!ctx.includeHidden) {
      if (getAttr(el, 'aria-hidden') === 'true') return;
      const vis = visibilityOf(el);
      if (vis === GONE) return;
      selfVisible = vis === VISIBLE;
    }
    if (++ctx.items > ctx.itemCap) { ctx.stopped = true; return; }

    const role = roleOf(el);
    const interactive = isInteractive(el, role);
    let lineRole = selfVisible ? lineRoleOf(role, interactive) : '';
    let name = lineRole ? accessibleName(el, role) : '';
    // An image without a name is decoration unless it can be acted on.
    if (role === 'img' && !name && !interactive) lineRole = '';

    if (!lineRole || ctx.omit.has(lineRole)) {
      // svg internals and image fallbacks are never page text.
      if (tag === 'svg' || tag === 'img') return;
      const control = tag === 'label' && selfVisible && !ctx.includeHidden ? hiddenCheckable(el, ctx) : null;
      if (control) {
        // A styled checkbox or radio: its input hidden, its label what a person clicks.
        // Listed as the control it is, named by its label, reached through the label.
        const controlRole = roleOf(control);
        const node = makeNode(control, controlRole, true);
        node.name = accessibleName(control, controlRole);
        node.kids = [];
        node.via = el;
        out.push(node);
        ctx.muted++;
        walkChildren(el, out, ctx, selfVisible);
        ctx.muted--;
        return;
      }
      // Flattened: the element adds no line and no depth; its content moves up.
      const block = !INLINE_TAGS.has(tag);
      // A label whose control is on screen names that control; its text would only
      // repeat the control's name, so it is muted (elements inside still show).
      const mute = tag === 'label' && !!el.control &&
        (ctx.includeHidden || visibilityOf(el.control) === VISIBLE);
      if (block) out.push(BREAK);
      if (mute) ctx.muted++;
      walkChildren(el, out, ctx, selfVisible);
      if (mute) ctx.muted--;
      if (block) out.push(BREAK);
      return;
    }

    const node = makeNode(el, lineRole, interactive);
    node.name = name;
    // A rich-text editor's paragraphs and headings are its lines, not one value.
    // A code editor's input (an EditContext element too) shows its view's text as its value.
    node.rich = VALUE_ROLES.has(lineRole) && isRichText(el) && !isTypingProxy(el);
    if (lineRole === 'link') ctx.links++;

    if (tag === 'select') {
      walkSelect(el, node, ctx);
    } else if ((LEAF_ROLES.has(lineRole) && !isRichText(el)) || tag === 'svg' || tag === 'input' ||
               tag === 'textarea') {
      node.kids = [];
    } else {
      // A line starts its own text: a label muted further up does not reach into it.
      const muted = ctx.muted;
      ctx.muted = 0;
      const raw = [];
      walkChildren(el, raw, ctx, true);
      ctx.muted = muted;
      let kids = normalizeItems(raw);
      if (ROW_ORDERED.has(lineRole)) kids = inRowOrder(kids);
      const kidsInteractive = kids.some((k) => typeof k !== 'string' && k.hasInteractive);
      if (kidsInteractive) node.hasInteractive = true;
      if (NAME_FROM_CONTENT.has(lineRole) && !kidsInteractive) {
        // Everything inside is already said by the name.
        kids = [];
      } else if (name) {
        kids = kids.filter((k) => k !== name);
        // A lone text its name already says (a day "7" named "December 7, 2026").
        if (kids.length === 1 && typeof kids[0] === 'string' && name.includes(kids[0])) kids = [];
      }
      node.kids = kids;
    }

    // An unnamed list item that only wraps one element (the common <li><a>) adds a
    // line and a level of depth for nothing: show the element in its place.
    if (lineRole === 'listitem' && !name && !interactive && node.kids.length === 1 &&
        typeof node.kids[0] !== 'string') {
      out.push(node.kids[0]);
      return;
    }
    out.push(node);
  }

  /** The checkbox or radio `label` is for when its input is not shown (display:none,
   *  visibility:hidden): a person clicks the label. Once per control. */
  function hiddenCheckable(label, ctx) {
    const control = label.control;
    if (!control || control.localName !== 'input' || !CHECKABLE_INPUT.has(control.type)) return null;
    if (visibilityOf(control) === VISIBLE) return null;
    if (!ctx.labelled) ctx.labelled = new SetC();
    if (ctx.labelled.has(control)) return null;
    ctx.labelled.add(control);
    return control;
  }

  function quote(s) {
    return toJSON(s);
  }

  function printItems(items, depth, ctx) {
    const indent = '  '.repeat(depth);
    for (const item of items) {
      if (ctx.lines.length >= ctx.maxNodes) { ctx.truncated = true; return; }
      if (typeof item === 'string') {
        if (!ctx.omit.has('text')) ctx.lines.push(indent + 'text: ' + clipText(item));
        continue;
      }
      const { el, role, name } = item;
      if (ctx.omit.has(role)) {
        // Built specially (a select's options): omitted here, content lifted.
        printItems(item.kids, depth, ctx);
        continue;
      }
      let line = indent + role;
      if (name) line += ' ' + quote(clip(name, NAME_MAX));
      // Something to act on that no pointer can reach gets no ref: an action on it
      // could only wait for nothing.
      const fade = { faded: false };
      // A code editor's input is typed into where no pointer reaches it (editors.js).
      const unreached = item.interactive && !ctx.includeHidden && el.localName !== 'option' &&
        unreachable(item.via || el, ctx.clipMemo, fade) && !isTypingProxy(el);
      if (unreached) {
        line += ' [hidden]';
      } else if (isRefWorthy(role, item.interactive)) {
        const ref = mint(el, role, name);
        // Listed, but faded out (opacity 0) is not yet shown: its fade-in appears.
        noteShown(ref, !fade.faded);
        line += ' [ref=' + ref + ']';
        ctx.refs++;
      }
      line += statesText(el, role, ctx.active);
      if (VALUE_ROLES.has(role) && !item.rich) {
        const value = valueOf(el, role);
        if (value) line += ' value=' + quote(isPassword(el) ? PASSWORD_MASK : clip(value, VALUE_MAX));
      }
      if (role === 'link' && ctx.showUrls) {
        const href = getAttr(el, 'href');
        if (href && href.length <= URL_MAX && !/^\s*javascript:/i.test(href)) line += ' url=' + href;
      }
      const kids = item.kids;
      if (kids.length === 1 && typeof kids[0] === 'string') {
        ctx.lines.push(line + ': ' + clipText(kids[0]));
        continue;
      }
      ctx.lines.push(line);
      if (kids.length) printItems(kids, depth + 1, ctx);
    }
  }

  /**
   * snapshot({scope?, maxNodes? = 2000, omit? = [], includeHidden? = false, urls? = 'auto'})
   *   -> {text, nodeCount, truncated, refCount, title, url}
   * `scope` is a ref or CSS selector; `omit` lists roles to drop (their content is
   * lifted; 'text' drops text lines); `urls` is true, false or 'auto' (link urls are
   * listed while the snapshot holds at most URL_AUTO_LINKS links). `nodeCount` counts
   * printed lines, `refCount` the refs among them.
   */
  function snapshot(opts) {
    opts = opts || {};
    const maxNodes = opts.maxNodes === undefined || opts.maxNodes === null ? 2000 : Number(opts.maxNodes);
    if (!(maxNodes >= 1)) throw fail('bad-arg', 'maxNodes must be a positive number');
    const omit = new SetC(Array.isArray(opts.omit) ? opts.omit : []);
    const scope = scopeElement(opts.scope);
    const ctx = {
      includeHidden: !!opts.includeHidden,
      omit,
      items: 0,
      // The walk stops well past what can be printed, so a huge page costs a bounded
      // amount of work while small collapses (names, folded items) still fit.
      itemCap: maxNodes * 4 + 200,
      stopped: false,
      muted: 0,
      links: 0,
    };
    const root = scope || doc.body || doc.documentElement;
    const raw = [];
    if (root) {
      if (scope) walkElement(scope, raw, ctx);
      else walkChildren(root, raw, ctx, true);
    }
    const items = normalizeItems(raw);
    const urls = opts.urls === undefined || opts.urls === null ? 'auto' : opts.urls;
    const print = {
      lines: [],
      maxNodes,
      truncated: ctx.stopped,
      refs: 0,
      omit,
      active: deepActiveElement(),
      includeHidden: ctx.includeHidden,
      clipMemo: new MapC(),
      showUrls: urls === true || (urls === 'auto' && ctx.links <= URL_AUTO_LINKS),
    };
    printItems(items, 0, print);
    if (!scope && !print.truncated && !omit.size && !ctx.includeHidden) noteWholeSnapshot();
    return {
      text: print.lines.join('\n'),
      nodeCount: print.lines.length,
      truncated: print.truncated,
      refCount: print.refs,
      title: doc.title,
      url: loc.href,
    };
  }
