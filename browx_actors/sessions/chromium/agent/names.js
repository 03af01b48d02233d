// names.js: accessible names (a practical subset of accname 1.2); gatherText reads a
// subtree's text the way name-from-content does; generatedText reads CSS generated content.
// Relies on: prelude, tables, childNodesOf / collapse / WS (helpers), visibility. Calls
// controlValue (states, the next module) at run time.

  // ---------------------------------------------------------------------------------
  // Accessible names (a practical subset of accname 1.2: what agents and Playwright's
  // role selectors see in practice).
  // ---------------------------------------------------------------------------------

  /** Text of a subtree the way a name-from-content computation reads it. */
  function gatherText(root, skip, includeHidden) {
    const parts = [];
    let size = 0;
    const visit = (node) => {
      const kids = childNodesOf(node);
      for (let i = 0; i < kids.length && size < GATHER_MAX; i++) {
        const child = kids[i];
        if (child.nodeType === 3) {
          parts.push(child.data);
          size += child.data.length;
          continue;
        }
        if (child.nodeType !== 1 || child === skip) continue;
        const tag = child.localName;
        if (SKIP_TAGS.has(tag)) continue;
        if (!includeHidden) {
          if (getAttr(child, 'aria-hidden') === 'true') continue;
          if (checkVis && !checkVis(child, VIS_OPTS) && visibilityOf(child) !== VISIBLE) continue;
        }
        const label = getAttr(child, 'aria-label');
        if (label && label.trim()) { parts.push(' ', label, ' '); size += label.length; continue; }
        if (tag === 'img' || tag === 'area') { parts.push(getAttr(child, 'alt') || ''); continue; }
        if (tag === 'input' || tag === 'textarea' || tag === 'select') {
          parts.push(' ', controlValue(child, tag), ' ');
          continue;
        }
        if (tag === 'svg') { parts.push(' ', svgTitle(child), ' '); continue; }
        const block = !INLINE_TAGS.has(tag);
        if (block) parts.push(' ');
        visit(child);
        if (block) parts.push(' ');
      }
    };
    visit(root);
    return collapse(parts.join(''));
  }

  function svgTitle(svg) {
    for (const child of svg.children) {
      if (child.localName === 'title') return collapse(child.textContent || '');
    }
    return '';
  }

  /** Text of aria-labelledby targets, looked up in the element's own tree scope. */
  function labelledByText(el, ids) {
    const scope = getRootNode(el);
    const byId = typeof scope.getElementById === 'function' ? scope : doc;
    const parts = [];
    for (const id of ids.trim().split(WS)) {
      const target = id && byId.getElementById(id);
      if (!target) continue;
      const label = getAttr(target, 'aria-label');
      // Referenced labels count even when hidden (accname step 2B).
      parts.push(label && label.trim() ? label : gatherText(target, null, true));
    }
    return collapse(parts.join(' '));
  }

  function labelsText(el) {
    const labels = el.labels;
    if (!labels || !labels.length) return '';
    const parts = [];
    for (const label of labels) parts.push(gatherText(label, el, false));
    return collapse(parts.join(' '));
  }

  function firstChildText(el, tag) {
    for (const child of el.children) {
      if (child.localName === tag) return gatherText(child, null, false);
    }
    return '';
  }

  function accessibleName(el, role) {
    const labelledBy = getAttr(el, 'aria-labelledby');
    if (labelledBy) {
      const text = labelledByText(el, labelledBy);
      if (text) return text;
    }
    const ariaLabel = getAttr(el, 'aria-label');
    if (ariaLabel && ariaLabel.trim()) return collapse(ariaLabel);
    const tag = el.localName;
    const title = () => collapse(getAttr(el, 'title') || '');
    switch (tag) {
      case 'input': {
        const type = (getAttr(el, 'type') || '').toLowerCase();
        if (type === 'button' || type === 'submit' || type === 'reset') {
          const value = getAttr(el, 'value');
          if (value && value.trim()) return collapse(value);
          return labelsText(el) || title() || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '');
        }
        if (type === 'image') {
          return collapse(getAttr(el, 'alt') || '') || title() || 'Submit';
        }
        return labelsText(el) || title() ||
          (PLACEHOLDER_TYPES.has(type || 'text') ? collapse(getAttr(el, 'placeholder') || '') : '');
      }
      case 'textarea':
        return labelsText(el) || title() || collapse(getAttr(el, 'placeholder') || '');
      case 'select': case 'meter': case 'progress': case 'output':
        return labelsText(el) || title();
      case 'button':
        return labelsText(el) || gatherText(el, null, false) || generatedText(el) || title();
      case 'img': case 'area':
        return collapse(getAttr(el, 'alt') || '') || title();
      case 'svg':
        return svgTitle(el) || title();
      case 'fieldset':
        return firstChildText(el, 'legend') || title();
      case 'table':
        return firstChildText(el, 'caption') || title();
      case 'figure':
        return firstChildText(el, 'figcaption') || title();
      case 'optgroup':
        return collapse(getAttr(el, 'label') || '');
      case 'option': {
        const label = getAttr(el, 'label');
        if (label && label.trim()) return collapse(label);
        return collapse(el.textContent || '');
      }
      default:
        break;
    }
    if (NAME_FROM_CONTENT.has(role)) {
      const text = gatherText(el, null, false) || generatedText(el);
      if (text) return text;
    }
    return title();
  }

  // ---------------------------------------------------------------------------------
  // CSS generated content. A control drawn by `::before { content: "Next" }` has that
  // name in Chromium's accessibility tree. Read only for an element its own content
  // leaves nameless (each read is a computed style of a pseudo-element), and only the
  // strings and attr() of `content`; glyphs of the private use area (icon fonts) say
  // nothing and are dropped.
  // ---------------------------------------------------------------------------------
  const GENERATED_MAX_ELEMENTS = 20;
  const PRIVATE_USE = /[\ue000-\uf8ff]/g;
  const CONTENT_TOKEN = /"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|attr\(\s*([\w-]+)\s*\)|(\/)/g;

  /** The text a computed `content` value adds (its alternative text after `/` if any). */
  function contentText(el, value) {
    if (!value || value === 'none' || value === 'normal') return '';
    let text = '', alt = null;
    for (const m of value.matchAll(CONTENT_TOKEN)) {
      if (m[4]) { alt = ''; continue; }
      const part = m[3] !== undefined ? getAttr(el, m[3]) || ''
        : (m[1] !== undefined ? m[1] : m[2]).replace(/\\(.)/g, '$1');
      if (alt === null) text += part; else alt += part;
    }
    return alt !== null ? alt : text;
  }

  /** The text of `root`'s ::before and ::after and those of its descendants, in order. */
  function generatedText(root) {
    const parts = [];
    let budget = GENERATED_MAX_ELEMENTS;
    const visit = (el) => {
      if (budget-- <= 0 || getAttr(el, 'aria-hidden') === 'true') return;
      parts.push(contentText(el, computeStyle(window, el, '::before').content), ' ');
      for (const child of el.children) visit(child);
      parts.push(contentText(el, computeStyle(window, el, '::after').content), ' ');
    };
    visit(root);
    return collapse(parts.join('').replace(PRIVATE_USE, ''));
  }
