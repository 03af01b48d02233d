// states.js: form control values and the states a snapshot line or describe() shows
// (checked, disabled, expanded, selected, pressed, required, read-only, level, and the
// ARIA states pages set by hand: sort, current, invalid, busy; ariaStates).
// Relies on: prelude, CHECKABLE_ROLES (tables), collapse (helpers), gatherText (names).

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
    if (isTypingProxy(el)) return editorText(el);  // a code editor's input: what its view shows
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

  // ARIA states a page sets by hand, with the value each takes when it is just "true".
  // Values outside a state's vocabulary count as its default (absent), as ARIA says.
  const ARIA_STATES = [
    ['sort', 'aria-sort', new SetC(['ascending', 'descending', 'other'])],
    ['current', 'aria-current', new SetC(['true', 'page', 'step', 'location', 'date', 'time'])],
    ['invalid', 'aria-invalid', new SetC(['true', 'grammar', 'spelling'])],
    ['busy', 'aria-busy', new SetC(['true'])],
  ];

  /** [[key, value]] of the set ones (sort, current, invalid, busy): true for a plain
   *  "true", else the token. Pairs, not an object: nothing inherited can join in. */
  function ariaStates(el) {
    const out = [];
    for (const [key, attr, allowed] of ARIA_STATES) {
      const raw = getAttr(el, attr);
      if (raw === null) continue;
      const value = raw.trim().toLowerCase();
      if (allowed.has(value)) out.push([key, value === 'true' ? true : value]);
    }
    return out;
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
    else if (pressed === 'false') out += ' [pressed=false]';
    if (isRequired(el)) out += ' [required]';
    if (isReadOnly(el)) out += ' [readonly]';
    for (const [key, value] of ariaStates(el)) out += value === true ? ' [' + key + ']' : ' [' + key + '=' + value + ']';
    if (el === active) out += ' [focused]';
    if (role === 'heading') out += ' [level=' + headingLevel(el) + ']';
    return out;
  }
