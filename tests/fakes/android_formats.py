"""What an Android 14 emulator's tools print, as pure functions of what they report.

The fake device's shell (:mod:`.adb_shell`, :mod:`.adb_shell_apps`) answers with these,
so a third-party client that parses a device's output (mobile-mcp, Appium's adb layer,
adbutils) reads the fake as it reads an emulator. Each function writes one command's
output in the layout AOSP's code prints it (its line prefixes, its indentation, which
stream a line goes to); where a real answer runs to hundreds of lines (``dumpsys
package``, the feature list) the lines kept are the ones clients read, in their order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = [
    "EMULATOR_FEATURES", "am_start_wait", "dumpsys_package", "dumpsys_window_displays", "monkey_launch",
    "pm_list_features", "query_activities", "surfaceflinger_display_ids", "wm_density",
]

#: ``pm list features`` of an ``sdk_gphone64_x86_64`` image (API 34), the handset ones.
EMULATOR_FEATURES = (
    "reqGlEsVersion=0x30000",
    "android.hardware.audio.output",
    "android.hardware.camera",
    "android.hardware.camera.any",
    "android.hardware.faketouch",
    "android.hardware.location",
    "android.hardware.location.gps",
    "android.hardware.microphone",
    "android.hardware.ram.normal",
    "android.hardware.screen.landscape",
    "android.hardware.screen.portrait",
    "android.hardware.sensor.accelerometer",
    "android.hardware.telephony",
    "android.hardware.touchscreen",
    "android.hardware.touchscreen.multitouch",
    "android.hardware.wifi",
    "android.software.app_widgets",
    "android.software.home_screen",
    "android.software.input_methods",
    "android.software.webview",
)


def wm_density(density: int, override: int | None = None) -> str:
    """``wm density``: the physical density, then the override when one is set."""
    return f"Physical density: {density}\n" + (f"Override density: {override}\n" if override else "")


def pm_list_features(features: Iterable[str] = EMULATOR_FEATURES) -> str:
    """``pm list features``: ``feature:`` and the name, one a line."""
    return "".join(f"feature:{name}\n" for name in features)


def query_activities(components: Sequence[tuple[str, str]]) -> str:
    """``cmd package query-activities``: ``N activities found:`` then each ResolveInfo as
    ``ResolveInfo.dump`` writes it (its match line, ``ActivityInfo:`` with the activity's
    name and package, then its ``ApplicationInfo:``, which names the package again).
    ``components`` are (package, fully qualified activity class)."""
    if not components:
        return "No activities found\n"
    lines = [f"{len(components)} activities found:"]
    for number, (package, activity) in enumerate(components):
        lines += [
            f"  Activity #{number}:",
            "    priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false",
            "    ActivityInfo:",
            f"      name={activity}",
            f"      packageName={package}",
            "      enabled=true exported=true directBootAware=false",
            f"      taskAffinity={package} targetActivity=null persistableMode=PERSIST_ROOT_ONLY",
            "      launchMode=0 flags=0x3 privateFlags=0x0 theme=0x0",
            "      screenOrientation=-1 configChanges=0x0 softInputMode=0x0",
            "      lockTaskLaunchMode=LOCK_TASK_LAUNCH_MODE_DEFAULT",
            "      resizeMode=RESIZE_MODE_RESIZEABLE",
            "      ApplicationInfo:",
            f"        packageName={package}",
            "        labelRes=0x0 nonLocalizedLabel=null icon=0x0 banner=0x0",
            f"        processName={package}",
            "        taskAffinity=" + package,
            "        uid=10190 flags=0x3888be46 privateFlags=0x2c001000 theme=0x0",
            "        requiresSmallestWidthDp=0 compatibleWidthLimitDp=0 largestWidthLimitDp=0",
            f"        sourceDir=/data/app/~~fake==/{package}-1/base.apk",
            f"        dataDir=/data/user/0/{package}",
            "        enabled=true minSdkVersion=24 targetSdkVersion=34 versionCode=1 targetSandboxVersion=1",
        ]
    return "\n".join(lines) + "\n"


def monkey_launch(args: Sequence[str], found: bool) -> tuple[str, str, int]:
    """``monkey -p PKG -c CATEGORY 1``: (stdout, stderr, exit code).

    The ``monkey`` shell script echoes each argument (stdout); the Java side logs its
    arguments and each option's data to stderr; one event injected is the launch. A
    package with no launchable activity aborts with ``-4``: exit code 252.
    """
    stdout = "".join(f"  bash arg: {arg}\n" for arg in args)
    stderr = f"args: [{', '.join(args)}]\n"
    for at, arg in enumerate(args):
        if arg.startswith("-"):
            stderr += f' arg: "{arg}"\n'
            if at + 1 < len(args):
                stderr += f'data="{args[at + 1]}"\n'
        elif at == len(args) - 1:
            stderr += f' arg: "{arg}"\n'
    if not found:
        return stdout, stderr + "** No activities found to run, monkey aborted.\n", 252
    stdout += "Events injected: 1\n## Network stats: elapsed time=14ms (0ms mobile, 0ms wifi, 14ms not connected)\n"
    return stdout, stderr, 0


def am_start_wait(component: str, *, cold: bool, total_ms: int = 412) -> str:
    """``am start -W -n COMPONENT``: the intent, then what ``-W`` waited for."""
    return (f"Starting: Intent {{ cmp={component} }}\nStatus: ok\nLaunchState: {'COLD' if cold else 'HOT'}\n"
            f"Activity: {component}\nTotalTime: {total_ms}\nWaitTime: {total_ms + 3}\nComplete\n")


def dumpsys_window_displays(width: int, height: int, density: int, *, status_bar: int = 63) -> str:
    """``dumpsys window displays``: display 0's sizes (``init=``, ``cur=``, ``app=``) and
    density, the lines tools read for the screen."""
    return ("WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n"
            "  Display: mDisplayId=0 rootTasks=1\n"
            f"    init={width}x{height} {density}dpi mMinSizeOfResizeableTaskDp=220 cur={width}x{height} "
            f"app={width}x{height - status_bar} rng={width}x{width - status_bar}-{height - status_bar}x{height}\n"
            "    deferred=false mLayoutNeeded=false mTouchExcludeRegion=SkRegion()\n"
            "\n"
            "  mLayoutSeq=312\n"
            "  mCurrentFocus=null\n")


def dumpsys_package(package: str, activity: str | None, *, version_name: str = "1.0") -> str:
    """``dumpsys package PKG``: its launcher activity in the resolver table, then its
    ``Package [PKG]`` block (``versionCode=N minSdk=N targetSdk=N``, ``versionName=``)."""
    lines = ["Activity Resolver Table:", "  Non-Data Actions:"]
    if activity is not None:
        lines += ["      android.intent.action.MAIN:",
                  f"        5e8f1d2 {package}/{activity} filter 9b3c0a4",
                  '          Action: "android.intent.action.MAIN"',
                  '          Category: "android.intent.category.LAUNCHER"']
    lines += [
        "", "Packages:",
        f"  Package [{package}] (4c1f7e2):",
        "    userId=10190",
        f"    pkg=Package{{9d0a1b3 {package}}}",
        f"    codePath=/data/app/~~fake==/{package}-1",
        f"    resourcePath=/data/app/~~fake==/{package}-1",
        "    primaryCpuAbi=x86_64",
        "    versionCode=1 minSdk=24 targetSdk=34",
        f"    versionName={version_name}",
        "    flags=[ HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP ]",
        "    timeStamp=2026-12-01 09:12:44.118",
        "    firstInstallTime=2026-12-01 09:12:44.690",
        "    installerPackageName=null",
        "    User 0: ceDataInode=8213 installed=true hidden=false suspended=false distractionFlags=0 stopped=false "
        "notLaunched=false enabled=0 instant=false virtual=false",
    ]
    return "\n".join(lines) + "\n"


def surfaceflinger_display_ids(count: int = 1) -> str:
    """``dumpsys SurfaceFlinger --display-id``: one ``Display`` line per display."""
    return "".join(f'Display {4619827259835644672 + n} (HWC display {n}): port={n} pnpId=GGL '
                   f'displayName="EMU_display_{n}"\n' for n in range(count))
