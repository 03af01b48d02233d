// feedback.js: what the page is telling the user: alerts, status and live regions,
// toasts, and fields marked invalid with their messages; which of it is new since the
// last action (markFeedback() runs in aim(), after mark()).
// Relies on: prelude, collapse / clip (helpers), isVisibleElement (visibility), roleOf
// (roles), gatherText (names), describeBrief (walks), within (aim).

  // ---------------------------------------------------------------------------------
  // Feedback. Pages answer an action in a handful of conventional places: ARIA live
  // regions and their roles (alert, status, log), <output>, toast and snackbar widgets
  // (found by the class names every toast library uses), and form fields flagged
  // invalid, natively (:user-invalid, with the browser's validationMessage) or with
  // aria-invalid (with the text aria-errormessage or aria-describedby points at).
  // At every action's mark the texts are remembered, so each item says whether the
  // page showed it since.
  // ---------------------------------------------------------------------------------
  const LIVE_SELECTOR = '[role=alert],[role=alertdialog],[role=status],[role=log],[aria-live],output';
  const TOAST_SELECTOR = '[class*=toast i],[class*=snackbar i],[class*=notification i],' +
    '[class*=notistack i],[data-sonner-toast],[id*=toast i],[id*=snackbar i]';
  const FEEDBACK_TEXT_MAX = 300;
  const FEEDBACK_TOUCHED_MAX = 2000;
  const TOAST_NOT = new SetC(['button', 'link', 'menuitem', 'tab', 'checkbox', 'switch', 'img']);
  const USER_INVALID = (() => {
    try { docQSA(doc, ':user-invalid'); return ':user-invalid'; } catch (err) { return null; }
  })();
  const INVALID_SELECTOR = '[aria-invalid=true]' + (USER_INVALID ? ',' + USER_INVALID : '');

  // Since the last action's mark: the nodes inserted, and the nodes whose text, children
  // or feedback attributes changed (a MutationObserver, so a mark costs nothing until
  // the page changes), and the fields the browser validated (the `invalid` event).
  let feedbackSince = null;   // {added: Set, changed: Set, invalid: WeakSet, overflow}
  const feedbackObserver = new MutationObserverC(onFeedbackRecords);
  addListener(doc, 'invalid', (event) => {
    if (feedbackSince && event.target && event.target.nodeType === 1) feedbackSince.invalid.add(event.target);
  }, true);

  /** Start watching what the page shows in response to the action about to happen. */
  function markFeedback() {
    feedbackObserver.disconnect();
    feedbackSince = { added: new SetC(), changed: new SetC(), invalid: new WeakSetC(), overflow: false };
    feedbackObserver.observe(doc, {
      childList: true, subtree: true, characterData: true, attributes: true,
      attributeFilter: ['aria-invalid', 'aria-hidden', 'hidden', 'class', 'style', 'open'],
    });
  }

  /** Did the page put `el` up, or change it, since the mark? */
  function isNewFeedback(el, invalid) {
    const since = feedbackSince;
    if (!since || since.overflow) return true;
    onFeedbackRecords(feedbackObserver.takeRecords());
    if (invalid && since.invalid.has(el)) return true;
    for (const node of since.added) if (within(node, el) || within(el, node)) return true;
    for (const node of since.changed) if (within(el, node)) return true;
    return false;
  }

  function onFeedbackRecords(records) {
    const since = feedbackSince;
    if (!since) return;
    for (const record of records) {
      if (since.added.size + since.changed.size >= FEEDBACK_TOUCHED_MAX) { since.overflow = true; return; }
      since.changed.add(record.target);
      for (const node of record.addedNodes) since.added.add(node);
    }
  }

  function safeQSA(selector) {
    try { return Array.from(docQSA(doc, selector)); } catch (err) { return []; }
  }

  function textOf(el) {
    return clip(collapse(gatherText(el, null, false)), FEEDBACK_TEXT_MAX);
  }

  /** The messages an invalid field shows: the browser's, or the ones ARIA points at. */
  function invalidMessage(el) {
    const ids = (getAttr(el, 'aria-errormessage') || getAttr(el, 'aria-describedby') || '').split(/\s+/);
    const parts = [];
    for (const id of ids) {
      if (!id) continue;
      const target = docQS(doc, '#' + cssEscape(id));
      if (target && isVisibleElement(target)) {
        const text = textOf(target);
        if (text) parts.push(text);
      }
    }
    if (parts.length) return { message: parts.join(' '), source: 'aria' };
    const native = typeof el.validationMessage === 'string' ? el.validationMessage : '';
    return { message: clip(native, FEEDBACK_TEXT_MAX), source: native ? 'native' : 'aria' };
  }

  function liveKind(el) {
    const role = getAttr(el, 'role');
    if (role === 'alert' || role === 'alertdialog' || getAttr(el, 'aria-live') === 'assertive') return 'alert';
    return 'status';
  }

  function findFeedback(opts) {
    opts = opts || {};
    const limit = opts.limit === undefined || opts.limit === null ? 20 : Number(opts.limit);
    const items = [];
    const listed = [];
    let count = 0;
    const add = (item) => {
      count++;
      if (items.length < limit) items.push(item);
    };
    const covered = (el) => listed.some((other) => within(other, el) || within(el, other));

    for (const el of safeQSA(LIVE_SELECTOR)) {
      if (!isVisibleElement(el) || getAttr(el, 'aria-hidden') === 'true') continue;
      const text = textOf(el);
      if (!text || listed.some((other) => within(other, el))) continue;
      listed.push(el);
      add({ kind: liveKind(el), ...describeBrief(el), text, new: isNewFeedback(el, false) });
    }
    // A toast is the innermost match with text (a container of toasts lists each one),
    // and never a control (a "Notifications" button is not one).
    const toasts = safeQSA(TOAST_SELECTOR).filter((el) => isVisibleElement(el) && !TOAST_NOT.has(roleOf(el)) &&
                                                     textOf(el));
    for (const el of toasts) {
      if (covered(el) || toasts.some((other) => other !== el && within(el, other))) continue;
      listed.push(el);
      add({ kind: 'toast', ...describeBrief(el), text: textOf(el), new: isNewFeedback(el, false) });
    }
    for (const el of safeQSA(INVALID_SELECTOR)) {
      if (!isVisibleElement(el)) continue;
      const { message, source } = invalidMessage(el);
      add({ kind: 'invalid', ...describeBrief(el), message, source, new: isNewFeedback(el, true) });
    }
    return { items, count, truncated: count > items.length, baseline: !!feedbackSince };
  }
