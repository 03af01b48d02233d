// forms.js: form helpers: choosing from a custom dropdown or combobox (findOption() finds
// the option by its name in the popup the trigger controls, or failing that on the page;
// optionChosen() checks that the choice took). A hidden checkbox's label is found by
// aim itself (throughLabel, reach.js).
// Relies on: prelude, collapse (helpers), isVisibleElement (visibility), roleOf (roles),
// accessibleName / gatherText (names), valueOf (states), resolveOrThrow (refs),
// walkVisible / describeBrief (walks), resolve (reading).

  // ---------------------------------------------------------------------------------
  // Options. A custom dropdown is a trigger (a button, a combobox input, a div) and a
  // popup that appears when it is opened: an ARIA listbox, menu, tree or grid the
  // trigger names in aria-controls / aria-owns, or only a list near it. Options are
  // found by role in the popup, by role on the page when no popup is named, and, in a
  // named popup without roles, among its list items, buttons and links.
  // ---------------------------------------------------------------------------------
  const OPTION_ROLES = new SetC(['option', 'menuitem', 'menuitemradio', 'menuitemcheckbox', 'treeitem', 'gridcell']);
  const LOOSE_OPTION_ROLES = new SetC(['listitem', 'button', 'link']);
  const OPTIONS_LISTED_MAX = 20;

  /** The combobox a trigger stands for: itself, or a combobox inside or around it. */
  function comboboxOf(trigger) {
    if (roleOf(trigger) === 'combobox') return trigger;
    const inner = elQS(trigger, '[role=combobox],input,select');
    if (inner) return inner;
    return elClosest(trigger, '[role=combobox]') || trigger;
  }

  /** Visible popups the trigger (or its combobox) points at; `named` (optional) learns
   *  whether it names one that is on the page at all, shown or not yet. */
  function popupsOf(trigger, named) {
    const out = [];
    for (const el of [trigger, comboboxOf(trigger)]) {
      for (const attr of ['aria-controls', 'aria-owns']) {
        for (const id of (getAttr(el, attr) || '').split(/\s+/)) {
          if (!id) continue;
          const popup = docQS(doc, '#' + cssEscape(id));
          if (popup && named) named.found = true;
          if (popup && !out.includes(popup) && isVisibleElement(popup)) out.push(popup);
        }
      }
    }
    return out;
  }

  function optionsIn(root, roles) {
    const out = [];
    walkVisible(root, false, (el) => {
      if (!roles.has(roleOf(el)) || !isVisibleElement(el)) return;
      out.push(el);
    }, null);
    return out;
  }

  function optionName(el) {
    return collapse(accessibleName(el, roleOf(el)) || '');
  }

  /** The elements named `wanted`: exactly, then ignoring case, then the one containing it. */
  function matchNamed(elements, wanted, exact) {
    const names = elements.map(optionName);
    const want = collapse(wanted);
    let hits = elements.filter((el, i) => names[i] === want);
    if (!hits.length && !exact) {
      const lower = want.toLowerCase();
      hits = elements.filter((el, i) => names[i].toLowerCase() === lower);
      if (!hits.length) hits = elements.filter((el, i) => names[i].toLowerCase().includes(lower));
    }
    return { hits, names };
  }

  /** spec: {trigger: ref, name, exact?} -> {ref?, name?, count, scope, candidates}. */
  function findOption(spec) {
    const trigger = resolveOrThrow(spec.trigger);
    const named = { found: false };
    const popups = popupsOf(trigger, named);
    let options = [];
    let scope = 'page';
    for (const popup of popups) options.push(...optionsIn(popup, OPTION_ROLES));
    // A popup the trigger names that has not shown yet is waited for: the page's other
    // options (the <select> a widget hides behind it) are not this one's.
    if (popups.length || named.found) {
      scope = 'popup';
      if (!options.length) for (const popup of popups) options.push(...optionsIn(popup, LOOSE_OPTION_ROLES));
    } else {
      options = optionsIn(doc.body || doc.documentElement, OPTION_ROLES);
    }
    const { hits, names } = matchNamed(options, String(spec.name), !!spec.exact);
    const out = { count: hits.length, scope, candidates: names.slice(0, OPTIONS_LISTED_MAX), total: names.length };
    if (hits.length) {
      const brief = describeBrief(hits[0]);
      out.ref = brief.ref;
      out.name = optionName(hits[0]);
    }
    return out;
  }

  /** spec: {trigger, option, name, typed?} -> {chosen, by?, actual}: the trigger shows the name
   *  (as its value, its name or its text: by 'value'), the option is selected ('selected'),
   *  a chip beside the trigger shows it ('chip': a multi-select that clears its search
   *  input and drops the option from its list), or the <select> the widget was built
   *  after has it selected ('select'). */
  function optionChosen(spec) {
    const trigger = resolveOrThrow(spec.trigger);
    const combo = comboboxOf(trigger);
    const shown = collapse(valueOf(combo, roleOf(combo)) || accessibleName(combo, roleOf(combo)) ||
                           gatherText(trigger, null, false) || '');
    const want = collapse(String(spec.name)).toLowerCase();
    const option = spec.option ? resolve(spec.option) : null;
    // Text typed into the combobox to filter its options shows the name too: a chip or
    // the <select> says more, so they are looked at first then.
    const byValue = shown.toLowerCase().includes(want);
    if (byValue && !spec.typed) return { chosen: true, by: 'value', actual: shown };
    if (option && getAttr(option, 'aria-selected') === 'true') return { chosen: true, by: 'selected', actual: shown };
    if (chipShows(combo, want)) return { chosen: true, by: 'chip', actual: shown };
    if (selectHas(combo, want)) return { chosen: true, by: 'select', actual: shown };
    if (byValue) return { chosen: true, by: 'value', actual: shown };
    return { chosen: false, actual: shown };
  }

  // How far up from a combobox its widget's chips and its hidden <select> are looked for.
  const CHIP_LEVELS = 2;
  const SELECT_LEVELS = 6;
  // A chip may add a remove mark (×) after the name.
  const CHIP_EXTRA = 3;

  /** A shown element beside the combobox, not in a list of options, whose text is the
   *  name (a remove mark after it aside): the chip a multi-select shows for a pick. */
  function chipShows(combo, want) {
    let root = combo;
    for (let i = 0; i < CHIP_LEVELS && parentOf(root); i++) root = parentOf(root);
    let found = false;
    walkVisible(root, false, (el) => {
      if (found || el === combo || elClosest(el, '[role=listbox],[role=option],select')) return;
      const text = collapse(gatherText(el, null, false)).toLowerCase();
      found = text.startsWith(want) && text.length <= want.length + CHIP_EXTRA && isVisibleElement(el);
    }, null);
    return found;
  }

  /** The <select> a widget around the combobox was built after (it stands just before
   *  the widget, hidden) has an option with the name selected. */
  function selectHas(combo, want) {
    let up = combo;
    for (let i = 0; i < SELECT_LEVELS && up; i++, up = parentOf(up)) {
      const before = up.previousElementSibling;
      if (!before || before.localName !== 'select') continue;
      for (const option of before.selectedOptions) {
        if (collapse(option.label || option.textContent || '').toLowerCase() === want) return true;
      }
      return false;
    }
    return false;
  }
