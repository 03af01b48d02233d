// editors.js: editors as the agent sees them: a code editor's typing proxy (the hidden
// field or the EditContext it types into), what kind of editor a field is (editorKind),
// and the text the editor shows a person (fieldText), which fill checks its text against.
// Relies on: prelude (innerTextOf, getRect), helpers (parentOf), TYPE_INTO (aim) and
// resolveOrThrow (refs), resolved at run time.

  // ---------------------------------------------------------------------------------
  // Editors. A code editor takes typing through an input of its own, a textarea it
  // keeps a pixel or two wide (CodeMirror 5, Ace) or an element with an EditContext
  // and no width (Monaco in Chromium), under the layers that draw its text; a
  // rich-text editor is a contenteditable region. Both rewrite what is typed into
  // them (auto-indent, closing brackets, lists), so fill pastes into them and then
  // reads what they show.
  // ---------------------------------------------------------------------------------
  // A text field this thin on an axis is an editor's hidden input, not a field a person sees.
  const PROXY_MAX_PX = 3;
  // The box around a proxy that shows the editor's text is at least this big on each axis.
  const VIEW_MIN_PX = 16;
  // fieldText reads this much of an editor's text at most.
  const FIELD_TEXT_MAX = 20000;

  /** The element takes text through an EditContext (Chromium's EditContext API). */
  function hasEditContext(el) {
    return !!el.editContext;
  }

  /** A code editor's input: a text field a pixel or two wide, or an EditContext element
   *  with no width, clipped or under the layers that draw the text. Typing goes to the
   *  focus, not to a point, so it is focused and typed into where a click could not reach. */
  function isTypingProxy(el) {
    const field = el.localName === 'textarea' || (el.localName === 'input' && TYPE_INTO.has(el.type));
    if (!field && !hasEditContext(el)) return false;
    const r = getRect(el);
    if (Math.min(r.width, r.height) > PROXY_MAX_PX) return false;
    if (!field) return Math.max(r.width, r.height) > 0;
    return (r.width > 0 && r.height > 0) || isCollapsedCodeInput(el);
  }

  /** A textarea a code editor keeps at no size at all while it draws the text elsewhere
   *  (Monaco in Firefox): laid out and visible, exempt from spell-checking (code is not
   *  spell-checked; a field hidden to trap bots is not exempted), inside a view that
   *  shows text. */
  function isCollapsedCodeInput(el) {
    if (el.localName !== 'textarea' || el.spellcheck !== false) return false;
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility !== 'visible') return false;
    const view = editorView(el, 'proxy');
    if (view === el || view === doc.body || view === doc.documentElement) return false;  // no view of its own
    return innerTextOf(view).trim() !== '';
  }

  /** 'proxy' (a code editor's input), 'rich' (a contenteditable region or a shown
   *  EditContext element) or null (a plain field, whose value is its text). */
  function editorKind(el) {
    if (isTypingProxy(el)) return 'proxy';
    return isRichText(el) ? 'rich' : null;
  }

  /** A rich-text region (not a form field): a contenteditable host, or an element that
   *  takes text through an EditContext. The snapshot shows its paragraphs as lines. */
  function isRichText(el) {
    const tag = el.localName;
    return tag !== 'input' && tag !== 'textarea' && (el.isContentEditable || hasEditContext(el));
  }

  /** Where an editor shows its text: the region itself, or for a proxy the first box
   *  around it big enough to be the view a person reads. */
  function editorView(el, kind) {
    if (kind !== 'proxy') return el;
    for (let up = parentOf(el); up; up = parentOf(up)) {
      const r = getRect(up);
      if (r.width >= VIEW_MIN_PX && r.height >= VIEW_MIN_PX) return up;
    }
    return el;
  }

  /** The text a code editor's view shows, as its value: drawn spaces as spaces, the
   *  gutter's line numbers left out (a line that is a number alone), trailing blanks
   *  dropped. Its hidden input holds none of it, or a few lines around the caret. */
  function editorText(el) {
    const lines = innerTextOf(editorView(el, 'proxy')).replace(/\u00a0/g, ' ').split('\n');
    const text = lines.map((line) => line.trimEnd()).filter((line) => line && !/^\s*\d+$/.test(line)).join('\n');
    return text.length > FIELD_TEXT_MAX ? text.slice(0, FIELD_TEXT_MAX) : text;
  }

  /** fieldText(ref) -> {editor: 'proxy' | 'rich' | null, text}: the text an editor shows
   *  (its rendered lines, as innerText reads them: a gutter's line numbers too), or a
   *  plain field's value. */
  function fieldText(ref) {
    const el = resolveOrThrow(ref);
    const kind = editorKind(el);
    const tag = el.localName;
    const text = kind === null && (tag === 'input' || tag === 'textarea') ? el.value
      : innerTextOf(editorView(el, kind));
    return { editor: kind, text: text.length > FIELD_TEXT_MAX ? text.slice(-FIELD_TEXT_MAX) : text };
  }
