/*
 * browx-actors page agent.
 *
 * Evaluated in the page's main world, both as an init script (so it is there before
 * the page's own scripts run) and with a plain evaluate on pages that were already
 * loaded. It installs one frozen object under a non-enumerable, non-writable property
 * of `window` and gives the server:
 *
 *   snapshot(opts)    compact indented accessibility text with stable [ref=eN] refs
 *   resolve(ref)      the live Element behind a ref, or null
 *   refFor(el)        the ref of an element, minted on demand
 *   describe(target)  one element's state (ref string or Element)
 *   find(query)       elements by role / name / text / test id, with selector hints
 *   textSearch(opts)  visible text matches, anchored on the nearest ref-able element
 *   mark(), changes(opts)   what appeared or disappeared since the mark, and where
 *                     the page is going if it started leaving
 *   count(selector), hit(x, y)
 *   aim(spec)         mark, find an action's target and ready it for direct input
 *
 * Refs live only in this closure: a WeakMap from Element to ref and a Map from ref to
 * a WeakRef, so a ref never keeps a node alive and a node keeps its ref for as long as
 * it is the same Element object. Errors the server maps to tool codes are thrown with a
 * `code:` prefix: `stale-element:`, `not-found:`, `bad-selector:`, `bad-arg:`,
 * `not-marked:`.
 *
 * Iframes are not walked: every frame runs its own copy of this script (init scripts
 * run in every frame), so a frame's content is snapshotted through that frame. Here an
 * iframe is one `iframe "title" [ref=eN]` line.
 *
 * What page script cannot see, this agent does not guess: click handlers added with
 * addEventListener (only role, tabindex>=0, onclick= and contenteditable make a plain
 * element interactive), closed shadow roots, and visibility flipped by a class change
 * (changes() notices hidden / aria-hidden / style / open attribute flips and
 * insertions, not restyling through classes).
 */
(() => {
  'use strict';

  const AGENT_KEY = '__browxAgent_v1';
  // Idempotent: a second evaluation keeps the first instance and its refs. `in` is an
  // operator, so a page that replaced Object.prototype.hasOwnProperty cannot fool it.
  if (AGENT_KEY in window) return;

  // ---------------------------------------------------------------------------------
  // Primitives captured at install time, so a page that later overwrites common DOM
  // methods or globals does not break the agent. `uncurry(f)(obj, ...args)` calls
  // `f` with `this = obj` without going through a (replaceable) `f.call`.
  // ---------------------------------------------------------------------------------
  const uncurry = (fn) => Function.prototype.call.bind(fn);
  const EP = Element.prototype;
  const getAttr = uncurry(EP.getAttribute);
  const hasAttr = uncurry(EP.hasAttribute);
  const elMatches = uncurry(EP.matches);
  const elClosest = uncurry(EP.closest);
  const elQS = uncurry(EP.querySelector);
  const getRect = uncurry(EP.getBoundingClientRect);
  const checkVis = typeof EP.checkVisibility === 'function' ? uncurry(EP.checkVisibility) : null;
  const docQS = uncurry(Document.prototype.querySelector);
  const docQSA = uncurry(Document.prototype.querySelectorAll);
  const fragQSA = uncurry(DocumentFragment.prototype.querySelectorAll);
  const docFromPoint = uncurry(Document.prototype.elementFromPoint);
  const rootFromPoint = uncurry(ShadowRoot.prototype.elementFromPoint);
  const getClientRects = uncurry(EP.getClientRects);
  const scrollIntoView = uncurry(EP.scrollIntoView);
  const focusElement = uncurry(HTMLElement.prototype.focus);
  const selectInput = uncurry(HTMLInputElement.prototype.select);
  const selectTextarea = uncurry(HTMLTextAreaElement.prototype.select);
  const createRange = uncurry(Document.prototype.createRange);
  const selectNodeContents = uncurry(Range.prototype.selectNodeContents);
  const getSelection = uncurry(window.getSelection);
  const removeAllRanges = uncurry(Selection.prototype.removeAllRanges);
  const addRange = uncurry(Selection.prototype.addRange);
  const addListener = uncurry(EventTarget.prototype.addEventListener);
  const navigationApi = window.navigation || null;
  const docAnimations = typeof Document.prototype.getAnimations === 'function'
    ? uncurry(Document.prototype.getAnimations) : null;
  const getRootNode = uncurry(Node.prototype.getRootNode);
  const computeStyle = uncurry(window.getComputedStyle);
  const cssEscape = CSS.escape;
  const toJSON = JSON.stringify;
  const defineProperty = Object.defineProperty;
  const freeze = Object.freeze;
  const WeakRefC = WeakRef;
  const WeakMapC = WeakMap;
  const WeakSetC = WeakSet;
  const MapC = Map;
  const SetC = Set;
  const MutationObserverC = MutationObserver;
  const FinalizationRegistryC = FinalizationRegistry;
  const ErrorC = Error;
  const doc = document;
  const loc = window.location;

  const styleOf = (el) => computeStyle(window, el);

  // ---------------------------------------------------------------------------------
  // Limits. Compactness is the point of the snapshot: an agent pays for every byte.
  // ---------------------------------------------------------------------------------
  const NAME_MAX = 100;        // accessible names in the snapshot line
  const TEXT_MAX = 200;        // `text:` lines and inline `: text`
  const VALUE_MAX = 80;        // value="..." of form controls
  const URL_MAX = 60;          // url=... shown only for hrefs up to this long
  const URL_AUTO_LINKS = 50;   // with urls:"auto", urls are listed while links <= this
  const SELECT_OPTIONS_MAX = 25;  // options listed per <select>
  const GATHER_MAX = 2000;     // characters gathered for names / describe text
  const SNIPPET_RADIUS = 40;   // textSearch snippet: characters either side
  const TRACK_MAX = 2000;      // elements remembered by the mutation observer
  const PASSWORD_MASK = '********';

  // ---------------------------------------------------------------------------------
  // Role tables
  // ---------------------------------------------------------------------------------
  const ARIA_ROLES = new SetC((
    'alert alertdialog application article banner blockquote button caption cell checkbox ' +
    'code columnheader combobox complementary contentinfo definition deletion dialog ' +
    'directory document emphasis feed figure form generic grid gridcell group heading img ' +
    'insertion link list listbox listitem log main mark marquee math meter menu menubar ' +
    'menuitem menuitemcheckbox menuitemradio navigation none note option paragraph ' +
    'presentation progressbar radio radiogroup region row rowgroup rowheader scrollbar ' +
    'search searchbox separator slider spinbutton status strong subscript superscript ' +
    'switch tab table tablist tabpanel term textbox time timer toolbar tooltip tree ' +
    'treegrid treeitem').split(' '));

  // Roles an agent acts on: always reffed.
  const INTERACTIVE_ROLES = new SetC((
    'link button textbox checkbox radio combobox listbox option slider tab menuitem ' +
    'menuitemcheckbox menuitemradio switch searchbox spinbutton treeitem gridcell ' +
    'scrollbar').split(' '));

  // Roles whose accessible name comes from their content (ARIA "name from content").
  // Rows are left out on purpose: a row named by all its cells repeats the whole row.
  const NAME_FROM_CONTENT = new SetC((
    'button link heading option cell gridcell columnheader rowheader tab menuitem ' +
    'menuitemcheckbox menuitemradio checkbox radio switch treeitem tooltip').split(' '));

  // Roles that are real but add nothing to an agent's picture of the page: their
  // content is lifted into the parent, like a div's. (find() still sees the role.)
  const FLATTEN_ROLES = new SetC((
    'generic none presentation rowgroup strong emphasis code subscript superscript ' +
    'deletion insertion time mark term definition caption separator document').split(' '));

  // Lines that carry text, not something to act on or scope to: no ref.
  const NO_REF_ROLES = new SetC('paragraph blockquote note math'.split(' '));

  // Roles whose line shows value="...".
  const VALUE_ROLES = new SetC('textbox searchbox combobox spinbutton slider'.split(' '));

  // Leaves: their content is either not rendered or summarised in the value.
  const LEAF_ROLES = new SetC(
    'textbox searchbox spinbutton slider img iframe canvas progressbar meter'.split(' '));

  const CHECKABLE_ROLES = new SetC(
    'checkbox radio switch menuitemcheckbox menuitemradio treeitem'.split(' '));

  const INPUT_ROLE = {
    button: 'button', submit: 'button', reset: 'button', image: 'button', file: 'button',
    checkbox: 'checkbox', radio: 'radio', range: 'slider', number: 'spinbutton',
  };
  const TEXT_INPUT_TYPES = new SetC(['text', 'email', 'tel', 'url', 'search', '']);
  const PLACEHOLDER_TYPES = new SetC(['text', 'password', 'number', 'search', 'tel', 'email', 'url']);

  // Never walked at all.
  const SKIP_TAGS = new SetC(
    'script style template noscript head meta link title base datalist param source track'.split(' '));

  // Inline phrasing elements: text on either side of their boundaries belongs to the
  // same line. Any other flattened element is a block and breaks text into lines.
  const INLINE_TAGS = new SetC((
    'a abbr b bdi bdo big cite code data del dfn em font i ins kbd label mark nobr q rp ' +
    'rt ruby s samp small span strong sub sup time tt u var wbr').split(' '));

  const LANDMARK_BLOCKERS =
    'article,aside,main,nav,section,[role=article],[role=complementary],[role=main],' +
    '[role=navigation],[role=region]';

  const TEST_ID_ATTRS = ['data-testid', 'data-test-id', 'data-test'];

  // ---------------------------------------------------------------------------------
  // Small helpers
  // ---------------------------------------------------------------------------------
  const WS = /\s+/g;
  const collapse = (s) => s.replace(WS, ' ').trim();

  /** Cut to `max` characters with an ellipsis, never splitting a surrogate pair. */
  function clip(s, max) {
    if (s.length <= max) return s;
    let end = max - 1;
    const code = s.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff) end -= 1;
    return s.slice(0, end) + '\u2026';
  }

  function fail(code, message) {
    return new ErrorC(code + ': ' + message);
  }

  /** `e5`, `ref=e5` and `[ref=e5]` all name ref e5; anything else is not a ref. */
  const REF_RE = /^\s*\[?\s*(?:ref\s*=\s*)?(e\d+)\s*\]?\s*$/;
  function parseRef(value) {
    if (typeof value !== 'string') return null;
    const m = REF_RE.exec(value);
    return m ? m[1] : null;
  }

  // Open shadow roots met by any walk, so mark() can observe them without a full
  // document scan. WeakRefs: a remembered root never outlives its host.
  const shadowSeen = new WeakSetC();
  const shadowRoots = [];
  function noteShadow(shadow) {
    if (shadowSeen.has(shadow)) return;
    shadowSeen.add(shadow);
    shadowRoots.push(new WeakRefC(shadow));
  }

  /** Children in rendering order: open shadow roots and slot assignments honoured. */
  function childNodesOf(node) {
    if (node.nodeType === 1) {
      const shadow = node.shadowRoot;
      if (shadow) { noteShadow(shadow); return shadow.childNodes; }
      if (node.localName === 'slot' && typeof node.assignedNodes === 'function') {
        const assigned = node.assignedNodes();
        if (assigned.length) return assigned;
      }
    }
    return node.childNodes;
  }

  /** Parent across shadow boundaries (a shadow root's parent is its host). */
  function parentOf(el) {
    if (el.assignedSlot) return el.assignedSlot;
    const parent = el.parentNode;
    if (!parent) return null;
    if (parent.nodeType === 11) return parent.host || null;
    return parent.nodeType === 1 ? parent : null;
  }

  /** The focused element, descending into open shadow roots. */
  function deepActiveElement() {
    let active = doc.activeElement;
    while (active && active.shadowRoot && active.shadowRoot.activeElement) {
      active = active.shadowRoot.activeElement;
    }
    return active;
  }

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
    return false;
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
        return labelsText(el) || gatherText(el, null, false) || title();
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
      const text = gatherText(el, null, false);
      if (text) return text;
    }
    return title();
  }

  // ---------------------------------------------------------------------------------
  // States and values
  // ---------------------------------------------------------------------------------
  function selectText(select) {
    const option = select.selectedOptions && select.selectedOptions[0];
    if (!option) return '';
    return collapse(option.label || option.textContent || '');
  }

  /** Current value of a form control (unmasked; the snapshot masks passwords). */
  function controlValue(el, tag) {
    if (tag === 'select') return selectText(el);
    if (tag === 'input' || tag === 'textarea') {
      const type = (getAttr(el, 'type') || '').toLowerCase();
      if (type === 'checkbox' || type === 'radio') return '';
      return el.value || '';
    }
    return '';
  }

  function valueOf(el, role) {
    const tag = el.localName;
    if (tag === 'input' || tag === 'textarea' || tag === 'select') return controlValue(el, tag);
    const valueText = getAttr(el, 'aria-valuetext') || getAttr(el, 'aria-valuenow');
    if (valueText !== null) return valueText;
    if (role === 'textbox' || role === 'searchbox') return gatherText(el, null, false);
    return '';
  }

  function isPassword(el) {
    return el.localName === 'input' && (getAttr(el, 'type') || '').toLowerCase() === 'password';
  }

  function checkedState(el, role) {
    if (!CHECKABLE_ROLES.has(role)) return undefined;
    if (el.localName === 'input') {
      const type = (getAttr(el, 'type') || '').toLowerCase();
      if (type === 'checkbox' || type === 'radio') {
        if (el.indeterminate) return 'mixed';
        return !!el.checked;
      }
    }
    const aria = getAttr(el, 'aria-checked');
    if (aria === 'mixed') return 'mixed';
    return aria === 'true';
  }

  function isDisabled(el) {
    if ('disabled' in el && elMatches(el, ':disabled')) return true;
    return !!elClosest(el, '[aria-disabled="true"]');
  }

  function headingLevel(el) {
    const tag = el.localName;
    const aria = parseInt(getAttr(el, 'aria-level') || '', 10);
    if (aria > 0) return aria;
    if (tag.length === 2 && tag[0] === 'h' && tag[1] >= '1' && tag[1] <= '6') return Number(tag[1]);
    return 2;
  }

  function expandedState(el) {
    if (el.localName === 'summary') {
      const details = el.parentElement;
      if (details && details.localName === 'details') return details.open ? 'true' : 'false';
    }
    return getAttr(el, 'aria-expanded');
  }

  function isSelected(el) {
    if (el.localName === 'option') return !!el.selected;
    return getAttr(el, 'aria-selected') === 'true';
  }

  function isRequired(el) {
    return ('required' in el && !!el.required) || getAttr(el, 'aria-required') === 'true';
  }

  function isReadOnly(el) {
    const tag = el.localName;
    if ((tag === 'input' || tag === 'textarea') && el.readOnly) return true;
    return getAttr(el, 'aria-readonly') === 'true';
  }

  /** The `[state]` suffix of a snapshot line. */
  function statesText(el, role, active) {
    let out = '';
    const checked = checkedState(el, role);
    if (checked === 'mixed') out += ' [checked=mixed]';
    else if (checked) out += ' [checked]';
    if (isDisabled(el)) out += ' [disabled]';
    const expanded = expandedState(el);
    if (expanded === 'true') out += ' [expanded]';
    else if (expanded === 'false') out += ' [expanded=false]';
    if (isSelected(el)) out += ' [selected]';
    const pressed = getAttr(el, 'aria-pressed');
    if (pressed === 'true') out += ' [pressed]';
    else if (pressed === 'mixed') out += ' [pressed=mixed]';
    if (isRequired(el)) out += ' [required]';
    if (isReadOnly(el)) out += ' [readonly]';
    if (el === active) out += ' [focused]';
    if (role === 'heading') out += ' [level=' + headingLevel(el) + ']';
    return out;
  }

  // ---------------------------------------------------------------------------------
  // Refs
  // ---------------------------------------------------------------------------------
  const refOf = new WeakMapC();   // Element -> 'eN'
  const byRef = new MapC();       // 'eN' -> {w: WeakRef<Element>, role, name}
  let refCounter = 0;
  // Drop the map entry once its element is garbage collected, so a long-lived page
  // that churns nodes does not grow the map without bound.
  const reaper = new FinalizationRegistryC((ref) => {
    const info = byRef.get(ref);
    if (info && !info.w.deref()) byRef.delete(ref);
  });

  /** The element's ref, minted on first sight; role/name remembered for changes(). */
  function mint(el, role, name) {
    let ref = refOf.get(el);
    if (ref) {
      const info = byRef.get(ref);
      if (info) { info.role = role; info.name = name; }
      return ref;
    }
    ref = 'e' + (++refCounter);
    const info = { w: new WeakRefC(el), role, name };
    refOf.set(el, ref);
    byRef.set(ref, info);
    reaper.register(el, ref);
    if (tracker) tracker.refs.set(ref, info);
    return ref;
  }

  function lookup(ref) {
    const info = byRef.get(ref);
    if (!info) return null;
    const el = info.w.deref();
    return el && el.isConnected ? el : null;
  }

  function resolveOrThrow(value) {
    const ref = parseRef(value);
    const el = ref && lookup(ref);
    if (!el) {
      throw fail('stale-element',
        'ref ' + (ref || String(value)) + ' is unknown or no longer attached; take a new snapshot');
    }
    return el;
  }

  /** A scope argument: a ref or a CSS selector; null/undefined means the document. */
  function scopeElement(scope) {
    if (scope === null || scope === undefined || scope === '') return null;
    if (typeof scope !== 'string') throw fail('bad-arg', 'scope must be a ref or a CSS selector');
    if (parseRef(scope)) return resolveOrThrow(scope);
    const el = querySelectorSafe(scope);
    if (!el) throw fail('not-found', 'no element matches selector ' + toJSON(scope));
    return el;
  }

  function querySelectorSafe(selector) {
    try {
      return docQS(doc, selector);
    } catch (err) {
      throw fail('bad-selector', 'invalid CSS selector ' + toJSON(selector));
    }
  }

  // ---------------------------------------------------------------------------------
  // Snapshot: a walk builds a light tree (no refs yet), a second pass prints it and
  // mints refs only for the lines it actually emits.
  // ---------------------------------------------------------------------------------
  const BREAK = { brk: true };   // block boundary marker between text runs

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
    if (lineRole === 'link') ctx.links++;

    if (tag === 'select') {
      walkSelect(el, node, ctx);
    } else if (LEAF_ROLES.has(lineRole) || tag === 'svg' || tag === 'input' || tag === 'textarea') {
      node.kids = [];
    } else {
      // A line starts its own text: a label muted further up does not reach into it.
      const muted = ctx.muted;
      ctx.muted = 0;
      const raw = [];
      walkChildren(el, raw, ctx, true);
      ctx.muted = muted;
      let kids = normalizeItems(raw);
      const kidsInteractive = kids.some((k) => typeof k !== 'string' && k.hasInteractive);
      if (kidsInteractive) node.hasInteractive = true;
      if (NAME_FROM_CONTENT.has(lineRole) && !kidsInteractive) {
        // Everything inside is already said by the name.
        kids = [];
      } else if (name) {
        kids = kids.filter((k) => k !== name);
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

  function quote(s) {
    return toJSON(s);
  }

  function printItems(items, depth, ctx) {
    const indent = '  '.repeat(depth);
    for (const item of items) {
      if (ctx.lines.length >= ctx.maxNodes) { ctx.truncated = true; return; }
      if (typeof item === 'string') {
        if (!ctx.omit.has('text')) ctx.lines.push(indent + 'text: ' + clip(item, TEXT_MAX));
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
      if (isRefWorthy(role, item.interactive)) {
        line += ' [ref=' + mint(el, role, name) + ']';
        ctx.refs++;
      }
      line += statesText(el, role, ctx.active);
      if (VALUE_ROLES.has(role)) {
        const value = valueOf(el, role);
        if (value) line += ' value=' + quote(isPassword(el) ? PASSWORD_MASK : clip(value, VALUE_MAX));
      }
      if (role === 'link' && ctx.showUrls) {
        const href = getAttr(el, 'href');
        if (href && href.length <= URL_MAX && !/^\s*javascript:/i.test(href)) line += ' url=' + href;
      }
      const kids = item.kids;
      if (kids.length === 1 && typeof kids[0] === 'string') {
        ctx.lines.push(line + ': ' + clip(kids[0], TEXT_MAX));
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
      showUrls: urls === true || (urls === 'auto' && ctx.links <= URL_AUTO_LINKS),
    };
    printItems(items, 0, print);
    return {
      text: print.lines.join('\n'),
      nodeCount: print.lines.length,
      truncated: print.truncated,
      refCount: print.refs,
      title: doc.title,
      url: loc.href,
    };
  }

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
      visible: isVisibleElement(el),
      enabled: !isDisabled(el),
      focused: el === deepActiveElement(),
    };
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

  // ---------------------------------------------------------------------------------
  // Aiming an action. aim() is the one round trip before every action: it marks the
  // page for change tracking, finds the target and, for the input the server sends
  // itself (click, hover, fill), checks what Playwright's actionability checks check
  // and readies the element. Anything short of ready is left to Playwright, which
  // waits for the element and says what is wrong with it.
  // ---------------------------------------------------------------------------------
  const TYPE_INTO = new SetC(['text', 'email', 'password', 'search', 'tel', 'url']);

  /** Is `node` `el` or inside it, across shadow boundaries and slots? */
  function within(el, node) {
    for (let n = node; n; n = parentOf(n)) if (n === el) return true;
    return false;
  }

  /** A running animation or transition on the element or an ancestor moves it. */
  function isAnimating(el) {
    if (!docAnimations) return false;
    for (const animation of docAnimations(doc)) {
      if (animation.playState !== 'running') continue;
      const target = animation.effect && animation.effect.target;
      if (target && within(target, el)) return true;
    }
    return false;
  }

  /** The layout viewport less its scrollbars (in quirks mode the root element's
   *  client size is the whole document's, so the window's is used there). */
  function viewportSize() {
    const root = doc.documentElement;
    if (doc.compatMode === 'CSS1Compat' && root) return [root.clientWidth, root.clientHeight];
    return [window.innerWidth, window.innerHeight];
  }

  /** The centre of the element's first box part inside the viewport, or null. */
  function pointIn(el) {
    const [vw, vh] = viewportSize();
    for (const r of getClientRects(el)) {
      const left = Math.max(r.left, 0), right = Math.min(r.right, vw);
      const top = Math.max(r.top, 0), bottom = Math.min(r.bottom, vh);
      if (right - left >= 1 && bottom - top >= 1) return [(left + right) / 2, (top + bottom) / 2];
    }
    return null;
  }

  /** Visible, enabled (for a click), still, in view and on top at its point. */
  function readyToPoint(el, needsEnabled) {
    if (!isVisibleElement(el)) return { wait: 'not visible' };
    if (needsEnabled && isDisabled(el)) return { wait: 'not enabled' };
    if (isAnimating(el)) return { wait: 'animating' };
    const [vw, vh] = viewportSize();
    const box = getRect(el);
    if (box.top < 0 || box.left < 0 || box.bottom > vh || box.right > vw) {
      // Centred when not wholly in view, as the browser's scrollIntoViewIfNeeded does;
      // 'instant' overrides a page's smooth scroll-behavior, so the point is final.
      scrollIntoView(el, { block: 'center', inline: 'center', behavior: 'instant' });
    }
    const point = pointIn(el);
    if (!point) return { wait: 'outside the viewport' };
    const top = elementAt(point[0], point[1]);
    if (!top || !within(el, top)) {
      return { wait: (top ? '<' + top.localName + '>' : 'nothing') + ' is on top at its point' };
    }
    return { ready: point };
  }

  /** Visible, enabled, editable, focused and its content selected: typing replaces it. */
  function readyToType(el) {
    if (!isVisibleElement(el)) return { wait: 'not visible' };
    if (isDisabled(el)) return { wait: 'not enabled' };
    const tag = el.localName;
    if (tag === 'input' ? !TYPE_INTO.has(el.type) || el.readOnly
        : tag === 'textarea' ? el.readOnly : !el.isContentEditable) {
      return { wait: 'not a text field that typing fills' };
    }
    if (getAttr(el, 'aria-readonly') === 'true') return { wait: 'read-only' };
    focusElement(el);
    if (deepActiveElement() !== el) return { wait: 'did not take focus' };
    if (tag === 'input') selectInput(el);
    else if (tag === 'textarea') selectTextarea(el);
    else {
      const range = createRange(doc);
      selectNodeContents(range, el);
      const selection = getSelection(window);
      removeAllRanges(selection);
      addRange(selection, range);
    }
    return { ready: true };
  }

  /**
   * spec: {ref?, selector?, point?: [x, y], mode?: 'click' | 'hover' | 'fill'}.
   * Returns {stale: true} | {notCss: true} (left to Playwright's selector engines) |
   * {count, target, ready?: [x, y] | true, wait?: reason}. Without a ref or a
   * selector the target is what is under `point` (count 0).
   */
  function aim(spec) {
    mark();
    let el = null;
    let count = 1;
    if (spec.ref !== null && spec.ref !== undefined) {
      el = resolve(spec.ref);
      if (!el) return { stale: true };
    } else if (spec.selector !== null && spec.selector !== undefined) {
      let found;
      try { found = docQSA(doc, spec.selector); } catch (err) { return { notCss: true }; }
      count = found.length;
      if (!count) return { count: 0, target: null };
      el = found[0];
    } else {
      const p = spec.point;
      return { count: 0, target: p ? hit(p[0], p[1]) : null };
    }
    const out = { count, target: describe(el) };
    const mode = spec.mode;
    const state = mode === 'fill' ? readyToType(el)
      : mode === 'click' || mode === 'hover' ? readyToPoint(el, mode === 'click') : null;
    if (state && state.ready) out.ready = state.ready;
    else if (state) out.wait = state.wait;
    return out;
  }

  // ---------------------------------------------------------------------------------
  // Change tracking. The observer callback only remembers elements (cheap); the work
  // of deciding what is visible and ref-worthy happens once, in changes().
  // ---------------------------------------------------------------------------------
  let tracker = null;
  const HIDDEN_STYLE = /display\s*:\s*none|visibility\s*:\s*hidden/i;

  /** Did this attribute's old value hide the element? (class changes are not judged.) */
  function wasHidden(name, oldValue) {
    switch (name) {
      case 'hidden': return oldValue !== null;
      case 'aria-hidden': return oldValue === 'true';
      case 'open': return oldValue === null;
      case 'style': return !!oldValue && HIDDEN_STYLE.test(oldValue);
      default: return false;
    }
  }

  function observeRoot(root) {
    if (!tracker || tracker.roots.has(root)) return;
    tracker.roots.add(root);
    tracker.observer.observe(root, {
      childList: true,
      subtree: true,
      attributes: true,
      attributeOldValue: true,
      attributeFilter: ['hidden', 'style', 'aria-hidden', 'open'],
    });
  }

  function remember(el) {
    if (tracker.added.size >= TRACK_MAX) { tracker.overflow = true; return; }
    tracker.added.add(el);
  }

  function onRecords(records) {
    if (!tracker) return;
    for (const record of records) {
      if (record.type === 'childList') {
        for (const node of record.addedNodes) {
          if (node.nodeType !== 1) continue;
          remember(node);
          if (node.shadowRoot) { noteShadow(node.shadowRoot); observeRoot(node.shadowRoot); }
        }
      } else if (record.type === 'attributes' && wasHidden(record.attributeName, record.oldValue)) {
        remember(record.target);
      }
    }
  }

  // A cross-document navigation this document starts (a link, a form, location.assign)
  // fires the Navigation API's navigate event here as it begins, before the browser
  // has reported its request to anyone: changes() says where the page is going, so the
  // server waits for it. Same-document navigations, cancelled ones and ones a router
  // intercepted (navigation.transition is set, or navigatesuccess / navigateerror has
  // fired) are not departures.
  if (navigationApi) {
    addListener(navigationApi, 'navigate', (event) => {
      if (tracker && !event.destination.sameDocument) tracker.leaving = event;
    });
    const settled = () => { if (tracker) tracker.leaving = null; };
    addListener(navigationApi, 'navigatesuccess', settled);
    addListener(navigationApi, 'navigateerror', settled);
  }

  function leavingUrl() {
    const event = tracker.leaving;
    if (!event || event.defaultPrevented || navigationApi.transition) return null;
    return event.destination.url;
  }

  function mark() {
    if (tracker) tracker.observer.disconnect();
    tracker = {
      observer: new MutationObserverC(onRecords),
      roots: new SetC(),
      added: new SetC(),
      refs: new MapC(),   // refs connected at mark time or minted since: ref -> info
      overflow: false,
      leaving: null,      // the navigate event of a departure started since the mark
    };
    for (const [ref, info] of byRef) {
      const el = info.w.deref();
      if (el && el.isConnected) tracker.refs.set(ref, info);
    }
    observeRoot(doc);
    // Shadow roots are separate trees for a MutationObserver: watch the open ones that
    // walks have met (a full scan per action would cost more than it finds).
    for (let i = shadowRoots.length - 1; i >= 0; i--) {
      const shadow = shadowRoots[i].deref();
      if (shadow) observeRoot(shadow);
      else shadowRoots.splice(i, 1);
    }
    return { marked: true };
  }

  function changes(opts) {
    if (!tracker) throw fail('not-marked', 'call mark() before changes()');
    opts = opts || {};
    const limit = opts.limit === undefined || opts.limit === null ? 20 : Number(opts.limit);
    onRecords(tracker.observer.takeRecords());
    let truncated = tracker.overflow;

    const appeared = [];
    const seen = new SetC();
    for (const root of tracker.added) {
      if (!root.isConnected) continue;
      if (elClosest(root, '[aria-hidden="true"]')) continue;
      walkVisible(root, false, (el) => {
        if (seen.has(el) || el.localName === 'option') return;
        seen.add(el);
        const role = roleOf(el);
        const interactive = isInteractive(el, role);
        if (!isRefWorthy(role, interactive)) return;
        const name = accessibleName(el, role);
        if ((role === 'img') && !name && !interactive) return;
        if (appeared.length >= limit) { truncated = true; return; }
        const shown = lineRoleOf(role, interactive);
        appeared.push({ ref: mint(el, shown, name), role: shown, name });
      }, null);
    }

    const removed = [];
    for (const [ref, info] of tracker.refs) {
      const el = info.w.deref();
      if (el && el.isConnected) continue;
      if (removed.length >= limit) { truncated = true; break; }
      removed.push({ ref, role: info.role, name: info.name });
    }
    return { appeared, removed, truncated, leaving: leavingUrl() };
  }

  // ---------------------------------------------------------------------------------
  // Install
  // ---------------------------------------------------------------------------------
  const agent = freeze({
    version: 1,
    snapshot,
    resolve,
    refFor,
    describe,
    find,
    textSearch,
    mark,
    changes,
    count,
    hit,
    aim,
  });
  defineProperty(window, AGENT_KEY, {
    value: agent,
    enumerable: false,
    writable: false,
    configurable: false,
  });
})();
