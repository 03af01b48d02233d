"""Live view on android-app: screencap frames, re-encoded as JPEG at the stream's size.

:class:`ScreencapSource` is the :class:`~browx_actors.streams.source.FrameSource` of a
leased Android device. adb has no screencast: the source asks for one ``screencap -p``
(PNG, the screen's full resolution) each time the stream wants a frame, scales it to
the stream's width and encodes it as JPEG at its quality with Pillow
(:func:`jpeg_frame`), and hands it over. The stream's policy (pacing, parts,
step-down) is the same as for chromium's screencast: a level change restarts the
source at the new width, and the source never captures faster than the stream's frame
rate nor before the time the stream said it wants its next frame, so a stream that
stepped down costs the device fewer captures.

A capture costs the device a few hundred milliseconds (screencap, then the PNG over
adb), which bounds the frame rate more than the stream's 5 fps cap does; the capture
runs beside the session's own tool calls (adb opens a connection per command), so a
view never holds a tool back. The PNG is decoded and encoded in a worker thread, never
on the Trio loop.

A failed capture ends the source with :class:`~browx_actors.streams.source.SourceFailed`
(the stream stops with ``source-error``); its message names adb's complaint, never what
was on the screen.
"""

from __future__ import annotations

import io
import time

import trio
from PIL import Image

from ...devices.adb import AndroidDevice
from ...errors import ToolError
from ...streams.source import Deliver, SourceFailed, SourceFrame, SourceSettings
from ..native.platform import Budget
from .input import AdbInput

__all__ = ["CAPTURE_TIMEOUT", "ScreencapSource", "jpeg_frame"]

#: Bound on one screencap (a healthy device answers in well under a second).
CAPTURE_TIMEOUT = 10.0


def jpeg_frame(png: bytes, max_width: int, quality: int) -> bytes:
    """``png`` as a JPEG at most ``max_width`` wide (aspect kept, never enlarged) at ``quality``."""
    with Image.open(io.BytesIO(png)) as image:
        frame = image.convert("RGB")
    if frame.width > max_width:
        height = max(1, round(frame.height * max_width / frame.width))
        frame = frame.resize((max_width, height), Image.Resampling.BILINEAR)
    out = io.BytesIO()
    frame.save(out, "JPEG", quality=quality)
    return out.getvalue()


class ScreencapSource:
    """Frames of one Android device's screen; see the module docstring."""

    def __init__(self, device: AndroidDevice, serial: str) -> None:
        self._driver = AdbInput(device, Budget(step_cap=CAPTURE_TIMEOUT))
        self.description = f"android screencap, {serial}"
        #: Captures made and frames handed over, for statistics and tests.
        self.captures = 0

    async def run(self, settings: SourceSettings, deliver: Deliver, *,
                  task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        interval = 1 / settings.fps
        wanted = -float("inf")
        started = False
        while True:
            begun = trio.current_time()
            try:
                png = await self._driver.screenshot()
                jpeg = await trio.to_thread.run_sync(jpeg_frame, png, settings.max_width, settings.quality,
                                                     abandon_on_cancel=True)
            except ToolError as err:
                raise SourceFailed(f"screencap failed ({err.code}): {err.message}") from None
            except OSError as exc:  # Pillow could not read what screencap printed
                raise SourceFailed(f"screencap gave no readable PNG: {exc}") from None
            self.captures += 1
            if not started:
                started = True
                task_status.started()
            wanted = deliver(SourceFrame(jpeg, round(time.time() * 1000), trio.current_time()))
            await trio.sleep_until(max(wanted, begun + interval))
