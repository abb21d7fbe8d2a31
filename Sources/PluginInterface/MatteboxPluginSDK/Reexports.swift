// Plugins compose EXIF orientations (turning upright, mirroring on display) with
// the same math the host uses, from the leaf module both share; a plugin that
// imports the SDK has it without linking anything of the host.
@_exported import MatteboxGeometry
