"""select: the options of a ``<select>``, chosen through Playwright by value or label."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....errors import ToolError
from ....tools import Reply
from ....tools.actions import SelectArgs
from .actions import Act, run_action
from .send import ACTION_TIMEOUT_MS

if TYPE_CHECKING:
    from ..session import ChromiumSession

__all__ = ["select", "selecting"]


def selecting(values: list[str], field: str = "values") -> Act:
    """Playwright choosing the options of a ``<select>``: each wanted value matched
    against option values first, then visible labels; ``bad-arg`` names ``field``."""

    # Any: an Act's page and locator (see Act).
    async def act(page: Any, locator: Any) -> None:
        options = await locator.evaluate(
            "el => Array.from(el.options || [], o => [o.value, o.label])"
        )
        chosen = []
        for wanted in values:
            match = next((v for v, _ in options if v == wanted), None)
            if match is None:
                match = next((v for v, label in options if label == wanted), None)
            if match is None:
                labels = ", ".join(repr(label) for _, label in options[:20])
                raise ToolError("bad-arg", f"no option with value or label {wanted!r} (options: {labels})",
                                field=field)
            chosen.append(match)
        await locator.select_option(value=chosen, timeout=ACTION_TIMEOUT_MS)

    return act


async def select(session: ChromiumSession, args: SelectArgs) -> Reply:
    return await run_action(session, "select", args, selecting(args.values))
