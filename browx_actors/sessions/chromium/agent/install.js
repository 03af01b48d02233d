// install.js: freezes the agent object and defines it under window[AGENT_KEY]. Last:
// relies on AGENT_KEY (prelude) and the methods of snapshot, reading, aim, changes,
// anchors, feedback, inspect, forms, editors, dragwatch and visualtree.

  // ---------------------------------------------------------------------------------
  // Install
  // ---------------------------------------------------------------------------------
  const agent = freeze({
    version: 1,
    snapshot,
    resolve,
    refFor,
    describe,
    find,
    textSearch,
    mark,
    changes,
    quiet,
    markedUrl,
    count,
    hit,
    aim,
    anchorOf,
    findAnchored,
    findFeedback,
    inspect,
    findOption,
    optionChosen,
    fieldText,
    watchDrag,
    dragState,
    visualTree,
    visualRef,
    visualIdOf,
  });
  defineProperty(window, AGENT_KEY, {
    value: agent,
    enumerable: false,
    writable: false,
    configurable: false,
  });
