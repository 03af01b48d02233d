// dragwatch.js: watchDrag() / dragState(): whether the press and move the server just
// sent made the page start an HTML5 drag (a dragstart that was not cancelled), so it
// knows to take the drag over (Input.dragIntercepted) instead of moving the mouse on.
// Relies on: uncurry, addListener, PromiseC (prelude).

  // ---------------------------------------------------------------------------------
  // Drag watch. Mouse moves reach the page aligned to animation frames, after the CDP
  // command that sent them has answered, so the server cannot ask "did a drag start?"
  // right after a move: dragState() waits until the page has seen a move (or a
  // dragstart), lets the dragstart's listeners finish, and answers then.
  // ---------------------------------------------------------------------------------
  const removeListener = uncurry(EventTarget.prototype.removeEventListener);
  const setTimeoutC = window.setTimeout;
  const clearTimeoutC = window.clearTimeout;
  let dragWatch = null;

  function endDragWatch() {
    const watch = dragWatch;
    if (!watch) return;
    for (const [type, fn] of watch.listeners) removeListener(window, type, fn, true);
    dragWatch = null;
  }

  function watchDrag() {
    endDragWatch();
    const watch = { moved: false, event: null, wake: null, listeners: [] };
    const poke = () => { if (watch.wake) { const wake = watch.wake; watch.wake = null; wake(); } };
    const onMove = () => { watch.moved = true; poke(); };
    const onDragStart = (event) => { watch.event = event; poke(); };
    watch.listeners = [['mousemove', onMove], ['pointermove', onMove], ['dragstart', onDragStart]];
    for (const [type, fn] of watch.listeners) addListener(window, type, fn, true);
    dragWatch = watch;
    return { watching: true };
  }

  /** Resolves once the page has seen a move or a dragstart (or after timeoutMs):
   *  {moved, started, prevented}. */
  function dragState(timeoutMs) {
    const watch = dragWatch;
    if (!watch) return { moved: false, started: false, prevented: false };
    const answer = () => {
      const event = watch.event;
      if (dragWatch === watch) endDragWatch();
      return { moved: watch.moved, started: !!event, prevented: !!event && event.defaultPrevented };
    };
    return new PromiseC((resolve) => {
      // A macrotask later, every listener of the move (and of a dragstart it caused) has run.
      const settle = () => setTimeoutC(() => resolve(answer()), 0);
      if (watch.moved || watch.event) return settle();
      const timer = setTimeoutC(() => { watch.wake = null; resolve(answer()); }, Number(timeoutMs) || 0);
      watch.wake = () => { clearTimeoutC(timer); settle(); };
    });
  }
