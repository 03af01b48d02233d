// inspect.js: inspect(): one element's box, the computed styles asked for and its
// attributes, in one call (the accessibility properties come from the browser, over
// CDP, beside it).
// Relies on: prelude, clip (helpers), resolveOrThrow (refs), describe (reading),
// isPassword (states), viewportSize (aim).

  // ---------------------------------------------------------------------------------
  // Inspect
  // ---------------------------------------------------------------------------------
  const getPropertyValue = uncurry(CSSStyleDeclaration.prototype.getPropertyValue);
  const attributesOf = uncurry(Object.getOwnPropertyDescriptor(EP, 'attributes').get);
  const INSPECT_ATTRS_MAX = 50;
  const INSPECT_VALUE_MAX = 500;
  const CAMEL = /[A-Z]/g;

  /** `backgroundColor` -> `background-color`; custom properties (`--x`) as they are. */
  function cssName(name) {
    if (name.startsWith('--') || name.includes('-')) return name;
    return name.replace(CAMEL, (c) => '-' + c.toLowerCase());
  }

  const round2 = (v) => Math.round(v * 100) / 100;

  /** spec: {ref, styles?: [names]} -> {target, box, inViewport, styles, attributes, attributeCount}. */
  function inspect(spec) {
    const el = resolveOrThrow(spec.ref);
    const r = getRect(el);
    const [vw, vh] = viewportSize();
    const box = { x: round2(r.left), y: round2(r.top), width: round2(r.width), height: round2(r.height) };
    const inViewport = r.width > 0 && r.height > 0 && r.right > 0 && r.bottom > 0 && r.left < vw && r.top < vh;
    const styles = {};
    if (spec.styles && spec.styles.length) {
      const computed = styleOf(el);
      for (const name of spec.styles) styles[name] = getPropertyValue(computed, cssName(String(name)));
    }
    const attributes = {};
    const list = attributesOf(el);
    const masked = isPassword(el);
    for (let i = 0; i < list.length && i < INSPECT_ATTRS_MAX; i++) {
      const attr = list[i];
      attributes[attr.name] = masked && attr.name === 'value' ? PASSWORD_MASK : clip(attr.value, INSPECT_VALUE_MAX);
    }
    return { target: describe(el), box, inViewport, styles, attributes, attributeCount: list.length };
  }
