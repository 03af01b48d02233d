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

  /** Visible popups the trigger (or its combobox) points at. */
  function popupsOf(trigger) {
    const out = [];
    for (const el of [trigger, comboboxOf(trigger)]) {
      for (const attr of ['aria-controls', 'aria-owns']) {
        for (const id of (getAttr(el, attr) || '').split(/\s+/)) {
          if (!id) continue;
          const popup = docQS(doc, '#' + cssEscape(id));
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
    const popups = popupsOf(trigger);
    let options = [];
    let scope = 'page';
    for (const popup of popups) options.push(...optionsIn(popup, OPTION_ROLES));
    if (popups.length) {
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

  /** spec: {trigger, option, name} -> {chosen, by?, actual}: the option is selected now,
   *  or the trigger shows the name (as its value, its name or its text). */
  function optionChosen(spec) {
    const trigger = resolveOrThrow(spec.trigger);
    const combo = comboboxOf(trigger);
    const shown = collapse(valueOf(combo, roleOf(combo)) || accessibleName(combo, roleOf(combo)) ||
                           gatherText(trigger, null, false) || '');
    const want = collapse(String(spec.name)).toLowerCase();
    if (shown.toLowerCase().includes(want)) return { chosen: true, by: 'value', actual: shown };
    const option = spec.option ? resolve(spec.option) : null;
    if (option && getAttr(option, 'aria-selected') === 'true') return { chosen: true, by: 'selected', actual: shown };
    return { chosen: false, actual: shown };
  }
