import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The XML that an XMP packet is, as a small tree Mattebox can read and edit:
/// elements with their attributes, text and the rest (processing instructions
/// such as `<?xpacket?>`, comments) kept in order, and every element's and
/// attribute's namespace resolved. Read with Foundation's `XMLParser`, which
/// never loads external entities; written back by `XMLWriting`.
final class XMLNodeTree {
    /// An attribute: its qualified name as written, and its namespace (nil when unprefixed).
    struct Attribute {
        var name: String
        var namespace: String?
        var value: String

        var localName: String { name.split(separator: ":", maxSplits: 1).last.map(String.init) ?? name }
    }

    enum Content {
        case element(XMLNodeTree)
        case text(String)
        /// Written as it is: a processing instruction or a comment.
        case markup(String)
    }

    var name: String
    var namespace: String?
    var attributes: [Attribute]
    var children: [Content] = []
    /// Prefix → namespace in effect here (own declarations and the ancestors').
    var scope: [String: String]

    init(name: String, attributes: [Attribute], scope: [String: String]) {
        self.name = name
        self.attributes = attributes
        self.scope = scope
        namespace = Self.namespace(of: name, in: scope)
    }

    var localName: String { name.split(separator: ":", maxSplits: 1).last.map(String.init) ?? name }

    var elements: [XMLNodeTree] { children.compactMap { if case .element(let element) = $0 { element } else { nil } } }

    /// The text directly inside, trimmed.
    var text: String {
        children.compactMap { if case .text(let text) = $0 { text } else { nil } }.joined()
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func isNamed(_ local: String, in namespace: String) -> Bool { localName == local && self.namespace == namespace }

    /// This element and every one inside it, depth first.
    var descendantsAndSelf: [XMLNodeTree] { [self] + elements.flatMap(\.descendantsAndSelf) }

    /// A deep copy (a packet's tree is copied before it is edited, so values stay values).
    func copy() -> XMLNodeTree {
        let copy = XMLNodeTree(name: name, attributes: attributes, scope: scope)
        copy.children = children.map { content in
            if case .element(let element) = content { return .element(element.copy()) }
            return content
        }
        return copy
    }

    /// The prefix declared for `namespace` here, declaring `preferred` on this element when none is.
    func prefix(declaring namespace: String, preferred: String) -> String {
        if let found = scope.first(where: { $0.value == namespace && !$0.key.isEmpty })?.key { return found }
        var prefix = preferred
        var counter = 2
        while scope[prefix] != nil {
            prefix = "\(preferred)\(counter)"
            counter += 1
        }
        attributes.append(Attribute(name: "xmlns:\(prefix)", namespace: nil, value: namespace))
        declare(prefix, namespace)
        return prefix
    }

    private func declare(_ prefix: String, _ namespace: String) {
        scope[prefix] = namespace
        for child in elements where child.scope[prefix] == nil { child.declare(prefix, namespace) }
    }

    static func namespace(of qualifiedName: String, in scope: [String: String]) -> String? {
        let parts = qualifiedName.split(separator: ":", maxSplits: 1)
        return parts.count == 2 ? scope[String(parts[0])] : scope[""]
    }
}

/// Reads XML into an `XMLNodeTree`: the markup before and after the root
/// element, and the root.
enum XMLReading {
    struct Document {
        var before: [XMLNodeTree.Content]
        var root: XMLNodeTree
        var after: [XMLNodeTree.Content]
    }

    static func read(_ data: Data) throws -> Document {
        // Packets are often padded with NULs or spaces after their end; XML allows neither NULs nor a second root.
        var bytes = data
        while let last = bytes.last, last == 0 || last == 0x20 || last == 0x0A || last == 0x0D || last == 0x09 { bytes.removeLast() }
        // XMP is UTF-8 (with an optional byte-order mark). Anything else is refused before the
        // parser sees it: Foundation's XMLParser was found (by fuzzing, under AddressSanitizer)
        // to use freed memory on a name with invalid UTF-8 in it.
        guard String(bytes: bytes, encoding: .utf8) != nil else { throw XMLReadingError("not UTF-8 text") }
        guard !bytes.contains(0) else { throw XMLReadingError("a NUL byte inside the XML") }
        // Foundation's XMLParser dereferences a null pointer on a processing instruction with no
        // data (`<?pi?>`), which no XMP writer makes; it is refused here instead (found by fuzzing).
        guard !hasProcessingInstructionWithoutData([UInt8](bytes)) else {
            throw XMLReadingError("a processing instruction with no data (<?name?>)")
        }
        let parser = XMLParser(data: bytes)
        let builder = Builder()
        parser.delegate = builder
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        let finished = parser.parse()
        if let problem = builder.problem { throw problem }
        if let error = parser.parserError ?? (finished ? nil : XMLReadingError("the XML parser stopped")) {
            throw XMLReadingError("not well-formed XML (\((error as NSError).code)) near line \(parser.lineNumber)")
        }
        guard let root = builder.root else { throw XMLReadingError("no XML element in it") }
        return Document(before: builder.before, root: root, after: builder.after)
    }

    /// Whether `<?name?>` (a target, perhaps spaces, then `?>`) occurs anywhere in the bytes.
    static func hasProcessingInstructionWithoutData(_ bytes: [UInt8]) -> Bool {
        var index = 0
        while index + 1 < bytes.count {
            defer { index += 1 }
            guard bytes[index] == UInt8(ascii: "<"), bytes[index + 1] == UInt8(ascii: "?") else { continue }
            var cursor = index + 2
            while cursor < bytes.count, ![UInt8(ascii: "?"), 0x20, 0x09, 0x0A, 0x0D].contains(bytes[cursor]) { cursor += 1 }
            while cursor < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[cursor]) { cursor += 1 }
            if cursor < bytes.count, bytes[cursor] == UInt8(ascii: "?") { return true }
        }
        return false
    }

    /// Why a packet could not be read.
    struct XMLReadingError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Bounds a hostile packet cannot pass: how deep elements nest.
    static let maximumDepth = 64

    private final class Builder: NSObject, XMLParserDelegate {
        var before: [XMLNodeTree.Content] = []
        var after: [XMLNodeTree.Content] = []
        var root: XMLNodeTree?
        var open: [XMLNodeTree] = []
        var problem: XMLReadingError?

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String]
        ) {
            guard open.count < XMLReading.maximumDepth else {
                problem = XMLReadingError("elements nest deeper than \(XMLReading.maximumDepth)")
                parser.abortParsing()
                return
            }
            var scope = open.last?.scope ?? ["xml": "http://www.w3.org/XML/1998/namespace"]
            for (name, value) in attributes {
                if name == "xmlns" { scope[""] = value } else if name.hasPrefix("xmlns:") { scope[String(name.dropFirst(6))] = value }
            }
            let parsed = attributes.sorted { $0.key < $1.key }.map { name, value in
                XMLNodeTree.Attribute(
                    name: name, namespace: name.contains(":") && !name.hasPrefix("xmlns:") ? XMLNodeTree.namespace(of: name, in: scope) : nil,
                    value: value)
            }
            // Declarations first, as they are usually written.
            let ordered = parsed.filter { $0.name.hasPrefix("xmlns") } + parsed.filter { !$0.name.hasPrefix("xmlns") }
            let element = XMLNodeTree(name: elementName, attributes: ordered, scope: scope)
            if let parent = open.last { parent.children.append(.element(element)) } else if root == nil { root = element }
            open.append(element)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            _ = open.popLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            open.last?.children.append(.text(string))
        }

        func parser(_ parser: XMLParser, foundProcessingInstructionWithTarget target: String, data: String?) {
            add(.markup("<?\(target)\(data.map { " \($0)" } ?? "")?>"))
        }

        func parser(_ parser: XMLParser, foundComment comment: String) { add(.markup("<!--\(comment)-->")) }

        private func add(_ content: XMLNodeTree.Content) {
            if let parent = open.last { parent.children.append(content) } else if root == nil { before.append(content) } else { after.append(content) }
        }
    }
}

/// Writes an `XMLNodeTree` back as XML text, escaping what must be escaped.
enum XMLWriting {
    static func write(_ document: XMLReading.Document) -> String {
        var text = ""
        for content in document.before { write(content, into: &text) }
        if !document.before.isEmpty { text += "\n" }
        write(.element(document.root), into: &text)
        if !document.after.isEmpty { text += "\n" }
        for content in document.after { write(content, into: &text) }
        return text
    }

    static func write(_ content: XMLNodeTree.Content, into text: inout String) {
        switch content {
        case .text(let value): text += escape(value, quotes: false)
        case .markup(let markup): text += markup
        case .element(let element):
            text += "<\(element.name)"
            for attribute in element.attributes { text += " \(attribute.name)=\"\(escape(attribute.value, quotes: true))\"" }
            if element.children.isEmpty {
                text += "/>"
            } else {
                text += ">"
                for child in element.children { write(child, into: &text) }
                text += "</\(element.name)>"
            }
        }
    }

    static func escape(_ value: String, quotes: Bool) -> String {
        var escaped = ""
        for character in value {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"" where quotes: escaped += "&quot;"
            case "\n" where quotes: escaped += "&#10;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
