import Foundation

/// An XMP packet read as the RDF/XML it is (never searched as text): simple
/// properties by namespace and name, in attribute or element form, in any of
/// the packet's `rdf:Description`s; Google's Container directory; further
/// descriptions merged in; written back with everything else it held (an
/// element's attributes in name order: the parser does not report theirs). Why it
/// exists: Motion Photos, Apple's auxiliary images and `inspect` all read and
/// edit XMP, and a regex on XML breaks on the first file that writes it
/// differently (element form, another prefix, single quotes).
package struct XMPPacket: Sendable {
    private var document: Box

    /// Reads a packet; throws `XMPError` when it is not well-formed XML with an `rdf:RDF`.
    package init(_ data: Data) throws(XMPError) {
        let read: XMLReading.Document
        do { read = try XMLReading.read(data) } catch { throw XMPError("the XMP is not readable: \(error)") }
        guard read.root.descendantsAndSelf.contains(where: { $0.isNamed("RDF", in: XMPNamespace.rdf) }) else {
            throw XMPError("the XMP has no rdf:RDF")
        }
        document = Box(read)
    }

    /// A packet with one empty description, written by `toolkit`.
    package init(toolkit: String) {
        let text = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="\(XMLWriting.escape(toolkit, quotes: true))">\
            <rdf:RDF xmlns:rdf="\(XMPNamespace.rdf)"><rdf:Description rdf:about=""/></rdf:RDF></x:xmpmeta>
            """
        // The text above is well-formed by construction.
        document = Box(try! XMLReading.read(Data(text.utf8)))
    }

    /// The packet as XML, in UTF-8.
    package var data: Data { Data(XMLWriting.write(document.value).utf8) }

    // MARK: Simple properties

    /// The first value of `name` in any description, attribute or element form.
    package func value(_ name: XMPName) -> String? {
        for description in descriptions {
            if let attribute = description.attributes.first(where: { $0.localName == name.name && $0.namespace == name.namespace }) {
                return attribute.value.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            if let element = description.elements.first(where: { $0.isNamed(name.name, in: name.namespace) }) { return element.text }
        }
        return nil
    }

    /// The items of `name` when it is an ordered or unordered array (`rdf:Seq`, `rdf:Bag`) in any
    /// description; a simple value as the one item; nil when the packet does not have it.
    package func values(_ name: XMPName) -> [String]? {
        for description in descriptions {
            if description.attributes.contains(where: { $0.localName == name.name && $0.namespace == name.namespace }) {
                return value(name).map { [$0] }
            }
            guard let element = description.elements.first(where: { $0.isNamed(name.name, in: name.namespace) }) else { continue }
            guard let array = element.elements.first(where: { $0.isNamed("Seq", in: XMPNamespace.rdf) || $0.isNamed("Bag", in: XMPNamespace.rdf) })
            else { return [element.text] }
            return array.elements.filter { $0.isNamed("li", in: XMPNamespace.rdf) }.map(\.text)
        }
        return nil
    }

    /// The first value of `name` anywhere in the packet, however deep (a structure's
    /// field: Dynamic Depth's `DepthMap:Format` inside a camera inside the device).
    package func deepValue(_ name: XMPName) -> String? {
        for element in document.value.root.descendantsAndSelf {
            if let attribute = element.attributes.first(where: { $0.localName == name.name && $0.namespace == name.namespace }) {
                return attribute.value.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            if element.isNamed(name.name, in: name.namespace), element.elements.isEmpty { return element.text }
        }
        return nil
    }

    /// Whether the packet uses `namespace` for any element or attribute.
    package func uses(_ namespace: String) -> Bool {
        document.value.root.descendantsAndSelf.contains { element in
            element.namespace == namespace || element.attributes.contains { $0.namespace == namespace }
        }
    }

    /// Sets `name` wherever the packet has it; adds it to the first description when it has none.
    package mutating func set(_ name: XMPName, to value: String) {
        if !replace(name, with: value), let first = editableDescriptions.first {
            Self.add(name, value, to: first)
        }
    }

    /// Sets `name` only where the packet already has it; says whether it had it.
    @discardableResult
    package mutating func replace(_ name: XMPName, with value: String) -> Bool {
        var found = false
        for description in editableDescriptions {
            for index in description.attributes.indices
            where description.attributes[index].localName == name.name && description.attributes[index].namespace == name.namespace {
                description.attributes[index].value = value
                found = true
            }
            for element in description.elements where element.isNamed(name.name, in: name.namespace) {
                element.children = [.text(value)]
                found = true
            }
        }
        return found
    }

    /// Removes `name` from every description, attribute or element form.
    package mutating func remove(_ name: XMPName) {
        for description in editableDescriptions {
            description.attributes.removeAll { $0.localName == name.name && $0.namespace == name.namespace }
            description.children.removeAll { content in
                if case .element(let element) = content { return element.isNamed(name.name, in: name.namespace) }
                return false
            }
        }
    }

    /// Removes every property in `namespace` from every description (a writer describing anew
    /// what that namespace said: Dynamic Depth's device, for one).
    package mutating func removeProperties(in namespace: String) {
        for description in editableDescriptions {
            description.attributes.removeAll { $0.namespace == namespace }
            description.children.removeAll { content in
                if case .element(let element) = content { return element.namespace == namespace }
                return false
            }
        }
    }

    /// The namespaces the packet declares, by prefix, except the XMP and RDF ones.
    package var namespacePrefixes: [String] {
        var found: [String] = []
        for element in document.value.root.descendantsAndSelf {
            for attribute in element.attributes where attribute.name.hasPrefix("xmlns:") {
                let prefix = String(attribute.name.dropFirst(6))
                if !["x", "rdf"].contains(prefix) && !found.contains(prefix) { found.append(prefix) }
            }
        }
        return found
    }

    // MARK: Descriptions

    /// Adds `other`'s descriptions after this packet's own (XMP allows several), so nothing here is lost.
    package mutating func appendDescriptions(of other: XMPPacket) {
        guard let rdf = editableRDF else { return }
        for description in other.descriptions {
            let copy = description.copy()
            // Declarations the copy relied on from its old ancestors travel with it.
            for (prefix, namespace) in description.scope where !prefix.isEmpty && prefix != "xml" && rdf.scope[prefix] != namespace {
                if !copy.attributes.contains(where: { $0.name == "xmlns:\(prefix)" }) {
                    copy.attributes.insert(.init(name: "xmlns:\(prefix)", namespace: nil, value: namespace), at: 0)
                }
            }
            rdf.children.append(.element(copy))
        }
    }

    private var descriptions: [XMLNodeTree] {
        document.value.root.descendantsAndSelf.filter { $0.isNamed("Description", in: XMPNamespace.rdf) }
    }

    private var editableRDF: XMLNodeTree? {
        mutating get { editable.root.descendantsAndSelf.first { $0.isNamed("RDF", in: XMPNamespace.rdf) } }
    }

    private var editableDescriptions: [XMLNodeTree] {
        mutating get { editable.root.descendantsAndSelf.filter { $0.isNamed("Description", in: XMPNamespace.rdf) } }
    }

    /// The document, copied first if another packet shares it.
    private var editable: XMLReading.Document {
        mutating get {
            if !isKnownUniquelyReferenced(&document) { document = Box(document.value.copy()) }
            return document.value
        }
    }

    static func add(_ name: XMPName, _ value: String, to element: XMLNodeTree) {
        let prefix = element.prefix(declaring: name.namespace, preferred: name.preferredPrefix)
        element.attributes.append(.init(name: "\(prefix):\(name.name)", namespace: name.namespace, value: value))
    }

    // MARK: Container directory

    /// The Container directory's items in order, each as its `Item:` properties by local name.
    package var directory: [[String: String]] { directory(container: XMPNamespace.container, item: XMPNamespace.containerItem) }

    /// The same for a directory in other namespaces (Dynamic Depth's, under `Device:Container`).
    package func directory(container: String, item itemNamespace: String) -> [[String: String]] {
        directoryItems(in: descriptions, container: container).map { item in
            var values: [String: String] = [:]
            for attribute in item.attributes where attribute.namespace == itemNamespace {
                values[attribute.localName] = attribute.value
            }
            for element in item.elements where element.namespace == itemNamespace { values[element.localName] = element.text }
            return values
        }
    }

    /// Sets `values` (by `Item:` local name) on the directory item whose `Item:Semantic` is `semantic`.
    package mutating func updateDirectoryItem(semantic: String, with values: [String: String]) {
        for item in directoryItems(in: editableDescriptions, container: XMPNamespace.container) {
            let itemSemantic = item.attributes.first { $0.localName == "Semantic" && $0.namespace == XMPNamespace.containerItem }?.value
                ?? item.elements.first { $0.isNamed("Semantic", in: XMPNamespace.containerItem) }?.text
            guard itemSemantic == semantic else { continue }
            for (name, value) in values.sorted(by: { $0.key < $1.key }) {
                let property = XMPName(XMPNamespace.containerItem, name, prefix: "Item")
                if let index = item.attributes.firstIndex(where: { $0.localName == name && $0.namespace == XMPNamespace.containerItem }) {
                    item.attributes[index].value = value
                } else if let element = item.elements.first(where: { $0.isNamed(name, in: XMPNamespace.containerItem) }) {
                    element.children = [.text(value)]
                } else {
                    Self.add(property, value, to: item)
                }
            }
        }
    }

    /// Sets `name` to an ordered array (`rdf:Seq`) of `items` in the first description,
    /// replacing any value it had.
    package mutating func set(_ name: XMPName, toSequence items: [String]) {
        remove(name)
        guard let description = editableDescriptions.first else { return }
        let prefix = description.prefix(declaring: name.namespace, preferred: name.preferredPrefix)
        let rdf = description.prefix(declaring: XMPNamespace.rdf, preferred: "rdf")
        let scope = description.scope
        let sequence = XMLNodeTree(name: "\(rdf):Seq", attributes: [], scope: scope)
        for item in items {
            let entry = XMLNodeTree(name: "\(rdf):li", attributes: [], scope: scope)
            entry.children = [.text(item)]
            sequence.children.append(.element(entry))
        }
        let property = XMLNodeTree(name: "\(prefix):\(name.name)", attributes: [], scope: scope)
        property.children = [.element(sequence)]
        description.children.append(.element(property))
    }

    /// Adds a Container directory of `items` (each its `Item:` properties, in `order`) to the first description.
    package mutating func setDirectory(_ items: [[String: String]], order: [String]) {
        guard let description = editableDescriptions.first else { return }
        let container = description.prefix(declaring: XMPNamespace.container, preferred: "Container")
        let itemPrefix = description.prefix(declaring: XMPNamespace.containerItem, preferred: "Item")
        let rdf = description.prefix(declaring: XMPNamespace.rdf, preferred: "rdf")
        let scope = description.scope
        func node(_ name: String, _ attributes: [XMLNodeTree.Attribute] = []) -> XMLNodeTree {
            XMLNodeTree(name: name, attributes: attributes, scope: scope)
        }
        let sequence = node("\(rdf):Seq")
        for item in items {
            let entry = node("\(rdf):li", [.init(name: "\(rdf):parseType", namespace: XMPNamespace.rdf, value: "Resource")])
            let attributes = order.compactMap { key in
                item[key].map { XMLNodeTree.Attribute(name: "\(itemPrefix):\(key)", namespace: XMPNamespace.containerItem, value: $0) }
            }
            entry.children = [.element(node("\(container):Item", attributes))]
            sequence.children.append(.element(entry))
        }
        let directory = node("\(container):Directory")
        directory.children = [.element(sequence)]
        description.children.append(.element(directory))
    }

    /// Removes every description's Container directory (a writer describing the file anew).
    package mutating func removeDirectory() {
        for description in editableDescriptions {
            description.children.removeAll { content in
                if case .element(let element) = content { return element.isNamed("Directory", in: XMPNamespace.container) }
                return false
            }
        }
    }

    /// Each `Container:Item` under a `Container:Directory` (or the `rdf:li` that holds the item's
    /// properties itself), wherever the directory stands in the description.
    private func directoryItems(in descriptions: [XMLNodeTree], container: String = XMPNamespace.container) -> [XMLNodeTree] {
        descriptions.flatMap { description in
            description.descendantsAndSelf.filter { $0.isNamed("Directory", in: container) }.flatMap { directory in
                directory.descendantsAndSelf.filter { $0.isNamed("li", in: XMPNamespace.rdf) }.map { entry in
                    entry.descendantsAndSelf.first { $0.isNamed("Item", in: container) }
                        ?? entry.elements.first { $0.isNamed("value", in: XMPNamespace.rdf) } ?? entry
                }
            }
        }
    }

    /// Holds the tree so that copies of a packet share it until one is edited.
    private final class Box: @unchecked Sendable {
        // Unchecked: the tree is only changed through `editable`, after a copy unless this box is the packet's alone.
        let value: XMLReading.Document
        init(_ value: XMLReading.Document) { self.value = value }
    }
}

/// Why an XMP packet could not be read.
package struct XMPError: Error, CustomStringConvertible, Sendable {
    package var description: String
    package init(_ description: String) { self.description = description }
}

extension XMLReading.Document {
    func copy() -> XMLReading.Document { .init(before: before, root: root.copy(), after: after) }
}
