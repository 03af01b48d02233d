// prelude.js: the agent's header comment, AGENT_KEY and the install guard (which must
// run before anything else in the closure), the DOM methods and globals captured at
// install time, and the snapshot's limits. source.py joins the modules, in its
// MODULES order, into the one closure; this first one relies on nothing.
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
 *   visualTree(opts)  every element as a node of the compact v2 visual tree
 *   visualRef(spec)   the ref of a node visualTree captured, for an action on it
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
  const PromiseC = Promise;
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
  const innerTextOf = uncurry(Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'innerText').get);
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
