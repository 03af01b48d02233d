"""The permission tools of the chromium engine: ``set_permission_policy`` and
``permission_state`` (what they do: :mod:`.permissions`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....origins import origin_of
from ....policy.permissions import permission_policy_from
from ....tools import Reply
from ....tools.contract import SessionArgs
from ....tools.policy import SetPermissionPolicyArgs

if TYPE_CHECKING:
    from ..session import ChromiumSession

__all__ = ["permission_state", "set_permission_policy"]


async def set_permission_policy(session: ChromiumSession, args: SetPermissionPolicyArgs) -> Reply:
    previous = session.permissions.policy
    policy = permission_policy_from(args.default, args.per_permission, "")
    await session.permissions.set(policy)
    return Reply.of(policy=policy.describe(), previous=previous.describe())


async def permission_state(session: ChromiumSession, args: SessionArgs) -> Reply:
    await session.tab_lifecycle.attach_current()
    keeper = session.permissions
    states = await keeper.states(session.cdp)
    return Reply.of(policy=keeper.policy.describe(), setBy="operator" if keeper.operator else "session",
                    origin=origin_of(session.url), states=states)
