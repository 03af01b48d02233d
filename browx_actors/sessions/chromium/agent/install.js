// install.js: freezes the agent object and defines it under window[AGENT_KEY]. Last:
// relies on AGENT_KEY (prelude) and the methods of snapshot, reading, aim, changes and
// visualtree.

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
    count,
    hit,
    aim,
    visualTree,
    visualRef,
  });
  defineProperty(window, AGENT_KEY, {
    value: agent,
    enumerable: false,
    writable: false,
    configurable: false,
  });
