#!/usr/bin/env python3
"""The small phone JPEGs with depth in Tests/Fuzz/Seeds (mpf-index, extended-xmp, dynamic-depth): an iPhone-style JPEG with
an MPF index and a disparity image with Apple XMP, a Lens Blur JPEG with GDepth/GImage in three
extended-XMP pieces, and a Dynamic Depth JPEG with a depth item appended. Laid out as the readers'
tests build them (Tests/MatteboxImageIOTests/PhoneDepthFixtures.swift).
Usage: make_phone_depth_seeds.py FOLDER"""
import base64, hashlib, os, struct, sys

import cv2
import numpy as np

folder = sys.argv[1]
colour = np.dstack([np.tile(np.arange(32, dtype=np.uint8) * 8, (24, 1))] * 3)
grey = np.tile(np.linspace(20, 230, 16).astype(np.uint8), (12, 1))
jpeg = lambda image: cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])[1].tobytes()
png = lambda image: cv2.imencode(".png", image)[1].tobytes()


def segment(marker, payload):
    return bytes([0xFF, marker]) + struct.pack(">H", len(payload) + 2) + payload


def after_soi(image, *segments):
    return image[:2] + b"".join(segments) + image[2:]


def xmp(namespaces, body):
    declared = "".join(f' xmlns:{k}="{v}"' for k, v in sorted(namespaces.items()))
    return (f'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
            f'<rdf:Description rdf:about=""{declared}>{body}</rdf:Description></rdf:RDF></x:xmpmeta>').encode()


def xmp_segment(packet):
    return segment(0xE1, b"http://ns.adobe.com/xap/1.0/\0" + packet)


def write(name, data):
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


# iPhone: MPF index (big-endian TIFF, three fields) listing the primary and one disparity image.
disparity = after_soi(jpeg(grey), xmp_segment(xmp({"apdi": "http://ns.apple.com/pixeldatainfo/1.0/"},
    "<apdi:AuxiliaryImageType>disparity</apdi:AuxiliaryImageType><apdi:FloatMaxValue>1.5</apdi:FloatMaxValue>"
    "<apdi:FloatMinValue>0.5</apdi:FloatMinValue>")))
primary = jpeg(colour)
entries_at = 8 + 2 + 3 * 12 + 4
payload_length = 4 + entries_at + 16 * 2
primary_length = len(primary) + 4 + payload_length
mpf = b"MPF\0" + b"MM\0\x2a" + struct.pack(">I", 8) + struct.pack(">H", 3)
mpf += struct.pack(">HHI4s", 0xB000, 7, 4, b"0100") + struct.pack(">HHII", 0xB001, 4, 1, 2)
mpf += struct.pack(">HHII", 0xB002, 7, 32, entries_at) + struct.pack(">I", 0)
mpf += struct.pack(">IIIHH", 0x20030000, primary_length, 0, 0, 0)
mpf += struct.pack(">IIIHH", 0, len(disparity), primary_length - 10, 0, 0)
write("phone-apple-mpf.jpg", after_soi(primary, segment(0xE2, mpf)) + disparity)

# Lens Blur: GDepth and GImage in extended XMP, in three pieces named by the extension's MD5.
extension = xmp({"GDepth": "http://ns.google.com/photos/1.0/depthmap/", "GImage": "http://ns.google.com/photos/1.0/image/"},
    f"<GDepth:Data>{base64.b64encode(png(grey)).decode()}</GDepth:Data>"
    f"<GImage:Data>{base64.b64encode(jpeg(colour)).decode()}</GImage:Data>")
guid = hashlib.md5(extension).hexdigest().upper()
main = xmp({"GDepth": "http://ns.google.com/photos/1.0/depthmap/", "xmpNote": "http://ns.adobe.com/xmp/note/"},
    "<GDepth:Format>RangeInverse</GDepth:Format><GDepth:Near>1</GDepth:Near><GDepth:Far>10</GDepth:Far>"
    f"<GDepth:Mime>image/png</GDepth:Mime><xmpNote:HasExtendedXMP>{guid}</xmpNote:HasExtendedXMP>")
chunk = (len(extension) + 2) // 3
pieces = [segment(0xE1, b"http://ns.adobe.com/xmp/extension/\0" + guid.encode() + struct.pack(">II", len(extension), start)
                  + extension[start:start + chunk]) for start in range(0, len(extension), chunk)]
write("phone-lens-blur.jpg", after_soi(jpeg(colour), xmp_segment(main), *pieces))

# Dynamic Depth: the directory lists the primary and a PNG depth item appended after it.
item = png(255 - grey)
ns = lambda name: f"http://ns.google.com/photos/dd/1.0/{name.lower()}/"
device = xmp({n: ns(n) for n in ("Device", "Container", "Item", "Camera", "DepthMap")},
    '<Device:Cameras><rdf:Seq><rdf:li rdf:parseType="Resource"><Device:Camera rdf:parseType="Resource">'
    '<Camera:DepthMap rdf:parseType="Resource"><DepthMap:Format>RangeInverse</DepthMap:Format><DepthMap:Near>1</DepthMap:Near>'
    '<DepthMap:Far>10</DepthMap:Far><DepthMap:DepthURI>android/depthmap</DepthMap:DepthURI></Camera:DepthMap>'
    '</Device:Camera></rdf:li></rdf:Seq></Device:Cameras><Device:Container rdf:parseType="Resource"><Container:Directory><rdf:Seq>'
    '<rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="image/jpeg" Item:Length="0"/></rdf:li>'
    f'<rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="image/png" Item:Length="{len(item)}" '
    'Item:DataURI="android/depthmap"/></rdf:li></rdf:Seq></Container:Directory></Device:Container>')
write("phone-dynamic-depth.jpg", after_soi(jpeg(colour), xmp_segment(device)) + item)
