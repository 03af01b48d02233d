"""Snapshot identity: revisions, snapshot ids, the latest capture per source, references and
the staleness rule."""

from __future__ import annotations

import gc
import weakref
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from browx_actors.errors import CODES, ToolError, failure_kind
from browx_actors.visualtree.model import Bounds, RawNode, Visual
from browx_actors.visualtree.payload import tree_payload
from browx_actors.visualtree.snapshots import NodeReference, SnapshotBook, fingerprint
from visualtree.contract_schema import check_tree
from visualtree.trees import ANDROID, CAPTURED_AT, WEB, checkout, leaf, wide


def test_revisions_increase_per_source() -> None:
    book = SnapshotBook()
    native = [book.record(ANDROID, checkout(), CAPTURED_AT).revision for _ in range(3)]
    dom = [book.record(WEB, leaf("e1", "div"), CAPTURED_AT).revision for _ in range(2)]
    assert native == [1, 2, 3] and dom == [1, 2]
    assert book.record(ANDROID, checkout(), CAPTURED_AT).revision == 4


def test_each_session_counts_on_its_own() -> None:
    first, second = SnapshotBook(), SnapshotBook()
    first.record(ANDROID, checkout(), CAPTURED_AT)
    assert second.record(ANDROID, checkout(), CAPTURED_AT).revision == 1


def test_the_snapshot_id_is_source_revision_and_content_hash() -> None:
    book = SnapshotBook()
    first = book.record(ANDROID, checkout(), CAPTURED_AT)
    again = book.record(ANDROID, checkout(), CAPTURED_AT)
    source, revision, digest = first.snapshot_id.split(":")
    assert (source, revision, digest) == ("native", "1", fingerprint(checkout()))
    assert len(digest) == 12 and int(digest, 16) >= 0
    assert again.snapshot_id == f"native:2:{digest}"


def test_the_hash_follows_the_content() -> None:
    base = fingerprint(checkout())
    assert fingerprint(checkout()) == base
    assert fingerprint(checkout()._replace(label="changed")) != base
    siblings = leaf("root", children=(leaf("a"), leaf("b")))
    nested = leaf("root", children=(leaf("a", children=(leaf("b"),)),))
    assert fingerprint(siblings) != fingerprint(nested)  # the same nodes, another shape


# Another value for every field of a node: the hash must notice each change.
CHANGES: dict[str, Any] = {
    "id": "other",
    "type_name": "Other",
    "role": "button",
    "automation_id": "x",
    "label": "x",
    "supported_actions": ("tap",),
    "visible": False,
    "enabled": False,
    "focusable": True,
    "focused": True,
    "bounds": Bounds(0, 0, 1, 1),
    "secure": True,
    "z": 1,
    "properties": {"k": "v"},
    "children": (leaf("root.0"),),
    "omitted_children": 3,
    "visual.foreground": "red",
    "visual.background": 0,
    "visual.opacity": 0.5,
    "visual.text": "x",
    "visual.value": "",
}


def test_the_hash_covers_every_field() -> None:
    fields = set(RawNode._fields) - {"visual"}
    fields |= {f"visual.{name}" for name in Visual._fields}
    assert set(CHANGES) == fields
    base = leaf("root", visual=Visual(text="t"))
    for name, value in CHANGES.items():
        if name.startswith("visual."):
            changed = base._replace(visual=base.visual._replace(**{name.removeprefix("visual."): value}))
        else:
            changed = base._replace(**{name: value})
        assert fingerprint(changed) != fingerprint(base), name


def test_the_hash_never_depends_on_a_secure_value() -> None:
    def field(value: str) -> RawNode:
        return leaf("root", "EditText", "input", secure=True, visual=Visual(value=value))

    assert fingerprint(field("hunter2")) == fingerprint(field("letmein"))
    plain = leaf("root", "EditText", "input", visual=Visual(value="hunter2"))
    assert fingerprint(plain) != fingerprint(plain._replace(visual=Visual(value="letmein")))


def test_only_the_latest_capture_per_source_is_kept() -> None:
    book = SnapshotBook()
    first = book.record(ANDROID, checkout(), CAPTURED_AT)
    first_ref = weakref.ref(first)
    second = book.record(ANDROID, checkout(), CAPTURED_AT)
    del first
    gc.collect()
    assert first_ref() is None
    assert book.latest("native") is second and book.latest("dom") is None


def test_capture_time_is_written_in_utc_with_milliseconds() -> None:
    book = SnapshotBook()
    east = datetime(2026, 8, 21, 3, 2, 3, 7000, tzinfo=timezone(timedelta(hours=2)))
    assert book.record(ANDROID, checkout(), east).captured_at_utc == "2026-08-21T01:02:03.007Z"
    with pytest.raises(ValueError):
        book.record(ANDROID, checkout(), datetime(2026, 8, 21))


def test_a_capture_indexes_its_nodes_and_ancestors() -> None:
    capture = SnapshotBook().record(ANDROID, wide(2, 2), CAPTURED_AT)
    assert [node.id for node in capture.nodes()][:4] == ["root", "root.0", "root.0.0", "root.0.1"]
    assert [node.id for node in capture.ancestors("root.1.0")] == ["root", "root.1"]
    assert capture.ancestors("root") == [] and capture.node("nope") is None


def test_a_capture_refuses_repeated_ids() -> None:
    with pytest.raises(ValueError, match="twice"):
        SnapshotBook().record(ANDROID, leaf("root", children=(leaf("x"), leaf("x"))), CAPTURED_AT)


# -- references ----------------------------------------------------------------------


def test_a_reference_of_the_latest_capture_resolves() -> None:
    book = SnapshotBook()
    capture = book.record(ANDROID, checkout(), CAPTURED_AT)
    reference = capture.reference(capture.root.children[0])
    assert reference.to_json() == {
        "source": "native", "snapshotId": capture.snapshot_id, "revision": 1, "nodeId": "root.0",
    }  # fmt: skip
    assert book.resolve(reference) == (capture, capture.root.children[0])


def test_an_older_reference_is_stale_and_says_how_to_refresh() -> None:
    book = SnapshotBook()
    old = book.record(ANDROID, checkout(), CAPTURED_AT)
    book.record(ANDROID, checkout(), CAPTURED_AT)  # the same screen, captured again
    with pytest.raises(ToolError) as caught:
        book.resolve(old.reference(old.root))
    error = caught.value
    assert error.code == "stale_node_reference"
    assert error.details["refreshWith"] == "ui.query_nodes"
    assert (error.details["revision"], error.details["latestRevision"]) == (1, 2)
    envelope = error.to_envelope()
    assert envelope["ok"] is False and envelope["code"] == "stale_node_reference"


def test_a_newer_capture_of_another_source_does_not_stale_a_reference() -> None:
    book = SnapshotBook()
    native = book.record(ANDROID, checkout(), CAPTURED_AT)
    book.record(WEB, leaf("e1", "div"), CAPTURED_AT)
    assert book.resolve(native.reference(native.root))[1] is native.root


def test_a_reference_the_book_never_issued_is_stale() -> None:
    book = SnapshotBook()
    capture = book.record(ANDROID, checkout(), CAPTURED_AT)
    forged = NodeReference("native", "native:1:000000000000", 1, "root")
    with pytest.raises(ToolError) as caught:
        book.resolve(forged)
    assert caught.value.code == "stale_node_reference"
    assert book.resolve(capture.reference(capture.root))[0] is capture


def test_the_stale_code_is_registered_as_target_not_found() -> None:
    assert CODES["stale_node_reference"].kind == "target-not-found"
    assert failure_kind("stale_node_reference") == "target-not-found"


def test_an_uncaptured_source_or_unknown_node_is_not_found() -> None:
    book = SnapshotBook()
    with pytest.raises(ToolError) as caught:
        book.resolve(NodeReference("dom", "dom:1:abc", 1, "e1"))
    assert caught.value.code == "target-not-found" and caught.value.details["refreshWith"] == "ui.query_nodes"
    capture = book.record(ANDROID, checkout(), CAPTURED_AT)
    with pytest.raises(ToolError) as caught:
        book.resolve(NodeReference("native", capture.snapshot_id, 1, "root.5"))
    assert (caught.value.code, caught.value.details["nodeId"]) == ("target-not-found", "root.5")


def test_a_reference_round_trips_through_json() -> None:
    reference = NodeReference("native", "native:42:3f1e00000000", 42, "root.0")
    assert NodeReference.from_json(reference.to_json()) == reference


@pytest.mark.parametrize(
    "value",
    [
        None,
        "native:1:abc",
        {"source": "native", "snapshotId": "native:1:abc", "revision": 1},
        {"source": "native", "snapshotId": "native:1:abc", "revision": 1, "nodeId": "root", "extra": 1},
        {"source": "native", "snapshotId": "native:1:abc", "revision": "1", "nodeId": "root"},
        {"source": "native", "snapshotId": "native:1:abc", "revision": True, "nodeId": "root"},
        {"source": "", "snapshotId": "native:1:abc", "revision": 1, "nodeId": "root"},
    ],
)
def test_a_malformed_reference_is_a_bad_arg_naming_the_field(value: object) -> None:
    with pytest.raises(ToolError) as caught:
        NodeReference.from_json(value, field="target")
    assert (caught.value.code, caught.value.details["field"]) == ("bad-arg", "target")


@given(st.integers(1, 5))
def test_payload_revisions_follow_the_book(captures: int) -> None:
    book = SnapshotBook()
    payloads = [check_tree(tree_payload(book.record(ANDROID, checkout(), CAPTURED_AT))) for _ in range(captures)]
    assert [payload["revision"] for payload in payloads] == list(range(1, captures + 1))
    assert [payload["nodeIdentity"]["staleAfterRevision"] for payload in payloads] == list(range(1, captures + 1))
    assert len({payload["snapshotId"] for payload in payloads}) == captures
