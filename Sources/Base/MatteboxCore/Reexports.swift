// The model's public types speak in EXIF orientations (`PhotoMetadata.orientation`),
// which live in the leaf module host and plugins share; whoever uses the model gets them.
@_exported import MatteboxGeometry
