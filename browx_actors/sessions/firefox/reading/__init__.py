"""Reading pages on firefox: the page agent's answers, frames folded in.

- :mod:`.handlers`: snapshot, find, text_search, verify_* and inspect;
- :mod:`.frames`: each frame's agent, frame refs, stitched snapshots, frames_list;
- :mod:`.visual`: the visual tree's ``dom`` provider with firefox's actions.
"""
