"""The human-in-the-loop policies as pure logic: confirm rules, the policy file, the
permission policy and the locks (``browx_actors/policy/``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from browx_actors.errors import ToolError
from browx_actors.policy.book import PolicyBook
from browx_actors.policy.confirm import CallFacts, ConfirmPolicy, rule_from
from browx_actors.policy.file import OperatorPolicy, load_policy, policy_from
from browx_actors.policy.permissions import PermissionPolicy, permission_policy_from
from browx_actors.tools import ALL

TOOLS = frozenset(tool.name for tool in ALL)


def rule(**fields: object) -> ConfirmPolicy:
    return ConfirmPolicy((rule_from(fields, "r", known_tools=TOOLS),))


def test_a_rule_narrows_by_every_field_it_gives() -> None:
    delete = rule(tools=["click", "press"], name="Pay|Delete|Place order")
    assert delete.match(CallFacts("click", role="button", name="Delete account"))
    assert delete.match(CallFacts("click", role="button", name="place ORDER now"))  # case-insensitive, searched
    assert not delete.match(CallFacts("click", role="button", name="Save draft"))
    assert not delete.match(CallFacts("fill", role="textbox", name="Delete reason"))  # not one of its tools
    assert delete.covering("fill") == () and delete.needs_target("click")
    button = rule(role="^button$")
    assert button.match(CallFacts("click", role="button", name="x"))
    assert not button.match(CallFacts("click", role="link", name="x"))
    assert not button.covering("navigate"), "a role rule skips a tool with no target"


def test_a_target_that_cannot_be_described_is_asked_about() -> None:
    delete = rule(tools=["click"], name="Delete")
    assert delete.match(CallFacts("click", described=False)), "when in doubt, a person is asked"


def test_kinds_bring_their_own_tools_and_test() -> None:
    submit, upload, scripts = rule(on="submit"), rule(on="upload"), rule(on="eval")
    assert submit.match(CallFacts("click", role="button", name="Search", submits=True))
    assert not submit.match(CallFacts("click", role="button", name="Search", submits=False))
    assert not submit.match(CallFacts("fill", submits=True))
    assert upload.match(CallFacts("upload_file")) and not upload.match(CallFacts("click"))
    assert scripts.match(CallFacts("eval_js")) and scripts.match(CallFacts("poll_eval"))


def test_off_the_allow_list_is_asked_about_only_for_a_refused_load() -> None:
    leave = rule(on="off-allow-list")
    assert leave.match(CallFacts("navigate", origin="https://other.example", off_list=True))
    assert not leave.match(CallFacts("navigate", origin="https://allowed.example"))
    assert not leave.match(CallFacts("click", off_list=True))
    book = PolicyBook(OperatorPolicy(confirm=leave))
    assert book.asks_off_list("s", "new_tab") and not book.asks_off_list("s", "click")
    book.admit("s", "https://other.example")
    assert book.admitted("s") == {"https://other.example"} and book.admitted("t") == frozenset()
    book.forget("s")
    assert book.admitted("s") == frozenset()


def test_origins_narrow_to_the_page_the_call_acts_on() -> None:
    shop = rule(tools=["click"], origins=["https://shop.example", "*.bank.example"])
    assert shop.match(CallFacts("click", origin="https://shop.example"))
    assert shop.match(CallFacts("click", origin="https://www.bank.example"))
    assert not shop.match(CallFacts("click", origin="https://news.example"))
    assert not shop.match(CallFacts("click", origin="about:blank"))
    assert shop.match(CallFacts("click", origin=None)), "an unknown page is asked about"


@pytest.mark.parametrize(("fields", "where"), [
    ({}, "r: an empty rule"),
    ({"tools": ["clik"]}, "r.tools: no tool named 'clik'"),
    ({"tools": "click", "colour": "red"}, "r.colour: unknown field"),
    ({"on": "payment"}, "r.on: one of submit, upload, eval, off-allow-list, download"),
    ({"name": "(unclosed"}, "r.name: not a regular expression"),
    ({"origins": ["ftp://x"]}, "r.origins: 'ftp://x' is not an origin pattern"),
    ({"tools": ["navigate"], "name": "x"}, "r: matches no call"),
    ({"tools": ["click"], "on": "upload"}, "r: matches no call"),
])
def test_a_bad_rule_is_refused_naming_its_field(fields: dict[str, object], where: str) -> None:
    with pytest.raises(ValueError) as err:
        rule_from(fields, "r", known_tools=TOOLS)
    assert str(err.value).startswith(where), err.value


def test_the_policy_file_in_toml_and_json(tmp_path: Path) -> None:
    toml = tmp_path / "policy.toml"
    toml.write_text('confirmTimeoutMs = 5000\ndialogs = "dismiss"\n[[confirm]]\ntools = ["click"]\nname = "Delete"\n'
                    '[permissions]\ndefault = "deny"\nperPermission = { geolocation = "ask-human" }\n')
    policy = load_policy(toml, known_tools=TOOLS)
    assert policy.confirm_timeout_ms == 5000 and policy.dialogs == "dismiss" and policy.source == str(toml)
    assert [r.text for r in policy.confirm.rules] == ["click name~/Delete/"]
    assert policy.permissions == PermissionPolicy("deny", {"geolocation": "ask-human"})
    as_json = tmp_path / "policy.json"
    as_json.write_text(json.dumps({"confirm": [{"on": "eval"}]}))
    assert load_policy(as_json).confirm.rules[0].on == "eval"


@pytest.mark.parametrize(("text", "named"), [
    ('colour = "red"', "colour: unknown key"),
    ('dialogs = "maybe"', "dialogs: one of accept, dismiss, ask, ask-human"),
    ("confirmTimeoutMs = 10", "confirmTimeoutMs: milliseconds"),
    ('[[confirm]]\nname = "("', "confirm[0].name: not a regular expression"),
    ('[permissions]\nperPermission = { teleport = "allow" }', "permissions.perPermission.teleport: not a permission"),
    ('[permissions]\ndefault = "maybe"', "permissions.default: one of allow, deny, ask-human"),
    ("confirm = [", "Invalid value"),
])
def test_a_bad_policy_file_names_the_file_and_the_key(tmp_path: Path, text: str, named: str) -> None:
    path = tmp_path / "policy.toml"
    path.write_text(text)
    with pytest.raises(ValueError) as err:
        load_policy(path)
    assert str(err.value).startswith(f"policy file {str(path)!r}: ") and named in str(err.value), err.value


def test_a_file_of_another_kind_or_missing_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"\.toml or \.json"):
        (tmp_path / "policy.yaml").write_text("")
        load_policy(tmp_path / "policy.yaml")
    with pytest.raises(ValueError, match="No such file"):
        load_policy(tmp_path / "absent.toml")


def test_unknown_tools_in_a_file_are_found_against_the_catalog() -> None:
    policy = policy_from({"confirm": [{"tools": ["click", "teleport"]}]}, source="p.toml")
    with pytest.raises(ValueError, match=r"confirm\[0\]\.tools: no tool named 'teleport'"):
        policy.check_tools(TOOLS)


def test_permission_answers() -> None:
    policy = permission_policy_from("deny", {"camera": "ask-human"}, "p")
    assert policy.answer("camera") == "ask-human" and policy.answer("geolocation") == "deny" and policy.asks()
    assert PermissionPolicy().answer("camera") is None and not PermissionPolicy().active
    with pytest.raises(ValueError, match=r"p\.perPermission\.camera: one of allow, deny, ask-human"):
        permission_policy_from(None, {"camera": "yes"}, "p")


def test_a_session_adds_rules_it_cannot_remove_the_operators_nor_change_what_the_file_set() -> None:
    operator = OperatorPolicy(confirm=rule(tools=["click"], name="Delete"), dialogs="ask-human")
    book = PolicyBook(operator)
    book.set_own("s", rule(on="eval"))
    assert [r.text for r in book.confirm_for("s").rules] == ["click name~/Delete/", "on eval"]
    book.set_own("s", ConfirmPolicy())  # the session's own cleared: the operator's stay
    assert [r.text for r in book.confirm_for("s").rules] == ["click name~/Delete/"]
    with pytest.raises(ToolError) as err:
        book.refuse_if_locked("set_dialog_policy")
    assert err.value.code == "policy-locked" and err.value.details["policy"] == "dialogs"
    book.refuse_if_locked("set_permission_policy")  # the file set no permission policy
    book.refuse_if_locked("click")
