import CV4L2
import Foundation
import MatteboxCapture
import MatteboxCore
import MatteboxTestSupport
import Testing

/// Camera controls through the real V4L2 control code (VIDIOC_QUERY_EXT_CTRL,
/// QUERYMENU, G/S_EXT_CTRLS) against an emulated webcam, and their effect on
/// the frames the camera streams.
@Suite struct CameraControlTests {
    private func camera(regionOfInterest: Bool = true) throws -> (CameraDevice, EmulatedV4L2) {
        let io = EmulatedV4L2()
        var spec = NumberedPictures.camera("Desk Cam", position: .back, pictures: 1)
        spec.regionOfInterest = regionOfInterest
        io.add(spec, at: "/dev/video0")
        let device = try #require(CameraDiscovery.describe(path: "/dev/video0", io: io, stableID: "desk", sysfs: nil, isReplay: false))
        return (device, io)
    }

    /// The mean of one channel (0 red, 2 blue) of a frame streamed at 320x240.
    private func mean(_ camera: CameraDevice, channel: Int = 0) throws -> Double {
        let stream = try camera.backend.openStream(camera, fourcc: .mjpeg, size: FrameSize(width: 320, height: 240), framesPerSecond: 30)
        defer { stream.stop() }
        var frame: CapturedFrame?
        for _ in 0..<20 where frame == nil { frame = try stream.nextFrame(timeoutMilliseconds: 500) }
        let image = try stream.decoder.rgbImage(of: try #require(frame))
        let pixels = image.data.assumingMemoryBound(to: UInt8.self)
        var sum = 0.0
        for offset in stride(from: 0, to: image.width * image.height * 3, by: 3) { sum += Double(pixels[offset + channel]) }
        return sum / Double(image.width * image.height)
    }

    /// The backend-neutral format codes are V4L2's own; a camera is described without V4L2's terms
    /// (its driver and bus are details), and a simulated one is unplugged through the seam.
    @Test func theCameraSeamSpeaksNoBackendsTerms() throws {
        #expect(FourCC.mjpeg.rawValue == MBX_PIX_FMT_MJPEG && FourCC.jpeg.rawValue == MBX_PIX_FMT_JPEG)
        #expect(FourCC.yuyv.rawValue == MBX_PIX_FMT_YUYV && FourCC.rgb24.rawValue == MBX_PIX_FMT_RGB24)
        #expect(FourCC.mjpeg.kind == .jpeg && FourCC.yuyv.kind == .yuyv && FourCC("NV12")?.kind == .other)
        let (camera, _) = try camera()
        #expect(camera.details["driver"] != nil && camera.details["bus"] != nil)
        #expect(camera.make == camera.details["driver"])
        let simulation = try #require(camera.backend.simulation)
        simulation.unplug(camera)
        #expect(throws: (any Error).self) { try camera.controls() }
        simulation.replug(camera)
        #expect(try !camera.controls().isEmpty)
    }

    @Test func listsControlsWithRangesMenusAndFlagsAsTheDeviceGivesThem() throws {
        let (camera, _) = try camera()
        let controls = try camera.controls()
        let byName = Dictionary(uniqueKeysWithValues: controls.map { ($0.name, $0) })
        let exposure = try #require(byName["exposure_time_absolute"])
        #expect(exposure.kind == .integer && exposure.minimum == 3 && exposure.maximum == 2047 && exposure.value == .integer(250))
        #expect(exposure.inactive, "exposure time is inactive while exposure is automatic")
        let mode = try #require(byName["auto_exposure"])
        #expect(mode.kind == .menu && mode.menu.map(\.name) == ["Manual Mode", "Aperture Priority Mode"])
        #expect(byName["power_line_frequency"]?.menu.map(\.value) == [0, 1, 2])
        #expect(byName["camera_orientation"]?.readOnly == true)
        #expect(byName["region_of_interest_rectangle"]?.kind == .rectangle)
        #expect(byName["region_of_interest_rectangle"]?.value == .rectangle(ControlRectangle(left: 0, top: 0, width: 320, height: 240)))
        #expect(try self.camera(regionOfInterest: false).0.controls().contains { $0.kind == .rectangle } == false)
    }

    @Test func manualExposureAndGainBrightenTheFramesAndWhiteBalanceTints() throws {
        let (camera, _) = try camera()
        let before = try mean(camera)
        let blueBefore = try mean(camera, channel: 2)
        // Written value-first: modes are still set before values.
        let after = try camera.setControls([("exposure_time_absolute", "500"), ("auto_exposure", "manual mode")])
        #expect(after.first { $0.name == "exposure_time_absolute" }?.inactive == false)
        let brighter = try mean(camera)
        #expect(brighter > before * 1.6, "exposure 250 -> 500 doubles the light: \(before) -> \(brighter)")
        try camera.setControls([("exposure_time_absolute", "250"), ("white_balance_automatic", "off"), ("white_balance_temperature", "2800")])
        let cooler = try mean(camera, channel: 2)
        #expect(cooler > blueBefore * 1.3, "a low white-balance temperature cools the picture: blue \(blueBefore) -> \(cooler)")
    }

    @Test func valuesAreCheckedClampedOrRefusedAsAKernelWould() throws {
        let (camera, io) = try camera()
        #expect(throws: ControlError.self) { try camera.setControls([("gain", "500")]) }
        #expect(throws: ControlError.self) { try camera.setControls([("auto_exposure", "shutter_priority")]) }
        #expect(throws: ControlError.self) { try camera.setControls([("camera_orientation", "front")]) }
        #expect(throws: ControlError.self) { try camera.setControls([("zoom", "2")]) }
        // Below the API's checks, the device itself clamps to the step and refuses read-only controls.
        let device = try V4L2Device(path: "/dev/video0", io: io)
        try device.setControl(MBX_CID_WHITE_BALANCE_TEMPERATURE, to: .integer(3004))
        #expect(try device.controlValue(MBX_CID_WHITE_BALANCE_TEMPERATURE, kind: .integer) == .integer(3000))
        #expect(throws: V4L2Error.self) { try device.setControl(MBX_CID_CAMERA_ORIENTATION, to: .integer(0)) }
    }

    @Test func theRegionOfInterestIsRecordedInsideTheFrame() throws {
        let (camera, io) = try camera()
        let controls = try camera.setControls([("region_of_interest_rectangle", "300,200,64,64")])
        // Moved to lie inside the 320x240 frame, as uvcvideo clamps to UVC's limits.
        #expect(controls.first { $0.name == "region_of_interest_rectangle" }?.value
            == .rectangle(ControlRectangle(left: 256, top: 176, width: 64, height: 64)))
        let device = try V4L2Device(path: "/dev/video0", io: io)
        #expect(try device.controlValue(MBX_CID_UVC_REGION_OF_INTEREST_RECT, kind: .rectangle)
            == .rectangle(ControlRectangle(left: 256, top: 176, width: 64, height: 64)))
    }

    @Test func theControlsCommandListsAndSetsByName() throws {
        let config = try TestEnvironment.scratchDirectory("controls-cli").appendingPathComponent("cameras.yaml")
        try """
            cameras:
              - name: Desk
                position: back
                images: [\(TestEnvironment.packageRoot.path)/Samples/photos/orientation-1.jpg]
                regionOfInterest: true
            """.write(to: config, atomically: true, encoding: .utf8)
        let set = TestEnvironment.run([
            TestEnvironment.mattebox, "controls", "--cameras", config.path, "--json", "auto_exposure=manual_mode", "gain=40",
        ])
        #expect(set.status == 0, "\(set.errors)")
        let report = try JSONSerialization.jsonObject(with: Data(set.output.utf8)) as? [String: Any] ?? [:]
        let controls = report["controls"] as? [[String: Any]] ?? []
        #expect(controls.first { $0["name"] as? String == "gain" }?["value"] as? Int == 40)
        #expect(controls.first { $0["name"] as? String == "auto_exposure" }?["value"] as? Int == 1)
        let wrong = TestEnvironment.run([TestEnvironment.mattebox, "controls", "--cameras", config.path, "gain=lots"])
        #expect(wrong.status == 1 && wrong.errors.contains("gain takes a whole number"), "\(wrong.errors)")
        let text = TestEnvironment.run([TestEnvironment.mattebox, "controls", "--cameras", config.path])
        #expect(text.output.contains("exposure_time_absolute (integer) : min=3 max=2047"), "\(text.output)")
    }
}
