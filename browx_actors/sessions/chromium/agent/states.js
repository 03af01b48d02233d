// states.js: form control values and the states a snapshot line or describe() shows
// (checked, disabled, expanded, selected, pressed, required, read-only, level).
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
