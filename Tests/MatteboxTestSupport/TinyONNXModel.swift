import Foundation

/// Tiny ONNX segmentation models the tests write themselves (no weights can
/// be downloaded): one 1x1 convolution over the R, G, B planes, optionally
/// followed by a sigmoid. The protobuf is encoded by hand from the ONNX
/// schema (onnx.proto: ModelProto, GraphProto, NodeProto, TensorProto,
/// ValueInfoProto), so the real cv::dnn importer reads a real file.
package enum TinyONNXModel {
    /// Output channel k = Σ weights[k][c] · plane c + biases[k]; input
    /// "image" is 1x3xHxW (H and W symbolic), output "scores" 1xKxHxW.
    package static func convolution(weights: [[Float]], biases: [Float], sigmoid: Bool = false) -> Data {
        let classes = weights.count
        var nodes = [
            node(op: "Conv", inputs: ["image", "W", "B"], output: sigmoid ? "logits" : "scores", kernel: [1, 1])
        ]
        if sigmoid { nodes.append(node(op: "Sigmoid", inputs: ["logits"], output: "scores")) }
        var graph = Data()
        for n in nodes { graph += field(1, n) }
        graph += field(2, string: "tiny")
        graph += field(5, tensor(name: "W", dims: [classes, 3, 1, 1], values: weights.flatMap { $0 }))
        graph += field(5, tensor(name: "B", dims: [classes], values: biases))
        graph += field(11, valueInfo(name: "image", dims: [.value(1), .value(3), .symbol("H"), .symbol("W")]))
        graph += field(12, valueInfo(name: "scores", dims: [.value(1), .value(classes), .symbol("H"), .symbol("W")]))
        var model = Data()
        model += varintField(1, 7) // ir_version
        model += field(2, string: "mattebox-tests")
        model += field(7, graph)
        model += field(8, varintField(2, 11)) // opset_import { version: 11 }
        return model
    }

    enum Dimension {
        case value(Int)
        case symbol(String)
    }

    static func node(op: String, inputs: [String], output: String, kernel: [Int] = []) -> Data {
        var data = Data()
        for input in inputs { data += field(1, string: input) }
        data += field(2, string: output)
        data += field(3, string: op.lowercased())
        data += field(4, string: op)
        if !kernel.isEmpty {
            // AttributeProto { name: "kernel_shape", ints: [...], type: INTS (7) }
            var attribute = field(1, string: "kernel_shape")
            for k in kernel { attribute += varintField(8, UInt64(k)) }
            attribute += varintField(20, 7)
            data += field(5, attribute)
        }
        return data
    }

    static func tensor(name: String, dims: [Int], values: [Float]) -> Data {
        var data = Data()
        for d in dims { data += varintField(1, UInt64(d)) }
        data += varintField(2, 1) // FLOAT
        data += field(8, string: name)
        var raw = Data()
        for v in values { withUnsafeBytes(of: v.bitPattern.littleEndian) { raw.append(contentsOf: $0) } }
        data += field(9, raw)
        return data
    }

    static func valueInfo(name: String, dims: [Dimension]) -> Data {
        var shape = Data()
        for d in dims {
            switch d {
            case .value(let v): shape += field(1, varintField(1, UInt64(v)))
            case .symbol(let s): shape += field(1, field(2, string: s))
            }
        }
        var tensorType = varintField(1, 1) // elem_type FLOAT
        tensorType += field(2, shape)
        var data = field(1, string: name)
        data += field(2, field(1, tensorType))
        return data
    }

    static func varint(_ value: UInt64) -> Data {
        var v = value, data = Data()
        repeat {
            let byte = UInt8(v & 0x7f)
            v >>= 7
            data.append(v == 0 ? byte : byte | 0x80)
        } while v != 0
        return data
    }

    static func varintField(_ number: UInt64, _ value: UInt64) -> Data { varint(number << 3) + varint(value) }
    static func field(_ number: UInt64, _ bytes: Data) -> Data { varint(number << 3 | 2) + varint(UInt64(bytes.count)) + bytes }
    static func field(_ number: UInt64, string: String) -> Data { field(number, Data(string.utf8)) }
}
