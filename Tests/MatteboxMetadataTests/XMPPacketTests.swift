import Foundation
import MatteboxMetadata
import Testing

/// XMP read as RDF/XML: the forms real writers use (attribute or element,
/// any prefix, several descriptions, single quotes), edits that keep the
/// rest, and what a hostile packet cannot do.
@Suite struct XMPPacketTests {
    static let camera = "http://ns.google.com/photos/1.0/camera/"

    /// A Pixel-style Motion Photo packet: attribute form, Container directory with parseType Resource.
    static let pixel = """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Adobe XMP Core 5.1.0-jc003">
          <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about=""
                xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/"
                xmlns:GCamera="http://ns.google.com/photos/1.0/camera/"
                xmlns:Container="http://ns.google.com/photos/1.0/container/"
                xmlns:Item="http://ns.google.com/photos/1.0/container/item/"
              hdrgm:Version="1.0"
              GCamera:MotionPhoto="1"
              GCamera:MotionPhotoVersion="1"
              GCamera:MotionPhotoPresentationTimestampUs="968007">
              <Container:Directory>
                <rdf:Seq>
                  <rdf:li rdf:parseType="Resource">
                    <Container:Item Item:Mime="image/jpeg" Item:Semantic="Primary" Item:Length="0" Item:Padding="0"/>
                  </rdf:li>
                  <rdf:li rdf:parseType="Resource">
                    <Container:Item Item:Mime="video/mp4" Item:Semantic="MotionPhoto" Item:Length="2494426" Item:Padding="0"/>
                  </rdf:li>
                </rdf:Seq>
              </Container:Directory>
            </rdf:Description>
          </rdf:RDF>
        </x:xmpmeta>
        <?xpacket end="w"?>
        """

    @Test func readsAttributesAndTheContainerDirectory() throws {
        let packet = try XMPPacket(Data(Self.pixel.utf8))
        #expect(packet.value(.motionPhoto) == "1")
        #expect(packet.value(.motionPhotoPresentationTimestampUs) == "968007")
        #expect(packet.directory.map { $0["Semantic"] } == ["Primary", "MotionPhoto"])
        #expect(packet.directory.last?["Length"] == "2494426")
        // Foundation's parser hands an element's attributes over unordered: the set, not the order.
        #expect(Set(packet.namespacePrefixes) == ["hdrgm", "GCamera", "Container", "Item"])
    }

    @Test func readsElementFormOtherPrefixesAndSingleQuotes() throws {
        // Same properties, written as elements under another prefix, attributes in single quotes.
        let text = """
            <x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>
            <rdf:Description rdf:about='' xmlns:cam='\(Self.camera)'>
              <cam:MicroVideo>1</cam:MicroVideo>
              <cam:MicroVideoOffset> 1234 </cam:MicroVideoOffset>
            </rdf:Description></rdf:RDF></x:xmpmeta>
            """
        let packet = try XMPPacket(Data(text.utf8))
        #expect(packet.value(.microVideo) == "1")
        #expect(packet.value(.microVideoOffset) == "1234")
        // A prefix alone does not make a name: GCamera bound to another namespace is not Google's.
        let impostor = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description xmlns:GCamera="http://example.com/other/" GCamera:MotionPhoto="1"/></rdf:RDF></x:xmpmeta>
            """
        #expect(try XMPPacket(Data(impostor.utf8)).value(.motionPhoto) == nil)
    }

    @Test func editsKeepEverythingElseAndRoundTrip() throws {
        var packet = try XMPPacket(Data(Self.pixel.utf8))
        packet.updateDirectoryItem(semantic: "MotionPhoto", with: ["Length": "99", "Extra": "x & <y>"])
        packet.replace(.motionPhoto, with: "0")
        let again = try XMPPacket(packet.data)
        #expect(again.value(.motionPhoto) == "0")
        #expect(again.directory.last?["Length"] == "99" && again.directory.last?["Extra"] == "x & <y>")
        #expect(again.value(XMPName("http://ns.adobe.com/hdr-gain-map/1.0/", "Version", prefix: "hdrgm")) == "1.0")
        let text = String(decoding: packet.data, as: UTF8.self)
        #expect(text.hasPrefix("<?xpacket begin=") && text.hasSuffix("<?xpacket end=\"w\"?>"), "the packet wrapper is kept")
        // The original is a value: editing a copy leaves it alone.
        let original = try XMPPacket(Data(Self.pixel.utf8))
        var copy = original
        copy.replace(.motionPhoto, with: "0")
        #expect(original.value(.motionPhoto) == "1" && copy.value(.motionPhoto) == "0")
    }

    @Test func aNewPacketAndMergedDescriptions() throws {
        var made = XMPPacket(toolkit: "Mattebox \"test\"")
        made.set(.motionPhoto, to: "1")
        made.setDirectory([["Semantic": "Primary", "Mime": "image/heic"]], order: ["Mime", "Semantic"])
        var existing = try XMPPacket(Data("""
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" dc:format="image/jpeg"/></rdf:RDF></x:xmpmeta>
            """.utf8))
        existing.appendDescriptions(of: made)
        let merged = try XMPPacket(existing.data)
        #expect(merged.value(XMPName("http://purl.org/dc/elements/1.1/", "format", prefix: "dc")) == "image/jpeg")
        #expect(merged.value(.motionPhoto) == "1")
        #expect(merged.directory == [["Semantic": "Primary", "Mime": "image/heic"]])
    }

    @Test func hostilePacketsAreRefusedNotFollowed() throws {
        // An external entity is never loaded: the value is not the file's contents.
        let external = """
            <!DOCTYPE x [<!ENTITY secret SYSTEM "file:///etc/hostname">]>
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description xmlns:GCamera="\(Self.camera)"><GCamera:MicroVideoOffset>&secret;</GCamera:MicroVideoOffset></rdf:Description>
            </rdf:RDF></x:xmpmeta>
            """
        let hostname = (try? String(contentsOfFile: "/etc/hostname", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        if let packet = try? XMPPacket(Data(external.utf8)) {
            #expect(packet.value(.microVideoOffset) ?? "" != hostname || hostname.isEmpty)
            #expect(!String(decoding: packet.data, as: UTF8.self).contains(hostname) || hostname.isEmpty)
        }
        #expect(throws: XMPError.self) { try XMPPacket(Data("<x:xmpmeta><rdf:RDF>".utf8)) }
        #expect(throws: XMPError.self) { try XMPPacket(Data("<a>no RDF</a>".utf8)) }
        #expect(throws: XMPError.self) { try XMPPacket(Data()) }
        let deep = String(repeating: "<a>", count: 500) + String(repeating: "</a>", count: 500)
        #expect(throws: XMPError.self) { try XMPPacket(Data(deep.utf8)) }
        // Inputs Foundation's own parser crashes on (found by fuzzing) are refused before it sees them.
        #expect(throws: XMPError.self) { try XMPPacket(Data("<?xp?>  \"XMP Co".utf8)) }
        #expect(throws: XMPError.self) { try XMPPacket(Data("<a><?pi ?></a>".utf8)) }
        #expect(throws: XMPError.self) { try XMPPacket(Data("<rdf:Descriptio".utf8) + Data([0xFF, 0xFF]) + Data("/>".utf8)) }
        // Padding NULs after the packet, as some writers leave, are not an error.
        #expect(try XMPPacket(Data(Self.pixel.utf8) + Data(count: 64)).value(.motionPhoto) == "1")
    }
}
