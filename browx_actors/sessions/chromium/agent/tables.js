// tables.js: the role and tag tables: ARIA roles, which roles are interactive, named
// from content, flattened, ref-less, valued, leaves or checkable; input types; tags
// never walked or inline; landmark blockers; test id attributes.
// Relies on: SetC (prelude).

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
