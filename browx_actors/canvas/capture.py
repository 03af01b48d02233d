"""``canvas_capture``'s page side: read a ``<canvas>`` as PNG, 2D ImageData or a WebGL framebuffer.

The read travels over the session's raw CDP flat session (``sessions/chromium/page/canvas.py``
runs it), not through Playwright: a 1280x720 RGBA capture is 4.9 MB of base64, and the
raw socket carries it in one hop where Playwright's driver would relay it twice. The
target is resolved to a ref first, as every action resolves its target; the capture
function then finds the element through the page agent.

The page-side function (:data:`CAPTURE_JS`) answers with a small holder object that
stays in the page (as a remote object) and hands out its base64 in chunks of
:data:`CHUNK_CHARS`: a large canvas never becomes one string bigger than V8 or the CDP
socket allow, and the holder is released in a ``finally`` so nothing stays behind.

What the page-side function guarantees:

- ``2d-imagedata`` copies the canvas onto a scratch 2D canvas and reads that, so it
  works whatever context the target has and never creates a context on it;
- ``webgl-framebuffer`` reads the default framebuffer with ``readPixels`` (saving and
  restoring the bindings and pack state it touches) and flips the rows into top-left
  order. It never creates a context: ``getContext`` on a canvas without one would make
  one, and the page's own ``getContext`` of another kind would then answer null. So the
  canvas is first read as shown (as ``2d-imagedata`` reads it); only a canvas showing
  pixels, which some context drew, is asked for its WebGL context (``context-mismatch``
  when it is another kind). One that reads fully transparent (no context yet, nothing
  drawn, or a WebGL buffer the platform already cleared) is answered as read, without
  ``isWebGL`` (it was not read from a framebuffer) and with a warning naming those cases;
- a WebGL buffer that is not preserved is cleared once its frame is shown, so an
  all-zero read is retried inside the next animation frame, after the page's own
  frame callbacks have drawn (an animating page then reads back its frame);
- ``SecurityError`` from ``toDataURL`` / ``getImageData`` (a canvas tainted by a
  cross-origin image) answers ``taint-or-encode`` / ``taint-or-read``; canvases over
  16384 pixels on a side answer ``too-large`` before any pixel is read.
"""

from __future__ import annotations

import binascii

from ..errors import ToolError
from ..jsonsafe import JsonObject
from ..tools import Reply
from .cache import CaptureCache

__all__ = ["CAPTURE_JS", "CDP_TIMEOUT", "CHUNK_CHARS", "FIRST_JS", "OBJECT_GROUP", "PIECE_JS", "answer_capture",
           "decode_chunks", "exception_text"]

#: Base64 characters per CDP reply; a multiple of 4 so every chunk decodes alone.
CHUNK_CHARS = 16 * 1024 * 1024
OBJECT_GROUP = "browx-canvas-capture"
CDP_TIMEOUT = 60.0

CAPTURE_JS = r"""async (ref, format, chunkChars, maxSide, agentKey) => {
  const fail = (code, message, extra) => ({head: {error: Object.assign({code, message}, extra || {})}, count: 0});
  const b64 = (u8) => {
    if (typeof u8.toBase64 === 'function') return u8.toBase64();
    let s = '';
    for (let i = 0; i < u8.length; i += 0x8000) s += String.fromCharCode.apply(null, u8.subarray(i, i + 0x8000));
    return btoa(s);
  };
  const fromBytes = (head, bytes) => {
    const chunkBytes = chunkChars / 4 * 3;
    return {head, count: Math.max(1, Math.ceil(bytes.length / chunkBytes)),
            piece: (i) => b64(bytes.subarray(i * chunkBytes, (i + 1) * chunkBytes))};
  };
  const fromString = (head, text) => ({head, count: Math.max(1, Math.ceil(text.length / chunkChars)),
                                        piece: (i) => text.slice(i * chunkChars, (i + 1) * chunkChars)});
  const failure = (e, taintCode, what) => e && e.name === 'SecurityError'
    ? fail(taintCode, `${what} threw SecurityError: the canvas is tainted by cross-origin content drawn without CORS`)
    : fail('capture-failed', `${what} failed: ${e && e.message || e}`);

  let el;
  if (ref !== null) {
    const agent = window[agentKey];
    el = agent ? agent.resolve(ref) : null;
    if (!el) return fail('stale-element', `ref ${ref} no longer points at a live element; take a new snapshot`, {ref});
  } else {
    el = document.querySelector('canvas');
    if (!el) return fail('target-not-found', 'the page has no <canvas> element');
  }
  if (el.localName !== 'canvas' || typeof el.getContext !== 'function') {
    return fail('not-a-canvas', `the target is a <${el.localName}>, not a <canvas>`);
  }
  const width = el.width, height = el.height;
  if (width > maxSide || height > maxSide) {
    return fail('too-large', `the canvas is ${width}x${height} pixels, larger than ${maxSide}x${maxSide}`, {width, height});
  }
  if (width === 0 || height === 0) return fail('empty-canvas', `the canvas is ${width}x${height}: no pixels to capture`);
  const r = el.getBoundingClientRect();
  const head = {format, width, height, warnings: [], box: {x: r.x, y: r.y, width: r.width, height: r.height}};

  if (format === 'png') {
    let url;
    try { url = el.toDataURL('image/png'); } catch (e) { return failure(e, 'taint-or-encode', 'toDataURL'); }
    const comma = url.indexOf(',');
    if (!url.startsWith('data:image/png') || comma < 0 || comma === url.length - 1) {
      return fail('taint-or-encode', 'toDataURL produced no PNG (the browser could not encode this canvas)');
    }
    return fromString(head, url.slice(comma + 1));
  }

  const empty = (px) => {
    const words = new Uint32Array(px.buffer, px.byteOffset, px.byteLength >> 2);
    for (let i = 0; i < words.length; i++) if (words[i] !== 0) return false;
    return true;
  };
  // An empty read of a buffer the platform clears after each frame holds that frame
  // again inside the next one, after the page's own frame callbacks have drawn.
  const inNextFrame = (read) => Promise.race([
    new Promise((resolve) => requestAnimationFrame(() => { try { resolve(read()); } catch (e) { resolve(null); } })),
    new Promise((resolve) => setTimeout(() => resolve(null), 250)),
  ]);

  // The canvas as shown, through a scratch 2D canvas: whatever its context, and
  // without giving one to a canvas that has none.
  const shown = () => {
    const scratch = document.createElement('canvas');
    scratch.width = width; scratch.height = height;
    const ctx = scratch.getContext('2d', {willReadFrequently: true});
    ctx.globalCompositeOperation = 'copy';
    ctx.drawImage(el, 0, 0);
    const data = ctx.getImageData(0, 0, width, height).data;
    return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  };
  // A tainted canvas has a context (a 2D one drew the cross-origin image): for
  // webgl-framebuffer that is asked below, and answers context-mismatch.
  let seen = null;
  try { seen = shown(); } catch (e) {
    if (format === '2d-imagedata' || !(e && e.name === 'SecurityError')) return failure(e, 'taint-or-read', 'getImageData');
  }
  if (seen && empty(seen)) {
    const again = await inNextFrame(shown);
    if (again && !empty(again)) seen = again;
  }
  if (format === '2d-imagedata') return fromBytes(head, seen);

  // getContext gives a canvas without a context the one asked for, and the page's own
  // getContext of another kind then answers null: so it is asked only of a canvas that
  // shows pixels, which some context drew. A canvas that reads as transparent is
  // answered as it is (no context yet, nothing drawn, or a WebGL buffer already cleared).
  if (seen && empty(seen)) {
    head.warnings.push('the canvas reads as fully transparent and capture did not ask it for a WebGL context (on a canvas without one that would create it, and the page\'s own getContext would then fail): nothing is drawn on it yet, or its WebGL context was made with preserveDrawingBuffer:false and the platform cleared the buffer once the frame was shown (capture while the page is drawing, or have the page create it with preserveDrawingBuffer:true)');
    return fromBytes(head, seen);
  }
  let gl = null;
  try {
    for (const type of ['webgl2', 'webgl']) {
      gl = el.getContext(type);
      if (gl) break;
    }
  } catch (e) { return fail('capture-failed', `getContext failed: ${e && e.message || e}`); }
  if (!gl) {
    return fail('context-mismatch', 'the canvas has a 2D (or bitmaprenderer) context, not WebGL; capture it with format "2d-imagedata" or "png"');
  }
  if (gl.isContextLost()) return fail('capture-failed', 'the WebGL context is lost');
  const gl2 = typeof WebGL2RenderingContext !== 'undefined' && gl instanceof WebGL2RenderingContext;
  const w = gl.drawingBufferWidth, h = gl.drawingBufferHeight;
  const read = () => {
    const px = new Uint8Array(w * h * 4);
    const target = gl2 ? gl.READ_FRAMEBUFFER : gl.FRAMEBUFFER;
    const saved = {fb: gl.getParameter(gl2 ? gl.READ_FRAMEBUFFER_BINDING : gl.FRAMEBUFFER_BINDING),
                   align: gl.getParameter(gl.PACK_ALIGNMENT)};
    if (gl2) {
      saved.pbo = gl.getParameter(gl.PIXEL_PACK_BUFFER_BINDING);
      saved.rowLength = gl.getParameter(gl.PACK_ROW_LENGTH);
      saved.skipPixels = gl.getParameter(gl.PACK_SKIP_PIXELS);
      saved.skipRows = gl.getParameter(gl.PACK_SKIP_ROWS);
      gl.bindBuffer(gl.PIXEL_PACK_BUFFER, null);
      gl.pixelStorei(gl.PACK_ROW_LENGTH, 0);
      gl.pixelStorei(gl.PACK_SKIP_PIXELS, 0);
      gl.pixelStorei(gl.PACK_SKIP_ROWS, 0);
    }
    gl.bindFramebuffer(target, null);
    gl.pixelStorei(gl.PACK_ALIGNMENT, 4);
    try {
      gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
    } finally {
      gl.bindFramebuffer(target, saved.fb);
      gl.pixelStorei(gl.PACK_ALIGNMENT, saved.align);
      if (gl2) {
        gl.bindBuffer(gl.PIXEL_PACK_BUFFER, saved.pbo);
        gl.pixelStorei(gl.PACK_ROW_LENGTH, saved.rowLength);
        gl.pixelStorei(gl.PACK_SKIP_PIXELS, saved.skipPixels);
        gl.pixelStorei(gl.PACK_SKIP_ROWS, saved.skipRows);
      }
    }
    return px;
  };
  let px;
  try {
    px = read();
    const preserved = !!(gl.getContextAttributes() || {}).preserveDrawingBuffer;
    if (!preserved && empty(px)) {
      const again = await inNextFrame(read);
      if (again && !empty(again)) px = again;
      else head.warnings.push('the page created this WebGL context with preserveDrawingBuffer:false and it read back as all zeros: the platform clears that buffer once a frame is shown, and capture cannot change a context the page already made (capture while the page is drawing, or have the page create it with preserveDrawingBuffer:true)');
    }
  } catch (e) { return failure(e, 'taint-or-read', 'readPixels'); }
  const rowBytes = w * 4, out = new Uint8Array(px.length);
  for (let y = 0; y < h; y++) out.set(px.subarray((h - 1 - y) * rowBytes, (h - y) * rowBytes), y * rowBytes);
  head.width = w; head.height = h; head.isWebGL = true;
  if (w !== width || h !== height) {
    head.warnings.push(`the drawing buffer is ${w}x${h}, smaller than the ${width}x${height} canvas (a GPU limit); captured the buffer`);
  }
  return fromBytes(head, out);
}"""

FIRST_JS = "function() { return {head: this.head, count: this.count, chunk: this.count ? this.piece(0) : ''}; }"
PIECE_JS = "function(i) { return this.piece(i); }"


def decode_chunks(chunks: list[str]) -> bytes:
    """Raw bytes of base64 chunks (each decodes alone; see :data:`CHUNK_CHARS`)."""
    try:
        if len(chunks) == 1:
            return binascii.a2b_base64(chunks[0], strict_mode=True)
        return b"".join(binascii.a2b_base64(c, strict_mode=True) for c in chunks)
    except (binascii.Error, ValueError) as err:
        raise ToolError("capture-failed", f"the page returned malformed base64 ({err})") from err


def exception_text(reply: JsonObject) -> str:
    """The first line of what a page-side script threw, from a CDP reply."""
    details = reply["exceptionDetails"]
    exception = details.get("exception") or {}
    return str(exception.get("description") or details.get("text") or "exception").splitlines()[0]


def answer_capture(head: JsonObject, chunks: list[str], fmt: str, cache: CaptureCache, reply: Reply, *,
                   include_content: bool) -> Reply:
    """What ``canvas_capture`` answers for the page-side capture's ``head`` and base64
    ``chunks``, on any engine: its refusal when the page reported one, else the bytes
    checked against the format, kept in ``cache`` (``captureId``), and described."""
    if "error" in head:
        error = dict(head["error"])
        raise ToolError(error.pop("code"), error.pop("message"), **error)
    for warning in head["warnings"]:
        reply.warn(warning)
    width, height = head["width"], head["height"]
    data = decode_chunks(chunks)
    if fmt != "png" and len(data) != width * height * 4:
        raise ToolError("capture-failed", f"the page returned {len(data)} bytes for a {width}x{height} "
                        f"RGBA capture (expected {width * height * 4})")
    if fmt == "png" and not data.startswith(b"\x89PNG\r\n\x1a\n"):
        raise ToolError("taint-or-encode", "toDataURL did not return a PNG")
    stored = cache.put(fmt, width, height, data)
    if stored is None:
        reply.warn("this capture is larger than the session's capture cache "
                   f"({cache.max_bytes // (1024 * 1024)} MiB) and was not kept: captureId is null, so diff it by base64")
    reply["format"] = fmt
    if include_content:
        reply["contentBase64"] = chunks[0] if len(chunks) == 1 else "".join(chunks)
    reply.fields.update(byteLength=len(data), width=width, height=height)
    if fmt != "png":
        reply["channelCount"] = 4
    if head.get("isWebGL"):
        reply["isWebGL"] = True
    reply["captureId"] = None if stored is None else stored.id
    reply["box"] = head["box"]
    return reply
