"""BiSeNet face parsing (face-parsing.PyTorch's network: ResNet-18 context path, 19
CelebAMask-HQ classes) rebuilt as ONNX from its PyTorch checkpoint, with no torch:
the checkpoint (legacy pickle stream or zip) is read by a restricted unpickler that
knows only ordered dicts and tensors, every batch norm is folded into the
convolution before it, and the graph is written in the forms OpenCV 4.6's ONNX
importer reads. The network's main head gives 19 logits at 1/8 of the input; the
two auxiliary heads of training are left out.

The same walk over the network also runs it in plain numpy, batch norm applied on
its own as the module does: the reference the conversion is checked against
(OpenCV's dnn on the ONNX file, within the tolerance), on a seeded input at install
and on real faces in the tests (--check).

Run by Debian's python3 with python3-onnx, numpy and (for the check) python3-opencv.
  convert: ARCHIVE MEMBER SHA256 BYTES OUTPUT SIDE SEED TOLERANCE
  check:   --check ONNX ARCHIVE MEMBER TOLERANCE IMAGE...   (each image a face crop, any size)
"""
import io, hashlib, pickle, struct, sys, tarfile, zipfile
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto


# ---- reading a PyTorch checkpoint without torch ----

STORAGE_TYPES = {
    'FloatStorage': np.float32, 'DoubleStorage': np.float64, 'HalfStorage': np.float16, 'LongStorage': np.int64,
    'IntStorage': np.int32, 'ShortStorage': np.int16, 'CharStorage': np.int8, 'ByteStorage': np.uint8,
    'BoolStorage': np.bool_, 'BFloat16Storage': None,
}


class Storage:
    """A storage the pickle names; its bytes come later (legacy) or from its own file (zip)."""

    def __init__(self, dtype, key, count):
        self.dtype, self.key, self.count, self.array = dtype, key, count, None


class TensorRef:
    def __init__(self, storage, offset, size, stride):
        self.storage, self.offset, self.size, self.stride = storage, offset, tuple(size), tuple(stride)

    def array(self):
        base = self.storage.array
        if base is None:
            raise ValueError('a tensor whose storage was never read')
        item = base.itemsize
        if not self.size:
            return base[self.offset:self.offset + 1].reshape(())
        return np.lib.stride_tricks.as_strided(
            base[self.offset:], shape=self.size, strides=[s * item for s in self.stride]).copy()


def rebuild_tensor(storage, offset, size, stride, *rest):
    return TensorRef(storage, offset, size, stride)


class StorageType:
    def __init__(self, name):
        if name not in STORAGE_TYPES or STORAGE_TYPES[name] is None:
            raise ValueError('storage type %s is not read' % name)
        self.dtype = STORAGE_TYPES[name]


class CheckpointUnpickler(pickle.Unpickler):
    """Only what a state dict holds: ordered dicts and tensors; any other class is refused."""

    def __init__(self, stream, storages):
        super().__init__(stream)
        self.storages = storages

    def find_class(self, module, name):
        if (module, name) == ('collections', 'OrderedDict'):
            import collections
            return collections.OrderedDict
        if (module, name) in (('torch._utils', '_rebuild_tensor_v2'), ('torch._utils', '_rebuild_tensor')):
            return rebuild_tensor
        if module == 'torch' and name.endswith('Storage'):
            return StorageType(name)
        raise pickle.UnpicklingError('a checkpoint holding %s.%s is not read' % (module, name))

    def persistent_load(self, saved):
        kind, storage_type, key, _location, count = saved[:5]
        if kind != 'storage':
            raise pickle.UnpicklingError('unknown persistent id %r' % (kind,))
        if key not in self.storages:
            self.storages[key] = Storage(storage_type.dtype, key, count)
        return self.storages[key]


def read_checkpoint(data):
    """name -> numpy array, from a legacy (pickle stream) or zip PyTorch checkpoint."""
    storages = {}
    if data[:4] == b'PK\x03\x04':
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = archive.namelist()
        pkl = next(n for n in names if n.endswith('/data.pkl'))
        prefix = pkl[:-len('data.pkl')]
        state = CheckpointUnpickler(io.BytesIO(archive.read(pkl)), storages).load()
        for key, storage in storages.items():
            raw = archive.read(prefix + 'data/' + str(key))
            storage.array = np.frombuffer(raw, dtype=storage.dtype, count=storage.count)
    else:
        stream = io.BytesIO(data)
        magic = pickle.load(stream)
        if magic != 0x1950a86a20f9469cfc6c:
            raise ValueError('not a PyTorch checkpoint (magic %r)' % (magic,))
        pickle.load(stream)  # protocol version
        pickle.load(stream)  # system info
        state = CheckpointUnpickler(stream, storages).load()
        keys = pickle.load(stream)
        for key in keys:
            storage = storages[key]
            count = struct.unpack('<q', stream.read(8))[0]
            raw = stream.read(count * np.dtype(storage.dtype).itemsize)
            if len(raw) != count * np.dtype(storage.dtype).itemsize:
                raise ValueError('the checkpoint ends inside storage %s' % key)
            storage.array = np.frombuffer(raw, dtype=storage.dtype, count=count)
    return {name: (value.array() if isinstance(value, TensorRef) else value) for name, value in state.items()}


# ---- BiSeNet (ResNet-18) as face-parsing.PyTorch defines it ----

class Weights:
    """The checkpoint's tensors by module path; batch norm folded into the convolution before it,
    or (`fold` false, for the reference) kept apart as ('bn', scale, shift) for the runner to apply."""

    def __init__(self, state, fold=True):
        self.state = {k[7:] if k.startswith('module.') else k: v for k, v in state.items()}
        self.used = set()
        self.fold = fold

    def get(self, name):
        self.used.add(name)
        return self.state[name].astype(np.float32)

    def conv_bn(self, conv, bn):
        w = self.get(conv + '.weight')
        gamma, beta = self.get(bn + '.weight'), self.get(bn + '.bias')
        mean, var = self.get(bn + '.running_mean'), self.get(bn + '.running_var')
        self.used.add(bn + '.num_batches_tracked')
        if not self.fold:
            return w, ('bn', gamma, beta, mean, var)
        scale = gamma / np.sqrt(var + 1e-5)
        return (w * scale[:, None, None, None]).astype(np.float32), (beta - mean * scale).astype(np.float32)

    def unused(self):
        return sorted(set(self.state) - self.used)


def bisenet_layers(visit, w):
    """Walks the network once, calling `visit` with each operation; used both to build the ONNX
    graph and (with numpy operations) to run the reference."""
    v = visit

    def cbr(x, conv, bn, stride=1, pad=1, relu=True):
        weight, bias = w.conv_bn(conv, bn)
        y = v.conv(x, weight, bias, stride, pad)
        return v.relu(y) if relu else y

    def conv_bn_relu(x, name, stride=1, pad=1):
        return cbr(x, name + '.conv', name + '.bn', stride, pad)

    def block(x, name, stride):
        residual = cbr(x, name + '.conv1', name + '.bn1', stride, 1)
        residual = cbr(residual, name + '.conv2', name + '.bn2', 1, 1, relu=False)
        shortcut = x
        if name + '.downsample.0.weight' in w.state:
            shortcut = cbr(x, name + '.downsample.0', name + '.downsample.1', stride, 0, relu=False)
        return v.relu(v.add(shortcut, residual))

    def arm(x, name):
        feat = conv_bn_relu(x, name + '.conv')
        weight, bias = w.conv_bn(name + '.conv_atten', name + '.bn_atten')
        atten = v.sigmoid(v.conv(v.global_pool(feat), weight, bias, 1, 0))
        return v.mul(feat, atten)

    r = 'cp.resnet'
    x = cbr(v.input, r + '.conv1', r + '.bn1', 2, 3)
    x = v.max_pool(x)
    for layer, stride in (('layer1', 1), ('layer2', 2), ('layer3', 2), ('layer4', 2)):
        x = block(x, '%s.%s.0' % (r, layer), stride)
        x = block(x, '%s.%s.1' % (r, layer), 1)
        if layer == 'layer2':
            feat8 = x
        elif layer == 'layer3':
            feat16 = x
    feat32 = x
    avg = conv_bn_relu(v.global_pool(feat32), 'cp.conv_avg', 1, 0)
    feat32_sum = v.add(arm(feat32, 'cp.arm32'), v.upsample(avg, v.size(feat32)))
    feat32_up = conv_bn_relu(v.upsample(feat32_sum, v.size(feat16)), 'cp.conv_head32')
    feat16_sum = v.add(arm(feat16, 'cp.arm16'), feat32_up)
    feat16_up = conv_bn_relu(v.upsample(feat16_sum, v.size(feat8)), 'cp.conv_head16')
    # The feature fusion module on the ResNet's 1/8 features and the context path's.
    feat = conv_bn_relu(v.concat(feat8, feat16_up), 'ffm.convblk', 1, 0)
    atten = v.relu(v.conv(v.global_pool(feat), w.get('ffm.conv1.weight'), None, 1, 0))
    atten = v.sigmoid(v.conv(atten, w.get('ffm.conv2.weight'), None, 1, 0))
    fused = v.add(v.mul(feat, atten), feat)
    out = conv_bn_relu(fused, 'conv_out.conv')
    out = v.conv(out, w.get('conv_out.conv_out.weight'), None, 1, 0)
    # conv_out16 and conv_out32 are training's auxiliary heads: read, not part of the network run.
    for head in ('conv_out16', 'conv_out32'):
        for name in list(w.state):
            if name.startswith(head + '.'):
                w.used.add(name)
    return out


class GraphBuilder:
    """The operations as ONNX nodes, in the forms OpenCV 4.6's importer reads."""

    def __init__(self, side):
        self.nodes, self.inits, self.count, self.side = [], [], 0, side
        self.input = 'input'
        self.shapes = {'input': (1, 3, side, side)}

    def name(self, kind):
        self.count += 1
        return '%s_%d' % (kind, self.count)

    def const(self, array, kind):
        name = self.name(kind)
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(self, op, inputs, shape, **attributes):
        out = self.name(op.lower())
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attributes))
        self.shapes[out] = shape
        return out

    def conv(self, x, weight, bias, stride, pad):
        n, c, h, wd = self.shapes[x]
        k = weight.shape[2]
        inputs = [x, self.const(weight, 'w')] + ([self.const(bias, 'b')] if bias is not None else [])
        oh, ow = (h + 2 * pad - k) // stride + 1, (wd + 2 * pad - k) // stride + 1
        return self.node('Conv', inputs, (n, weight.shape[0], oh, ow), kernel_shape=[k, k], strides=[stride, stride],
                         pads=[pad] * 4)

    def relu(self, x):
        return self.node('Relu', [x], self.shapes[x])

    def sigmoid(self, x):
        return self.node('Sigmoid', [x], self.shapes[x])

    def add(self, a, b):
        return self.node('Add', [a, b], self.shapes[a])

    def mul(self, feat, atten):
        return self.node('Mul', [feat, atten], self.shapes[feat])

    def max_pool(self, x):
        n, c, h, wd = self.shapes[x]
        return self.node('MaxPool', [x], (n, c, (h - 1) // 2 + 1, (wd - 1) // 2 + 1), kernel_shape=[3, 3], strides=[2, 2],
                         pads=[1, 1, 1, 1])

    def global_pool(self, x):
        n, c, _, _ = self.shapes[x]
        return self.node('GlobalAveragePool', [x], (n, c, 1, 1))

    def size(self, x):
        return self.shapes[x][2:]

    def upsample(self, x, size):
        n, c, h, wd = self.shapes[x]
        scales = self.const(np.array([1, 1, size[0] / h, size[1] / wd], np.float32), 'scales')
        roi = self.const(np.array([], np.float32), 'roi')
        return self.node('Resize', [x, roi, scales], (n, c) + tuple(size), mode='nearest',
                         coordinate_transformation_mode='asymmetric', nearest_mode='floor')

    def concat(self, a, b):
        n, c1, h, wd = self.shapes[a]
        return self.node('Concat', [a, b], (n, c1 + self.shapes[b][1], h, wd), axis=1)


class NumpyRunner:
    """The same operations in plain numpy, from the module's definition: the reference."""

    def __init__(self, image):
        self.input = image

    def conv(self, x, weight, bias, stride, pad):
        n, c, h, wd = x.shape
        out, _, k, _ = weight.shape
        padded = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
        oh, ow = (h + 2 * pad - k) // stride + 1, (wd + 2 * pad - k) // stride + 1
        columns = np.empty((c, k, k, oh, ow), np.float32)
        for i in range(k):
            for j in range(k):
                columns[:, i, j] = padded[0, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
        y = (weight.reshape(out, -1) @ columns.reshape(c * k * k, -1)).reshape(1, out, oh, ow)
        if isinstance(bias, tuple):  # batch norm in evaluation, as torch.nn.BatchNorm2d (eps 1e-5)
            _, gamma, beta, mean, var = bias
            return ((y - mean[:, None, None]) / np.sqrt(var[:, None, None] + 1e-5) * gamma[:, None, None]
                    + beta[:, None, None]).astype(np.float32)
        if bias is not None:
            y += bias[:, None, None]
        return y

    def relu(self, x):
        return np.maximum(x, 0)

    def sigmoid(self, x):
        return 1 / (1 + np.exp(-x))

    def add(self, a, b):
        return a + b

    def mul(self, feat, atten):
        return feat * atten

    def max_pool(self, x):
        n, c, h, wd = x.shape
        padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
        oh, ow = (h - 1) // 2 + 1, (wd - 1) // 2 + 1
        return np.max([padded[:, :, i:i + 2 * oh:2, j:j + 2 * ow:2] for i in range(3) for j in range(3)], axis=0)

    def global_pool(self, x):
        return x.mean(axis=(2, 3), keepdims=True)

    def size(self, x):
        return x.shape[2:]

    def upsample(self, x, size):
        rows = (np.arange(size[0]) * x.shape[2]) // size[0]
        cols = (np.arange(size[1]) * x.shape[3]) // size[1]
        return x[:, :, rows][:, :, :, cols]

    def concat(self, a, b):
        return np.concatenate([a, b], axis=1)


def build_onnx(state, side):
    weights = Weights(state)
    graph = GraphBuilder(side)
    out = bisenet_layers(graph, weights)
    unused = weights.unused()
    if unused:
        raise ValueError('tensors of the checkpoint the network does not use: %s' % ', '.join(unused[:5]))
    shape = graph.shapes[out]
    model = helper.make_model(
        helper.make_graph(
            graph.nodes, 'bisenet-face-parsing',
            [helper.make_tensor_value_info('input', TensorProto.FLOAT, [1, 3, side, side])],
            [helper.make_tensor_value_info(out, TensorProto.FLOAT, list(shape))], graph.inits),
        opset_imports=[helper.make_opsetid('', 11)], producer_name='mattebox')
    model.ir_version = 7
    onnx.checker.check_model(model)
    return model


def reference(state, image):
    """The logits (1 x 19 x side/8 x side/8) numpy computes for `image` (1 x 3 x side x side)."""
    return bisenet_layers(NumpyRunner(image.astype(np.float32)), Weights(state, fold=False))


def read_member(archive, member):
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as z:
            return z.read(member)
    with tarfile.open(archive) as t:
        entry = t.getmember(member)
        if not entry.isfile():
            raise ValueError('%s in %s is not a plain file' % (member, archive))
        return t.extractfile(entry).read()


def check_with_opencv(path, state, image, tolerance):
    import cv2
    net = cv2.dnn.readNetFromONNX(path)
    net.setInput(image)
    got = net.forward()
    want = reference(state, image)
    difference = float(np.max(np.abs(got - want)))
    if got.shape != want.shape or not difference <= tolerance:
        raise ValueError('OpenCV gives %s, the reference %s, differing by up to %g (tolerance %g)'
                         % (got.shape, want.shape, difference, tolerance))
    return difference


def face_input(path, side):
    """A face crop as the product feeds it: stretched to the input, RGB, ImageNet's mean and std."""
    import cv2
    bgr = cv2.imread(path)
    if bgr is None:
        raise ValueError('%s is not an image' % path)
    rgb = cv2.cvtColor(cv2.resize(bgr, (side, side), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2RGB)
    planes = (rgb.astype(np.float32) / 255 - np.array([0.485, 0.456, 0.406], np.float32)) / np.array([0.229, 0.224, 0.225], np.float32)
    return planes.transpose(2, 0, 1)[None].copy()


if __name__ == '__main__' and sys.argv[1] == '--check':
    path, archive, member, tolerance = sys.argv[2:6]
    state = read_checkpoint(read_member(archive, member))
    side = onnx.load(path).graph.input[0].type.tensor_type.shape.dim[2].dim_value
    for image in sys.argv[6:]:
        difference = check_with_opencv(path, state, face_input(image, side), float(tolerance))
        print('%s: OpenCV dnn within %.2g of the numpy forward pass' % (image, difference))
elif __name__ == '__main__':
    archive, member, sha256, size, output, side, seed, tolerance = sys.argv[1:9]
    data = read_member(archive, member)
    if len(data) != int(size) or hashlib.sha256(data).hexdigest() != sha256:
        sys.exit('%s in %s is not the pinned file (%d bytes, sha256 %s)' % (member, archive, len(data), hashlib.sha256(data).hexdigest()))
    state = read_checkpoint(data)
    model = build_onnx(state, int(side))
    onnx.save(model, output)
    # Checked against the network run in plain numpy on a seeded input, normalised as photos are.
    image = np.random.default_rng(int(seed)).standard_normal((1, 3, int(side), int(side))).astype(np.float32)
    difference = check_with_opencv(output, state, image, float(tolerance))
    print('rebuilt from the PyTorch checkpoint (batch norm folded); OpenCV dnn within %.2g of a numpy forward pass on a seeded input'
          % difference)
