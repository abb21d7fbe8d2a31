#!/usr/bin/env python3
"""Checks the module layering ARCHITECTURE.md describes, from the package's
own description (`swift package dump-package` on standard input) and the
imports in the sources:

- every module depends only on modules earlier in the flow (the LAYERS order);
- a source (capture) never depends on stages or the sink (plugin host,
  pipeline, writer), and batch never depends on capture;
- built-in plugins depend only on the plugin SDK and VisionPluginKit (and the
  C vision code: CVision, CImageFile);
- each target declares exactly the Mattebox modules its files import;
- every module in Sources/ sits in a tier folder (Sources/<Tier>/<Module>), and
  depends only on modules of its own tier or tiers before it (the TIERS order);
- every target but the tests is named in one of ARCHITECTURE.md's module
  tables, and each of its dependencies on another target is one its row's
  "depends on" column lists (C targets, the SDK and the plugins included).

Prints one line per problem and exits 1 if there is any. With --self-test it
plants wrong edges (PluginSDK -> MatteboxCore, Capture -> HEIF, a plugin ->
PluginHost, an unlisted target) in the package description and fails unless
each is reported."""
import copy
import glob
import json
import os
import re
import sys

# The flow, low to high: a module may depend only on modules before it.
LAYERS = [
    "MatteboxRuntime", "MatteboxGeometry", "MatteboxPressure", "MatteboxModels", "MatteboxCore", "MatteboxISOBMFF", "MatteboxMovie", "MatteboxHEIF",
    "MatteboxImageOps", "MatteboxImageIO", "MatteboxPairedMedia", "MatteboxVision", "MatteboxPluginHost", "MatteboxPipeline", "MatteboxBatch",
    "MatteboxEvaluation", "MatteboxCapture", "MatteboxCaptureService", "MatteboxLibrary", "MatteboxServer", "mattebox",
]
# The tier folders of Sources/, low to high (each tier's README says what it holds).
TIERS = ["Base", "Formats", "PluginInterface", "Vision", "Processing", "Capture", "Apps"]
FORBIDDEN = {
    # A source reads cameras; pictures and codecs reach it through seams (ReplayPictureCodec, MovieOutput, PhotoDelivery).
    "MatteboxCapture": {"MatteboxPluginHost", "MatteboxPipeline", "MatteboxEvaluation", "MatteboxMovie", "MatteboxImageIO", "MatteboxImageOps", "MatteboxHEIF"},
    # The plugin host is the ABI: pixels and formats reach it through PhotoServices, never a codec.
    "MatteboxPluginHost": {"MatteboxImageIO", "MatteboxImageOps", "MatteboxHEIF", "MatteboxMovie", "MatteboxPairedMedia"},
    "MatteboxPipeline": {"MatteboxCapture", "MatteboxCaptureService", "MatteboxBatch"},
    "MatteboxBatch": {"MatteboxCapture", "MatteboxCaptureService"},
    # The library is a folder of photos: no camera, no pipeline, no HTTP.
    "MatteboxLibrary": {"MatteboxCapture", "MatteboxCaptureService", "MatteboxPipeline", "MatteboxPluginHost"},
    # The camera app is a front end: it uses the composition, never the vision or evaluation code.
    "MatteboxServer": {"MatteboxVision", "MatteboxEvaluation"},
}
PLUGIN_ALLOWED = {"MatteboxPluginSDK", "MatteboxVisionPluginKit", "MatteboxGeometry", "CMatteboxPluginABI", "CVision", "CImageFile"}

ARCHITECTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "ARCHITECTURE.md")


def documented(targets):
    """Target -> the targets its ARCHITECTURE.md row lets it depend on."""
    allowed = {}
    for line in open(ARCHITECTURE, encoding="utf-8"):
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not line.startswith("| `") or len(cells) < 3:
            continue
        names = re.findall(r"`([\w-]+)`", cells[0])
        uses = set()
        for word in re.sub(r"\([^)]*\)", "", cells[-1]).split(","):
            word = word.strip()
            for candidate in (word, "Mattebox" + word):
                if candidate in targets:
                    uses.add(candidate)
        for name in names:
            allowed[name] = allowed.get(name, set()) | uses
    return allowed


def check(package):
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
        # Folders the target excludes from its build (embedded files, templates) are not its code.
        excluded = [os.path.join(path, e) for e in target.get("exclude", [])]
        files = [f for f in glob.glob(path + "/**/*.swift", recursive=True) if not any(f.startswith(e + "/") for e in excluded)]
        for file in files:
            for line in open(file, encoding="utf-8"):
                match = re.match(r"^(?:@_exported |@testable )?import (\w+)", line)
                if match:
                    found.add(match.group(1))
        return found & set(targets), bool(files)

    def tier(target):
        """The tier folder of a target in Sources/ (None elsewhere, "" when it sits in none)."""
        parts = (target.get("path") or "").split("/")
        if parts[0] != "Sources":
            return None
        return parts[1] if len(parts) == 3 and parts[1] in TIERS else ""

    allowed = documented(targets)
    for name in sorted(set(allowed) - set(targets)):
        problems.append(f"ARCHITECTURE.md names {name}, which Package.swift does not have")
    for name, target in sorted(targets.items()):
        deps = dependencies(target)
        if target["type"] != "test":
            if name not in allowed:
                problems.append(f"{name} is in no module table of ARCHITECTURE.md (add its row: what it owns, what it depends on)")
            else:
                for dep in sorted(deps - allowed[name] - {name}):
                    problems.append(f"{name} depends on {dep}, which its ARCHITECTURE.md row does not list")
        if name in LAYERS:
            for dep in deps & set(LAYERS):
                if LAYERS.index(dep) >= LAYERS.index(name):
                    problems.append(f"{name} depends on {dep}, which comes later in the flow")
            for dep in deps & FORBIDDEN.get(name, set()):
                problems.append(f"{name} must not depend on {dep}")
        own_tier = tier(target)
        if own_tier == "":
            problems.append(f"{name} is in no tier folder of Sources/ (move it to Sources/<Tier>/{name}; tiers: {', '.join(TIERS)})")
        elif own_tier:
            for dep in sorted(deps):
                dep_tier = tier(targets[dep])
                if dep_tier and TIERS.index(dep_tier) > TIERS.index(own_tier):
                    problems.append(f"{name} depends on {dep}, whose tier ({dep_tier}) comes after its own ({own_tier})")
        if (target.get("path") or "").startswith("Plugins/"):
            for dep in deps - PLUGIN_ALLOWED:
                problems.append(f"plugin {name} depends on {dep}; plugins build on the SDK and VisionPluginKit only")
        used, has_swift = imports(target)
        if has_swift and target["type"] != "system-target":
            for module in sorted(used - deps - {name}):
                problems.append(f"{name} imports {module} without declaring it")
            for module in sorted(deps - used):
                # A plugin runs the tools it depends on; it never imports them.
                if targets[module]["type"] not in ("system-target", "executable") and not module.startswith("C"):
                    problems.append(f"{name} declares {module} but does not import it")
    return targets, problems


def planted(package, source, dependency):
    wrong = copy.deepcopy(package)
    for target in wrong["targets"]:
        if target["name"] == source:
            target.setdefault("dependencies", []).append({"byName": [dependency, None]})
    return wrong


def self_test(package):
    """Each planted wrong edge must be reported; returns the ones that were not."""
    missed = []
    for source, dependency in [("MatteboxPluginSDK", "MatteboxCore"), ("MatteboxCapture", "MatteboxHEIF"),
                               ("MatteboxOrientation", "MatteboxPluginHost"), ("CVisionAPI", "CV4L2")]:
        _, problems = check(planted(package, source, dependency))
        if not any(problem.startswith(f"{source} depends on {dependency}") for problem in problems):
            missed.append(f"{source} -> {dependency}")
    extra = copy.deepcopy(package)
    extra["targets"].append({"name": "MatteboxUnlisted", "type": "regular", "dependencies": [], "path": "Sources/MatteboxUnlisted"})
    if not any("MatteboxUnlisted is in no module table" in problem for problem in check(extra)[1]):
        missed.append("an unlisted target")
    if not any("MatteboxUnlisted is in no tier folder" in problem for problem in check(extra)[1]):
        missed.append("a target outside the tier folders")
    if not any("whose tier (Processing) comes after its own (Base)" in problem
               for problem in check(planted(package, "MatteboxCore", "MatteboxPipeline"))[1]):
        missed.append("MatteboxCore -> MatteboxPipeline across tiers")
    return missed


package = json.load(sys.stdin)
if "--self-test" in sys.argv:
    missed = self_test(package)
    for edge in missed:
        print(f"layering self-test: the planted wrong edge {edge} was not reported")
    print(f"layering self-test: {7 - len(missed)} of 7 planted problems reported")
    sys.exit(1 if missed else 0)
targets, problems = check(package)
for problem in problems:
    print(problem)
print(f"layering: {len(targets)} targets checked, {len(problems)} problems")
sys.exit(1 if problems else 0)
