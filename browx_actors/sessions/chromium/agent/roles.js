// roles.js: an element's role (explicit, else implicit), whether it is interactive, the
// role its snapshot line shows and whether it gets a ref.
// Relies on: captured DOM methods (prelude), the role tables (tables), WS (helpers).

  // ---------------------------------------------------------------------------------
  // Roles
  // ---------------------------------------------------------------------------------
  function hasExplicitName(el) {
    const label = getAttr(el, 'aria-label');
    return !!((label && label.trim()) || getAttr(el, 'aria-labelledby') || getAttr(el, 'title'));
  }

  function isFocusable(el) {
    const tabindex = getAttr(el, 'tabindex');
    return tabindex !== null && tabindex.trim() !== '' && Number(tabindex) >= 0;
  }

  function isEditableRoot(el) {
    const ce = getAttr(el, 'contenteditable');
    if (ce === null || ce.toLowerCase() === 'false') return false;
    const parent = el.parentElement;
    return !(parent && parent.isContentEditable);
  }

  function implicitRole(el, tag) {
    switch (tag) {
      case 'a': case 'area': return hasAttr(el, 'href') ? 'link' : '';
      case 'button': case 'summary': return 'button';
      case 'input': {
        const type = (getAttr(el, 'type') || '').toLowerCase();
        if (type === 'hidden') return '';
        if (TEXT_INPUT_TYPES.has(type)) {
          if (hasAttr(el, 'list')) return 'combobox';
          return type === 'search' ? 'searchbox' : 'textbox';
        }
        return INPUT_ROLE[type] || 'textbox';
      }
      case 'select': return (el.multiple || el.size > 1) ? 'listbox' : 'combobox';
      case 'textarea': return 'textbox';
      case 'option': return 'option';
      case 'optgroup': case 'fieldset': case 'details': return 'group';
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
      case 'ul': case 'ol': case 'menu': return 'list';
      case 'li': return 'listitem';
      case 'nav': return 'navigation';
      case 'main': return 'main';
      case 'aside': return 'complementary';
      case 'article': return 'article';
      case 'search': return 'search';
      case 'header': case 'footer': {
        const parent = el.parentElement;
        if (parent && elClosest(parent, LANDMARK_BLOCKERS)) return '';
        return tag === 'header' ? 'banner' : 'contentinfo';
      }
      case 'form': return hasExplicitName(el) ? 'form' : '';
      case 'section': return hasExplicitName(el) ? 'region' : '';
      case 'dialog': return 'dialog';
      case 'table': return 'table';
      case 'thead': case 'tbody': case 'tfoot': return 'rowgroup';
      case 'tr': return 'row';
      case 'td': {
        const table = elClosest(el, 'table');
        const tableRole = table ? getAttr(table, 'role') : null;
        return tableRole === 'grid' || tableRole === 'treegrid' ? 'gridcell' : 'cell';
      }
      case 'th': {
        const scope = (getAttr(el, 'scope') || '').toLowerCase();
        if (scope === 'row' || scope === 'rowgroup') return 'rowheader';
        if (scope === 'col' || scope === 'colgroup') return 'columnheader';
        const row = el.parentElement;
        return row && elQS(row, ':scope > td') ? 'rowheader' : 'columnheader';
      }
      case 'caption': return 'caption';
      case 'img': {
        const alt = getAttr(el, 'alt');
        return alt === '' && !getAttr(el, 'title') ? 'presentation' : 'img';
      }
      case 'svg': return 'img';
      case 'p': return 'paragraph';
      case 'blockquote': return 'blockquote';
      case 'figure': return 'figure';
      case 'hr': return 'separator';
      case 'progress': return 'progressbar';
      case 'meter': return 'meter';
      case 'output': return 'status';
      case 'dt': case 'dfn': return 'term';
      case 'dd': return 'definition';
      case 'code': return 'code';
      case 'strong': return 'strong';
      case 'em': return 'emphasis';
      case 'mark': return 'mark';
      case 'sub': return 'subscript';
      case 'sup': return 'superscript';
      case 'del': return 'deletion';
      case 'ins': return 'insertion';
      case 'time': return 'time';
      case 'math': return 'math';
      case 'html': return 'document';
      // Not ARIA roles, but what an agent needs to see and target: the content of an
      // iframe belongs to that frame's agent, a canvas is driven by the canvas tools.
      case 'iframe': case 'frame': return 'iframe';
      case 'canvas': return 'canvas';
      default: return '';
    }
  }

  /** The element's role: the first known token of role="...", else the implicit one. */
  function roleOf(el) {
    const explicit = getAttr(el, 'role');
    if (explicit) {
      const tokens = explicit.trim().toLowerCase().split(WS);
      for (const token of tokens) {
        if (token === 'none' || token === 'presentation') {
          // A focusable element cannot be presentational (ARIA conflict resolution).
          if (isFocusable(el)) break;
          return 'none';
        }
        if (ARIA_ROLES.has(token)) return token;
      }
    }
    if (isEditableRoot(el)) return 'textbox';
    return implicitRole(el, el.localName);
  }

  function isInteractive(el, role) {
    if (INTERACTIVE_ROLES.has(role)) return true;
    if (isFocusable(el) || hasAttr(el, 'onclick')) return true;
    return !role && isNamedFocusTarget(el);
  }

  /** An element without a role that a script moves focus to (tabindex="-1") and that
   *  names itself (aria-label): a date picker's day, a roving-focus grid's cell. Each
   *  is something to act on, not words of the text around it. */
  function isNamedFocusTarget(el) {
    const tabindex = getAttr(el, 'tabindex');
    if (tabindex === null || tabindex.trim() === '' || !(Number(tabindex) < 0)) return false;
    const label = getAttr(el, 'aria-label');
    return !!label && !!label.trim();
  }

  /** The role a snapshot line shows, or '' when the element is flattened away. */
  function lineRoleOf(role, interactive) {
    if (role && !FLATTEN_ROLES.has(role)) return role;
    if (!interactive) return '';
    // Something clickable with no useful role still needs a line (and a ref).
    return role && role !== 'none' && role !== 'presentation' ? role : 'generic';
  }

  /** Gets a ref in snapshots and is a candidate for find()/textSearch() anchors. */
  function isRefWorthy(role, interactive) {
    return interactive || (!!role && !FLATTEN_ROLES.has(role) && !NO_REF_ROLES.has(role));
  }
