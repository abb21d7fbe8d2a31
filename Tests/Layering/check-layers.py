#!/usr/bin/env python3
"""Checks the module layering ARCHITECTURE.md describes, from the package's
own description (`swift package dump-package` on standard input) and the
imports in the sources:

- every module depends only on modules earlier in the flow (the LAYERS order);
- a source (capture) never depends on stages or the sink (plugin host,
  pipeline, writer), and batch never depends on capture;
- built-in plugins depend only on the plugin SDK and VisionPluginKit;
- each target declares exactly the Mattebox modules its files import.

Prints one line per problem and exits 1 if there is any."""
import glob
import json
import re
import sys

# The flow, low to high: a module may depend only on modules before it.
LAYERS = [
    "MatteboxRuntime", "MatteboxGeometry", "MatteboxPressure", "MatteboxModels", "MatteboxCore", "MatteboxISOBMFF", "MatteboxMovie", "MatteboxHEIF",
    "MatteboxImageIO", "MatteboxVision", "MatteboxPluginHost", "MatteboxPipeline", "MatteboxEvaluation",
    "MatteboxCapture", "MatteboxCaptureService", "MatteboxServer", "mattebox",
]
FORBIDDEN = {
    "MatteboxCapture": {"MatteboxPluginHost", "MatteboxPipeline", "MatteboxEvaluation", "MatteboxMovie"},
    "MatteboxPipeline": {"MatteboxCapture", "MatteboxCaptureService"},
    # The camera app is a front end: it uses the composition, never the vision or evaluation code.
    "MatteboxServer": {"MatteboxVision", "MatteboxEvaluation"},
}
PLUGIN_ALLOWED = {"MatteboxPluginSDK", "MatteboxVisionPluginKit", "MatteboxGeometry", "CMatteboxPluginABI", "CVision"}

package = json.load(sys.stdin)
targets = {t["name"]: t for t in package["targets"]}
problems = []


def dependencies(target):
    names = set()
    for dependency in target.get("dependencies", []):
        for kind, value in dependency.items():
            names.add(value[0])
    return names & set(targets)


def imports(target):
    path = target.get("path") or ("Tests/" if target["type"] == "test" else "Sources/") + target["name"]
    found = set()
    for file in glob.glob(path + "/**/*.swift", recursive=True):
        for line in open(file, encoding="utf-8"):
            match = re.match(r"^(?:@_exported |@testable )?import (\w+)", line)
            if match:
                found.add(match.group(1))
    return found & set(targets), bool(glob.glob(path + "/**/*.swift", recursive=True))


for name, target in sorted(targets.items()):
    deps = dependencies(target)
    if name in LAYERS:
        for dep in deps & set(LAYERS):
            if LAYERS.index(dep) >= LAYERS.index(name):
                problems.append(f"{name} depends on {dep}, which comes later in the flow")
        for dep in deps & FORBIDDEN.get(name, set()):
            problems.append(f"{name} must not depend on {dep}")
    if (target.get("path") or "").startswith("Plugins/"):
        for dep in deps - PLUGIN_ALLOWED:
            problems.append(f"plugin {name} depends on {dep}; plugins build on the SDK and VisionPluginKit only")
    used, has_swift = imports(target)
    if has_swift and target["type"] != "system-target":
        for module in sorted(used - deps - {name}):
            problems.append(f"{name} imports {module} without declaring it")
        for module in sorted(deps - used):
            if targets[module]["type"] != "system-target" and not module.startswith("C"):
                problems.append(f"{name} declares {module} but does not import it")

for problem in problems:
    print(problem)
print(f"layering: {len(targets)} targets checked, {len(problems)} problems")
sys.exit(1 if problems else 0)
